"""The rule index's rows (each rule as ranking a kind reads it, format 13) say what the rules
say: every field the ranking reads is the rule's, and a row's targets are the choices of its
kind the rule names, on their sides, as the backend paired them from the whole rule; the rules
a ranking evaluates from rows give the evaluations and pairs a scan of the whole rules gives
(issue 27, wave 6)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rule_index import kind_facts, snaps, synthetic_snap  # noqa: F401 (fixtures)

from recipekg.knowledge.rule_index import LEFT_OUT
from recipekg.reason.backend import NativeBackend


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_rows_are_the_rules_as_ranking_reads_them(snaps, which):  # noqa: F811 (the fixture)
    snap = snaps[which]
    scan = NativeBackend(snap, scan=True)
    for kind, entry in snap["rule_index"]["kinds"].items():
        assert len(entry["rows"]) == len(entry["rules"])
        for iri, row in zip(entry["rules"], entry["rows"]):
            rule = snap["rules"][iri]
            kept = {k: v for k, v in rule.items() if k not in LEFT_OUT and (k != "sources" or rule.get("origin"))}
            assert {k: v for k, v in row.items() if k != "targets"} == kept, iri
            assert tuple(map(tuple, row["targets"])) == scan._targets(iri, rule, kind), (iri, kind)


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_rankings_from_rows_evaluate_as_the_whole_rules(snaps, which):  # noqa: F811 (the fixture)
    """What ``applying`` gives from rows (the index's candidates) is what the scan of the whole
    rules gives, rule for rule: the same pairs, the same evaluations."""
    snap = snaps[which]

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        if (drawn := kind_facts(data, snap)) is None:
            return
        kind, _, facts = drawn
        rows = {(a.rule, a.choice, a.side): a.ev for a in NativeBackend(snap).applying(kind, facts)}
        whole = {(a.rule, a.choice, a.side): a.ev for a in NativeBackend(snap, scan=True).applying(kind, facts)}
        assert rows == whole

    check()
