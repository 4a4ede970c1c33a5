"""Choices that are part of a model's architecture (its normalisation, its biases, QK-norm, and
now how many key-value heads its attention has: GQA, MQA) are made when it is designed and
pretrained; a fine-tune trains the model as it is built (audit 5/09: GQA and MQA were advised
"alongside" a full fine-tune of an existing 3B model). At inference, GQA and MQA are what the
served model has, and the serving advice keeps them."""

from __future__ import annotations

import pytest


def _technique(kb, situation: str) -> dict:
    (a,) = kb.query(f"recommend technique where {situation}")
    return a


@pytest.mark.parametrize("method", ["full-fine-tune", "lora", "qlora"])
def test_a_fine_tune_is_not_advised_to_change_the_attention(kb, method):
    a = _technique(kb, f"method = {method} and params = 3B and hardware = dgx-spark and gpus = 1")
    ranked = {r["id"] for r in a["results"]} | {m["id"] for r in a["results"] for m in r.get("members", ())}
    assert not {"gqa", "mqa"} & ranked
    assert {"gqa", "mqa"} <= {e["id"] for e in a["excluded"]}


@pytest.mark.parametrize("situation", [
    "method = pretrain and params = 3B and hardware = dgx-spark and gpus = 1",
    "method = inference and params = 70B and hardware = dgx-spark and gpus = 1",
])
def test_pretraining_and_serving_keep_them(kb, situation):
    a = _technique(kb, situation)
    assert not {"gqa", "mqa"} & {e["id"] for e in a["excluded"]}
