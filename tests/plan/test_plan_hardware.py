"""`plan` on every accelerator of the catalog (issue 12): the answer uses the named device's own
figures — its memory for fit, its dense 16-bit peak for GPU-hours, its bandwidth — and says so
where a figure is missing."""

from __future__ import annotations

import pytest

from recipekg.knowledge.terms import KB, RKG
from support import spec_hardware_names

NAMES = ["a100", "a100-40gb", "h100", "h100-pcie", "h200", "b200", "l40s", "l4", "a10g", "t4", "v100",
         "rtx-3090", "rtx-4090", "mi250x", "mi300x", "tpu-v4", "tpu-v5e", "tpu-v5p", "dgx-spark"]


def plan_on(kb, name: str) -> dict:
    return kb.query(f"plan where params = 7B and gpus = 8 and hardware = {name}")[0]


def quantity(answer: dict, name: str) -> dict:
    return next(q for q in answer["quantities"] if q["name"] == name)


def test_the_list_is_the_spec_list(shared):
    assert NAMES == spec_hardware_names(shared)


@pytest.mark.parametrize("name", NAMES)
def test_plan_uses_the_devices_figures(kb, snap, name):
    figures = snap["hardware"][KB.term(name)]
    answer = plan_on(kb, name)
    hw = answer["fit"]["hardware"]
    assert hw["id"] == name
    assert hw["memory_bytes"] == figures[RKG.memoryBytes]
    assert hw["bandwidth_bytes_per_second"] == figures[RKG.bandwidthBytesPerSecond]
    assert answer["fit"]["fits"] in (True, False, None)
    peak = figures.get(RKG.bf16PeakFlopsPerSecond) or figures.get(RKG.fp16PeakFlopsPerSecond)
    gpu_hours = quantity(answer, "gpu_hours")
    if peak is None:
        assert gpu_hours["value"] is None and "no bf16 peak" in gpu_hours["missing"]
        return
    flops, mfu = quantity(answer, "flops")["value"], quantity(answer, "mfu")["value"]
    attention = quantity(answer, "attention_flops")["value"]     # the model FLOPs MFU counts: 6ND and attention
    assert 0 < attention < flops
    assert gpu_hours["value"] == pytest.approx((flops + attention) / (peak * mfu * 3600), rel=1e-6)
    assert quantity(answer, "wall_time")["value"] == pytest.approx(gpu_hours["value"] / 8, rel=1e-6)
    assert quantity(answer, "ridge_intensity")["value"] == pytest.approx(peak / figures[RKG.bandwidthBytesPerSecond],
                                                                        rel=1e-6)


@pytest.mark.parametrize("name", ["h200", "b200", "mi300x", "t4", "l4", "rtx-4090", "tpu-v5e", "v100"])
def test_fit_follows_the_devices_memory(kb, name):
    """7B on 8 devices: the layout search's verdict is its need per GPU against the device's
    memory; a 141-192 GB device holds the whole run, and no layout can go below the ZeRO
    stage 3 model states (16 bytes × 7B / 8 GPUs)."""
    fit = plan_on(kb, name)["fit"]
    memory = fit["capacity"]["low"] if "capacity" in fit else fit["memory_per_gpu"]["low"]
    assert fit["fits"] is (fit["need_per_gpu"]["high"] <= memory)
    assert fit["need_per_gpu"]["low"] >= 16 * 7e9 / 8
    if memory >= 141e9:
        assert fit["fits"] and fit["layout"]["tensor_parallel"] == 1


def test_faster_devices_take_fewer_gpu_hours(kb):
    hours = {n: quantity(plan_on(kb, n), "gpu_hours")["value"] for n in ("t4", "v100", "a100", "h100", "b200")}
    assert hours["t4"] > hours["v100"] > hours["a100"] > hours["h100"] > hours["b200"]
    mfu = {n: quantity(plan_on(kb, n), "mfu")["value"] for n in ("a100", "h100")}
    assert hours["a100"] == pytest.approx(hours["h100"] * (989.5 * mfu["h100"]) / (312 * mfu["a100"]), rel=1e-6)


@pytest.mark.parametrize("name", ["v100", "t4"])
def test_fp16_only_devices_say_which_peak_time_uses(kb, name):
    answer = plan_on(kb, name)
    assert answer["hardware"]["peak_used"] == "fp16"
    assert any("no bf16 tensor cores" in n["text"] for n in answer["notes"])


@pytest.mark.parametrize("name,reason", [("a10g", "no vendor figure could be verified"),
                                         ("rtx-3090", "no vendor figure could be verified"),
                                         ("dgx-spark", "the reference leaves it open")])
def test_no_time_without_a_peak_and_the_answer_says_why(kb, name, reason):
    answer = plan_on(kb, name)
    assert answer["hardware"]["peak_used"] is None
    assert reason in quantity(answer, "gpu_hours")["missing"]


def test_a_package_software_sees_as_several_gpus_is_planned_per_die(kb, snap):
    """An MI250X is two GPUs to software (its dies, 64 GB each: LUMI's documentation), so the
    KB's figures are per die and gpus counts dies: a 7B run with Adam (112 GB of model
    states) cannot keep a whole copy per GPU, and the answer says what a GPU is and how many
    modules the GPUs are (audit 6/23: it fitted plain DDP into "the 128 GB per GPU")."""
    figures = snap["hardware"][KB.term("mi250x")]
    assert figures[RKG.devicesPerPackage] == 2
    assert figures[RKG.memoryBytes] == 128e9 / 2 and figures[RKG.bf16PeakFlopsPerSecond] == 383e12 / 2
    answer = kb.query("plan where params = 7B and tokens = 2.46T and hardware = mi250x and gpus = 1024")[0]
    fit = answer["fit"]
    assert fit["hardware"]["devices_per_package"] == 2
    assert fit["memory_per_gpu"]["high"] == 64e9
    assert fit["layout"]["zero"] >= 1 and fit["need_per_gpu"]["high"] <= 64e9
    assert "a GPU here is one of the 2 dies of one AMD Instinct MI250X" in answer["summary"][0]
    assert "1,024 GPUs are 512 modules" in answer["summary"][0]
    odd = kb.query("plan where params = 7B and hardware = mi250x and gpus = 1")[0]
    assert "dies of one AMD Instinct MI250X" in odd["summary"][0] and "modules" not in odd["summary"][0]


@pytest.mark.parametrize("name", [n for n in NAMES if n != "mi250x"])
def test_other_hardware_is_one_gpu_per_package(kb, name):
    answer = plan_on(kb, name)
    assert answer["fit"]["hardware"]["devices_per_package"] == 1
    assert "dies of" not in answer["summary"][0]
