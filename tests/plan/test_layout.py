"""The layout search against published runs and ZeRO's own figures (tests/data/published_fits.json),
and its behaviour: the query's choices are kept, cheaper layouts are preferred, a run that
cannot fit says how many GPUs it needs."""

from __future__ import annotations

import json

import pytest

from recipekg.plan.kbview import KBView

from support import REPO

TABLE = json.loads((REPO / "tests" / "data" / "published_fits.json").read_text(encoding="utf-8"))


def plan(kb, text: str) -> dict:
    return kb.query(text)[0]


def quantity(answer: dict, name: str) -> dict:
    return next(q for q in answer["quantities"] if q["name"] == name)


@pytest.mark.parametrize("run", TABLE["runs"], ids=[r["id"] for r in TABLE["runs"]])
def test_published_runs_fit_as_they_did(kb, run):
    answer = plan(kb, run["query"])
    assert answer["fit"]["fits"] is run["fits"], answer["fit"]["text"]
    if run["fits"]:
        layout = answer["fit"]["layout"]
        gpus = layout["tensor_parallel"] * layout["pipeline_parallel"] * layout["data_parallel"]
        assert gpus == int(run["query"].split("gpus = ")[1].split()[0])
        assert quantity(answer, "memory_per_gpu")["high"] <= 80e9
    else:
        assert answer["fit"]["layout"] is None and answer["fit"]["gpus_needed"] > 1


@pytest.mark.parametrize("stage", ["0", "1", "2", "3"])
def test_model_states_per_gpu_are_zeros_figure_1(kb, stage):
    table = TABLE["zero_figure_1"]
    answer = plan(kb, table["query"].format(stage=stage))
    got = quantity(answer, "model_states_per_gpu")["value"] / 1e9
    assert got == pytest.approx(table["model_states_per_gpu_gb"][stage], rel=0.02)
    assert (answer["fit"]["layout"] or answer["fit"]["leanest_layout"])["zero"] == int(stage)


def test_the_querys_layout_choices_are_kept(kb):
    answer = plan(kb, "plan where params = 13B and hardware = h100 and gpus = 16 and tensor-parallel = 4 "
                      "and recompute = full")
    layout = answer["fit"]["layout"]
    assert layout["tensor_parallel"] == 4 and layout["recompute"] == "full"
    assert layout["tensor_parallel"] * layout["pipeline_parallel"] * layout["data_parallel"] == 16


def test_a_small_model_needs_no_model_parallelism_nor_recomputation(kb):
    """Nothing that costs compute or traffic: its optimizer states are sharded at stage 1, which
    moves what plain data parallelism moves (ZeRO Section 7) and is what Pythia's runs did even
    where a copy per GPU fits; on one GPU there is nothing to shard over, and stage 0 stays."""
    answer = plan(kb, "plan where params = 125M and hardware = a100 and gpus = 8")
    layout = answer["fit"]["layout"]
    assert (layout["zero"], layout["tensor_parallel"], layout["pipeline_parallel"], layout["recompute"]) == \
        (1, 1, 1, "none")
    why = next(n for n in answer["notes"] if n["text"].startswith("ZeRO stage 1 shards"))
    assert "8 data-parallel GPUs" in why["text"] and "a full copy per GPU would fit" in why["text"]
    cited = {s["id"]: s.get("where", "") for s in why["sources"]}
    assert "7.2.1" in cited["rajbhandari2019"] and "pythia-1b.yml" in cited["biderman2023pythia"]
    given = plan(kb, "plan where params = 125M and hardware = a100 and gpus = 8 and zero = 2")
    assert given["fit"]["layout"]["zero"] == 2  # the user's stage, with no note on why the search chose it
    assert not any(n["text"].startswith("ZeRO stage") for n in given["notes"])
    alone = plan(kb, "plan where params = 125M and hardware = a100 and gpus = 1")
    assert alone["fit"]["layout"]["zero"] == 0
    assert not any(n["text"].startswith("ZeRO stage") for n in alone["notes"])


def test_stages_of_equal_traffic_come_before_stage_3_and_stage_1_first(kb):
    """Stages 0-2 move the same data (the KB's c_zero_communication_sharded_states is 1, stage 3's
    1.5): stage 1 first (c_zero_first_stage), stage 2 when it does not fit, and stage 3 only for a
    model whose states do not fit at stage 2."""
    by_symbol = {c["symbol"]: c["value"] for c in kb.snap["constants"].values()}
    assert (by_symbol["c_zero_communication_sharded_states"], by_symbol["c_zero_communication_sharded_weights"],
            by_symbol["c_zero_first_stage"]) == (1.0, 1.5, 1.0)
    assert plan(kb, "plan where params = 7B and hardware = h100 and gpus = 8")["fit"]["layout"]["zero"] == 1
    mid = plan(kb, "plan where params = 13B and hardware = a100 and gpus = 8")
    assert mid["fit"]["layout"]["zero"] == 2
    assert any(n["text"].startswith("ZeRO stage 2 shards") and "stage 1 does not fit" in n["text"] for n in mid["notes"])
    one = plan(kb, "plan where params = 13B and hardware = a100 and gpus = 8 and zero = 1")["fit"]["layout"]
    assert one["zero"] == 1 and (one["tensor_parallel"] * one["pipeline_parallel"] > 1 or one["recompute"] != "none")
    big = plan(kb, "plan where params = 70B and hardware = h100 and gpus = 64 and tokens = 1T")["fit"]
    assert big["layout"]["zero"] == 3


def test_more_memory_never_makes_a_run_need_more(kb):
    small = plan(kb, "plan where params = 30B and gpus = 16 and gpu-memory = 40GB")["fit"]
    large = plan(kb, "plan where params = 30B and gpus = 16 and gpu-memory = 80GB")["fit"]
    assert large["fits"] or not small["fits"]
    if small["fits"]:
        assert large["need_per_gpu"]["high"] <= 80e9


def test_the_shape_from_size_is_said_and_the_8bit_optimizer_takes_two_bytes(kb):
    answer = plan(kb, "plan where params = 7B and optimizer = adam-8bit and hardware = h100 and gpus = 8")
    assert any("rule of thumb" in n["text"] for n in answer["notes"])
    states = quantity(answer, "optimizer_states")
    assert states["value"] == pytest.approx(2 * 7e9)
    assert "dettmers2021" in {s["id"] for s in states["sources"]}
    assert quantity(answer, "master_weights")["value"] == pytest.approx(4 * 7e9)


def test_any_gpu_by_its_peak_memory_and_the_published_mfu_range(kb):
    answer = plan(kb, "plan where params = 7B and gpus = 8 and gpu-memory = 48GB and peak-flops = 989 TFLOPS")
    flops, mfu, hours = (quantity(answer, n) for n in ("flops", "mfu", "gpu_hours"))
    model = flops["value"] + quantity(answer, "attention_flops")["value"]      # 6ND and the attention's
    assert hours["value"] == pytest.approx(model / (989e12 * mfu["value"] * 3600), rel=1e-6)
    assert hours["low"] == pytest.approx(model / (989e12 * mfu["high"] * 3600), rel=1e-6)
    assert answer["fit"]["fits"] and answer["fit"]["layout"]["data_parallel"] == 8
    assert any("peak given" in n["text"] for n in answer["notes"])
    on_a100 = plan(kb, "plan where params = 7B and hardware = a100 and peak-flops = 400T")
    assert quantity(on_a100, "gpu_hours")["value"] == pytest.approx(
        (quantity(on_a100, "flops")["value"] + quantity(on_a100, "attention_flops")["value"])
        / (400e12 * quantity(on_a100, "mfu")["value"] * 3600), rel=1e-6)


def test_a_gpu_without_runs_of_its_compute_takes_its_architectures_runs(kb, snap):
    """The H100 PCIe card has no published run of its own peak: it is planned at the MFU of the
    runs on the other NVIDIA Hopper parts (rkg:gpuArchitecture), said so, so at its lower peak it
    never plans faster than the SXM part (it did at the median, on every GPU's runs)."""
    where = "plan where params = 7B and gpus = 8 and hardware = "
    sxm, pcie = plan(kb, where + "h100"), plan(kb, where + "h100-pcie")
    assert {k: quantity(pcie, "mfu")[k] for k in ("value", "low", "high")} == \
        {k: quantity(sxm, "mfu")[k] for k in ("value", "low", "high")}
    assert quantity(pcie, "mfu")["measured_on"] == ["h100"]
    ratio = KBView(snap).peak(snap["dimensions"]["hardware"]["values"]["h100"]) / \
        KBView(snap).peak(snap["dimensions"]["hardware"]["values"]["h100-pcie"])
    for end in ("value", "low", "high"):
        assert quantity(pcie, "gpu_hours")[end] == pytest.approx(quantity(sxm, "gpu_hours")[end] * ratio, rel=1e-3)
    assert any("other NVIDIA Hopper GPUs (NVIDIA H100 SXM)" in n["text"] for n in pcie["notes"])
    assert "other NVIDIA Hopper GPUs" in next(line for line in pcie["summary"] if line.startswith("time:"))


@pytest.mark.parametrize("faster", ["b200", "mi300x"])
def test_a_gpu_faster_than_every_gpu_with_runs_takes_the_fastest_s(kb, snap, faster):
    """A part above every part with runs (in dense 16-bit peak), with no run of its own compute or
    architecture, is planned at the MFU of the runs on the fastest parts, as NVIDIA's benchmarks
    find the same recipes at about the same fraction of peak on a B200 as on an H100
    (fact:mfu-beyond-fastest): its time is the fastest part's over the peaks' ratio, where every
    part's runs (the A100's higher MFUs among them) planned a B200 3.4 times as fast as an H100
    against a peak 2.27 times as high. A part below the fastest (the L40S) keeps every part's."""
    where = "plan where params = 7B and gpus = 8 and hardware = "
    h100, other = plan(kb, where + "h100"), plan(kb, where + faster)
    values = snap["dimensions"]["hardware"]["values"]
    view = KBView(snap)
    fastest = max(view.peak(values[p]) for p in quantity(h100, "mfu")["measured_on"])
    assert view.peak(values[faster]) > fastest  # (the premise: no part with runs is faster)
    assert quantity(other, "mfu")["measured_on"] == ["h100"]
    ratio = view.peak(values["h100"]) / view.peak(values[faster])
    for end in ("value", "low", "high"):
        assert quantity(other, "gpu_hours")[end] == pytest.approx(quantity(h100, "gpu_hours")[end] * ratio, rel=1e-3)
    note = next(n for n in other["notes"] if "the fastest GPUs with runs (NVIDIA H100 SXM)" in n["text"])
    assert "megatron-bridge-performance" in {s["id"] for s in note["sources"]}
    assert "h100, the fastest GPUs with runs" in next(line for line in other["summary"] if line.startswith("time:"))
    l40s = quantity(plan(kb, where + "l40s"), "mfu")
    assert {"a100", "h100", "v100"} <= set(l40s["measured_on"])


@pytest.mark.parametrize("given", ["tp = 3", "pp = 7"])
def test_a_layout_the_gpus_cannot_split_into_is_the_verdict_not_a_warning_below_it(kb, given):
    """Degrees that divide no layout of the GPUs leave nothing to check: the fit's first words say
    so, the rule of thumb's verdict after them, where the headline said "fits with FSDP sharding"
    and only a warning further down said no layout was checked."""
    answer = plan(kb, f"plan where model = llama-2-7b and gpus = 8 and {given} and hardware = h100")
    assert answer["fit"]["text"].startswith("no layout of 8 GPUs has ")
    assert "rule of thumb: fits" in answer["fit"]["text"] and answer["fit"].get("layout") is None
    assert any(line.endswith(answer["fit"]["text"]) for line in answer["summary"])


RESEARCH_ID = {"mfu-korthikanti-22b": "korthikanti-22b", "mfu-korthikanti-175b": "korthikanti-175b",
               "mfu-korthikanti-530b": "korthikanti-530b", "mfu-korthikanti-1t": "korthikanti-1t",
               "mfu-mtnlg-530b": "mtnlg-530b-via-palm", "mfu-llama-65b": "llama-65b", "mfu-opt-175b": "opt-175b",
               "mfu-bloom-176b": "bloom-176b-paper", "mfu-llama31-405b-8192": "llama31-405b-8192gpu-cp1",
               "mfu-llama31-405b-16384": "llama31-405b-16384gpu-cp1",
               "mfu-llama31-405b-long-context": "llama31-405b-16384gpu-cp16",
               "mfu-gpt3-175b": "gpt3-175b-via-palm", "mfu-gpt3-175b-full-fine-tune": "gpt3-175b-full-fine-tune-lora",
               "mfu-megatron-8.3b": "megatron-8.3b-512gpu", "mfu-megatron-1.2b": "megatron-1.2b-1gpu",
               "mfu-zero-100b": "zero100b-400gpu"}


def test_every_published_mfu_is_the_checked_figure(snap):
    """kb/mfu.ttl against docs/research/mfu-points.json, where each figure's check is recorded."""
    research = {p["id"]: p for p in json.loads((REPO / "docs" / "research" / "mfu-points.json").read_text("utf-8"))}
    points = {f["id"]: f for f in snap["facts"].values() if "mfu" in f}
    assert set(points) == set(RESEARCH_ID)
    for fid, rid in RESEARCH_ID.items():
        assert points[fid]["mfu"] == pytest.approx(float(research[rid]["mfu"]), abs=0.0015), fid
        assert research[rid]["source_key"] in points[fid]["sources"], fid
        if "encoded" in research[rid]:    # the checks recorded with how the paper counts FLOPs
            assert research[rid]["encoded"] == f"fact:{fid}" and research[rid]["flops_counted"], fid
            assert research[rid]["utilisation"] and research[rid]["quote"] and research[rid]["checked"], fid
