"""plan's methods (pretrain, full-fine-tune, lora, qlora, inference), offload, lora-rank, int8/int4
weights, backwards by memory and what would make a run fit, against published figures where
the papers give them."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.formula.expr import Q
from recipekg.plan.figures import show
from recipekg.plan.kbview import KBView
from recipekg.plan.ledger import Ledger
from recipekg.plan.methods import kv_cache


def q(answer: dict, name: str) -> dict:
    found = [x for x in answer["quantities"] if x["name"] == name]
    assert found, f"no quantity {name!r} in {[x['name'] for x in answer['quantities']]}"
    return found[0]


@pytest.fixture(scope="module")
def hardware_tsv(shared):
    with open(shared / "reference" / "hardware.tsv", encoding="utf-8") as f:
        return {r["id"]: r for r in csv.DictReader(f, delimiter="\t")}


# Published figures, each with its source. Shapes are the published configurations
# (docs/research/model-shapes.json). "check" names what the answer must show.
PUBLISHED = [
    {"what": "QLoRA fine-tunes a 65B model on one 48 GB GPU",
     "source": "Dettmers et al. 2023 (QLoRA), abstract: 'finetune a 65B parameter model on a single 48GB GPU'",
     "query": "plan where params = 65.2B and method = qlora and gpu-memory = 48GB and layers = 80 and hidden = 8192 "
              "and heads = 64",
     "check": ("fits", True)},
    {"what": "LoRA on GPT-3 175B: 350 GB of training VRAM",
     "source": "Hu et al. 2021 (LoRA), Section 4.2: 'we reduce the VRAM consumption during training from 1.2TB "
               "to 350GB' (r = 4, Wq and Wv)",
     "query": "plan where params = 175B and method = lora and layers = 96 and hidden = 12288 and heads = 96 "
              "and gpu-memory = 80GB and gpus = 8",
     "check": ("model_states", 350e9)},
    {"what": "KV cache of OPT-13B: 800 KB per token, 1.6 GB for 2,048 tokens",
     "source": "Kwon et al. 2023 (vLLM), Section 3: '2 (key and value vectors) x 5120 (hidden state size) x 40 "
               "(number of layers) x 2 (bytes per FP16)' = 800 KB; 'as much as 1.6 GB' per 2,048-token request",
     "query": "plan where params = 13B and method = inference and layers = 40 and hidden = 5120 and heads = 40 "
              "and seq-length = 2048 and gpu-memory = 80GB",
     "check": ("kv_cache", 800 * 1024 * 2048)},
]


@pytest.mark.parametrize("case", PUBLISHED, ids=[c["what"] for c in PUBLISHED])
def test_published_figures(run_plan, case):
    a = run_plan(case["query"])
    name, expected = case["check"]
    if name == "fits":
        assert a["fit"]["fits"] is expected, a["fit"]["text"]
    else:
        assert q(a, name)["value"] == pytest.approx(expected, rel=0.01)


def test_opt13b_kv_cache_rounds_to_the_papers_1_6_gb(run_plan):
    a = run_plan(PUBLISHED[2]["query"])
    assert round(q(a, "kv_cache")["value"] / 2**30, 1) == 1.6          # the paper's GB of 2^30 bytes


def test_lora_adapters_of_gpt3_at_rank_4(run_plan):
    """r·(d + k) per adapted matrix, Wq and Wv in each of 96 layers of width 12,288 (Hu et al.)."""
    a = run_plan(PUBLISHED[1]["query"])
    assert q(a, "adapter_params")["value"] == pytest.approx(4 * 2 * (12288 + 12288) * 96)
    assert "rank 4" in " ".join(n["text"] for n in a["notes"])


def test_kv_cache_counts_kv_heads_when_the_shape_has_them(snap):
    """Llama 2 70B / Llama 3 70B (80 layers, 64 heads, 8 KV heads, hidden 8192): 327,680 bytes per token in
    fp16 (the per-token figure of a public KV-cache calculation, daddaops/dadops-blog-code
    load-testing-ai-apis/kv_cache_math.py); multi-head attention would cache 8 times as much."""
    class GQAShape:                     # the attribute the `models` branch's Shape adds
        layers, hidden, heads, kv_heads = Q.point(80), Q.point(8192), Q.point(64), Q.point(8)
        seq_length, micro_batch = Q.point(1), Q.point(1)

    class MHAShape(GQAShape):
        kv_heads = None

    ledger = Ledger(KBView(snap))
    bf16 = Q.point(2)
    assert kv_cache(ledger, GQAShape, bf16)[0].value == pytest.approx(327_680)
    assert kv_cache(ledger, MHAShape, bf16)[0].value == pytest.approx(8 * 327_680)
    assert kv_cache(ledger, GQAShape, Q.point(1))[0].value == pytest.approx(327_680 / 2)   # an 8-bit cache


def test_7b_inference_in_bf16_fits_a_24gb_gpu(run_plan):
    a = run_plan("plan where params = 7B and method = inference and gpu-memory = 24GB")
    assert a["fit"]["fits"] and a["method"] == "inference"
    assert q(a, "weights")["value"] == pytest.approx(7e9 * 2)
    names = {x["name"] for x in a["quantities"]}
    assert "kv_cache" in names and not {"gradients", "optimizer_states", "activations"} & names


def test_70b_in_bf16_does_not_fit_one_80gb_gpu_but_int4_does(run_plan):
    bf16 = run_plan("plan where params = 70B and method = inference and hardware = h100")
    int4 = run_plan("plan where params = 70B and method = inference and hardware = h100 and precision = int4")
    assert not bf16["fit"]["fits"] and int4["fit"]["fits"]
    assert q(int4, "weights")["value"] == pytest.approx(70e9 * 4 / 8)
    remedy = {r["id"]: r for r in bf16["recommendations"]}
    assert remedy["int4"]["enough"] and remedy["more-gpus"]["gpus_needed"] == 2


def test_decode_bound_is_bandwidth_over_bytes_per_token(run_plan, hardware_tsv):
    a = run_plan("plan where params = 7B and method = inference and hardware = h100 and layers = 32 and "
                 "hidden = 4096 and heads = 32 and seq-length = 4096")
    bandwidth = float(hardware_tsv["h100-sxm"]["bandwidth_GBps"]) * 1e9
    per_token = 7e9 * 2 + 2 * 2 * 32 * 4096 * 4096      # bf16 weights + fp16 K and V of 4,096 tokens
    assert q(a, "decode_tokens_per_second")["value"] == pytest.approx(bandwidth / per_token, rel=1e-3)


def test_full_fine_tune_has_the_training_memory(run_plan):
    pre = run_plan("plan where params = 7B and hardware = h100 and gpus = 8")
    fine = run_plan("plan where params = 7B and hardware = h100 and gpus = 8 and pretrained = yes")
    assert fine["method"] == "full-fine-tune" and pre["method"] == "pretrain"
    assert q(fine, "memory_per_gpu")["value"] == q(pre, "memory_per_gpu")["value"]
    assert "pretrained" not in " ".join(n["text"] for n in fine["notes"] if n["text"].startswith("not used"))


def test_qlora_base_is_nf4_with_its_constants(run_plan):
    a = run_plan(PUBLISHED[0]["query"])
    assert q(a, "weights")["value"] == pytest.approx(65.2e9 * (4 + 0.127) / 8)   # QLoRA, Section 3
    lora = run_plan(PUBLISHED[0]["query"].replace("qlora", "lora"))
    assert not lora["fit"]["fits"]                       # the 16-bit frozen base alone is 130 GB


def test_qlora_time_divides_the_mfu_by_its_time_against_lora(run_plan, snap):
    """QLoRA dequantizes its 4-bit base at every use: plan divides the published runs' MFU (LoRA's,
    as every method's) by QLoRA's time against LoRA's (const:qlora-time-over-lora: torchtune's
    measured 1.278 to NeMo's 3, Vertex AI's 1.66 as the typical figure), says so with the three
    sources, and leaves an mfu the user gives alone."""
    where = "plan where params = 7B and gpus = 1 and hardware = a100 and tokens = 100M and method = "
    lora, qlora = q(run_plan(where + "lora"), "mfu"), q(run_plan(where + "qlora"), "mfu")
    factor = KBView(snap).constant_by_id("qlora-time-over-lora")
    assert (factor["low"], factor["value"], factor["high"]) == (1.278, 1.66, 3.0)
    assert qlora["low"] == pytest.approx(lora["low"] / factor["high"], rel=1e-3)
    assert qlora["high"] == pytest.approx(lora["high"] / factor["low"], rel=1e-3)
    assert qlora["value"] == pytest.approx(lora["value"] / factor["value"], rel=1e-3)
    assert "qlora-time-over-lora" in [c["id"] for c in qlora["constants"]]
    assert {"torchtune-readme", "nemo-qlora-docs", "vertex-lora-qlora-docs"} <= {s["id"] for s in qlora["sources"]}
    said = [n for n in run_plan(where + "qlora")["notes"] if "time divides the MFU" in n["text"]]
    assert said and {s["id"] for s in said[0]["sources"]} >= {"nemo-qlora-docs", "vertex-lora-qlora-docs"}
    assert not [n for n in run_plan(where + "lora")["notes"] if "time divides the MFU" in n["text"]]
    given = run_plan(where + "qlora and mfu = 30%")
    assert q(given, "mfu")["value"] == pytest.approx(0.3)
    assert not [n for n in given["notes"] if "time divides the MFU" in n["text"]]


def test_lora_rank_changes_the_adapters(run_plan):
    base = "plan where params = 7B and method = lora and gpu-memory = 80GB and layers = 32 and hidden = 4096"
    r8, r64 = run_plan(base + " and lora-rank = 8"), run_plan(base + " and lora-rank = 64")
    assert q(r64, "adapter_params")["value"] == pytest.approx(8 * q(r8, "adapter_params")["value"])


def test_offload_keeps_only_the_16_bit_weights_on_the_gpu(run_plan):
    a = run_plan("plan where params = 13B and hardware = a100 and offload = cpu")
    assert a["fit"]["layout"]["offload"] == "cpu"
    assert q(a, "model_states_per_gpu")["value"] == pytest.approx(13e9 * 2)
    assert q(a, "cpu_memory")["value"] == pytest.approx(13e9 * (2 + 4 + 8))   # ZeRO: fp16 grads, fp32 Adam
    plain = run_plan("plan where params = 13B and hardware = a100")
    assert not plain["fit"]["fits"] and a["fit"]["fits"]
    assert {r["id"] for r in plain["recommendations"]} >= {"offload", "lora", "qlora", "more-gpus", "smaller-model"}


def test_backwards_by_memory_gives_the_largest_model_per_method(run_plan):
    a = run_plan("plan where hardware = rtx-4090")
    sizes = {x["method"]: x["params"]["value"] for x in a["largest_models"]}
    assert set(sizes) == {"pretrain", "full-fine-tune", "lora", "qlora", "inference"}
    assert sizes["pretrain"] < sizes["lora"] < sizes["qlora"] and sizes["inference"] < sizes["qlora"]
    assert q(a, "params")["value"] == sizes["pretrain"]
    for method, p in sizes.items():
        at = run_plan(f"plan where params = {p:.6g} and method = {method} and hardware = rtx-4090")
        over = run_plan(f"plan where params = {p * 1.05:.6g} and method = {method} and hardware = rtx-4090")
        assert at["fit"]["fits"] and not over["fit"]["fits"], method


def test_the_answer_says_what_it_assumed(run_plan):
    a = run_plan("plan where params = 7B and method = inference and gpu-memory = 24GB")
    notes = " ".join(n["text"] for n in a["notes"])
    assert "method = inference" in notes and "kv-heads not given" in notes and "2,048 tokens" in notes
    assert "1 sequence" in notes and "bf16" in notes
    lora = run_plan("plan where params = 7B and method = qlora and gpu-memory = 24GB")
    lora_notes = " ".join(n["text"] for n in lora["notes"])
    assert "rank 64" in lora_notes
    assert lora["ask"] and lora["ask"][0]["dimension"] == "tokens"      # no pretraining time for a fine-tune
    assert all(x["value"] is None for x in lora["quantities"] if x["name"] in ("tokens", "gpu_hours"))


def cli(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("query,words,suggestion", [
    ("plan where params = 7B and method = lorra", "unknown method 'lorra'", "'lora'"),
    ("plan where params = 7B and offload = cpuu", "unknown offload 'cpuu'", "'cpu'"),
    ("plan where params = 7B and precision = int3", "unknown precision 'int3'", "'int4'"),
])
def test_bad_values_exit_2_with_suggestions(query, words, suggestion):
    code, out = cli("query", query)
    assert code == 2 and words in out and suggestion in out and "^" in out
    code, out = cli("query", query, "--format", "json")
    err = json.loads(out)["error"]
    assert code == 2 and err["line"] == 1 and suggestion.strip("'") in err["suggestions"]


def test_lora_rank_must_be_a_whole_number_of_at_least_1():
    code, out = cli("query", "plan where params = 7B and method = lora and lora-rank = 0.5")
    assert code == 2 and "lora-rank" in out


def test_a_named_gqa_model_caches_its_key_value_heads_only(run_plan):
    """Llama 2 70B (80 layers, 8 key-value heads of 128): 2 tensors × 2 bytes × 80 × 8 × 128 =
    327,680 bytes per token, an eighth of the same model's cache with every head cached."""
    gqa = run_plan("plan where model = llama-2-70b and method = inference and hardware = h100 and seq-length = 1000")
    mha = run_plan("plan where model = llama-2-70b and method = inference and hardware = h100 and seq-length = 1000"
                   " and kv-heads = 64")
    assert q(gqa, "kv_cache")["value"] == pytest.approx(327_680 * 1000)
    assert q(mha, "kv_cache")["value"] == pytest.approx(8 * q(gqa, "kv_cache")["value"])


def test_fp8_weights_take_one_byte_and_serve_405b_on_one_node(run_plan):
    """NVIDIA serves Llama 3.1 405B in FP8 on one 8-GPU node: 'from 16 to 8' bits per parameter
    (its model card, kb:const fp8-weight-bits). fp8 is also offered as a fix of the 16-bit plan,
    before int8 and int4; and its prefill bound reads the GPU's fp8 peak."""
    fp8 = run_plan("plan where model = llama-3-1-405b and method = inference and hardware = h100 and gpus = 8 "
                   "and precision = fp8")
    bf16 = run_plan("plan where model = llama-3-1-405b and method = inference and hardware = h100 and gpus = 8")
    assert fp8["fit"]["fits"] and not bf16["fit"]["fits"]
    assert q(fp8, "weights")["value"] == pytest.approx(q(bf16, "weights")["value"] / 2)
    assert q(fp8, "weights")["value"] == pytest.approx(405_853_388_800)
    remedies = [r["id"] for r in bf16["recommendations"]]
    assert remedies.index("fp8") < remedies.index("int8") < remedies.index("int4")
    assert {r["id"]: r for r in bf16["recommendations"]}["fp8"]["enough"]
    assert q(fp8, "prefill_seconds")["value"] == pytest.approx(q(bf16, "prefill_seconds")["value"] / 2, rel=0.01)
    assert not any("no inference figure for precision = fp8" in n["text"] for n in fp8["notes"])
    assert "fp8" not in [r["id"] for r in fp8["recommendations"]]  # (not leaner than itself; int8 neither)
    assert "int8" not in [r["id"] for r in fp8["recommendations"]]


def test_a_mixture_of_experts_decodes_at_its_active_share(run_plan, hardware_tsv):
    """Mixtral 8x7B uses 13B of its 47B parameters per token (Jiang et al., abstract): the
    decode bound reads at least those weights, not every expert's; a dense model reads all."""
    moe = run_plan("plan where model = mixtral-8x7b and method = inference and hardware = h100 and gpus = 2")
    dense = run_plan("plan where model = llama-3-8b and method = inference and hardware = h100")
    active, params = q(moe, "active_params")["value"], q(moe, "params")["value"]
    assert active < params / 3
    assert q(moe, "weights_read")["value"] == pytest.approx(q(moe, "weights")["value"] * active / params)
    bandwidth = float(hardware_tsv["h100-sxm"]["bandwidth_GBps"]) * 1e9
    per_step = (q(moe, "weights_read")["value"] + q(moe, "kv_cache")["value"]) / (2 * bandwidth)
    assert q(moe, "decode_seconds_per_token")["value"] == pytest.approx(per_step, rel=1e-3)
    assert "weights_read" not in {x["name"] for x in dense["quantities"]}


def test_the_gpus_a_time_budget_needs_are_capped_by_the_batch(run_plan):
    """A global batch of B sequences keeps at most B / micro-batch data-parallel groups busy
    (DeepSpeed: train_batch_size = micro-batch × accumulation × GPUs), each the layout's
    tensor × pipeline GPUs: 7B on H100s in one hour would need thousands of GPUs, more than
    the 3.86M-token batch spreads over, and the answer says the budget is out of reach; a week
    needs 23-71 GPUs, within the cap, and says nothing of it."""
    hour = run_plan("plan where params = 7B and hardware = h100 and gpus = 8 and time = 1h")
    layout = hour["fit"]["layout"]
    cap = q(hour, "gpus_batch_cap")["value"]
    expected = q(hour, "batch_tokens")["value"] / (q(hour, "seq_length")["value"] * layout["micro_batch"])
    assert cap == int(expected * layout["tensor_parallel"] * layout["pipeline_parallel"])
    assert hour["feasibility"]["gpus_for_time"] > cap
    assert any("out of reach as planned" in line for line in hour["summary"])
    assert any("more than one global batch spreads over" in w["text"] for w in hour["warnings"])
    assert "out of reach as planned" in hour["feasibility"]["text"]
    week = run_plan("plan where params = 7B and hardware = h100 and gpus = 8 and time = 7 days")
    assert week["feasibility"]["gpus_for_time"] <= q(week, "gpus_batch_cap")["value"]
    assert not any("out of reach" in line for line in week["summary"])


def test_gpus_past_the_batch_say_the_batch_their_time_takes(run_plan):
    """More GPUs given than the planned batch spreads over (QA round 4, F1): 125M on 1,024 H100s
    at one sequence per GPU takes a step of at least 1,024 × 2,048 tokens, several times the
    batch the laws plan, so the time on all of them holds only at that larger batch: the time
    line and a warning say so, with what the planned batch takes on the GPUs it keeps busy;
    8 GPUs for 7B (within the cap) say nothing of it."""
    many = run_plan("plan where params = 125M and hardware = h100 and gpus = 1024")
    layout = many["fit"]["layout"]
    cap = q(many, "gpus_batch_cap")["value"]
    batch, seq = q(many, "batch_tokens")["value"], q(many, "seq_length")["value"]
    assert cap == int(batch / (seq * layout["micro_batch"]) * layout["tensor_parallel"] * layout["pipeline_parallel"])
    assert layout["data_parallel"] * layout["tensor_parallel"] * layout["pipeline_parallel"] == 1024 > cap
    least = layout["data_parallel"] * layout["micro_batch"] * seq
    line = next(x for x in many["summary"] if x.startswith("time:"))
    assert f"at a batch of at least {show(Q.point(least), 'tokens')} a step" in line
    assert f"{least / batch:.1f}× the planned" in line and f"{cap:,.0f} GPUs take" in line
    warning = next(w for w in many["warnings"] if "more than one global batch spreads over" in w["text"])
    wall = q(many, "gpu_hours")
    assert show(Q(wall["value"] / cap, wall["low"] / cap, wall["high"] / cap), "hours") in warning["text"]
    assert "kaplan2020" in {s["id"] for s in warning["sources"]}
    few = run_plan("plan where params = 7B and hardware = h100 and gpus = 8")
    assert "gpus_batch_cap" not in {x["name"] for x in few["quantities"]}
    assert not any("global batch" in w["text"] for w in few["warnings"])


def test_fp8_weights_on_a_gpu_without_fp8_say_so_and_fp8_is_not_offered_there(run_plan):
    """T4 has no fp8 tensor cores: plan counts fp8 weights at a byte but warns, and neither the
    note on a missing precision nor the fixes offer fp8 there; at inference no note speaks of
    what FP8 *training* keeps in memory."""
    t4 = run_plan("plan where model = mistral-7b and method = inference and hardware = t4 and precision = fp8")
    assert any("has no fp8 tensor cores" in w["text"] for w in t4["warnings"])
    bare = run_plan("plan where model = mistral-7b and method = inference and hardware = t4 and batch-size = 8 "
                    "and seq-length = 4k")
    notes = " ".join(n["text"] for n in bare["notes"])
    assert "precision = int8 or int4 for quantized weights" in notes and "fp8, int8" not in notes
    assert "fp8" not in [r["id"] for r in bare["recommendations"]]
    h100 = run_plan("plan where model = llama-3-1-405b and method = inference and hardware = h100 and gpus = 8 "
                    "and precision = fp8")
    assert not any("FP8 training keeps in memory" in n["text"] for n in h100["notes"] + h100["warnings"])


def test_a_batch_of_sequences_routes_to_more_experts(run_plan):
    """Audit 7/20: Mixtral serving 16 sequences at once was bounded as if each step read only
    the 13B active parameters; with 2 of 8 experts per token and uniform routing, an expert is
    idle with probability 0.75^16 (1%), so a step reads about 99% of the weights. The read spans
    the active share (routing may be uneven) to that; without the model's expert counts (params
    and active-params only) it stays the active share."""
    moe = run_plan("plan where model = mixtral-8x7b and method = inference and hardware = h100 and gpus = 2 "
                   "and batch-size = 16 and seq-length = 4k")
    weights, active, params = (q(moe, n)["value"] for n in ("weights", "active_params", "params"))
    read = q(moe, "weights_read")
    assert read["low"] == pytest.approx(weights * active / params, rel=1e-3)
    expected = weights * (1 - (params - active) / params * 0.75 ** 15)
    assert read["value"] == pytest.approx(expected, rel=1e-3) and read["high"] == pytest.approx(expected, rel=1e-3)
    assert read["value"] > 0.98 * weights
    assert read["formula"]["id"] == "weights-read-per-step-routed"
    assert "with 16 sequences at once" in read["derivation"]
    plain = run_plan("plan where params = 47B and active-params = 13B and method = inference and hardware = h100 "
                     "and gpus = 2 and batch-size = 16 and seq-length = 4k")
    assert q(plain, "weights_read")["formula"]["id"] == "weights-read-per-step"


def test_fp32_training_says_what_still_counts_16_bits(run_plan):
    """precision = fp32 moves the rule of thumb's memory to 4-byte weights and gradients; the
    layout's memory and the time still count 16 bits (the KB has no fp32 peak), and the answer
    warns so, where it said nothing and timed fp32 at the bf16 peak."""
    fp32 = run_plan("plan where params = 7B and gpus = 8 and hardware = h100 and precision = fp32")
    bf16 = run_plan("plan where params = 7B and gpus = 8 and hardware = h100")
    assert q(fp32, "memory")["value"] > q(bf16, "memory")["value"]
    assert q(fp32, "gpu_hours")["value"] == q(bf16, "gpu_hours")["value"]
    assert any("precision = fp32" in w["text"] and "low end" in w["text"] for w in fp32["warnings"])
    assert not any("precision = fp32" in w["text"] for w in bf16["warnings"])


def test_a_compute_budget_that_trains_nothing_is_out_of_scale_at_the_statement(kb):
    """Hostile round 5, 042: a peak of 1e-30 FLOP/s (given, or an extension's GPU) gave "formula
    tokens-per-param: division by a range that includes zero" with no position."""
    from recipekg.errors import RangeError

    with pytest.raises(RangeError) as caught:
        kb.query("plan where gpus = 8 and peak-flops = 1e-30 and time = 1 week")
    assert "less than one parameter trained on one token" in caught.value.message
    assert caught.value.line == 1


def test_a_quantized_weights_remedy_carries_the_figure_it_rests_on(run_plan):
    """Hostile round 5, 080: a remedy "precision = fp4" built on an extension's weight-bits
    constant had no sources and no origin. Each precision remedy now carries its weight-bits
    constant and that constant's sources (an extension's marked with its origin)."""
    a = run_plan("plan where params = 405B and method = inference and hardware = h100 and gpus = 1")
    found = {r["id"]: r for r in a["recommendations"]}
    for pid in ("fp8", "int8", "int4"):
        assert [c["id"] for c in found[pid]["constants"]] == [f"{pid}-weight-bits"]
        assert found[pid]["sources"], pid
