"""A choice the user made that the advice for their case weighs against is said beside the pick
(``decision.against_yours``): pretraining 13B from scratch on 8 A100s for a week is past the
reference's 3B cap for that budget (audit 5/15: the answer picked FSDP on memory alone)."""

from __future__ import annotations

import pytest


def _answer(kb, text: str) -> dict:
    (a,) = kb.query(f"recommend approach where {text}")
    return a


@pytest.mark.parametrize("situation, rule", [
    ("params = 13B and method = pretrain and hardware = a100 and gpus = 8 and time = 1 week",
     "multi-gpu-week-beyond-from-scratch"),
    ("params = 7B and method = pretrain and hardware = a100 and gpus = 1 and time = 5 days",
     "single-gpu-week-beyond-from-scratch"),
])
def test_pretraining_past_the_budgets_cap_is_advised_against(kb, situation, rule):
    a = _answer(kb, situation)
    assert a["decision"].get("against_yours") == ["train-from-scratch"]
    scratch = next(r for r in a["results"] if r["id"] == "train-from-scratch")
    assert rule in {x["id"] for x in scratch["against"] if x["match"] == "full"}
    assert all(s["id"] == "reference" for x in scratch["against"] if x["id"] == rule for s in x["sources"])


@pytest.mark.parametrize("situation", [
    "params = 3B and method = pretrain and hardware = a100 and gpus = 8 and time = 1 week",
    "params = 1B and method = pretrain and hardware = a100 and gpus = 1 and time = 5 days",
])
def test_within_the_cap_nothing_is_against_it(kb, situation):
    a = _answer(kb, situation)
    assert not a["decision"].get("against_yours")


def test_a_choice_not_made_is_not_yours(kb):
    a = _answer(kb, "params = 13B and hardware = a100 and gpus = 8 and time = 1 week")
    assert not a["decision"].get("against_yours"), "no method given: training from scratch is not the user's choice"


def test_the_text_says_it_after_the_pick(kb):
    from recipekg.render.answers import render_answers

    text = render_answers(kb.query("recommend approach where params = 13B and method = pretrain and hardware = a100 "
                                   "and gpus = 8 and time = 1 week"), "text", detail=False)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("pick: "))
    assert lines[at + 1].startswith("against your choice: Train from scratch (train-from-scratch) — Four to eight GPUs")


def test_it_is_said_even_when_the_entry_is_not_shown(kb):
    """``top 1`` shows only the pick: the line still names the user's choice the advice is
    against, and where to read why (the review of session 13 found it dropped)."""
    from recipekg.render.answers import render_answers

    text = render_answers(kb.query("recommend approach where params = 13B and method = pretrain and hardware = a100 "
                                   "and gpus = 8 and time = 1 week top 1"), "text", detail=False)
    assert "against your choice: train-from-scratch — not among the results shown: explain train-from-scratch" in text
