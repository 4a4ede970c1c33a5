"""Running out of memory is a memory problem: ``symptom = out-of-memory`` implies
``prefer = low-memory`` (``rkg:impliesValue``), shown as derived from the symptom. The fix kind
has no rule for it (the reference's failure table does not list it), so its answer points to the
kinds whose memory advice decides (audit 3/23, 4/17: it used to say only "No fix rule applies",
or point to AdamW)."""

from __future__ import annotations

import pytest

MEMORY_SAVINGS = {"gradient-checkpointing", "quantized-optimizer-states", "adam-8bit", "qlora", "lora", "fsdp",
                  "adafactor", "gradient-accumulation"}


def _implied(answer: dict) -> dict | None:
    return next((c for c in answer["constraints"] if c["dimension"] == "prefer"), None)


@pytest.mark.parametrize("situation", [
    "hardware = rtx-4090 and params = 7B",
    "model = llama-3-8b and method = lora and seq-length = 32k and hardware = a100 and gpus = 1",
])
def test_an_out_of_memory_fix_points_to_memory_savings(kb, situation):
    (fix,) = kb.query(f"recommend fix where symptom = out-of-memory and {situation}")
    prefer = _implied(fix)
    assert prefer and prefer["value"] == "low-memory" and prefer.get("derived_from") == "symptom"
    assert fix["elsewhere"], "the answer points to the kinds whose advice decides"
    assert all(e["verdict"] == "for" and e["choice"] in MEMORY_SAVINGS | {"adam-8bit"} for e in fix["elsewhere"]), \
        fix["elsewhere"]
    (technique,) = kb.query(f"recommend technique where symptom = out-of-memory and {situation}")
    assert technique["decision"]["pick"] in MEMORY_SAVINGS


def test_a_given_preference_is_kept(kb):
    (a,) = kb.query("recommend technique where symptom = out-of-memory and prefer = stability")
    assert _implied(a)["value"] == "stability" and not _implied(a).get("derived_from")


@pytest.mark.parametrize("method", ["qlora", "lora"])
def test_the_fix_never_points_to_the_method_the_run_already_uses(kb, method):
    """A run already in QLoRA that runs out of memory is not told "the approach advice picks
    QLoRA": a pick that is the user's own choice is no advice to them (the review of session 12)."""
    (fix,) = kb.query(f"recommend fix where symptom = out-of-memory and method = {method} "
                      "and model = llama-3-70b and hardware = a100 and gpus = 1")
    assert fix["elsewhere"], "the other kinds' memory advice still answers"
    assert all(e["choice"] != method for e in fix["elsewhere"] if e["verdict"] == "for"), fix["elsewhere"]


def test_every_way_of_training_from_scratch_is_advised_against_when_it_does_not_fit(kb):
    """Chinchilla-optimal and inference-optimal training train every weight from scratch, at a
    size and token budget of their own: a run over its GPUs' memory gets the same advice against
    them as against training from scratch (audit 15/07: an 8B model on one 24 GB GPU listed
    Chinchilla-optimal training among the matches)."""
    (a,) = kb.query("recommend approach where data = text and task = generation and pretrained = yes and params = 8B "
                    "and samples = 50k and hardware = rtx-3090 and gpus = 1")
    by_id = {r["id"]: r for r in a["results"]}
    for choice in ("chinchilla-optimal-training", "inference-optimal-training"):
        r = by_id[choice]
        assert r["group"] == "matches" and r["score"] < 0, (choice, r["group"], r["score"])  # (advised against)
        assert any(x["id"] == "memory-over-train-from-scratch" for x in r["against"])
    (fits,) = kb.query("recommend approach where params = 1B and method = pretrain and hardware = h100 and gpus = 8 "
                       "and time = 1 week")
    assert not any(x["id"] == "memory-over-train-from-scratch" for r in fits["results"] for x in r.get("against", ()))


@pytest.mark.parametrize("situation", [
    "hardware = rtx-4090 and method = lora and params = 13B",
    "hardware = rtx-4090 and method = lora and params = 13B and gpus = 1",
    "model = llama-3-8b and method = qlora and hardware = t4 and gpus = 1",
])
def test_the_fix_points_to_no_choice_its_own_kind_advises_against(kb, situation):
    """QA round 5, Q22: the fix said "the optimizer advice ... is for 8-bit Adam", a narrower
    choice of the pick (AdamW) that the optimizer answer itself advises against for adapters.
    Every choice pointed to is one whose own answer has no applying advice against it."""
    (fix,) = kb.query(f"recommend fix where symptom = out-of-memory and {situation}")
    for e in fix["elsewhere"]:
        if e["verdict"] != "for":
            continue
        (other,) = kb.query(e["query"])
        (r,) = [r for r in other["results"] if r["id"] == e["choice"]]
        assert not any(x["match"] in ("full", "general", "near") for x in r.get("against") or ()), (e, r["against"])
    assert all(e["choice"] != "adam-8bit" for e in fix["elsewhere"])
