"""`plan` against the world (issue 22, docs/plan-against-the-world.md): runs the KB never saw,
each run of the KB's MFU evidence left out in turn, published energy and emissions, and
llm-analysis on identical configurations. A figure the table marks as differing must still
differ, and say why; every other one must agree."""

from __future__ import annotations

import sys

import pytest

from support import REPO

sys.path.insert(0, str(REPO / "tools"))
import gen_world_doc  # noqa: E402
import published_runs  # noqa: E402
import world_checks  # noqa: E402

HELDOUT = published_runs.load(published_runs.HELDOUT)
ENERGY = published_runs.load(published_runs.ENERGY)
LLM = world_checks.load(world_checks.LLM)
KB_RUNS = {r["id"] for r in published_runs.load()}


@pytest.mark.parametrize("row", HELDOUT, ids=[r["id"] for r in HELDOUT])
def test_a_held_out_run_is_inside_plans_range_or_says_why(run_plan, snap, row):
    assert row["id"] not in KB_RUNS
    assert not any(f["id"].endswith(row["id"]) for f in snap["facts"].values())   # the KB never saw it
    result = published_runs.evaluate(run_plan, row)
    assert result["range"]["applies"]
    if "range" in published_runs.differs(row):
        assert not result["range"]["ok"] and len(row["why"]) > 40
    else:
        assert result["range"]["ok"], result["range"]
    assert row["source"] and row["where"] and len(row["evidence"]) > 40


@pytest.mark.parametrize("row", ENERGY, ids=[r["id"] for r in ENERGY])
def test_energy_and_emissions_at_the_published_gpu_hours(run_plan, row):
    result = published_runs.evaluate_energy(run_plan, row, gen_world_doc.PEAK[row["hardware"]])
    assert result["gpu_hours"] == pytest.approx(float(row["gpu_hours"]), rel=1e-5)
    checked = [c for c in ("energy", "co2") if result[c]["applies"]]
    assert checked, "a row publishes energy or emissions"
    for check in checked:
        assert result[check]["ok"], (check, result[check])


def test_the_energy_table_has_its_figures():
    figures = sum(bool(r["energy_kwh"]) + bool(r["co2_kg"]) for r in ENERGY)
    new_runs = len(HELDOUT)
    assert figures + new_runs >= 24             # with TinyLlama's stated MFU, 25 figures the issue asked for
    assert all(r["intensity_basis"].startswith(("stated", "assumed")) for r in ENERGY)


@pytest.mark.parametrize("row", LLM, ids=[r["id"] for r in LLM])
def test_plan_beside_llm_analysis(run_plan, row):
    result = world_checks.evaluate_llm(run_plan, row)
    assert result
    for column, r in result.items():
        if column in world_checks.differs(row):
            assert not r["ok"] and len(row["why"]) > 40, (column, r)
        else:
            assert r["ok"], (column, r)


def test_ten_identical_configurations_at_least():
    assert len(LLM) >= 10 and len({r["plan_query"] for r in LLM}) == len(LLM)
    assert all(r["llm_analysis_call"].startswith(("train(", "infer(")) for r in LLM)


def test_each_run_left_out_in_turn(snap):
    from recipekg.plan.kbview import KBView
    from recipekg.plan.ledger import Ledger

    results = world_checks.leave_one_out(lambda: Ledger(KBView(snap)))
    assert len(results) >= 20
    assert sum(r["ok"] for r in results) >= 0.8 * len(results)
    for r in results:   # a miss is off by a bounded factor, not an order of magnitude
        assert r["low"] / 1.6 <= r["mfu"] <= r["high"] * 1.6, r


def test_the_doc_is_up_to_date(kb):
    doc = REPO / "docs" / "plan-against-the-world.md"
    assert doc.read_text(encoding="utf-8") == gen_world_doc.render(*gen_world_doc.compute(kb)), \
        "run: python tools/gen_world_doc.py"
