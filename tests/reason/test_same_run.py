"""Another section's pick is another part of the pick's own run: a pretraining strategy is not
asked for, nor shown alongside, when the pick is fine-tuning a pretrained model (audit 5/16: a
300-example classifier was asked for the inference budget "to settle on Inference-optimal
training")."""

from __future__ import annotations

FEW = "data = text and task = classification and samples = 300 and hardware = t4 and gpus = 1"


def _approach(kb, text: str) -> dict:
    (a,) = kb.query(f"recommend approach where {text}")
    return a


def test_no_question_leads_to_a_part_of_another_run(kb):
    a = _approach(kb, FEW)
    assert a["decision"]["pick"] == "fine-tune-pretrained"
    assert all("inference-optimal-training" not in q["would_change"] for q in a["ask"]), a["ask"]


def test_nor_is_one_shown_alongside(kb):
    a = _approach(kb, f"{FEW} and inference-budget = tight")
    assert a["decision"]["pick"] == "fine-tune-pretrained"
    assert all(e["pick"] != "inference-optimal-training" for e in a["decision"].get("alongside", ()))
    assert "inference-optimal-training" in {r["id"] for r in a["results"]}, "it is still ranked, as advice"


def test_parts_of_the_same_run_stay(kb):
    a = _approach(kb, "params = 176B and method = pretrain and hardware = a100 and gpus = 384 and time = 4 months")
    assert {e["pick"] for e in a["decision"]["alongside"]} >= {"chinchilla-optimal-training", "train-from-scratch"}
