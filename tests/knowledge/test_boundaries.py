"""The ends of every numeric condition, read as the reference's wording says (docs/authoring.md,
*Numeric intervals*).

- generated: every numeric condition of the compiled KB, for each finite bound, queried exactly
  at the bound, just inside and just outside (the next double and a step of 0.1%), and with the
  half-lines and short ranges that end there. The expected status comes from an oracle that
  knows only the condition's bounds and flags; the native reasoner
  (:func:`recipekg.reason.conditions.status`) and the exported SPARQL pattern on Oxigraph
  (:func:`recipekg.sparql.generate.status_query`, and the whole ``explain`` query for the
  conditions rules use) must both give it;
- table-driven: the reference's shared ends as full statements ("rows = 50k" is in the 50K-500K
  row, "params = 70B" in 30-70B, "gpus = 1 and time = 7 days" is the single-GPU 1-7 days tier, ...),
  natively and on Oxigraph;
- explain proposes constraints that make the condition hold, ends included or not.
"""

from __future__ import annotations

import math

import pytest

from recipekg.api import answer
from recipekg.query.parser import parse
from recipekg.reason.conditions import status
from recipekg.reason.facts import Facts
from recipekg.reason.resolve import facts_of
from recipekg.sparql import engines
from recipekg.sparql.backend import SparqlBackend
from recipekg.sparql.generate import explain_query, status_query

COND = "https://w3id.org/recipekg/cond/"
INF = math.inf


@pytest.fixture(scope="module")
def oxigraph(kb):
    return engines.get_engine("oxigraph", kb.files)


def numeric_conditions(snap) -> list[tuple[str, dict]]:
    return [(iri, c) for iri, c in sorted(snap["conditions"].items()) if not c["values"] and c["dimension"]]


# ----------------------------------------------------------------------------- the oracle

def inside(cond: dict, x: float) -> bool:
    """``x`` satisfies the condition, by its bounds and flags alone."""
    low, high = cond["min"], cond["max"]
    above = low is None or x > low or (x == low and cond["min_inclusive"])
    below = high is None or x < high or (x == high and cond["max_inclusive"])
    return above and below


def in_interval(interval, x: float) -> bool:
    low, low_inc, high, high_inc = interval
    return (x > low or (x == low and low_inc)) and (x < high or (x == high and high_inc))


def expected(cond: dict, intervals: list) -> str:
    """held / partly / failed, from probe points: every end, the middle of each gap between
    ends and a point beyond each extreme (membership is constant between two ends)."""
    ends = sorted({e for i in intervals for e in (i[0], i[2]) if math.isfinite(e)}
                  | {b for b in (cond["min"], cond["max"]) if b is not None})
    probes = set(ends) | {(a + b) / 2 for a, b in zip(ends, ends[1:])}
    probes |= {ends[0] - abs(ends[0]) - 1.0, ends[-1] + abs(ends[-1]) + 1.0}
    in_query = [x for x in probes if any(in_interval(i, x) for i in intervals)]
    if all(inside(cond, x) for x in in_query):
        return "held"
    if not any(inside(cond, x) for x in in_query):
        return "failed"
    return "partly"


def queries_at(cond: dict) -> list[tuple[str, list]]:
    """Query intervals at, just inside and just outside each finite bound of ``cond``."""
    out = []
    for b in (cond["min"], cond["max"]):
        if b is None:
            continue
        step = abs(b) * 1e-3
        for x in (b, math.nextafter(b, -INF), math.nextafter(b, INF), b - step, b + step):
            out.append((f"= {x!r}", [(x, True, x, True)]))
        out += [(f"< {b!r}", [(-INF, False, b, False)]), (f"<= {b!r}", [(-INF, False, b, True)]),
                (f"> {b!r}", [(b, False, INF, False)]), (f">= {b!r}", [(b, True, INF, False)]),
                (f"between {b - step!r} and {b!r}", [(b - step, True, b, True)]),
                (f"between {b!r} and {b + step!r}", [(b, True, b + step, True)]),
                (f"!= {b!r}", [(-INF, False, b, False), (b, False, INF, False)])]
    if cond["min"] is not None and cond["max"] is not None:
        out.append((f"between {cond['min']!r} and {cond['max']!r}",
                    [(cond["min"], True, cond["max"], True)]))
    return out


def test_the_oracle_reads_the_flags():
    week = {"min": 24.0, "min_inclusive": True, "max": 168.0, "max_inclusive": True}
    assert expected(week, [(168.0, True, 168.0, True)]) == "held"
    assert expected({**week, "max_inclusive": False}, [(168.0, True, 168.0, True)]) == "failed"
    assert expected(week, [(24.0, True, 168.0, True)]) == "held"
    assert expected({**week, "max_inclusive": False}, [(24.0, True, 168.0, True)]) == "partly"
    over = {"min": 7e10, "min_inclusive": False, "max": None, "max_inclusive": False}
    assert expected(over, [(7e10, True, 7e10, True)]) == "failed"
    assert expected(over, [(7e10, False, INF, False)]) == "held"
    assert expected(over, [(7e10, True, INF, False)]) == "partly"


# ----------------------------------------------------------------------------- generated

def test_every_numeric_condition_has_sound_bounds(snap):
    conds = numeric_conditions(snap)
    assert len(conds) >= 30
    for iri, c in conds:
        assert c["min"] is not None or c["max"] is not None, iri
        assert c["min_inclusive"] is (c["min"] is not None and c["min_inclusive"]), iri
        assert c["max_inclusive"] is (c["max"] is not None and c["max_inclusive"]), iri
        if c["min"] is not None and c["max"] is not None:
            assert c["min"] < c["max"] or (c["min"] == c["max"] and c["min_inclusive"] and c["max_inclusive"]), iri


def test_every_bound_natively_and_in_sparql(snap, oxigraph):
    """At, just inside and just outside every end of every numeric condition, the native
    status and the exported SPARQL pattern's status are what the bounds' flags say."""
    wrong = []
    checked = 0
    for iri, cond in numeric_conditions(snap):
        dim = snap["dimensions"][cond["dimension"]]
        for shown, intervals in queries_at(cond):
            facts = {dim["name"]: Facts(dim["name"], dim["kind"], intervals=intervals)}
            want = expected(cond, intervals)
            native = status(cond, facts, snap)
            rows = oxigraph.select(status_query(iri, facts, snap))
            sparql = rows[0]["st"] if len(rows) == 1 else f"{len(rows)} rows"
            checked += 1
            if native != want or sparql != want:
                wrong.append(f"{iri.removeprefix(COND)} ({cond['label']}) with {dim['name']} {shown}: "
                             f"expected {want}, native {native}, sparql {sparql}")
    assert not wrong, f"{len(wrong)} of {checked} checks:\n" + "\n".join(wrong)
    assert checked > 400


def test_every_bound_through_the_rules_that_use_it(snap, oxigraph):
    """The whole exported query (explain, one choice of a rule using the condition) lists the
    condition as held or failed at and around each of its ends, as the native reasoner does."""
    wrong = []
    for iri, cond in numeric_conditions(snap):
        rule = next((r for r in snap["rules"].values() if iri in r["conditions"]
                     and (r["recommends"] or r["against"])), None)
        if rule is None:
            continue  # a compute tier's condition: checked through derived tiers below
        choice = (rule["recommends"] + rule["against"])[0]
        dim = snap["dimensions"][cond["dimension"]]
        for b in (cond["min"], cond["max"]):
            if b is None:
                continue
            for x in (b, math.nextafter(b, -INF), math.nextafter(b, INF)):
                facts = {dim["name"]: Facts(dim["name"], dim["kind"], intervals=[(x, True, x, True)])}
                want = "held" if inside(cond, x) else "failed"
                rows = [r for r in oxigraph.select(explain_query(choice, facts, snap))
                        if r["rule"] == f"https://w3id.org/recipekg/rule/{rule['id']}"]
                lists = {s: set(rows[0][f"{s}List"].split()) for s in ("held", "partly", "failed")} if rows else {}
                got = next((s for s, conds in lists.items() if iri in conds), "missing")
                native = status(cond, facts, snap)
                if got != want or native != want:
                    wrong.append(f"{rule['id']} / {iri.removeprefix(COND)} at {dim['name']} = {x!r}: "
                                 f"expected {want}, sparql {got}, native {native}")
    assert not wrong, "\n".join(wrong)


# ----------------------------------------------------------------------------- the reference's shared ends

def applying(where: str, snap) -> set[str]:
    """Local names of the conditions of every rule that fires, for any kind of choice."""
    found = set()
    for kind in snap["kinds"]:
        (statement,) = parse(f"recommend {kind} where {where}")
        result = answer(statement, snap)
        for r in result["results"]:
            for x in r["because"] + r["against"]:
                if x["match"] != "near":  # a rule near its threshold does not apply: it is shown, not fired
                    found.update(c.removeprefix(COND) for c in snap["rules"][x["rule"]]["conditions"])
    return found


SHARED_ENDS = [
    # tabular table and flowchart branch: < 10K | 10K-50K | 50K-500K | > 500K; < 50K | 50K-500K | > 500K
    ("data = tabular and rows = 10k", ["samples-10k-50k", "samples-lt-50k"], ["samples-lt-10k"]),
    ("data = tabular and rows = 50k", ["samples-50k-500k"], ["samples-10k-50k", "samples-lt-50k"]),
    ("data = tabular and rows = 500k", ["samples-50k-500k"], ["samples-gt-500k"]),
    ("data = tabular and rows = 600k", ["samples-gt-500k"], ["samples-50k-500k"]),
    # vision table (< 5K | 5K-50K | 50K-500K | > 1M | > 10M) and flowchart (< 10K | 10K-1M | > 1M)
    ("data = images and images = 5k", ["samples-5k-50k", "samples-lt-10k"], ["samples-lt-5k"]),
    ("data = images and images = 10k", ["samples-5k-50k", "samples-10k-1m"], ["samples-lt-10k"]),
    ("data = images and images = 50k", ["samples-50k-500k", "samples-10k-1m"], ["samples-5k-50k"]),
    ("data = images and images = 500k", ["samples-50k-500k", "samples-10k-1m"], ["samples-gt-1m"]),
    ("data = images and images = 1M", ["samples-10k-1m"], ["samples-gt-1m", "samples-50k-500k"]),
    ("data = images and images = 10M", ["samples-gt-1m"], ["samples-gt-10m", "samples-10k-1m"]),
    ("data = images and images = 11M", ["samples-gt-1m", "samples-gt-10m"], []),
    # NLP table (< 100 | 100-1K | 1K-10K | 10K-100K | > 100K) and flowchart (< 1K)
    ("data = text and examples = 100", ["samples-100-1k", "samples-lt-1k"], ["samples-lt-100"]),
    ("data = text and examples = 1k", ["samples-1k-10k"], ["samples-100-1k", "samples-lt-1k"]),
    ("data = text and examples = 10k", ["samples-10k-100k"], ["samples-1k-10k"]),
    ("data = text and examples = 100k", ["samples-10k-100k"], ["samples-gt-100k"]),
    ("data = text and examples = 200k", ["samples-gt-100k"], ["samples-10k-100k"]),
    # time-series table: < 1K | 1K-100K | > 100K
    ("data = time-series and sequences = 1k", ["samples-1k-100k"], ["samples-lt-1k"]),
    ("data = time-series and sequences = 100k", ["samples-1k-100k"], ["samples-gt-100k"]),
    # "Seq length > 8K", "Very large batch (>32K)"
    ("data = text and seq-length = 8k", [], ["seq-length-gt-8k"]),
    ("data = text and seq-length = 16k", ["seq-length-gt-8k"], []),
    ("batch-size = 32k", [], ["batch-size-gt-32k"]),
    ("batch-size = 33k", ["batch-size-gt-32k"], []),
    # DGX Spark table: < 1B | 1-7B | 7-13B | 13-30B | 30-70B | > 70B
    ("hardware = dgx-spark and params = 1B", ["params-1b-7b"], ["params-lt-1b"]),
    ("hardware = dgx-spark and params = 7B", ["params-7b-13b"], ["params-1b-7b"]),
    ("hardware = dgx-spark and params = 13B", ["params-13b-30b"], ["params-7b-13b"]),
    ("hardware = dgx-spark and params = 30B", ["params-30b-70b"], ["params-13b-30b"]),
    ("hardware = dgx-spark and params = 70B", ["params-30b-70b"], ["params-gt-70b"]),
    ("hardware = dgx-spark and params = 71B", ["params-gt-70b"], ["params-30b-70b"]),
    # FSDP "across GPUs": two or more
    ("prefer = low-memory and gpus = 2", ["gpus-ge-2"], []),
    ("prefer = low-memory and gpus = 1", [], ["gpus-ge-2"]),
]


@pytest.mark.parametrize("where,held,not_held", SHARED_ENDS, ids=[w for w, _, _ in SHARED_ENDS])
def test_shared_ends_fall_in_the_row_the_wording_gives(snap, where, held, not_held):
    fired = applying(where, snap)
    assert set(held) <= fired, f"{where}: no rule with {sorted(set(held) - fired)} applies"
    assert not set(not_held) & fired, f"{where}: a rule with {sorted(set(not_held) & fired)} applies"


TIERS = [  # compute budget flowchart: gpus and time -> the tiers they make (all of them)
    ("gpus = 1 and time = 23h", ["single-gpu-short"]),
    ("gpus = 1 and time = 1 day", ["single-gpu-week"]),
    ("gpus = 1 and time = 7 days", ["single-gpu-week"]),
    ("gpus = 1 and time between 1 day and 7 days", ["single-gpu-week"]),
    ("gpus = 1 and time = 169h", []),
    ("gpus = 2 and time = 3 days", []),
    ("gpus = 4 and time = 1 day", ["multi-gpu-week"]),
    ("gpus = 8 and time = 1 week", ["multi-gpu-week"]),
    ("gpus = 9 and time = 1 week", []),
    ("gpus = 8 and time = 169h", []),
    ("gpus = 32 and time = 1 week", ["cluster-weeks"]),
    ("gpus = 32 and time = 167h", []),
    ("gpus = 100 and time = 1 month", ["cluster-weeks", "massive-cluster-months"]),
    ("gpus = 100 and time = 719h", ["cluster-weeks"]),
    ("gpus = 99 and time = 2 months", ["cluster-weeks"]),
]


@pytest.mark.parametrize("where,tiers", TIERS, ids=[w for w, _ in TIERS])
def test_compute_tiers_at_their_ends(snap, where, tiers):
    (statement,) = parse(f"plan where {where}")
    tier = facts_of(statement.constraints, snap).get("tier")
    got = sorted(snap["nodes"][t]["id"] for t in (tier.values or ())) if tier else []
    assert got == tiers


def _ids(result: dict) -> list[str]:
    return [r["id"] for r in result["results"]]


def _rules(result: dict) -> set[str]:
    """The rules that apply (a rule near its threshold is shown, not applied)."""
    return {x["rule"].rsplit("/", 1)[-1] for r in result["results"] for x in r["because"] + r["against"]
            if x["match"] != "near"}


def test_one_gpu_for_exactly_seven_days_is_the_single_gpu_week(kb, snap):
    (result,) = kb.query("recommend approach where gpus = 1 and time = 7 days")
    assert result["results"], "no advice for one GPU and 7 days"
    week = {r["id"] for r in snap["rules"].values()
            if f"{COND}tier-single-gpu-week" in r["conditions"]}
    assert week and week <= _rules(result)


def test_eight_gpus_for_a_week_use_ddp(kb):
    (result,) = kb.query("recommend approach where gpus = 8 and time = 1 week")
    assert "ddp" in _ids(result)
    assert "multi-gpu-week-ddp" in _rules(result)


def test_one_gpu_between_one_and_seven_days_is_answered(kb):
    (result,) = kb.query("recommend approach where gpus = 1 and time between 1 day and 7 days")
    assert result["results"]
    assert {"single-gpu-week-from-scratch", "single-gpu-week-qlora"} <= _rules(result)


def test_seventy_billion_on_dgx_spark_keeps_quantized_inference(kb, snap):
    (result,) = kb.query("recommend technique where hardware = dgx-spark and params = 70B")
    assert "weight-quantization" in _ids(result)
    rules = _rules(result)
    assert "dgx-spark-params-30b-70b-quantized-inference" in rules
    over = {r["id"] for r in snap["rules"].values() if f"{COND}params-gt-70b" in r["conditions"]}
    assert over and not over & rules


def test_a_batch_of_exactly_32k_is_not_a_very_large_batch(kb):
    (result,) = kb.query("recommend optimizer where batch-size = 32k")
    assert not {"lamb-lars-very-large-batch", "very-large-batch-optimizers"} & _rules(result)
    (result,) = kb.query("recommend optimizer where batch-size = 32001")
    assert {"lamb-lars-very-large-batch", "very-large-batch-optimizers"} <= _rules(result)


@pytest.mark.parametrize("where", [w for w, _, _ in SHARED_ENDS[::3]] + [w for w, _ in TIERS[:6]])
def test_shared_ends_on_oxigraph_as_natively(snap, oxigraph, where):
    for text in (f"recommend approach where {where}", f"recommend architecture where {where}",
                 f"recommend technique where {where}"):
        (statement,) = parse(text)
        assert answer(statement, snap, SparqlBackend(oxigraph, snap)) == answer(statement, snap), text


# ----------------------------------------------------------------------------- explain's proposals

@pytest.mark.parametrize("text,proposed", [
    ("explain lamb where batch-size = 32k", [("batch-size", ">", 32000.0)]),
    # (at 100B it ranks first of its section, the techniques, already: at 20B it is third)
    ("explain weight-quantization where hardware = dgx-spark and params = 20B",
     [("params", ">=", 3e10), ("params", "<=", 7e10)]),
    ("explain ddp where gpus = 2", [("replica-memory", "<=", 1.0)]),   # a full copy fits one GPU
])
def test_explain_proposes_constraints_with_the_conditions_ends(kb, snap, text, proposed):
    (result,) = kb.query(text)
    changes = result["would_rank_first_if"]
    assert changes
    first = [(c["dimension"], c["op"], c["value"]) for c in changes[0]["changes"]]
    assert first == proposed
    for change in changes:  # each proposal makes every condition of its rule hold
        (statement,) = parse(change["query"])
        facts = facts_of(statement.constraints, snap)
        rule = snap["rules"][change["rule"]]
        assert all(status(snap["conditions"][c], facts, snap) == "held" for c in rule["conditions"]), change


def test_a_single_gpu_is_proposed_as_one_gpu(kb):
    (result,) = kb.query("explain qlora where gpus = 2 and time = 12 hours and params = 1B")
    proposals = [c for change in result["would_rank_first_if"] for c in change["changes"]
                 if c["dimension"] == "gpus"]
    assert {"dimension": "gpus", "op": "=", "value": 1.0, "unit": "count"} in proposals


# ----------------------------------------------------------------------------- validation

EXTENSION = """@prefix rkg: <https://w3id.org/recipekg/ns#> .
@prefix kb: <https://w3id.org/recipekg/id/> .
@prefix rule: <https://w3id.org/recipekg/rule/> .
@prefix cond: <https://w3id.org/recipekg/cond/> .
@prefix dim: <https://w3id.org/recipekg/dim/> .
@prefix paper: <https://w3id.org/recipekg/paper/> .
@prefix sec: <https://w3id.org/recipekg/section/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix prov: <http://www.w3.org/ns/prov#> .

rule:ext-bounded a rkg:Rule ;
    rdfs:label "Extension: a bounded tabular rule" ;
    rkg:text "A rule of a user's extension, for the tests." ;
    rkg:recommends kb:xgboost ;
    rkg:condition cond:data-tabular, cond:ext-bound ;
    rkg:strength rkg:strong ;
    rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom paper:grinsztajn2022 .

cond:ext-bound a rkg:Condition ;
    rdfs:label "samples ext bound" ;
    rkg:dimension dim:samples ;
    {bounds} .
"""


def _violations(tmp_path, bounds: str) -> list[str]:
    from recipekg.knowledge.resources import bundled_files, shapes_file
    from recipekg.knowledge.validate import validate

    path = tmp_path / "ext.ttl"
    path.write_text(EXTENSION.replace("{bounds}", bounds), encoding="utf-8")
    return [v.message for v in validate(bundled_files() + [path], shapes=shapes_file()) if v.file == str(path)]


@pytest.mark.parametrize("bounds,message", [
    ("rkg:minInclusive 1.0e3 ; rkg:minExclusive 2.0e3", "two lower bounds"),
    ("rkg:maxInclusive 1.0e3 ; rkg:maxExclusive 2.0e3", "two upper bounds"),
    ("rkg:minInclusive 1.0e3 ; rkg:maxExclusive 1.0e3", "empty interval [1000, 1000)"),
    ("rkg:minExclusive 1.0e3 ; rkg:maxInclusive 1.0e3", "empty interval (1000, 1000]"),
    ("rkg:minExclusive 5.0e3 ; rkg:maxInclusive 1.0e3", "empty interval (5000, 1000]"),
    ('rkg:maxInclusive "1000"', "typed number"),
    ('rkg:minExclusive "NaN"^^<http://www.w3.org/2001/XMLSchema#double>', "finite"),
])
def test_bad_bounds_are_violations(tmp_path, bounds, message):
    found = _violations(tmp_path, bounds)
    assert any(message in m for m in found), found


@pytest.mark.parametrize("bounds", ["rkg:minInclusive 1.0e3 ; rkg:maxInclusive 1.0e3",
                                    "rkg:minExclusive 1.0e3 ; rkg:maxInclusive 2.0e3",
                                    "rkg:maxInclusive 1.0e3", "rkg:minExclusive 1.0e3"])
def test_good_bounds_validate(tmp_path, bounds):
    assert _violations(tmp_path, bounds) == []


def test_an_extension_with_exclusive_and_inclusive_ends_answers_alike_everywhere(tmp_path):
    """(1K, 5K]: 1K fails, 5K holds, natively, on Oxigraph and on rdflib."""
    import json

    from click.testing import CliRunner

    from recipekg.cli.main import main

    path = tmp_path / "ext.ttl"
    path.write_text(EXTENSION.replace("{bounds}", "rkg:minExclusive 1.0e3 ; rkg:maxInclusive 5.0e3"),
                    encoding="utf-8")
    for rows, fires in (("1k", False), ("1001", True), ("5k", True), ("5001", False)):
        answers = {}
        for engine in ("native", "oxigraph", "rdflib"):
            result = CliRunner().invoke(main, ["query", "--kb", str(path), "--engine", engine, "--format", "json",
                                               f"recommend architecture where data = tabular and rows = {rows}"])
            assert result.exit_code == 0, result.output
            answers[engine] = json.loads(result.output)
        assert answers["native"] == answers["oxigraph"] == answers["rdflib"], rows
        rules = {x["rule"].rsplit("/", 1)[-1] for r in answers["native"]["results"] for x in r["because"]
                 if x["match"] != "near"}  # a rule near its threshold is shown, not applied
        assert ("ext-bounded" in rules) is fires, rows


def test_the_other_side_of_one_gpu_is_one_gpu_not_a_fraction(kb):
    """A threshold at 1 GPU has no side below it (no run has 0.9 GPUs): the other side tried
    is one GPU, and the answer says "at 1", never "below 1"."""
    (a,) = kb.query("recommend approach where model = mistral-7b and pretrained = yes and tokens = 200M "
                    "and gpus = 2 and hardware = l40s and time = 10h")
    near = next(n for n in a["near_boundary"] if n["dimension"] == "gpus" and n["threshold"] == 1)
    assert near["other_side"]["value"] == 1
    assert "; at 1 " in near["text"] and "below 1" not in near["text"], near["text"]
