"""`plan` backwards (GPUs × time × peak × MFU → compute → params and tokens), the
`tokens-per-param` ratio, and fp8 time. Published figures are read from the checked research
table (docs/research/published-runs.json), constants and peaks from the KB's answer."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.errors import RangeError
from recipekg.web.app import create_app
from support import REPO

ISSUE = "plan where gpus = 64 and hardware = h100 and time = 2 weeks"
WEEK_HOURS = 7 * 24


def quantity(answer: dict, name: str) -> dict:
    return next(q for q in answer["quantities"] if q["name"] == name)


def ends(answer: dict, name: str) -> tuple[float, float, float]:
    q = quantity(answer, name)
    return q["low"], q["value"], q["high"]


def constant(answer: dict, quantity_name: str, symbol: str) -> dict:
    """A KB constant as an answer's quantity cites it."""
    return next(c for c in quantity(answer, quantity_name)["constants"] if c["symbol"] == symbol)


@pytest.fixture(scope="module")
def llama405():
    runs = json.loads((REPO / "docs" / "research" / "published-runs.json").read_text(encoding="utf-8"))
    run = next(r for r in runs if r["id"] == "llama31-405b")
    assert run["hardware"] == "H100-80GB"
    return run


# ------------------------------------------------------------------ the issue's example

def test_the_issue_example_plans_backwards(run_plan):
    a = run_plan(ISSUE)
    back = a["backwards"]
    assert back is not None and back["hardware"] == "h100" and back["peak"] == "bf16"
    gpu_hours = quantity(a, "gpu_hours")
    assert gpu_hours["value"] == pytest.approx(64 * 2 * WEEK_HOURS)
    assert gpu_hours["low"] == gpu_hours["high"]          # GPUs × time is exact; the MFU makes the range
    assert quantity(a, "wall_time")["given"] and quantity(a, "wall_time")["value"] == 2 * WEEK_HOURS
    low, value, high = ends(a, "flops")
    assert low < value < high
    mfu = quantity(a, "mfu")
    peak = a["hardware"]["bf16_peak_flops_per_second"]
    # the model FLOPs the GPU-hours give at each end of the MFU range: the training FLOPs and the
    # attention's at the size they train (formula:training-attention-flops)
    for f, att, m in zip((low, value, high), ends(a, "attention_flops"), (mfu["low"], mfu["value"], mfu["high"])):
        assert 0 < att < f / 5
        assert f + att == pytest.approx(64 * 2 * WEEK_HOURS * 3600 * peak * m, rel=1e-6)
    for name in ("params", "tokens"):
        p_low, p_value, p_high = ends(a, name)
        assert 0 < p_low < p_value < p_high
    assert "planned backwards" in back["text"] and "MFU" in back["text"]
    assert any("planned backwards" in line for line in a["summary"])


def test_the_issue_example_reads_naturally_as_text():
    result = CliRunner().invoke(main, ["query", ISSUE])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("planned backwards: "))
    assert lines[at].startswith("planned backwards: from 64 GPUs × 2 weeks (14 days) of NVIDIA H100 SXM")
    assert "split into params and tokens by the strategy" in lines[at]
    assert lines[at + 1].startswith("strategy: ")
    assert any(x.strip().startswith("time: 64 GPUs × 14 days =") for x in lines)


def test_the_web_page_says_it_planned_backwards(kb):
    page = create_app(kb).test_client().get("/?q=" + quote(ISSUE, safe=""))
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert '<p class="backwards">Planned backwards from 64 GPUs × 2 weeks' in html


def test_a_time_range_gives_gpu_hours_at_each_end(run_plan):
    a = run_plan("plan where gpus = 8 and time between 1 week and 2 weeks and hardware = h100")
    assert ends(a, "gpu_hours") == (8 * WEEK_HOURS, 8 * 1.5 * WEEK_HOURS, 8 * 2 * WEEK_HOURS)
    assert "1 week to 2 weeks" in a["backwards"]["text"]


def test_backwards_on_a_peak_given(run_plan):
    a = run_plan("plan where peak-flops = 500 TFLOPS and gpus = 8 and time = 1 week and mfu = 50%")
    assert a["backwards"]["peak"] == "given" and a["backwards"]["hardware"] is None
    model_flops = quantity(a, "flops")["value"] + quantity(a, "attention_flops")["value"]
    assert model_flops == pytest.approx(8 * WEEK_HOURS * 3600 * 500e12 * 0.5, rel=1e-6)


def test_backwards_needs_a_peak(kb):
    with pytest.raises(RangeError, match="cannot plan backwards on NVIDIA DGX Spark"):
        kb.query("plan where gpus = 64 and hardware = dgx-spark and time = 2 weeks")
    result = CliRunner().invoke(main, ["query", "plan where gpus = 64 and time = 2 weeks"])
    assert result.exit_code == 2 and "nothing to plan from" in result.output
    assert "gpus = 64 and time = 2 weeks and hardware = h100" in result.output


def test_a_given_compute_is_not_planned_backwards(run_plan):
    """flops with gpus and a time: the time comes from the flops, as before."""
    a = run_plan("plan where flops = 1e21 and gpus = 8 and hardware = h100 and time = 1 week")
    assert a["backwards"] is None
    assert quantity(a, "flops")["value"] == 1e21 and quantity(a, "flops")["given"]
    assert any("time budget" in n["text"] for n in a["notes"] + a["warnings"])


# ------------------------------------------------------------------ a published run, backwards

def test_llama_405b_backwards_contains_its_published_compute(run_plan, llama405):
    hours = llama405["gpu_hours"] / llama405["gpus"]
    a = run_plan(f"plan where gpus = {llama405['gpus']} and hardware = h100 and time = {hours} hours")
    assert quantity(a, "gpu_hours")["value"] == pytest.approx(llama405["gpu_hours"], rel=1e-6)
    low, _, high = ends(a, "flops")
    assert low <= llama405["flops"] <= high
    # Its own MFU (41% of the bf16 peak, the main stage) is inside the range plan assumes.
    mfu = quantity(a, "mfu")
    assert mfu["low"] <= llama405["mfu"] <= mfu["high"]


def test_llama_405b_backwards_at_its_own_mfu(run_plan, llama405):
    """At the run's MFU, the compute is its GPU-hours at that share of the peak, which is more
    than the FLOPs it states: the model card's GPU-hours count more than the 405B pretraining."""
    hours = llama405["gpu_hours"] / llama405["gpus"]
    a = run_plan(f"plan where gpus = {llama405['gpus']} and hardware = h100 and time = {hours} hours "
                 f"and mfu = {llama405['mfu']}")
    flops = quantity(a, "flops")
    assert flops["low"] == flops["high"]
    expected = llama405["gpu_hours"] * 3600 * a["hardware"]["bf16_peak_flops_per_second"] * llama405["mfu"]
    assert flops["value"] + quantity(a, "attention_flops")["value"] == pytest.approx(expected, rel=1e-6)
    assert a["backwards"]["text"].count("the mfu given") == 1


# ------------------------------------------------------------------ the strategy's split

def test_chinchilla_backwards_keeps_the_ratio_at_every_end(run_plan):
    a = run_plan(ISSUE)
    assert a["strategy"]["id"] == "chinchilla-optimal-training"
    ratio = constant(a, "tokens", "c_chinchilla_tokens_per_param")
    r_low = ratio["low"] if ratio["low"] is not None else ratio["value"]
    r_high = ratio["high"] if ratio["high"] is not None else ratio["value"]
    per_token = constant(a, "params", "c_flops_per_param_token")["value"]
    for p, t, f in zip(ends(a, "params"), ends(a, "tokens"), ends(a, "flops")):
        assert r_low * (1 - 1e-6) <= t / p <= r_high * (1 + 1e-6)
        assert per_token * p * t == pytest.approx(f, rel=1e-6)


def test_tokens_per_param_changes_the_split(run_plan):
    chin, mine = run_plan(ISSUE), run_plan(ISSUE + " and tokens-per-param = 100")
    def model(a):       # the same compute: its attention's share differs with the size it trains
        return [f + att for f, att in zip(ends(a, "flops"), ends(a, "attention_flops"))]

    assert model(mine) == pytest.approx(model(chin), rel=1e-9)
    for p, t in zip(ends(mine, "params"), ends(mine, "tokens")):
        assert t / p == pytest.approx(100, rel=1e-6)        # ... split at 100 tokens/param
    assert quantity(mine, "params")["value"] < quantity(chin, "params")["value"]
    assert quantity(mine, "tokens")["value"] > quantity(chin, "tokens")["value"]
    s = mine["strategy"]
    assert s["given"] and s["tokens_per_param"]["value"] == 100
    assert s["label"].startswith("Your ratio") and "Chinchilla" not in s["label"]
    assert "tokens-per-param = 100 given" in s["why"]
    assert s["regime"] == "inference-optimal"               # 100 is the low end of the KB's 100-200


def test_tokens_per_param_forwards(run_plan):
    a = run_plan("plan where params = 7B and tokens-per-param = 40")
    assert quantity(a, "tokens")["value"] == pytest.approx(280e9)
    assert quantity(a, "tokens")["formula"]["id"] == "tokens-from-ratio"
    assert a["strategy"]["regime"] == "over-training"
    assert a["strategy"]["label"].startswith("Your ratio") and "Chinchilla-optimal training" not in a["strategy"]["label"]
    small = run_plan("plan where flops = 1.2e21 and tokens-per-param = 10")
    p, t = quantity(small, "params")["value"], quantity(small, "tokens")["value"]
    assert t / p == pytest.approx(10) and 6 * p * t == pytest.approx(1.2e21)
    assert small["strategy"]["regime"] == "below-compute-optimal"


def test_tokens_per_param_yields_to_two_given_quantities(run_plan):
    a = run_plan("plan where params = 7B and tokens = 2T and tokens-per-param = 20")
    assert quantity(a, "tokens_per_param")["value"] == pytest.approx(2e12 / 7e9, rel=1e-6)
    assert any("tokens-per-param = 20 not used" in w["text"] for w in a["warnings"])


# ------------------------------------------------------------------ fp8

FORWARD = "plan where params = 7B and hardware = {hw} and gpus = 8 and mfu = 40%"


def test_fp8_on_h100_halves_the_gpu_hours_at_the_same_mfu(run_plan):
    bf16 = run_plan(FORWARD.format(hw="h100"))
    fp8 = run_plan(FORWARD.format(hw="h100") + " and precision = fp8")
    hw = fp8["hardware"]
    ratio = hw["bf16_peak_flops_per_second"] / hw["fp8_peak_flops_per_second"]
    assert ratio == pytest.approx(0.5, rel=1e-3)            # Hopper's dense fp8 is twice its bf16
    assert quantity(fp8, "gpu_hours")["value"] == pytest.approx(quantity(bf16, "gpu_hours")["value"] * ratio)
    assert quantity(fp8, "gpu_hours")["formula"]["id"] == "gpu-hours-fp8"
    assert quantity(fp8, "mfu")["unit"] == "fraction of fp8 peak"
    assert any("fp8 peak" in n["text"] and "the mfu given" in n["text"] for n in fp8["notes"])


def test_fp8_without_mfu_spans_no_gain_to_the_whole_fp8_peak(run_plan):
    """The published MFUs were measured in bf16: an fp8 plan without an MFU of its own spans no
    gain from fp8 (the published low end and median against the bf16 peak) to the whole fp8
    peak at the published high end. DeepSeek-V3's fp8 run (2,664K H800 GPU-hours) fell below
    the fp8-peak-only range (tests/data/published_runs_heldout.tsv)."""
    a = run_plan("plan where params = 7B and hardware = h100 and gpus = 8 and precision = fp8")
    bf16 = run_plan("plan where params = 7B and hardware = h100 and gpus = 8")
    note = next(n for n in a["notes"] if n["text"].startswith("precision = fp8: time uses"))
    assert "measured in bf16" in note["text"] and "no gain from fp8" in note["text"]
    assert any(s["id"] == "dubey2024" for s in note["sources"])
    fp8_mfu, bf16_mfu = quantity(a, "mfu"), quantity(bf16, "mfu")
    assert fp8_mfu["unit"] == "fraction of fp8 peak"
    assert fp8_mfu["high"] == bf16_mfu["high"]
    assert fp8_mfu["low"] == pytest.approx(bf16_mfu["low"] / 2, rel=1e-3)
    assert fp8_mfu["value"] == pytest.approx(bf16_mfu["value"] / 2, rel=1e-3)
    assert quantity(a, "gpu_hours")["high"] == pytest.approx(quantity(bf16, "gpu_hours")["high"], rel=1e-3)
    assert quantity(a, "gpu_hours")["low"] == pytest.approx(quantity(bf16, "gpu_hours")["low"] / 2, rel=1e-3)
    back_bf16, back_fp8 = run_plan(ISSUE), run_plan(ISSUE + " and precision = fp8")
    assert back_fp8["backwards"]["peak"] == "fp8"
    def model(a):
        return [f + att for f, att in zip(ends(a, "flops"), ends(a, "attention_flops"))]

    (b_low, _, b_high), (f_low, _, f_high) = model(back_bf16), model(back_fp8)
    assert f_low == pytest.approx(b_low, rel=1e-3)          # no gain: the same compute
    assert f_high == pytest.approx(2 * b_high, rel=1e-3)    # the whole fp8 peak: twice the compute


def test_fp8_on_a100_warns_and_keeps_bf16(run_plan):
    bf16 = run_plan(FORWARD.format(hw="a100"))
    fp8 = run_plan(FORWARD.format(hw="a100") + " and precision = fp8")
    assert fp8["hardware"]["fp8_peak_flops_per_second"] is None
    assert any("NVIDIA A100 80GB SXM's tensor cores do not run fp8 (they run bf16, fp16" in w["text"]
               for w in fp8["warnings"])
    assert quantity(fp8, "gpu_hours")["value"] == quantity(bf16, "gpu_hours")["value"]
    assert quantity(fp8, "gpu_hours")["formula"]["id"] == "gpu-hours"


def test_a_16_bit_precision_the_hardware_does_not_run_warns(run_plan):
    """bf16 on a V100 (fp16 tensor cores only) and fp16 on a TPU (bf16 only) are warned about,
    naming the user's precision, and time the peak the hardware has; a precision the
    hardware runs, or fp32 (no accelerator states it), is not warned about."""
    def warned(a, text):
        return [w for w in a["warnings"] if text in w["text"]]

    v100 = run_plan(FORWARD.format(hw="v100") + " and precision = bf16")
    assert warned(v100, "precision = bf16, but NVIDIA V100 SXM2 32GB has no bf16 tensor cores")
    assert quantity(v100, "gpu_hours")["value"] == quantity(run_plan(FORWARD.format(hw="v100")), "gpu_hours")["value"]
    tpu = run_plan(FORWARD.format(hw="tpu-v4") + " and precision = fp16")
    assert warned(tpu, "precision = fp16, but Google Cloud TPU v4 (per chip) does not compute in fp16 (it runs bf16")
    for hw, precision in (("v100", "fp16"), ("v100", "fp32"), ("a100", "bf16"), ("tpu-v4", "bf16")):
        assert not warned(run_plan(FORWARD.format(hw=hw) + f" and precision = {precision}"), f"precision = {precision}, but")


def test_a_ratio_range_backwards_covers_every_split(run_plan):
    """goal = production sizes by the KB's inference-optimal range: the params and tokens
    ranges hold every split of every compute in the range at every ratio in it."""
    a = run_plan(ISSUE + " and goal = production")
    ratio = constant(a, "params", "c_inference_optimal_tokens_per_param")
    per_token = constant(a, "tokens", "c_flops_per_param_token")["value"]
    (p_low, _, p_high), (t_low, _, t_high) = ends(a, "params"), ends(a, "tokens")
    f_low, _, f_high = ends(a, "flops")
    for f in (f_low, f_high):
        for r in (ratio["low"], ratio["high"]):
            p = (f / (per_token * r)) ** 0.5
            assert p_low * (1 - 1e-6) <= p <= p_high * (1 + 1e-6)
            assert t_low * (1 - 1e-6) <= r * p <= t_high * (1 + 1e-6)
