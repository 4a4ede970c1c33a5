"""The memory per GPU is the worst pipeline stage's, and full recomputation counts the layer it
rebuilds (kb/memory-model.ttl: formulas first-stage-activations, last-stage-activations,
worst-stage-activations, rebuilt-layer-activations).

Under 1F1B the first stage holds p micro-batches of its L/p layers (Korthikanti et al. Section
4.2.3, Eq. 5), the last one micro-batch of its layers plus the output layer's fp32 logits
(Section 4.3, Appendix B); full recomputation keeps each layer's input and rebuilds one layer at
a time in the backward pass (Chen et al. Section 4.3, Eq. 1)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from recipekg.plan.evaluator import Evaluator
from recipekg.plan.inputs import read_inputs
from recipekg.plan.kbview import KBView
from recipekg.plan.ledger import Ledger
from recipekg.plan.methods import read_method
from recipekg.plan.shape import model_shape, optimizer_state_bytes
from recipekg.query.parser import parse

LLAMA3_128K = "plan where model = llama-3-8b and seq-length = 128k and gpus = 8 and hardware = h100"
S, H, V, L = 128_000, 4096, 128_256, 32                                     # Llama 3 8B at 128k
LLAMA3_LAYER = 14 + 4 * 8 / 32 + 2 * 4 * 14336 / 4096                        # bytes per token and hidden unit, flash


def q(answer: dict, name: str) -> dict:
    return next(x for x in answer["quantities"] if x["name"] == name)


def parts(answer: dict) -> dict:
    return {p["name"]: p["value"] for p in q(answer, "memory_per_gpu")["per_gpu_parts"]}


def evaluator(snap, statement: str) -> Evaluator:
    ledger = Ledger(KBView(snap))
    inputs = read_inputs(parse(statement)[0], snap)
    return Evaluator(ledger, inputs.params, model_shape(ledger, inputs, inputs.params),
                     optimizer_state_bytes(ledger, inputs)[0], read_method(ledger, inputs), inputs)


# ------------------------------------------------------------------ the last stage

def test_the_last_stage_bounds_the_memory_with_a_large_vocabulary_and_sequence(run_plan):
    """Llama 3 8B at 128k tokens on two stages: ~68 GB of fp32 logits per sequence on the last."""
    a = run_plan(LLAMA3_128K + " and pipeline-parallel = 2 and tensor-parallel = 1 and zero = 1 and recompute = full")
    logits = 4 * S * (H + V)
    stored, rebuilt = 2 * S * H * L, S * H * LLAMA3_LAYER
    assert q(a, "logits_activations")["value"] == pytest.approx(logits)
    assert q(a, "first_stage_activations")["value"] == pytest.approx(stored + rebuilt)
    assert q(a, "last_stage_activations")["value"] == pytest.approx(stored / 2 + rebuilt + logits)
    fit = a["fit"]
    assert fit["bounding_stage"] == "last" and q(a, "memory_per_gpu")["bounding_stage"] == "last"
    first, last = fit["stages"]
    assert (first["stage"], first["microbatches_in_flight"], last["stage"], last["microbatches_in_flight"]) == \
        ("first", 2, "last", 1)
    assert last["memory_per_gpu"]["high"] == fit["need_per_gpu"]["high"] > first["memory_per_gpu"]["high"]
    assert not fit["fits"] and "the last pipeline stage bounds it" in fit["text"]
    assert parts(a)["logits"] == pytest.approx(logits)
    assert sum(parts(a).values()) == pytest.approx(q(a, "memory_per_gpu")["value"])


def test_the_layout_search_counts_the_last_stage(run_plan):
    """The answer once said ZeRO 1, pipeline 2, full recomputation fits in 62.2-63.7 GB; its last
    stage needs ~136 GB. The search now picks a layout whose every stage fits."""
    a = run_plan(LLAMA3_128K)
    fit, layout = a["fit"], a["fit"]["layout"]
    assert fit["fits"] and fit["need_per_gpu"]["high"] <= 80e9
    assert not (layout["pipeline_parallel"] == 2 and layout["tensor_parallel"] == 1)
    if layout["pipeline_parallel"] == 1:
        assert fit["bounding_stage"] == "only" and "stages" not in fit
        assert parts(a)["logits"] == pytest.approx(4 * S * (H + V) / layout["tensor_parallel"])


def test_the_first_stage_bounds_a_small_vocabulary(run_plan):
    a = run_plan("plan where model = llama-2-7b and hardware = a100 and gpus = 8 and pipeline-parallel = 4 "
                 "and tensor-parallel = 1 and recompute = none and seq-length = 4096")
    assert a["fit"]["bounding_stage"] == "first" and "logits" not in parts(a)
    assert q(a, "activations_worst_stage")["value"] == pytest.approx(q(a, "first_stage_activations")["value"])
    assert "the first pipeline stage bounds it, with 4 micro-batches in flight" in a["fit"]["text"]


def test_megatrons_first_stage_formula_agrees(run_plan):
    """Megatron-LM's theoretical count (compute_activation_memory: 'all calculations in this
    function are for the first pipeline stage') for GPT-3 175B, t = 8, p = 8, selective
    recomputation: sbh(18 + 4f/h)·L plus the embedding's input and dropout for p micro-batches,
    over t; plan's first stage leaves the embedding's 25 MB out."""
    a = run_plan("plan where params = 174566289408 and layers = 96 and hidden = 12288 and heads = 96 and vocab = 50272 "
                 "and hardware = a100 and gpus = 1024 and zero = 1 and tensor-parallel = 8 and pipeline-parallel = 8 "
                 "and seq-length = 2048 and micro-batch = 1 and recompute = selective")
    s, b, h, f, layers, p, t = 2048, 1, 12288, 4 * 12288, 96, 8, 8
    megatron = (s * b * h * (18 + 4 * f / h) * layers + 8 * s * b * p + s * b * h * p) / t
    assert q(a, "first_stage_activations")["value"] == pytest.approx(megatron, rel=0.005)
    assert a["fit"]["bounding_stage"] == "first"


# ------------------------------------------------------------------ the rebuilt layer

@pytest.mark.parametrize("attention, per_layer", [
    ("flash", 14 + 4 + 2 * 4 * 11008 / 4096),
    ("standard", 14 + 4 + 2 * 4 * 11008 / 4096 + 5 * 32 * 4096 / 4096),
])
def test_full_recomputation_counts_the_layer_it_rebuilds(run_plan, attention, per_layer):
    base = ("plan where model = llama-2-7b and hardware = h100 and gpus = 8 and seq-length = 4096 and zero = 1 "
            f"and tensor-parallel = 1 and pipeline-parallel = 1 and attention = {attention} and recompute = ")
    full, none = run_plan(base + "full"), run_plan(base + "none")
    rebuilt = q(full, "rebuilt_layer_activations")["value"]
    assert rebuilt == pytest.approx(4096 * 4096 * per_layer)
    assert rebuilt == pytest.approx(q(none, "activations")["value"] / 32)           # one of the 32 layers
    assert parts(full)["rebuilt_layer"] == pytest.approx(rebuilt)
    assert parts(full)["activations"] == pytest.approx(2 * 4096 * 4096 * 32)        # the stored inputs
    assert sum(parts(full).values()) == pytest.approx(q(full, "memory_per_gpu")["value"])
    assert "rebuilt_layer" not in parts(none)


@pytest.mark.parametrize("attention, per_layer", [("flash", 0), ("standard", 5 * 32 * 4096 / 4096)])
def test_selective_recomputation_counts_the_scores_it_rebuilds(run_plan, attention, per_layer):
    """Selective recomputation keeps all but the attention scores and recomputes those of one
    layer at a time in the backward pass (QA round 4, F2): with attention = standard that layer's
    5·a·s²·b/t bytes come on top of what it keeps (the 32K-token run that fit at 57 of 80 GB
    needed 42 GB more); under FlashAttention the kernel never stores them, so nothing does."""
    base = ("plan where model = llama-2-7b and hardware = h100 and gpus = 8 and seq-length = 4096 and zero = 1 "
            f"and tensor-parallel = 1 and pipeline-parallel = 1 and attention = {attention} and recompute = ")
    selective, none = run_plan(base + "selective"), run_plan(base + "none")
    kept = 4096 * 4096 * 32 * (14 + 4 + 2 * 4 * 11008 / 4096)
    assert q(selective, "activations")["value"] == pytest.approx(kept)
    if not per_layer:
        assert "rebuilt_layer" not in parts(selective)
        return
    rebuilt = q(selective, "rebuilt_layer_activations")["value"]
    assert rebuilt == pytest.approx(4096 * 4096 * per_layer)                        # 5·a·s²·b, one layer
    assert rebuilt == pytest.approx((q(none, "activations")["value"] - kept) / 32)
    assert parts(selective)["rebuilt_layer"] == pytest.approx(rebuilt)
    assert sum(parts(selective).values()) == pytest.approx(q(selective, "memory_per_gpu")["value"])


def test_without_a_pipeline_only_the_rebuilt_layer_is_new(snap):
    """p = 1: the memory is the model states, every layer's activations, the logits, the buffers
    and the headroom, as before; full recomputation adds one layer (selective recomputation,
    under the default FlashAttention, none)."""
    memo = evaluator(snap, "plan where model = llama-3-8b and hardware = h100 and gpus = 8 and seq-length = 8192")
    for zero in (0, 1, 3):
        for tp in (1, 2, 8):
            for rec in ("none", "selective", "full"):
                lay = memo.layout((zero, tp, 1, rec), 8)
                before = lay["states"] + memo.activations_per_gpu(rec, tp) + memo.logits_per_gpu(tp) + \
                    lay["buffers"] + lay["headroom"]
                extra = memo.rebuilt_layer(rec, tp).value
                assert (extra > 0) == (rec == "full") and lay["stage"]["bound"] == "only"
                assert lay["per_gpu"].value == pytest.approx(before.value + extra)
                assert lay["per_gpu"].high == pytest.approx(before.high + extra)


# ------------------------------------------------------------------ the worst stage, always

_MODELS = ["llama-3-8b", "llama-2-7b", "llama-2-70b"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(model=st.sampled_from(_MODELS), seq=st.sampled_from([2048, 8192, 32768, 131072]),
       zero=st.sampled_from([0, 1, 3]), tp=st.sampled_from([1, 2, 8]), pp=st.sampled_from([1, 2, 4, 8]),
       rec=st.sampled_from(["none", "selective", "full"]), attention=st.sampled_from(["flash", "standard"]),
       micro=st.sampled_from([1, 2]))
def test_the_memory_per_gpu_holds_every_stage(snap, model, seq, zero, tp, pp, rec, attention, micro):
    memo = evaluator(snap, f"plan where model = {model} and hardware = h100 and gpus = 64 and seq-length = {seq} "
                           f"and attention = {attention} and micro-batch = {micro}")
    lay = memo.layout((zero, tp, pp, rec), 64)
    stage, rest = lay["stage"], lay["states"] + lay["buffers"] + lay["headroom"]
    for name in ("first", "last"):
        assert lay["per_gpu"].value >= (rest + stage[name]).value * (1 - 1e-12)
        assert lay["per_gpu"].high >= (rest + stage[name]).high * (1 - 1e-12)
    worst = max(("first", "last"), key=lambda n: stage[n].value)
    assert lay["per_gpu"].value == pytest.approx((rest + stage[worst]).value)
    assert stage["bound"] == ("only" if pp == 1 else worst)
    assert stage["logits"].value > 0                                # the vocabulary is known: on the last stage
