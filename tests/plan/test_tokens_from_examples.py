"""A fine-tune given its examples and its sequence length, and no tokens, is timed at the bound
they give (QA round 5, Q39 and P04: a QLoRA run of 20k examples at 4k tokens with a two-day
budget was left untimed, and a two-hour budget changed nothing): at most samples × seq-length
tokens an epoch (the KB's ``unique-tokens-from-examples``), over the epochs given or one."""

from __future__ import annotations

import pytest

QLORA = "plan where model = mistral-7b and method = qlora and hardware = l4 and gpus = 1"


def q(answer: dict, name: str) -> dict | None:
    return next((x for x in answer["quantities"] if x["name"] == name), None)


def test_the_examples_and_the_sequence_length_bound_the_tokens(run_plan):
    a = run_plan(f"{QLORA} and examples = 20k and seq-length = 4k")
    assert q(a, "unique_tokens")["value"] == pytest.approx(20e3 * 4e3)
    assert q(a, "tokens")["value"] == pytest.approx(20e3 * 4e3) and not q(a, "tokens").get("given")
    assert q(a, "gpu_hours")["value"] and q(a, "wall_time")["value"]
    assert not a["ask"]
    (note,) = [n for n in a["notes"] if n["text"].startswith("no tokens given")]
    assert "one epoch" in note["text"] and {s["id"] for s in note["sources"]} == {"kaplan2020"}
    three = run_plan(f"{QLORA} and examples = 20k and seq-length = 4k and epochs = 3")
    assert q(three, "tokens")["value"] == pytest.approx(3 * 20e3 * 4e3)
    assert q(three, "gpu_hours")["value"] == pytest.approx(3 * q(a, "gpu_hours")["value"], rel=0.02)


def test_the_time_budget_given_is_now_checked(run_plan):
    """Two hours and two days get different verdicts: the budget counts."""
    short = run_plan(f"{QLORA} and examples = 20k and seq-length = 4k and time = 2 hours")
    long = run_plan(f"{QLORA} and examples = 20k and seq-length = 4k and time = 20 days")
    assert short["feasibility"]["time_budget"] and long["feasibility"]["time_budget"]
    assert short["feasibility"]["text"] != long["feasibility"]["text"]
    assert "miss" in short["feasibility"]["text"] and "miss" not in long["feasibility"]["text"]


@pytest.mark.parametrize("where", ["examples = 20k", "examples > 10k and seq-length = 4k", "seq-length = 4k"])
def test_without_both_as_numbers_the_tokens_are_still_asked_for(run_plan, where):
    a = run_plan(f"{QLORA} and {where}")
    (ask,) = a["ask"]
    assert ask["dimension"] == "tokens" and q(a, "tokens")["value"] is None
    assert ("seq-length = 2k" in ask["text"]) == ("examples" in where)


def test_given_tokens_come_first_and_pretraining_is_untouched(run_plan):
    a = run_plan(f"{QLORA} and examples = 20k and seq-length = 4k and tokens = 10M")
    assert q(a, "tokens")["value"] == pytest.approx(10e6) and q(a, "unique_tokens") is None
    b = run_plan("plan where params = 1B and examples = 20k and seq-length = 4k")
    assert q(b, "tokens")["value"] == pytest.approx(20e9)     # Chinchilla's 20 per parameter, not the examples
    assert any("samples" in n["text"] for n in b["notes"] + b["warnings"] if n["text"].startswith("not used"))

