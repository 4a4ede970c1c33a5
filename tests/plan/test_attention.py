"""The attention's own FLOPs in a training run's time (audit 13/16, 14/18;
docs/research/attention-flops.md): the KB's count reproduces PaLM's stated MFU with and without
self-attention, a plan times its model FLOPs (6·N·D and the attention's at its sequence), the
published runs' MFUs are implied on the same count, and planning backwards leaves the attention
its share of the budget."""

from __future__ import annotations

import pytest

from recipekg.plan.kbview import KBView


def q(answer: dict, name: str) -> dict:
    return next(x for x in answer["quantities"] if x["name"] == name)


def constant(snap: dict, symbol: str) -> float:
    return next(c["value"] for c in snap["constants"].values() if c["symbol"] == symbol)


def test_the_constant_reproduces_palms_mfu_with_and_without_self_attention(snap):
    """PaLM, Appendix B: 238.3K tokens/s on 6,144 TPU v4 chips of 275 TFLOP/s is an MFU of 45.7%
    by 6N (540B) and 46.2% with self-attention; 118 layers, 48 heads of 256, 2,048 tokens. A width of
    its d_model (18,432) would give 46.45%, outside the stated figure's rounding."""
    twelve = constant(snap, "c_mfu_attention_flops_per_layer_ctx_width")
    six = constant(snap, "c_flops_per_param_token")
    per_chip = 238.3e3 / 6144 / 275e12
    without = six * 540e9 * per_chip
    assert round(without * 100, 1) == 45.7
    with_attention = (six * 540e9 + twelve * 118 * 2048 * 48 * 256) * per_chip
    assert round(with_attention * 100, 1) == 46.2
    assert round((six * 540e9 + twelve * 118 * 2048 * 18432) * per_chip * 100, 1) != 46.2


def test_a_long_sequence_plan_times_its_attention(run_plan, snap):
    """Llama 2 7B with LoRA at 32,768 tokens: attention = 12 · 32 · 32,768 · 4,096 per token, more
    than the frozen base's FLOPs; the GPU-hours are the model FLOPs at the MFU; the summary says so."""
    a = run_plan("plan where model = llama-2-7b and method = lora and tokens = 2B and seq-length = 32768 "
                 "and hardware = a100 and gpus = 8")
    attention, flops = q(a, "attention_flops"), q(a, "flops")
    twelve = constant(snap, "c_mfu_attention_flops_per_layer_ctx_width")
    assert attention["value"] == pytest.approx(twelve * 32 * 32768 * 4096 * 2e9, rel=1e-3)
    assert attention["value"] > flops["value"]
    assert attention["formula"]["id"] == "training-attention-flops"
    assert {"chowdhery2022", "narayanan2021"} <= {s["id"] for s in attention["sources"]}
    peak = KBView(snap).peak(snap["dimensions"]["hardware"]["values"]["a100"])
    mfu, hours = q(a, "mfu"), q(a, "gpu_hours")
    assert hours["value"] == pytest.approx((flops["value"] + attention["value"]) / (peak * mfu["value"] * 3600), rel=1e-6)
    line = next(x for x in a["summary"] if x.startswith("time:"))
    assert "counting the attention's" in line and "32,768 tokens" in line


def test_the_attention_share_grows_with_the_sequence_and_a_window_caps_it(run_plan):
    """The share is s / (6 · hidden) of 6·N·D for a model of 12·L·h² parameters: doubling the
    sequence doubles the attention; Mistral 7B's 4,096-token window caps it at any longer sequence."""
    at = {s: run_plan(f"plan where model = llama-2-7b and tokens = 1B and seq-length = {s} and hardware = h100")
          for s in (2048, 4096)}
    assert q(at[4096], "attention_flops")["value"] == pytest.approx(2 * q(at[2048], "attention_flops")["value"],
                                                                    rel=1e-6)
    windowed = {s: q(run_plan(f"plan where model = mistral-7b and tokens = 1B and seq-length = {s} and hardware = h100"),
                     "attention_flops")["value"] for s in (4096, 16384)}
    assert windowed[16384] == pytest.approx(windowed[4096], rel=1e-6)


def test_the_time_line_names_the_window_that_caps_the_attention(run_plan):
    """The attention is counted at the window, not the sequence: the summary says both (it said
    "at 16,384 tokens" alone while counting 2,048 of them), and nothing where no window caps it."""
    windowed = run_plan("plan where params = 3B and seq-length = 16384 and attention-window = 2048 and tokens = 10B "
                        "and hardware = h100 and gpus = 8")
    line = next(x for x in windowed["summary"] if x.startswith("time:"))
    assert "at 16,384 tokens with a sliding window of 2,048" in line
    whole = run_plan("plan where params = 3B and seq-length = 2048 and attention-window = 4096 and tokens = 10B "
                     "and hardware = h100 and gpus = 8")
    assert "sliding window" not in next(x for x in whole["summary"] if x.startswith("time:"))


def test_a_plan_without_hardware_shows_the_shape_its_attention_rests_on(run_plan):
    """No layout is searched without GPUs' memory, yet the time counts the attention: the layers,
    hidden size and sequence length it was computed with are listed with where they come from."""
    a = run_plan("plan where params = 7B and tokens = 1T")
    names = [x["name"] for x in a["quantities"]]
    assert {"layers", "hidden", "seq_length", "attention_flops"} <= set(names)
    assert names.count("layers") == 1 and names.count("seq_length") == 1
    assert "GPT-3's context" in q(a, "seq_length")["derivation"]
    assert q(a, "layers")["formula"] is not None          # the rule of thumb's, with its formula


def test_the_published_runs_mfus_count_their_attention(snap):
    """Each run's MFU is implied on its model FLOPs: 6·N·D and 12 · layers · s · width · D from its
    shape and sequence length (Llama 2 34B, whose shape no source states, on 6·N·D alone)."""
    from recipekg.plan.ledger import Ledger
    from recipekg.plan.utilisation import points

    ledger = Ledger(KBView(snap))
    runs = {p["fact"]: p for p in points(ledger) if p["basis"] == "total GPU-hours"}
    facts = {f["id"]: f for f in snap["facts"].values()}
    twelve = constant(snap, "c_mfu_attention_flops_per_layer_ctx_width")
    counted = 0
    for fid, p in runs.items():
        f = facts[fid]
        shape = [f.get(k) for k in ("layers", "attention_width", "seq_length")]
        attention = twelve * shape[0] * shape[1] * shape[2] * f["tokens"] if all(shape) else 0.0
        assert p["attention_flops"] == pytest.approx(attention, rel=1e-3)
        model = 6 * f["params"] * f["tokens"] + attention
        assert p["mfu"] == pytest.approx(model / (f["gpu_hours"] * 3600 * p["peak"]), rel=1e-3), fid
        counted += bool(attention)
    assert counted == len(runs) - 1 and runs["run-llama2-34b"]["attention_flops"] == 0
    assert facts["run-palm-540b"]["attention_width"] == 48 * 256     # not its hidden size


def test_planning_backwards_leaves_the_attention_its_share_of_the_budget(run_plan):
    """GPUs × time × peak × MFU are model FLOPs: the training FLOPs the size is split from are
    what the attention at that size leaves, at every end of the range."""
    a = run_plan("plan where gpus = 64 and hardware = h100 and time = 2 weeks")
    flops, attention, mfu = q(a, "flops"), q(a, "attention_flops"), q(a, "mfu")
    peak = a["hardware"]["bf16_peak_flops_per_second"]
    for end in ("low", "value", "high"):
        assert flops[end] + attention[end] == pytest.approx(64 * 14 * 24 * 3600 * peak * mfu[end], rel=1e-6)
    assert "of which the attention's" in flops["derivation"]
