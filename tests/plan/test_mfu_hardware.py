"""The MFU a plan assumes comes from published runs on the plan's GPU (or GPUs of its dense
16-bit peak) when the KB has enough of them, and the answer names the GPUs its points were
measured on; when it has too few there it says that it falls back to other GPUs' runs.
(A V100 plan of GPT-3 used to take its MFU from A100, H100 and TPU runs.)"""

from __future__ import annotations

import pytest

GPT3_V100 = "plan where model = gpt-3-175b and hardware = v100 and gpus = 1024 and tokens = 300B"


def q(answer: dict, name: str) -> dict:
    return next(x for x in answer["quantities"] if x["name"] == name)


def test_a_v100_plan_takes_its_mfu_from_v100_runs(run_plan, snap):
    a = run_plan(GPT3_V100)
    mfu = q(a, "mfu")
    assert mfu["measured_on"] == ["v100"] and mfu["same_peak"] is True
    assert mfu["published"] and {p["hardware"] for p in mfu["published"]} == {"v100"}
    stated = {f["id"]: f["mfu"] for f in snap["facts"].values() if "mfu" in f and f.get("hardware", "").endswith("/v100")}
    assert len(stated) >= 2
    assert mfu["low"] == pytest.approx(min(stated.values())) and mfu["high"] == pytest.approx(max(stated.values()))
    assert "NVIDIA V100 SXM2 32GB" in mfu["derivation"] and "a100" not in mfu["derivation"]
    assert not any("other GPUs" in n["text"] for n in a["notes"] + a["warnings"])
    # GPT-3's own V100 MFU (PaLM's Table 3) is inside the range the plan assumes for it
    assert mfu["low"] <= stated["mfu-gpt3-175b"] <= mfu["high"]
    # the time is at the V100's peak: the model FLOPs (6ND and the attention's) / (125 TFLOP/s × MFU)
    hours = q(a, "gpu_hours")
    model_flops = 3.15e23 + q(a, "attention_flops")["value"]
    assert hours["low"] == pytest.approx(model_flops / (125e12 * mfu["high"] * 3600), rel=1e-3)


def test_the_v100_points_record_how_their_flops_were_counted(snap):
    """Each V100 point's text says whether its figure is model FLOPs, or hardware FLOPs with the
    recomputed forward pass (converted, or marked where the paper does not say)."""
    v100 = [f for f in snap["facts"].values() if "mfu" in f and f.get("hardware", "").endswith("/v100")]
    assert {f["id"] for f in v100} >= {"mfu-gpt3-175b", "mfu-megatron-8.3b", "mfu-megatron-1.2b", "mfu-zero-100b"}
    for f in v100:
        assert 0 < f["mfu"] < 0.35, f["id"]          # none above what V100 runs are known to reach
    by_id = {f["id"]: f for f in v100}
    assert "hardware FLOPs" in by_id["mfu-megatron-8.3b"]["text"]
    assert "recomputed forward pass" in by_id["mfu-megatron-1.2b"]["text"]
    assert "does not say how it counts FLOPs" in by_id["mfu-zero-100b"]["text"]


@pytest.mark.parametrize("hardware", ["h100", "a100"])
def test_plans_on_gpus_with_runs_name_them(run_plan, snap, hardware):
    mfu = q(run_plan(f"plan where params = 7B and hardware = {hardware} and gpus = 8"), "mfu")
    peak = snap["hardware"][snap["dimensions"]["hardware"]["values"][hardware]]
    assert mfu["same_peak"] is True and hardware in mfu["measured_on"]
    assert {p["hardware"] for p in mfu["published"]} == set(mfu["measured_on"])
    assert "other GPUs" not in mfu["derivation"] and peak


@pytest.mark.parametrize("hardware, why", [("l40s", "no published run"), ("tpu-v4", "one published run")])
def test_a_gpu_with_too_few_runs_says_it_falls_back(run_plan, hardware, why):
    a = run_plan(f"plan where params = 70B and hardware = {hardware} and gpus = 512")
    mfu = q(a, "mfu")
    assert mfu["same_peak"] is False and len(mfu["measured_on"]) > 1
    note = next(n["text"] for n in a["notes"] if "other GPUs" in n["text"])
    assert why in note and "NVIDIA A100 80GB SXM" in note
    assert f"published runs on other GPUs: too few on {hardware}" in next(s for s in a["summary"] if "time:" in s)
    assert "other GPUs (" in mfu["derivation"] and "other GPUs (" in mfu["label"]


def test_an_h200_plan_takes_the_h100s_runs(run_plan, snap):
    """The H200 has the H100's compute (the reference's hardware table), though the KB gives
    their dense peaks as 989 and 989.5 TFLOPS: its plan takes the MFUs published on H100s
    (it used to fall back to every GPU's runs, 0.14-0.56), with the H200's own peak."""
    h200 = q(run_plan("plan where params = 7B and hardware = h200 and gpus = 8"), "mfu")
    h100 = q(run_plan("plan where params = 7B and hardware = h100 and gpus = 8"), "mfu")
    assert h200["measured_on"] == ["h100"] and h200["same_peak"] is True
    assert (h200["low"], h200["value"], h200["high"]) == (h100["low"], h100["value"], h100["high"])
    assert "GPUs of NVIDIA H200 SXM's compute (NVIDIA H100 SXM)" in h200["derivation"]
    a = run_plan("plan where params = 7B and hardware = h200 and gpus = 8")
    assert not any("other GPUs" in n["text"] for n in a["notes"] + a["warnings"])
    assert "too few on" not in next(s for s in a["summary"] if "time:" in s)
    peaks = {h: snap["hardware"][snap["dimensions"]["hardware"]["values"][h]] for h in ("h100", "h200")}
    assert len({p[next(k for k in p if k.endswith("#bf16PeakFlopsPerSecond"))] for p in peaks.values()}) == 2


SAME_COMPUTE = """@prefix rkg: <https://w3id.org/recipekg/ns#> .
@prefix kb: <https://w3id.org/recipekg/id/> .
@prefix paper: <https://w3id.org/recipekg/paper/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix prov: <http://www.w3.org/ns/prov#> .

kb:h100-lowpower a rkg:Hardware ;
    rdfs:label "H100 SXM at a lower power cap" ;
    skos:notation "h100-lowpower" ;
    rkg:memoryBytes 8.0e10 ;
    rkg:bf16PeakFlopsPerSecond 9.8e14 ;
    rkg:sameComputeAs kb:h100 ;
    prov:wasDerivedFrom paper:nvidia-h100 .
"""


def test_an_extensions_gpu_may_name_a_bundled_one_it_shares_compute_with(tmp_path):
    """The statement is kept where it is made (the extension's GPU), so the bundled H100's
    entry is unchanged (isolation accepts it) while the new GPU's plans take the H100's runs."""
    import recipekg

    ext = tmp_path / "gpu.ttl"
    ext.write_text(SAME_COMPUTE, encoding="utf-8")
    kb = recipekg.load([ext])
    (a,) = kb.query("plan where params = 7B and hardware = h100-lowpower and gpus = 8")
    assert q(a, "mfu")["measured_on"] == ["h100"] and q(a, "mfu")["same_peak"] is True
