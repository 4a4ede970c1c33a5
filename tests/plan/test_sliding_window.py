"""A sliding attention window bounds the KV cache (Mistral 7B: a 4,096-token window, its paper's
Table 1; its rolling buffer cache "stops increasing" past it, Section 2). Audit 5/22: plan cached
all 8k tokens of 8 sequences and said Mistral 7B did not fit one L4, where it does."""

from __future__ import annotations

import pytest

KIB = 1024


def _q(answer: dict, name: str) -> dict:
    return next(q for q in answer["quantities"] if q["name"] == name)


def _plan(kb, text: str) -> dict:
    (a,) = kb.query(f"plan where {text}")
    return a


def test_mistral_caches_its_window_not_the_sequence(kb):
    a = _plan(kb, "model = mistral-7b and method = inference and hardware = l4 and gpus = 1 "
                  "and batch-size = 8 and seq-length = 8k")
    assert _q(a, "attention_window")["value"] == 4096
    per_token = 2 * 2 * 32 * 8 * 128  # K and V, 2 bytes, 32 layers, 8 KV heads of 128: 128 KiB
    assert per_token == 128 * KIB
    assert _q(a, "kv_cache")["value"] == pytest.approx(8 * 4096 * per_token)
    assert a["fit"]["fits"], "14.5 GB of weights and 4.3 GB of cache fit 24 GB"


def test_a_model_without_a_window_caches_the_whole_sequence(kb):
    a = _plan(kb, "model = llama-3-8b and method = inference and hardware = l4 and gpus = 1 "
                  "and batch-size = 8 and seq-length = 8k")
    assert _q(a, "kv_cache")["value"] == pytest.approx(2 * 2 * 32 * 8 * 128 * 8000 * 8)
    assert all(q["name"] != "attention_window" for q in a["quantities"] if q["value"] is not None)


def test_a_window_shorter_than_the_sequence_is_what_a_given_window_caches_too(kb):
    shape = "params = 7B and layers = 32 and hidden = 4096 and heads = 32 and kv-heads = 8 and method = inference " \
            "and hardware = l4 and gpus = 1 and batch-size = 8 and seq-length = 8k"
    windowed, whole = _plan(kb, f"{shape} and attention-window = 4096"), _plan(kb, shape)
    assert _q(windowed, "kv_cache")["value"] == pytest.approx(_q(whole, "kv_cache")["value"] * 4096 / 8000)
    long = _plan(kb, f"{shape} and attention-window = 16k")
    assert _q(long, "kv_cache")["value"] == pytest.approx(_q(whole, "kv_cache")["value"]), \
        "a window longer than the sequence caches the sequence"


def test_recommend_derives_the_same_load(kb):
    (a,) = kb.query("recommend technique where method = inference and model = mistral-7b and hardware = l4 "
                    "and gpus = 1 and batch-size = 8 and seq-length = 8k")
    (load,) = [c for c in a["constraints"] if c["dimension"] == "kv-load"]
    p = _plan(kb, "model = mistral-7b and method = inference and hardware = l4 and gpus = 1 "
                  "and batch-size = 8 and seq-length = 8k")
    weights, kv = _q(p, "weights")["value"], _q(p, "kv_cache")["value"]
    low, high = load["value"]   # with the framework's own memory, 0.5-2 GB (plan's headroom)
    assert low == pytest.approx((weights + kv + 0.5e9) / 24e9, rel=1e-3)
    assert high == pytest.approx((weights + kv + 2e9) / 24e9, rel=1e-3)
