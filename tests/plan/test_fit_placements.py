"""The fit section's two placements — a whole copy on each GPU (ZeRO stage 0) and FSDP (ZeRO
stage 3), each without tensor or pipeline parallelism — are counted by the memory model the
verdict comes from, so the answer never says a configuration fits and does not fit. (GPT-3 on
1,024 V100s used to say "FSDP over 1,024 GPUs ... does not fit" next to "fits with ZeRO stage
3": the rule of thumb kept 4-8 bytes of activations per parameter, 0.7-1.4 TB, on every GPU.)"""

from __future__ import annotations

import pytest

from recipekg.render.answers import render_answers

GPT3_V100 = "plan where model = gpt-3-175b and hardware = v100 and gpus = 1024 and tokens = 300B"
QUERIES = [GPT3_V100,
           "plan where params = 7B and hardware = h100 and gpus = 8",
           "plan where params = 70B and hardware = h100 and gpus = 8",
           "plan where params = 7B and optimizer = adam-8bit and gpu-memory = 80GB and gpus = 2",
           "plan where hardware = rtx-4090",
           "plan where params = 13B and hardware = dgx-spark",
           "plan where model = llama-2-70b and hardware = a100 and gpus = 8",
           "plan where model = mixtral-8x7b and hardware = h100 and gpus = 64",
           "plan where params = 1B and hardware = a100 and gpus = 8",
           "plan where params = 30B and hardware = a100 and gpus = 16 and recompute = none",
           "plan where params = 13B and hardware = h100 and gpus = 4 and seq-length = 32768",
           "plan where params = 7B and hardware = l4 and gpus = 64"]


def test_gpt3_on_1024_v100s_does_not_say_fsdp_both_fits_and_does_not(run_plan):
    a = run_plan(GPT3_V100)
    fit = a["fit"]
    assert fit["verdict"] == "fits" and fit["layout"]["zero"] == 3
    assert fit["sharded"]["verdict"] == "fits" and fit["sharded"]["formula"] == "memory-per-gpu-detailed"
    assert fit["sharded"]["need_per_gpu"]["high"] <= 32e9
    # the rule of thumb's figure stays beside it, with no verdict of its own in the line
    assert fit["sharded"]["rule_of_thumb_need_per_gpu"]["low"] == pytest.approx(702e9, rel=0.01)
    section = render_answers([a], "text", detail=True).split("Fit on ", 1)[1].split("\n\n", 1)[0]
    fsdp = next(line for line in section.splitlines() if "FSDP over 1,024 GPUs" in line)
    assert "— fits" in fsdp and "does not fit" not in fsdp


@pytest.mark.parametrize("query", QUERIES)
def test_no_placement_contradicts_the_verdict(run_plan, query):
    a = run_plan(query)
    fit = a["fit"]
    layout = fit.get("layout") or fit.get("leanest_layout")
    for name in ("replicated", "sharded"):
        p = fit.get(name)
        if not p:
            continue
        assert p["formula"] == "memory-per-gpu-detailed", (name, p["text"])
        if p["verdict"] == "fits":          # the search tries this layout too: something fits
            assert fit["verdict"] == "fits", (name, p["text"], fit["text"])
        if fit["verdict"] == "does not fit":
            assert p["verdict"] != "fits", (name, p["text"], fit["text"])
        same = {k: layout[k] for k in ("zero", "tensor_parallel", "pipeline_parallel", "recompute")}
        if same == {k: p["layout"][k] for k in same}:   # one configuration: one figure, one verdict
            assert p["need_per_gpu"] == fit["need_per_gpu"] and (p["verdict"] == "fits") == fit["fits"]
        # its line says one verdict only
        assert p["text"].count("does not fit") + p["text"].count("— fits") == 1, p["text"]


@pytest.mark.parametrize("query", QUERIES)
def test_data_parallelism_is_not_ruled_out_where_a_whole_copy_fits(run_plan, query):
    """The tier's warning that DDP needs a whole copy on each GPU reads the same count."""
    a = run_plan(query)
    replicated = a["fit"]["replicated"]
    ruled_out = [w for w in a["warnings"] if "which this run rules out" in w["text"] and "(DDP)" in w["text"]]
    if replicated["verdict"] == "fits":
        assert not ruled_out, replicated["text"]


def test_placements_follow_the_query_s_recomputation(run_plan):
    fit = run_plan("plan where params = 30B and hardware = a100 and gpus = 16 and recompute = none")["fit"]
    assert fit["sharded"]["layout"]["recompute"] == "none" and fit["replicated"]["layout"]["recompute"] == "none"


def test_a_method_of_another_layout_keeps_the_rule_of_thumb_s_placements(run_plan):
    for query in ("plan where params = 7B and method = lora and hardware = a100 and gpus = 8",
                  "plan where params = 7B and hardware = a100 and gpus = 8 and offload = cpu"):
        fit = run_plan(query)["fit"]
        assert fit["replicated"].get("formula") != "memory-per-gpu-detailed", query
