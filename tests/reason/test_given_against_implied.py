"""A number the user gave that another of their constraints says otherwise about (audit 11/08:
bandwidth = 25Gb/s, a network's, read as the A100's memory bandwidth without a word; params = 7B
beside model = llama-3-70b): read as given, and said so, in every answer."""

from __future__ import annotations

import pytest


def _notes(answer: dict, dimension: str) -> list[dict]:
    return [n for c in answer["constraints"] if c["dimension"] == dimension for n in c.get("implied_otherwise", ())]


@pytest.mark.parametrize("text, dimension, by, figures", [
    ("recommend approach where params = 13B and hardware = a100 and gpus = 32 and bandwidth = 25Gb/s",
     "bandwidth", "hardware", [2.039e12]),
    ("recommend approach where params = 7B and model = llama-3-70b", "params", "architecture", [7.0e10, 7.055e10]),
    ("recommend technique where hardware = h100 and gpu-memory = 24GB", "gpu-memory", "hardware", [8.0e10]),
])
def test_a_given_number_the_other_constraints_disagree_with_is_said(kb, text, dimension, by, figures):
    (a,) = kb.query(text)
    (note,) = _notes(a, dimension)
    assert note["dimension"] == by and note["figures"] == figures
    given = next(c for c in a["constraints"] if c["dimension"] == dimension)
    assert "derived_from" not in given  # the value stays the user's


@pytest.mark.parametrize("text, dimension", [
    ("recommend approach where params = 8B and model = llama-3-8b", "params"),          # its published size
    ("recommend approach where params = 8.03B and model = llama-3-8b", "params"),       # its count
    ("recommend approach where hardware = a100 and bandwidth = 2.039TB/s", "bandwidth"),
])
def test_a_given_number_that_agrees_gets_no_note(kb, text, dimension):
    (a,) = kb.query(text)
    assert _notes(a, dimension) == []


def test_the_note_is_in_the_text_and_in_plan(kb):
    from recipekg.render.answers import render_answers

    text = "plan where params = 7B and model = llama-3-70b and hardware = h100 and gpus = 8"
    out = render_answers(kb.query(text), "text")
    assert "note: architecture = llama-3-70b implies params = 70B or 70.55B, which params = 7B does not agree" in out


@pytest.mark.parametrize("text, dimension", [
    # ask's trials re-derive with hardware = dgx-spark (128 GB): its note was left on the user's
    # own gpu-memory, shared with the trial, and the answer said a DGX Spark disagreed
    ("recommend technique where model = llama-2-13b and method = qlora and gpu-memory = 24GB and gpus = 1 "
     "and seq-length = 2048", "gpu-memory"),
    ("recommend technique where params = 7B and gpu-memory = 24GB and method = lora", "gpu-memory"),
])
def test_a_trial_s_note_never_reaches_the_answer(kb, text, dimension):
    from recipekg.render.answers import render_answers

    answers = kb.query(text)
    assert _notes(answers[0], dimension) == []
    assert "note:" not in render_answers(answers, "text")
    assert _notes(kb.query(text)[0], dimension) == []  # (nor a second asking of it)
