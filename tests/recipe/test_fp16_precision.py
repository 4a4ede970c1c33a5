"""Mixed precision follows the tensor cores: where they run no bf16 (a V100, a T4: their
datasheets), the recipe's precision is fp16 with loss scaling (Micikevicius et al. 2018), and the
trainers' configurations say fp16; where they run bf16 too, fp16 gives way to bf16 (the
reference's "bf16 over fp16") and is ruled out by its property, never listed beside it."""

from __future__ import annotations

import pytest


def _precision(answer: dict) -> list:
    section = next(s for s in answer["sections"] if s["name"] == "precision")
    return [it["value"] for it in section["items"]]


@pytest.mark.parametrize("hardware, precision", [("v100", ["fp16-mixed-precision"]), ("t4", ["fp16-mixed-precision"]),
                                                 ("a100", ["bf16-training"]), ("a100-40gb", ["bf16-training"]),
                                                 ("h100", ["bf16-training"])])
def test_the_recipe_trains_in_the_16_bit_format_the_tensor_cores_run(kb, hardware, precision):
    (a,) = kb.query(f"recipe where params = 1B and hardware = {hardware} and gpus = 8 and architecture = decoder")
    assert _precision(a) == precision


def test_fp16_is_ruled_out_by_its_property_where_the_tensor_cores_also_run_bf16(kb):
    """The A100 40GB runs fp16 and bf16: the fp16 rule reaches it, its property rules it out."""
    (a,) = kb.query("recommend technique where hardware = a100-40gb")
    assert a["decision"]["pick"] == "bf16-training"
    ruled = {e["id"]: e["property"]["id"] for e in a["excluded"]}
    assert ruled.get("fp16-mixed-precision") == "fp16-mp-not-where-bf16"
    (v,) = kb.query("recommend technique where hardware = v100")
    assert v["decision"]["pick"] == "fp16-mixed-precision"
    assert "fp16-mixed-precision" not in {e["id"] for e in v["excluded"]}


def test_a_property_given_way_to_a_precision_rules_out_only_hardware_that_states_it(kb):
    """``none-of`` through ``rkg:supportsPrecision``: the hardware that states bf16, never the
    hardware that states no precision (unlike ``one-of``, where stating none is not ruled out)."""
    snap = kb.snap
    prop = next(p for p in snap["choice_properties"].values() if p["id"] == "fp16-mp-not-where-bf16")
    assert prop["test"] == "none-of" and prop["check"]["dimension"] == "hardware"
    ids = {snap["nodes"][h]["id"] for h in prop["check"]["values"]}
    assert {"a100", "h100", "a100-40gb"} <= ids and not {"v100", "t4"} & ids


def test_the_trainers_configurations_say_fp16_on_a_v100(kb):
    where = "params = 1B and hardware = v100 and gpus = 8 and architecture = decoder"
    ds = kb.recipe(where, emit="deepspeed")
    assert ds["fp16"] == {"enabled": True} and "bf16" not in ds
    hf = kb.recipe("model = llama-2-7b and method = lora and hardware = v100 and tokens = 10M", emit="hf-peft")
    assert hf["training_arguments"].get("fp16") is True and "bf16" not in hf["training_arguments"]
