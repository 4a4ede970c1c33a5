"""An adapter fine-tune that fits one GPU only with its activations recomputed (audit 11/07:
QLoRA of Llama 2 13B on a 24 GB GPU at 2,048 tokens; plan needed full recomputation, recommend
waited for ``prefer`` before gradient checkpointing). stored-floor counts what one sequence
stores without recomputation beside the frozen base, with the model's own activation count
(plan's formula:activations-flash: its key-value heads, its MLP's width and matrices)."""

from __future__ import annotations

import pytest

QLORA_24GB = "model = llama-2-13b and method = qlora and gpu-memory = 24GB and gpus = 1 and seq-length = 2048"


def _shown(answer):
    return {c["dimension"]: c for c in answer["constraints"]}


def _constant(snap, symbol):
    return next(c for c in snap["constants"].values() if c["symbol"] == symbol)


def test_stored_floor_is_plan_s_count_without_recomputation(kb, snap):
    (a,) = kb.query(f"recommend technique where {QLORA_24GB}")
    low, high = _shown(a)["stored-floor"]["value"]
    m = snap["models"]["https://w3id.org/recipekg/id/llama-2-13b"]
    s, h = 2048, m["hidden"]
    per_layer = 14 + 4 * m["kv_heads"] / m["heads"] + 2 * 4 * m["ffn_hidden"] / h   # a gated MLP: 4 tensors
    base = (4 + 0.127) / 8 * m["params"]
    kept = base + per_layer * s * h * m["layers"] + 4 * s * (h + m["vocab"])
    fw = _constant(snap, "c_framework_memory_bytes")
    assert low == pytest.approx((kept + fw["low"]) / 24e9, rel=2e-3)
    assert high == pytest.approx((kept + fw["high"]) / 24e9, rel=2e-3)


def test_over_the_gpu_without_recomputation_and_within_with_it_checkpointing_is_the_pick(kb):
    (a,) = kb.query(f"recommend technique where {QLORA_24GB}")
    shown = _shown(a)
    assert shown["stored-floor"]["value"][0] > 1 >= shown["recompute-floor"]["value"][1]
    assert a["results"][0]["id"] == "gradient-checkpointing"
    assert a["results"][0]["because"][0]["id"] == "stored-floor-over-one-gpu-gradient-checkpointing"
    assert a["results"][0]["because"][0]["strength"] == "strong"
    assert not any(u["dimension"] == "gpu-memory" for u in a.get("unused", ()))
    # plan agrees: on that GPU the run fits only with every layer recomputed
    (p,) = kb.query(f"plan where {QLORA_24GB}")
    assert p["fit"]["verdict"] == "fits" and p["fit"]["layout"]["recompute"] == "full"


def test_a_gpu_that_holds_the_stored_activations_gets_no_such_reason(kb):
    (a,) = kb.query(f"recommend technique where {QLORA_24GB.replace('24GB', '80GB')}")
    assert _shown(a)["stored-floor"]["value"][1] < 1
    reasons = {r["id"] for res in a["results"] for r in res["because"]}
    assert "stored-floor-over-one-gpu-gradient-checkpointing" not in reasons


def test_a_given_mlp_shape_is_planned_as_the_configuration_s(kb):
    """ffn-hidden and ffn-matrices, given, are read as a named model's configuration is: the
    same activations as Llama 2 7B's own shape."""
    def activations(text):
        (p,) = kb.query(text)
        return next(q["value"] for q in p["quantities"] if q["name"] == "activations")

    tail = "seq-length = 4096 and hardware = a100 and gpus = 1 and method = lora"
    named = activations(f"plan where model = llama-2-7b and {tail}")
    given = activations(f"plan where params = 6.74B and layers = 32 and hidden = 4096 and heads = 32 and "
                        f"ffn-hidden = 11008 and ffn-matrices = 3 and {tail}")
    plain = activations(f"plan where params = 6.74B and layers = 32 and hidden = 4096 and heads = 32 and {tail}")
    assert given == pytest.approx(named) and plain < given
