"""A run has one training precision. When the user gives it, a technique of another precision
(bf16 training under fp8) is no technique to add to the run: it is picked, or listed as a
match, only where advice for the user's own precision speaks for it (fp16 → bf16), never by
general advice every run gets ("train in bf16 rather than fp16" for a run in fp8, audit 4/13)."""

from __future__ import annotations

import pytest

SITUATION = "method = pretrain and params = 70B and hardware = h100 and gpus = 2048"


def _moves_from(snap, choice: str) -> set[str]:
    """The precisions a technique says it is the move from (its one-of precision property)."""
    props, iri = snap["choice_properties"], snap["rule_index"]["choices"][choice]
    return {snap["nodes"][v]["id"] for piri in snap["properties_by_choice"].get(iri, ())
            if (p := props[piri])["check"] and p["check"]["dimension"] == "precision" and p["test"] == "one-of"
            and "technique" in (p["for_kinds"] or ["technique"]) for v in p["check"]["values"]}


def _precision_choices(snap) -> dict[str, str]:
    """The techniques of the recipe's precision section, with the precision each is."""
    props = snap["choice_properties"]
    out = {}
    for iri, node in snap["nodes"].items():
        for piri in snap["properties_by_choice"].get(iri, ()):
            p = props[piri]
            if p["check"] and p["check"]["dimension"] == "precision" and p["test"] == "none-of" and not p["when"]:
                out[node["id"]] = snap["nodes"][p["check"]["values"][0]]["id"]
    return out


def test_the_precision_techniques_are_known(snap):
    assert set(_precision_choices(snap).items()) >= {("bf16-training", "bf16"), ("fp8-training", "fp8"),
                                                     ("fp4-training", "fp4")}


@pytest.mark.parametrize("precision", ["fp8", "fp4", "bf16", "fp16", "fp32"])
def test_another_precision_is_matched_only_by_advice_for_the_users_own(kb, snap, precision):
    (a,) = kb.query(f"recommend technique where {SITUATION} and precision = {precision}")
    if precision == "fp4":  # the H100's tensor cores run no fp4: the answer reads the hardware instead, and says so
        assert any(u["dimension"] == "precision" and "tensor-precision" in u["why"] for u in a["unused"])
        return
    own = _precision_choices(snap)
    matching = [r for r in a["results"] if r["group"] == "matches" and r["score"] > 0]
    for r in matching:
        if r["id"] in own and own[r["id"]] != precision:
            reads = {c["dimension"] for b in r["because"] for c in b["conditions"]}
            assert "precision" in reads or precision in _moves_from(snap, r["id"]), (r["id"], precision)
    if own.get(a["decision"]["pick"] or "") not in (None, precision):
        assert any(r["id"] == a["decision"]["pick"] for r in matching)


def test_fp8_keeps_fp8_and_fp16_still_moves_to_bf16(kb):
    (fp8,) = kb.query(f"recommend technique where {SITUATION} and precision = fp8")
    assert fp8["decision"]["pick"] not in ("bf16-training", "fp16-mixed-precision", "fp8-training")
    excluded = {e["id"]: e for e in fp8["excluded"]}
    assert {"bf16-training", "fp8-training"} <= set(excluded)
    (fp16,) = kb.query(f"recommend technique where {SITUATION} and precision = fp16")
    assert fp16["decision"]["pick"] == "bf16-training"


def test_nans_in_fp16_without_bf16_get_a_dynamic_loss_scale(kb):
    """On a V100 (no bf16 tensor cores) the reference's 'switch to bf16' is ruled out; the fix
    beyond its table is the dynamic loss scale of fp16 mixed precision (Micikevicius et al.,
    Section 3.2: skip the overflowing step), said as not curing a forward-pass overflow. It is
    no fix for a run in bf16 (audit 4/15)."""
    (v100,) = kb.query("recommend fix where symptom = nan and precision = fp16 and hardware = v100")
    assert v100["decision"]["pick"] in ("fp16-mixed-precision", "reorder-normalization")
    ids = [r["id"] for r in v100["results"] if r["group"] == "matches"]
    assert {"fp16-mixed-precision", "reorder-normalization"} <= set(ids)
    rule = next(b for r in v100["results"] if r["id"] == "fp16-mixed-precision" for b in r["because"])
    assert "skips that step's weight update" in rule["text"] and "does not cure an overflow in the forward pass" in rule["text"]
    assert [s["where"] for s in rule["sources"] if s["id"] == "micikevicius2017"] == ["Section 3.2"]
    (bf16,) = kb.query("recommend fix where symptom = nan and precision = bf16")
    assert "fp16-mixed-precision" in {e["id"] for e in bf16["excluded"]} and bf16["decision"]["pick"] is None
