"""Plan's look-ups compiled into the snapshot (recipekg/plan/index.py) find what the scans they
replace found, and the published runs' MFUs compiled with it are the ones a plan computes; a
KB whose MFUs cannot be computed (a published run whose arithmetic overflows, on another GPU
than the plan's) still stops every plan with the same error, as before the index."""

from __future__ import annotations

import pytest

import recipekg
from recipekg.plan.index import plan_index
from recipekg.plan.kbview import KBView
from recipekg.plan.ledger import Ledger
from recipekg.plan.utilisation import points
from support import TURTLE_PREFIXES

RUN = TURTLE_PREFIXES + """@prefix fact: <https://w3id.org/recipekg/fact/> .

fact:run-test-{name} a rkg:Fact, rkg:PublishedRun ;
    rdfs:label "Published run: test {name}" ;
    rkg:text "A test run." ;
    rkg:params {params} ;
    rkg:tokens {tokens} ;
    rkg:gpuHours 2.0e+5 ;  # (an MFU of 0.47 on a V100, 0.06 on an H100: at most 1, as validate checks)
    rkg:onHardware kb:{hardware} ;
    rkg:section sec:compute-budget-planning--flops-estimates-by-model-size ;
    prov:wasDerivedFrom paper:touvron2023 .
"""


def _live(snap) -> list[dict]:
    """The MFUs as a plan computed them before they were compiled: from every fact, in order."""
    from recipekg.plan.utilisation import _points

    return _points(Ledger(KBView(snap)), ())


def test_the_look_ups_find_what_a_scan_finds(snap):
    index = plan_index(snap)
    constants, formulas, facts = (dict(snap[t].items()) for t in ("constants", "formulas", "facts"))
    for symbol, iri in index["constants_by_symbol"].items():
        assert [i for i, c in constants.items() if c["symbol"] == symbol][-1] == iri
    for fid, iri in index["fact_ids"].items():
        assert next(i for i, f in facts.items() if f["id"] == fid) == iri
    for output, iris in index["formulas_by_output"].items():
        assert iris == sorted(i for i, f in formulas.items() if f["expression"] and f["computes"] == output)
    assert index["facts_by_type"]["ComputeEstimate"] == [i for i, f in facts.items() if "ComputeEstimate" in f["types"]]
    assert index["broken_formula"] is None


def test_the_compiled_mfus_are_the_computed_ones(snap):
    assert points(Ledger(KBView.of(snap))) == _live(snap)


@pytest.mark.parametrize("hardware", ["h100", "v100"])
def test_an_extensions_run_is_compiled_with_it(tmp_path, hardware):
    ext = tmp_path / "run.ttl"
    ext.write_text(RUN.format(name="small", params="7.0e+09", tokens="1.0e+12", hardware=hardware), encoding="utf-8")
    snap = recipekg.load([ext]).snap
    found = points(Ledger(KBView.of(snap)))
    assert found == _live(snap) and any(p["fact"] == "run-test-small" for p in found)
    assert snap["plan_index"]["mfu_points"] is not None


def test_a_run_whose_arithmetic_would_overflow_is_refused_at_its_line(tmp_path):
    """A run of 1e200 parameters and tokens (its FLOPs overflow a float) never reaches a plan:
    its figures lie beyond the magnitudes plan computes with, and the load refuses them at
    their line (it used to be compiled, and then stopped every plan)."""
    ext = tmp_path / "huge.ttl"
    ext.write_text(RUN.format(name="huge", params="1.0e+200", tokens="1.0e+200", hardware="v100"), encoding="utf-8")
    with pytest.raises(recipekg.KBError, match=r"rkg:params is 1.0e\+200: it must be at most 1e\+40") as refused:
        recipekg.load([ext])
    assert refused.value.line == RUN.format(name="huge", params="1.0e+200", tokens="", hardware="").splitlines().index(
        "    rkg:params 1.0e+200 ;") + 1
