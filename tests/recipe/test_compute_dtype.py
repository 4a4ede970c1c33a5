"""QLoRA's compute dtype follows the hardware: bf16 (the authors' setting) where the tensor
cores run it, fp16 on a T4 or a V100, whose tensor cores run no bf16 (their datasheets, the
derived tensor-precision)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("hardware, dtype", [("t4", "float16"), ("v100", "float16"), ("a100", "bfloat16"),
                                             ("h100", "bfloat16")])
def test_qlora_compute_dtype_follows_the_tensor_cores(kb, hardware, dtype):
    config = kb.recipe(f"model = llama-2-7b and method = qlora and hardware = {hardware} and tokens = 10M",
                       emit="hf-peft")
    assert config["bnb_config"]["bnb_4bit_compute_dtype"] == dtype
    assert config["bnb_config"]["bnb_4bit_quant_type"] == "nf4"
