"""tests/cases/plan.json, run by one test: each case a plan statement with the figures the
reference gives for it (its FLOPs/GPU-hours table, its memory rule of thumb, its strategies),
the fit verdict and the papers the answer must cite."""

from __future__ import annotations

import json

import pytest

from support import CASES

PLAN = json.loads((CASES / "plan.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", PLAN, ids=[c["query"] for c in PLAN])
def test_plan_case(kb, snap, case):
    (answer,) = kb.query(case["query"])
    q = {x["name"]: x for x in answer["quantities"]}
    for name, (value, tolerance) in case.get("near", {}).items():
        assert q[name]["value"] == pytest.approx(value, rel=tolerance), name
    for name, value in case.get("covers", {}).items():  # the reference's figure inside the range
        assert q[name]["low"] <= value <= q[name]["high"], (name, value, q[name]["low"], q[name]["high"])
    for name, (low, high) in case.get("within", {}).items():
        assert low <= q[name]["low"] <= q[name]["high"] <= high, (name, q[name]["low"], q[name]["high"])
    if "strategy" in case:
        assert answer["strategy"]["label"].startswith(case["strategy"])
    if "fits" in case:
        assert answer["fit"]["fits"] is case["fits"]
    cited = {s["id"] for x in answer["quantities"] for s in x["sources"]}
    assert set(case.get("sources", [])) <= cited
    assert any(s["path"].startswith(case["section"]) for s in snap["sections"].values())
