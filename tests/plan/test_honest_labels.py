"""Honest labels (issue 12): interval solves take their bounds from the ends that solved,
counts the user gave are printed as given, and the strategy follows the ratio the numbers imply."""

from __future__ import annotations

import math

import pytest

from recipekg.plan import expr
from recipekg.render.answers import render_answers

FSDP = expr.parse_formula("m = a * p / g + b * p")


@pytest.fixture(scope="module")
def run_plan(kb):
    cache = {}

    def run(query: str) -> dict:
        if query not in cache:
            (cache[query],) = kb.query(query)
        return cache[query]
    return run


def fsdp(answer: dict) -> dict:
    (rec,) = [r for r in answer["recommendations"] if r["id"] == "fsdp"]
    return rec


# ------------------------------------------------------------------ interval solves

def test_solve_low_end_is_the_end_that_solved():
    """13B, 12 bytes/param sharded, 4–8 bytes/param of activations, 80 GB: at 4 bytes/param 6
    GPUs fit (156e9 / g ≤ 28e9), at 6 it takes 78, at 8 none do. The low end is 6, not 78."""
    g = expr.solve(FSDP, "g", {"a": 12, "b": expr.Q.span(4, 8), "p": 13e9, "m": 80e9})
    assert g.low == pytest.approx(156 / 28)
    assert g.value == pytest.approx(78)
    assert math.isinf(g.high)


def test_solve_when_only_an_end_solves():
    """15B: only the low end of the activations (4 bytes/param) leaves room; the answer is not
    'no solution' but 9 GPUs at that end, an unbounded point and high end."""
    g = expr.solve(FSDP, "g", {"a": 12, "b": expr.Q.span(4, 8), "p": 15e9, "m": 80e9})
    assert g is not None
    assert g.low == pytest.approx(180 / 20)
    assert math.isinf(g.value) and math.isinf(g.high)
    assert expr.solve(FSDP, "g", {"a": 12, "b": expr.Q.span(6, 8), "p": 15e9, "m": 80e9}) is None


def test_solve_ranges_every_end_solved():
    g = expr.solve(FSDP, "g", {"a": 12, "b": expr.Q.span(1, 2), "p": 10e9, "m": 80e9})
    assert (g.low, g.high) == (pytest.approx(120 / 70), pytest.approx(120 / 60))
    assert g.low < g.value < g.high


def test_fsdp_gpus_needed_issue_case(run_plan):
    """The issue's case: 'FSDP fits from about 78 GPUs' where 6 do."""
    a = run_plan("plan where params = 13B and hardware = a100 and gpus = 8")
    rec = fsdp(a)
    assert rec["gpus_needed"]["low"] == 6
    assert rec["gpus_needed"]["high"] is None          # no count is enough at the high end
    assert "from about 6 GPUs of 80 GB at the low end" in rec["text"]
    assert "78" not in rec["text"].split("at the low end")[0]
    text = render_answers([a], "text")
    assert "FSDP fits from about 6 GPUs" in text


def test_fsdp_gpus_needed_low_end_only(run_plan):
    rec = fsdp(run_plan("plan where params = 15B and hardware = a100 and gpus = 8"))
    assert rec["gpus_needed"]["low"] == 9
    assert "no number of GPUs is enough" not in rec["text"]
    assert "from about 9 GPUs of 80 GB at the low end" in rec["text"]
