"""A time budget without a GPU count: the plan checks the fit on the fewest GPUs the budget
needs (not on one GPU), and never says that one GPU's wall time keeps to a budget it overruns."""

from __future__ import annotations

import pytest

QUERIES = ["plan where model = gpt-3-175b and hardware = v100 and time = 15 days and tokens = 300B",
           "plan where params = 7B and hardware = h100 and time = 1 week",
           "plan where params = 70B and hardware = a100 and time = 3 months and method = full-fine-tune and tokens = 20B"]


@pytest.mark.parametrize("query", QUERIES)
def test_the_fit_is_checked_on_the_gpus_the_budget_needs(kb, query):
    (a,) = kb.query(query)
    need = next(q for q in a["quantities"] if q["name"] == "gpus_needed")
    low = need["low"] if need.get("low") is not None else need["value"]
    assert low > 1 and a["fit"]["gpus"] == low
    assert any(f"on {int(low):,} GPUs" in line and "the fewest the time budget needs" in line for line in a["summary"])
    text = a["feasibility"]["text"]
    assert "keep to" in text and "on 1 GPU" not in text
    assert not any("on 1 GPU" in line for line in a["summary"] if line.startswith("time:"))


def test_with_gpus_given_the_fit_is_on_them(kb):
    (a,) = kb.query("plan where params = 7B and hardware = h100 and gpus = 8 and time = 1 week")
    assert a["fit"]["gpus"] == 8 and any(line.startswith("on 8 GPUs") for line in a["summary"])
