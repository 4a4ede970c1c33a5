"""The rule index (knowledge.rule_index, reason.backend.candidates) gives the full scan's
answers, on the bundled KB and on a synthetic one with deeper taxonomies and many more rules."""

from __future__ import annotations

import sys
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipekg.api import answer
from recipekg.errors import RecipeKGError
from recipekg.knowledge.compiler import compile_graph
from recipekg.knowledge.rdfio import read_all
from recipekg.knowledge.resources import bundled_files
from recipekg.query.parser import parse
from recipekg.reason.backend import NativeBackend, candidates
from recipekg.reason.recommend import rank
from recipekg.reason.resolve import facts_of
from recipekg.reason.scoring import evaluate_rule
from support import REPO

sys.path.insert(0, str(REPO))
from benchmarks.synthetic import generate  # noqa: E402

NUMERIC = {"samples": ["50", "3k", "30k", "200k", "2M", "20M"], "params": ["100M", "1B", "7B", "70B", "1T"],
           "gpus": ["1", "8", "64", "1024"], "time": ["2h", "1 day", "3 days", "2 weeks", "2 months"],
           "tokens": ["1B", "100B", "2T"], "gpu-memory": ["24GB", "80GB", "128GB"],
           "seq-length": ["512", "8k", "128k"], "batch-size": ["32", "4096"]}


@pytest.fixture(scope="module")
def synthetic_snap(tmp_path_factory):
    path = tmp_path_factory.mktemp("synthetic") / "synthetic.ttl"
    generate(str(path), 20_000)
    triples = read_all(bundled_files() + [path])
    return compile_graph(triples)


@pytest.fixture(scope="module")
def snaps(snap, synthetic_snap):
    return {"bundled": snap, "synthetic": synthetic_snap}


def kind_facts(data, snap):
    """A kind and the facts of a generated ``recommend`` query on it, drawn from ``data``
    (``(kind, where, facts)``; None for a query the language refuses)."""
    from recipekg.query.parser import parse
    from recipekg.reason.resolve import facts_of

    where = data.draw(facts_queries(snap))
    kind = data.draw(st.sampled_from(sorted(snap["kinds"])))
    try:
        return kind, where, facts_of(parse(f"recommend {kind}" + (f" where {where}" if where else ""))[0].constraints, snap)
    except RecipeKGError:
        return None


@st.composite
def facts_queries(draw, snap):
    cats = {n: sorted({snap["nodes"][v]["id"] for v in d["values"].values()})
            for n, d in snap["dimensions"].items() if d["kind"] == "categorical" and d["values"]}
    parts = []
    for dim in draw(st.lists(st.sampled_from(sorted(cats)), max_size=4, unique=True)):
        values = cats[dim]
        form = draw(st.integers(0, 5))
        if form <= 2:
            parts.append(f"{dim} = {draw(st.sampled_from(values))}")
        elif form == 3:
            parts.append(f"{dim} != {draw(st.sampled_from(values))}")
        else:
            picked = draw(st.lists(st.sampled_from(values), min_size=1, max_size=4, unique=True))
            parts.append(f"{dim} in ({', '.join(picked)})")
    for dim in draw(st.lists(st.sampled_from(sorted(NUMERIC)), max_size=3, unique=True)):
        op = draw(st.sampled_from(["=", "<", "<=", ">", ">=", "!=", "between", "in"]))
        vals = NUMERIC[dim]
        if op == "between":
            a, b = sorted(draw(st.lists(st.integers(0, len(vals) - 1), min_size=2, max_size=2)))
            parts.append(f"{dim} between {vals[a]} and {vals[b]}")
        elif op == "in":
            parts.append(f"{dim} in ({', '.join(draw(st.lists(st.sampled_from(vals), min_size=1, max_size=3)))})")
        else:
            parts.append(f"{dim} {op} {draw(st.sampled_from(vals))}")
    return " and ".join(parts)


def _facts(where: str, snap):
    (stmt,) = parse("plan" + (" where " + where if where else ""))
    return facts_of(stmt.constraints, snap)


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_the_index_ranks_as_the_full_scan(snaps, which):
    snap = snaps[which]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        where = data.draw(facts_queries(snap))
        try:
            facts = _facts(where, snap)
        except RecipeKGError:
            return
        for kind in sorted(snap["kinds"]):
            assert rank(kind, facts, snap) == rank(kind, facts, snap, NativeBackend(snap, scan=True)), (kind, where)

    check()


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_every_rule_that_fires_is_a_candidate(snaps, which):
    """Candidates are a superset of the rules that apply (and usually far fewer than all)."""
    snap = snaps[which]
    rules = snap["rules"]
    for where in ["data = tabular and rows = 30k", "data = images and samples between 3k and 2M",
                  "symptom = loss-spike", "hardware = h100 and gpus = 8 and time = 3 days", "prefer = low-memory",
                  "data != text and samples > 1M", "architecture = transformer and params >= 7B"]:
        facts = _facts(where, snap)
        for kind in snap["kinds"]:
            found = set(candidates(kind, facts, snap))
            of_kind = snap["rule_index"]["kinds"][kind]["rules"]
            fired = {r for r in of_kind if evaluate_rule(rules[r], facts, snap)["fires"]}
            assert fired <= found, (where, kind, fired - found)
            assert len(found) < len(of_kind) or len(of_kind) < 5, (where, kind)


def test_synthetic_rules_do_not_slow_a_bundled_query(snaps):
    """The bundled query engages the same rules whether or not 14K synthetic triples are loaded."""
    where = "data = tabular and rows = 30k"
    small = candidates("architecture", _facts(where, snaps["bundled"]), snaps["bundled"])
    big = candidates("architecture", _facts(where, snaps["synthetic"]), snaps["synthetic"])
    assert big == small


def test_every_example_is_answered_alike_through_the_index_and_by_the_full_scan(snap):
    scan = NativeBackend(snap, scan=True)
    for path in sorted((REPO / "queries").glob("*.rkg")):
        for stmt in parse(path.read_text(encoding="utf-8")):
            assert answer(stmt, snap, scan) == answer(stmt, snap), stmt.text


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_explain_reads_the_same_rules_and_names_through_the_index(snaps, which):
    snap = snaps[which]
    names = {}  # every name of a choice: aliases, then ids (which win)
    for field in ("aliases", "id"):
        for iri, node in snap["nodes"].items():
            if node["kinds"]:
                for name in (node[field] if field == "aliases" else [node[field]]):
                    names[name] = iri if field == "id" else names.get(name, iri)
    assert snap["rule_index"]["choices"] == names
    targets = {}
    for iri, rule in sorted(snap["rules"].items()):
        for t in dict.fromkeys(rule["recommends"] + rule["against"]):
            targets.setdefault(t, []).append(iri)
    assert snap["rule_index"]["by_target"] == targets


def test_ranking_among_some_choices_ranks_them_as_the_full_ranking_does():
    """``rank(..., among=...)`` reads only the rules naming those choices (plan's strategy and
    memory savings use it): the same reasons, scores and relative order as the full ranking,
    for every example statement and every pair of the choices it ranks."""
    import itertools
    from pathlib import Path

    import recipekg
    from recipekg.query.ast import Recommend
    from recipekg.query.parser import parse
    from recipekg.reason.recommend import rank
    from recipekg.reason.resolve import facts_of

    snap = recipekg.load().snap
    checked = 0
    for path in sorted(Path(__file__).parents[2].joinpath("queries").glob("*.rkg")):
        for stmt in parse(path.read_text(encoding="utf-8")):
            if not isinstance(stmt, Recommend):
                continue
            kind, facts = stmt.kind.text, facts_of(stmt.constraints, snap)
            full = rank(kind, facts, snap)
            for pair in itertools.islice(itertools.combinations([r["iri"] for r in full], 2), 6):
                some = rank(kind, facts, snap, among=pair)
                expect = [dict(r, rank=None) for r in full if r["iri"] in pair]
                assert [dict(r, rank=None) for r in some] == expect, (stmt.text, pair)
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_each_kinds_rules_are_sorted(snaps, which):
    """What lets a rule's position in its kind be found by bisection (reason.recommend.position)
    rather than by reading the whole list."""
    from recipekg.reason.recommend import position

    for kind, entry in snaps[which]["rule_index"]["kinds"].items():
        rules = list(entry["rules"])
        assert rules == sorted(rules), kind
        assert [position(entry["rules"], r) for r in rules[::7]] == list(range(0, len(rules), 7))


def _placed(results: list[dict], snap: dict) -> list:
    """What re-ranking a trial reads of a ranking: the entries (families folded) in order, with
    their ranks, groups, scores, labels and members, and the pick."""
    from recipekg.reason.answers import decision
    from recipekg.reason.families import group_families

    entries = group_families(results, snap)
    return [decision(entries)] + [(e["id"], e["rank"], e["group"], e["score"], e["label"],
                                   [m["id"] for m in e.get("members", ())]) for e in entries]


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_a_lean_ranking_places_every_choice_as_the_full_one(snaps, which):
    """Re-ranking a trial (ask, both sides of a threshold, explain's smallest change) reads a
    lean ranking: the same entries, ranks, groups, scores, labels and pick as the full one."""
    snap = snaps[which]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        where = data.draw(facts_queries(snap))
        try:
            facts = _facts(where, snap)
        except RecipeKGError:
            return
        for kind in sorted(snap["kinds"]):
            lean, full = rank(kind, facts, snap, lean=True), rank(kind, facts, snap)
            assert _placed(lean, snap) == _placed(full, snap), (kind, where)

    check()


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_the_rules_that_could_match_fully_hold_every_full_match(snaps, which):
    """``applying(..., only="full")`` (what ranking among a few choices measures specificity
    against) gives every rule that matches fully, and no rule list grows with the others."""
    snap = snaps[which]
    backend = NativeBackend(snap)

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        where = data.draw(facts_queries(snap))
        try:
            facts = _facts(where, snap)
        except RecipeKGError:
            return
        for kind in sorted(snap["kinds"]):
            def full(applied):
                return {(a.rule, a.choice, a.side) for a in applied if a.ev["match"] == "full"}
            assert full(backend.applying(kind, facts, "full")) == full(backend.applying(kind, facts)), (kind, where)

    check()


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_a_decisive_ranking_decides_as_the_full_one(snaps, which):
    """Re-ranking a trial from the rules that could decide (``decisive``): the first group's
    entries in the same order with the same scores, the same pick and runner-ups, and the same
    first entry whenever it is in the first group."""
    from recipekg.reason.answers import decision
    from recipekg.reason.families import group_families
    from recipekg.reason.scoring import MATCHES

    snap = snaps[which]

    def matching(entries):
        return [(e["id"], e["rank"], e["score"], [m["id"] for m in e.get("members", ())]) for e in entries
                if e["group"] == MATCHES]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        where = data.draw(facts_queries(snap))
        try:
            facts = _facts(where, snap)
        except RecipeKGError:
            return
        for kind in sorted(snap["kinds"]):
            full = group_families(rank(kind, facts, snap, lean=True), snap)
            decisive = group_families(rank(kind, facts, snap, lean=True, decisive=True), snap)
            assert matching(decisive) == matching(full), (kind, where)
            assert decision(decisive) == decision(full), (kind, where)
            if decisive and decisive[0]["group"] == MATCHES:
                assert decisive[0]["id"] == full[0]["id"], (kind, where)

    check()


class _Afresh(NativeBackend):
    """The native backend evaluating every rule afresh (nothing reused): what the re-rankings
    computed before :class:`recipekg.reason.backend.Evaluations`."""

    def _evaluate(self, iri, rule, facts):
        return evaluate_rule(rule, facts, self.snap)


class _Counting(NativeBackend):
    """The native backend (reusing evaluations), counting the evaluations asked for."""

    asked = 0

    def _evaluate(self, iri, rule, facts):
        self.asked += 1
        return super()._evaluate(iri, rule, facts)


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_re_rankings_from_reused_evaluations_equal_fresh_ones(snaps, which):
    """A trial (the answer's facts with some dimensions changed, as ask, both sides of a
    threshold and explain's smallest change make them) ranked by the backend that ranked the
    answer, reusing its evaluations, ranks as one evaluating every rule afresh; whole answers
    (whose re-rankings share one backend) equal the ones from a backend reusing nothing; and
    evaluations are reused."""
    from recipekg.reason.derive import derive
    from recipekg.names import quote_choice
    from recipekg.reason.explain import explain
    from recipekg.reason.recommend import ranking, recommend

    snap = snaps[which]
    totals = [0, 0]  # evaluations asked for, evaluations made

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data):
        where, other = data.draw(facts_queries(snap)), data.draw(facts_queries(snap))
        try:
            facts, changed = _facts(where, snap), _facts(other, snap)
        except RecipeKGError:
            return
        kept = {n: f for n, f in facts.items() if not f.derived}
        trial = derive({**kept, **{n: f for n, f in changed.items() if not f.derived}}, snap)
        for kind in sorted(snap["kinds"]):
            backend = _Counting(snap)
            ranking(kind, facts, snap, backend, lean=True)  # the answer's ranking: its evaluations are kept
            for decisive in (True, False):
                assert (rank(kind, trial, snap, backend, lean=True, decisive=decisive)
                        == rank(kind, trial, snap, _Afresh(snap), lean=True, decisive=decisive)), (kind, where, other)
            totals[0] += backend.asked
            totals[1] += backend.evaluations.made
            (stmt,) = parse(f"recommend {kind}" + (f" where {where}" if where else ""))
            assert recommend(stmt, snap) == recommend(stmt, snap, _Afresh(snap)), (kind, where)
        choice = data.draw(st.sampled_from(sorted(snap["rule_index"]["choices"])))
        (stmt,) = parse(f"explain {quote_choice(choice)}" + (f" where {where}" if where else ""))
        assert explain(stmt, snap) == explain(stmt, snap, _Afresh(snap)), (choice, where)

    check()
    assert totals[1] < totals[0], totals  # some evaluations were reused
