"""A failure mode given whose entry is about other runs (``out_of_scope``): the reference's
NaN entry is fp16's, its loss spikes are large-scale pretraining's (audit 5/12, 5/13)."""

from __future__ import annotations

import pytest


def _fix(kb, text: str) -> dict:
    (a,) = kb.query(f"recommend fix where {text}")
    return a


@pytest.mark.parametrize("situation, dimension, value", [
    ("symptom = nan and precision = bf16 and hardware = h100", "precision", "bf16"),
    ("symptom = loss-spike and method = lora and model = llama-3-8b", "method", "lora"),
    ("symptom = attention-collapse and method = full-fine-tune", "method", "full-fine-tune"),
])
def test_a_symptom_outside_its_entry_is_said(kb, situation, dimension, value):
    a = _fix(kb, situation)
    (s,) = a["out_of_scope"]
    assert s["dimension"] == "symptom" and s["because_of"] == [{"dimension": dimension, "op": "=", "value": value}]


@pytest.mark.parametrize("situation", [
    "symptom = nan and precision = fp16",
    "symptom = nan",  # no precision given: the entry may be the user's
    "symptom = loss-spike and method = pretrain and params = 70B",
    "symptom = out-of-memory and method = lora",  # (an entry with no condition)
])
def test_within_its_entry_nothing_is_said(kb, situation):
    assert "out_of_scope" not in _fix(kb, situation)


def test_the_text_says_it_under_the_constraints(kb):
    from recipekg.render.answers import render_answers

    text = render_answers(kb.query("recommend fix where symptom = loss-spike and method = lora"), "text", detail=False)
    assert ("outside its entry: symptom = loss-spike is the reference's 'Loss spike', an entry about runs with "
            "method = pretrain; method = lora is not one") in text
