"""A question is not asked for a rule that restates a claim already holding: rules of one
section restate one claim (the reference's OR split in two rules), and the scoring counts only
the strongest of them, so a rule waiting for a dimension, no stronger than a rule of its section
that holds for the same choice on the same side, adds nothing the answer does not hold."""

from __future__ import annotations

import pytest

from recipekg.reason.ask import _open_dimensions

SERVED = "method = inference and model = llama-3-70b and hardware = a100 and gpus = 2"
HOLDING = "https://w3id.org/recipekg/rule/dgx-spark-paged-attention"  # (names PagedAttention alone, as GENERATION)
OTHER = "https://w3id.org/recipekg/rule/serving-over-one-gpu-tensor-parallelism"
GENERATION = "https://w3id.org/recipekg/rule/serving-generation-paged-attention"


def _result(rule: str, match: str, strength: str, section: str, status: str) -> dict:
    return {"iri": "x", "because": [{"rule": rule, "match": match, "strength": strength, "section": section,
                                     "conditions": [{"condition": "task = generation", "dimension": "task",
                                                     "status": status}]}], "against": []}


def test_only_a_rule_no_stronger_than_the_claim_holding_is_a_restatement(kb, snap):
    from recipekg.reason.resolve import facts_of
    from recipekg.query.parser import parse

    facts = facts_of(parse(f"recommend technique where {SERVED}")[0].constraints, snap)
    given = {n: f for n, f in facts.items() if not f.derived}
    holding = _result(HOLDING, "full", "moderate", "S", "held")["because"]
    for strength, asked in (("moderate", False), ("weak", False), ("strong", True)):
        waiting = _result(GENERATION, "partial", strength, "S", "not given")["because"]
        result = {"iri": "x", "because": holding + waiting, "against": []}
        assert ("task" in _open_dimensions([result], given, facts, snap, False)) is asked, strength
    # another section's claim is news: its dimension is asked about
    other = {"iri": "x", "because": holding + _result(GENERATION, "partial", "moderate", "T", "not given")["because"],
             "against": []}
    assert "task" in _open_dimensions([other], given, facts, snap, False)
    # a rule of the section naming other choices makes another claim (LARS of "LAMB or LARS")
    other = {"iri": "x", "because": _result(OTHER, "full", "strong", "S", "held")["because"]
             + _result(GENERATION, "partial", "moderate", "S", "not given")["because"], "against": []}
    assert "task" in _open_dimensions([other], given, facts, snap, False)


def test_the_reference_s_narrowing_question_stays(kb):
    (a,) = kb.query("recommend optimizer where batch-size >= 64k top 3")
    assert [q["would_change"] for q in a["ask"] if q["dimension"] == "architecture"] == [
        ["layerwise-adaptive-optimizers", "lars"]], a["ask"]


def test_a_served_decoder_is_not_asked_for_its_task(kb):
    """Audits 4/11, 5/10: a served Llama was asked for "the task" to decide between KV-cache
    quantization and PagedAttention. Serving a decoder-only language model is generating: the
    decoder's rule holds, and the rule waiting for the task restates it."""
    (a,) = kb.query("recommend technique where method = inference and model = llama-3-70b and hardware = a100 "
                    "and gpus = 2 and batch-size = 16 and seq-length = 4k")
    assert a["decision"]["pick"] == "kv-cache-quantization", "kv-load is over 100%: the cache does not fit"
    assert all(q["dimension"] != "task" for q in a["ask"]), a["ask"]
    paged = next(r for r in a["results"] if r["id"] == "paged-attention")
    assert paged["group"] == "matches"
    assert "serving-decoder-paged-attention" in {r["id"] for r in paged["because"] if r["match"] == "full"}


def test_an_encoder_served_still_waits_for_the_task(kb):
    (a,) = kb.query("recommend technique where method = inference and architecture = bert")
    paged = [r for r in a["results"] if r["id"] == "paged-attention"]
    assert not paged or paged[0]["group"] != "matches", "an encoder does not generate: nothing holds for it"


@pytest.mark.parametrize("text", [
    "recommend approach where data = text and task = classification and examples = 60",
    "recommend approach where params = 7B and gpus = 1 and hardware = rtx-4090 and time = 3 days",
])
def test_the_approach_is_not_decided_by_asking_for_the_method_it_is(kb, text):
    """LoRA, full fine-tuning, pretraining are approaches and, as training methods, values of
    ``method`` (``rkg:asMethod``): "to decide between few-shot prompting and fine-tuning, give the
    method" asks the user for the answer (QA round 3, q48). Other kinds still ask for it."""
    (a,) = kb.query(text)
    assert "method" not in {q["dimension"] for q in a["ask"]}
    (b,) = kb.query("recommend technique where prefer = low-memory")
    assert "method" in {q["dimension"] for q in b["ask"]}
