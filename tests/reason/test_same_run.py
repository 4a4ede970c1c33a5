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
    # QA round 5 (Q11, P07): a classifier is not sized by a pretraining ratio; it is ruled out, and says why
    assert "inference-optimal-training" not in {r["id"] for r in a["results"]}
    (out,) = [e for e in a["excluded"] if e["id"] == "inference-optimal-training"]
    assert out["because_of"] and "classifier" in out["why"]


def test_parts_of_the_same_run_stay(kb):
    a = _approach(kb, "params = 176B and method = pretrain and hardware = a100 and gpus = 384 and time = 4 months")
    assert {e["pick"] for e in a["decision"]["alongside"]} >= {"chinchilla-optimal-training", "train-from-scratch"}


def test_a_text_classifier_is_not_sized_by_a_pretraining_ratio(kb):
    """QA round 5, P07: with goal = research, Chinchilla-optimal training was the pick for a
    200k-example text classifier. Both sizing ratios are now ruled out for a classifier (their
    papers size language models by their pretraining tokens), and goal, which only their rules
    read, is said unused with that reason instead of being silently dropped."""
    a = _approach(kb, "data = text and task = classification and examples = 200k and inference-budget = tight "
                      "and goal = research")
    assert {"chinchilla-optimal-training"} <= {e["id"] for e in a["excluded"]}
    assert a["decision"]["pick"] in ("distillation", "fine-tune-pretrained")
    (goal,) = [u for u in a["unused"] if u["dimension"] == "goal"]
    assert "Chinchilla-optimal training" in goal["why"] and "ruled out" in goal["why"]
    b = _approach(kb, "data = text and task = generation and tokens = 1T and goal = research")
    assert "chinchilla-optimal-training" not in {e["id"] for e in b["excluded"]}
    assert not any(u["dimension"] == "goal" for u in b["unused"])
