"""The answer's ranking as it is made (statuses kept per condition, evaluations per statuses,
deferred reasons and papers, the constraints no advice used found in two passes) gives the
same whole answers as the full ranking made the plain way, on generated ``recommend`` and
``explain`` queries, on the bundled KB and on a synthetic one (issue 27)."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rule_index import _Afresh, facts_queries, kind_facts, snaps, synthetic_snap  # noqa: F401 (fixtures)

import recipekg.reason.explain as explain_module
import recipekg.reason.recommend as recommend_module
from recipekg.errors import RecipeKGError
from recipekg.names import quote_choice
from recipekg.query.parser import parse
from recipekg.reason.conditions import FAILED, HELD, NOT_GIVEN, PARTLY
from recipekg.reason.explain import explain
from recipekg.reason.recommend import recommend
from recipekg.reason.situation import _derived_needs, sources_of, near_reasons, unused_entries


def _unused_every_evaluation(kind, facts, evaluated, verdicts, snap, near=None, excluded=None):
    """The constraints no advice used as they were found before the two passes: every
    evaluation read for what it uses and what it needs (the reference; ``near`` recomputed),
    an evaluation for a choice ruled out using nothing."""
    near = near_reasons(evaluated, facts, snap["dimensions"])
    gone = {e["id"]: e["label"] for e in excluded or ()}
    ruled_out: dict[str, set[str]] = {}
    used: set[str] = set()
    needs: dict[str, set[str]] = {}
    for a in evaluated:
        statuses, conds = a.ev["statuses"], a.ev["conditions"]
        applies = FAILED not in statuses
        miss = near.get((a.rule, a.choice, a.side))
        for c, s in zip(conds, statuses):
            if c["dimension"] not in facts:
                continue
            about = ((applies or miss is not None) and s in (HELD, PARTLY)
                     or miss is not None and (miss["dimension"] == c["dimension"] or s == FAILED))
            for g in sources_of(c["dimension"], facts):
                if about and snap["nodes"][a.choice]["id"] in gone:
                    ruled_out.setdefault(g, set()).add(gone[snap["nodes"][a.choice]["id"]])
                elif about:
                    used.add(g)
                else:
                    needs.setdefault(g, set()).update(
                        o["label"] for o, so in zip(conds, statuses) if so in (FAILED, NOT_GIVEN))
    for v in verdicts:
        for dim in (v["dimension"], *v.get("when", ())):
            used |= sources_of(dim, facts)
    for name in [n for n, f in facts.items() if not f.derived and n not in used and n not in needs]:
        needs[name] = _derived_needs(kind, name, facts, snap) or None  # rules the index does not reach
    return [e for name, f in facts.items() if not f.derived and name not in used
            for e in unused_entries(kind, name, facts, needs.get(name), snap, ruled_out.get(name))]


def _plainly(answer_of, stmt, snap, shown: int):
    """``answer_of(stmt, snap, backend)`` the plain way: every rule evaluated afresh (no
    statuses or evaluations kept), every reason and paper read in every ranking (not lean),
    every result made in full (not only those shown), unused from every evaluation."""
    full = recommend_module.ranking

    def not_lean(kind, facts, snap, backend=None, among=None, lean=False, decisive=False, shown=None, keep=()):
        return full(kind, facts, snap, backend, among, False, decisive)

    with (mock.patch.object(recommend_module, "ranking", not_lean),
          mock.patch.object(explain_module, "ranking", not_lean),
          mock.patch.object(recommend_module, "unused", _unused_every_evaluation),
          mock.patch.object(explain_module, "unused", _unused_every_evaluation),
          mock.patch.object(recommend_module, "SHOWN", shown)):
        return answer_of(stmt, snap, _Afresh(snap))


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_answers_equal_the_plain_full_ranking(snaps, which):  # noqa: F811 (the fixture)
    """Whole answers (results shown, ``more``, ``excluded``, ``unused``, ``ask``,
    ``near_boundary``, explain's ranks and smallest change) with and without ``top``, and with
    fewer results shown by default than match (so ``more`` counts the rest)."""
    snap = snaps[which]
    kinds = sorted(snap["kinds"])
    choices = sorted(snap["rule_index"]["choices"])

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        where = data.draw(facts_queries(snap))
        top = data.draw(st.one_of(st.none(), st.integers(1, 60)))
        shown = data.draw(st.sampled_from([2, 5, 50]))
        kind = data.draw(st.sampled_from(kinds))
        text = f"recommend {kind}" + (f" where {where}" if where else "") + (f" top {top}" if top else "")
        try:
            (stmt,) = parse(text)
            with mock.patch.object(recommend_module, "SHOWN", shown):
                made = recommend(stmt, snap)
        except RecipeKGError:
            return
        assert made == _plainly(recommend, stmt, snap, shown), text
        choice = data.draw(st.sampled_from(choices))
        (stmt,) = parse(f"explain {quote_choice(choice)}" + (f" where {where}" if where else ""))
        assert explain(stmt, snap) == _plainly(explain, stmt, snap, shown), stmt.text

    check()


def test_the_broad_question_counts_every_match_beyond_those_shown(synthetic_snap):  # noqa: F811
    """On the synthetic KB the broad question matches more than it shows: ``more`` counts them
    all, and the shown results are the plain full ranking's first ones."""
    (stmt,) = parse("recommend approach where gpus = 64 and time < 100 hours")
    with mock.patch.object(recommend_module, "SHOWN", 5):
        made = recommend(stmt, synthetic_snap)
    assert made == _plainly(recommend, stmt, synthetic_snap, 5)
    assert made["more"]["of"] > made["more"]["shown"] == len(made["results"]) == 5


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_families_compare_only_the_results_that_could_fold(snaps, which):  # noqa: F811 (the fixture)
    """``group_families`` reads the signatures of the results related to another ranked one
    only (``_foldable``): the same entries, ranks and members as comparing every result's, on
    generated queries (wave 7)."""
    import recipekg.reason.families as families_module
    from recipekg.reason.recommend import rank

    snap = snaps[which]

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        if (drawn := kind_facts(data, snap)) is None:
            return
        kind, where, facts = drawn
        made = families_module.group_families(rank(kind, facts, snap, lean=True), snap)
        with mock.patch.object(families_module, "_foldable", lambda results, nodes: results):
            every = families_module.group_families(rank(kind, facts, snap, lean=True), snap)
        assert made == every, (kind, where)

    check()


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_results_made_for_what_is_read_equal_the_full_ranking(snaps, which):  # noqa: F811 (the fixture)
    """A ranking asked for ``shown`` results (wave 8: the rest ordered from their reasons as the
    scoring reads them, :func:`recipekg.reason.recommend.reason_record`, and counted) makes the
    full ranking's results at their ranks: every match, every result a family could fold, and the
    first ``shown`` others; its count is the full ranking's, and so are its first ``shown`` entries,
    on generated queries, decisive or not, with the records made whenever there are any."""
    import recipekg.reason.families as families_module
    from recipekg.reason.recommend import ranking
    from recipekg.reason.scoring import MATCHES

    snap = snaps[which]

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        if (drawn := kind_facts(data, snap)) is None:
            return
        kind, where, facts = drawn
        shown = data.draw(st.integers(0, 12))
        decisive = data.draw(st.booleans())
        full = ranking(kind, facts, snap, lean=True, decisive=decisive)
        with mock.patch.object(recommend_module, "SHOWN", 0):  # records whenever there are reasons
            made = ranking(kind, facts, snap, lean=True, decisive=decisive, shown=shown)
        assert made["count"] == full["count"] == len(full["results"]), (kind, where)
        by_rank = {r["rank"]: r for r in full["results"]}
        assert all(r == by_rank[r["rank"]] for r in made["results"]), (kind, where)
        ranks = {r["rank"] for r in made["results"]}
        assert all(r["rank"] in ranks for r in full["results"] if r["group"] == MATCHES), (kind, where)
        entries = families_module.group_families(made["results"], snap)
        every = families_module.group_families(full["results"], snap)
        assert entries[:shown] == every[:shown], (kind, where)
        assert len(entries) + made["count"] - len(made["results"]) == len(every), (kind, where)
        assert [e for e in every if e["group"] == MATCHES] == [e for e in entries if e["group"] == MATCHES]

    check()
