"""A plan shows the figures of its own method (the practitioner evaluation, wave 7): quantities
and notes declare the methods they are figures of (plan/quantities.py, ``Ledger.note(only=)``),
and a formula for some methods only is declared in the KB (``rkg:forMethod``)."""

from __future__ import annotations

import pytest

from recipekg.plan.quantities import FIXED, QUANTITIES


def q(answer: dict, name: str) -> dict | None:
    return next((x for x in answer["quantities"] if x["name"] == name), None)


LORA = "plan where params = 7B and method = lora and hardware = a100 and gpus = 1 and tokens = 100M"
SERVE = "plan where params = 70B and method = inference and hardware = h100 and gpus = 2"
FULL = "plan where params = 7B and method = full-fine-tune and hardware = a100 and gpus = 8 and tokens = 1B"


def test_a_frozen_base_costs_four_flops_per_parameter_and_token(run_plan):
    a = run_plan(LORA)
    flops = q(a, "flops")
    adapters = q(a, "adapter_params")["value"]
    assert flops["value"] == pytest.approx(4 * 7e9 * 1e8 + 6 * adapters * 1e8)
    assert flops["formula"]["id"] == "frozen-base-training-flops"
    roles = {s["id"]: s["role"] for s in flops["sources"]}
    assert roles["hu2021"] == "supports" and roles["narayanan2021"] == "supports"
    assert any("no source writes the formula" in n["text"] for n in a["notes"])
    assert "2.8e18 FLOPs" in " ".join(a["summary"])


def test_qlora_uses_the_frozen_base_count_too(run_plan):
    a = run_plan("plan where params = 7B and method = qlora and hardware = a100 and tokens = 100M")
    assert q(a, "flops")["formula"]["id"] == "frozen-base-training-flops"


def test_training_every_weight_keeps_six(run_plan):
    for text in (FULL, "plan where params = 7B and hardware = a100 and gpus = 8"):
        assert q(run_plan(text), "flops")["formula"]["id"] == "training-flops"


def test_a_lora_plan_does_not_show_full_training_memory(run_plan):
    a = run_plan(LORA)
    memory = q(a, "memory")
    assert memory["value"] is None and "does not apply to method = lora" in memory["not_applicable"]
    assert q(a, "rule_of_thumb_per_gpu") is None and q(a, "memory_per_gpu")["value"]
    assert not any("rule of thumb says" in n["text"] for n in a["notes"])


def test_a_serving_plan_gives_serving_figures_only(run_plan):
    a = run_plan(SERVE)
    names = {x["name"] for x in a["quantities"] if x["value"] is not None}
    assert {"weights", "kv_cache", "memory_per_gpu", "decode_tokens_per_second", "prefill_seconds"} <= names
    for name in ("tokens", "flops", "tokens_per_param", "memory", "rule_of_thumb_per_gpu", "gpu_hours",
                 "wall_time", "mfu", "energy"):
        assert name not in names, name
    assert set(FIXED) <= {x["name"] for x in a["quantities"]}   # the contract's names, without a value
    assert all(q(a, n)["not_applicable"] for n in ("tokens", "flops", "memory", "gpu_hours", "wall_time"))
    assert not a["warnings"]
    assert not any("training" in line for line in a["summary"])


def test_fine_tunes_carry_no_pretraining_warnings(run_plan):
    a = run_plan(FULL)
    text = " ".join(w["text"] for w in a["warnings"] + a["notes"])
    assert "compute-optimal" not in text and "flowchart puts pretraining" not in text
    assert q(a, "memory")["value"]       # a full fine-tune trains every weight: the rule of thumb holds


def test_pretraining_keeps_its_warnings(run_plan):
    a = run_plan("plan where params = 7B and tokens = 100M and hardware = a100 and gpus = 1")
    assert any("compute-optimal" in w["text"] for w in a["warnings"])


def test_every_quantity_declares_its_methods():
    from recipekg.plan.quantities import METHODS, not_applicable
    for quantity in QUANTITIES.values():
        assert quantity.methods and set(quantity.methods) <= set(METHODS), quantity.name
    assert "serving plan" in not_applicable("flops", "inference")
    assert "every weight" in not_applicable("memory", "qlora")


def test_a_remedy_that_changes_nothing_shown_is_not_offered(run_plan):
    """8-bit Adam for a LoRA run saves bytes of a few million adapter parameters: 143–145 GB either
    way, listed as the cheapest change before; a pretraining run's 8-bit Adam still is."""
    a = run_plan("plan where params = 70B and method = lora and hardware = a100 and gpus = 1 and tokens = 100M")
    ids = [r["id"] for r in a["recommendations"]]
    assert "adam-8bit" not in ids and "qlora" in ids
    b = run_plan("plan where params = 7B and hardware = a100 and gpus = 1")
    assert "adam-8bit" in [r["id"] for r in b["recommendations"]]


def test_fp16_hardware_says_how_it_trains_and_cites_why(run_plan):
    a = run_plan("plan where model = llama-2-7b and method = qlora and hardware = t4 and tokens = 10M")
    note = next(n for n in a["notes"] if "no bf16 tensor cores" in n["text"])
    assert "fp16 with loss scaling" in note["text"]
    assert {s["id"] for s in note["sources"]} >= {"nvidia-t4-datasheet"}


def test_a_verdict_without_a_layout_of_the_method_says_it_is_full_trainings(run_plan):
    a = run_plan("plan where params = 7B and method = lora and tokens = 100M and hardware = a100 and gpus = 3 "
                 "and tensor-parallel = 2")
    assert "no layout of method = lora was checked" in a["fit"]["text"]


def test_a_serving_plan_says_which_training_constraints_it_leaves_unused(run_plan):
    a = run_plan("plan where params = 7B and method = inference and hardware = a100 and inference-tokens = 1T "
                 "and tokens = 1T")
    warning = next(w["text"] for w in a["warnings"] if "not used by a serving plan" in w["text"])
    assert "tokens, inference-tokens" in warning
    assert q(a, "inference_optimal_params") is None and q(a, "tokens")["not_applicable"]


def test_a_fine_tunes_epochs_are_not_weighed_by_the_pretraining_law(run_plan):
    a = run_plan("plan where params = 7B and method = lora and hardware = a100 and unique-tokens = 10M and epochs = 3")
    assert q(a, "effective_tokens") is None and q(a, "tokens")["value"] == 3e7
    assert any("describe repeated pretraining data" in n["text"] for n in a["notes"])
    b = run_plan("plan where params = 7B and unique-tokens = 100B and epochs = 3")
    assert q(b, "effective_tokens")["value"]


def test_tokens_do_not_size_a_fine_tune_or_a_served_model(run_plan):
    """'method = qlora and hardware = rtx-4090 and tokens = 10M' planned a 500k-parameter model
    (Chinchilla's 20 tokens per parameter); a fine-tune's tokens size no model."""
    a = run_plan("plan where method = qlora and hardware = rtx-4090 and tokens = 10M")
    assert q(a, "params")["value"] > 1e10 and a["largest_models"]
    b = run_plan("plan where method = inference and hardware = h100 and gpus = 8 and time = 1 week")
    assert q(b, "params")["value"] > 1e11 and any("time" in w["text"] for w in b["warnings"])


def test_without_a_model_or_a_memory_a_fine_tune_asks_for_one(kb):
    from recipekg.errors import NothingToPlan
    for text in ("plan where method = lora and tokens = 1B", "plan where method = inference and flops = 1e21"):
        with pytest.raises(NothingToPlan, match="nothing to size the model"):
            kb.query(text)


def test_serving_on_fp16_hardware_assumes_fp16_weights(run_plan):
    a = run_plan("plan where params = 7B and method = inference and hardware = t4")
    assert any("weights in fp16 (16 bits each) assumed, as NVIDIA T4 has no bf16 tensor cores" in n["text"]
               for n in a["notes"])
    b = run_plan("plan where params = 7B and method = inference and hardware = h100")
    assert any("weights in bf16 (16 bits each) assumed;" in n["text"] for n in b["notes"])


def test_the_tier_warns_of_an_alternative_only_when_none_stays(run_plan):
    """The single-GPU tier's "LoRA/QLoRA" names the method a LoRA run takes: QLoRA, ruled out by
    method = lora, is the alternative not taken, not a warning; a QLoRA run likewise. The
    massive-cluster tier's five-way parallelism names DDP beside axes that do not replace it, so
    a model whose full copy does not fit one GPU still gets the DDP warning."""
    tier_warnings = lambda a: [w["text"] for w in a["warnings"] if "the tier's advice names" in w["text"]]
    lora = run_plan(LORA)
    assert lora["tier"] is not None and "QLoRA" in " ".join(x["text"] for x in lora["tier"]["advice"])
    assert tier_warnings(lora) == []
    qlora = run_plan(LORA.replace("method = lora", "method = qlora"))
    assert tier_warnings(qlora) == []
    big = run_plan("plan where model = llama-3-8b and tokens = 15T and hardware = h100 and gpus = 512")
    assert [w for w in tier_warnings(big) if "Distributed data parallel (DDP)" in w], big["warnings"]
