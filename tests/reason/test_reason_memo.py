"""A reason is made once per rule evaluation and copied for each trial that reuses the
evaluation (``recommend._made_reason``): the copies equal reasons made afresh, and what an
answer changes in one copy (a contribution scored, a dispute filtered) never reaches another.
(tests/reason/test_rule_index.py compares whole re-rankings with a backend reusing nothing.)"""

from __future__ import annotations

from recipekg.query.parser import parse
from recipekg.reason import recommend as rec
from recipekg.reason.backend import NativeBackend
from recipekg.reason.derive import derive
from recipekg.reason.resolve import facts_of

QUERY = "recommend technique where hardware = dgx-spark"


def _trial(snap, where: str, dim: str, value: str) -> dict:
    facts = facts_of(parse(f"recommend x where {where}")[0].constraints, snap)
    given = {n: f for n, f in facts.items() if not f.derived}
    other = facts_of(parse(f"recommend x where {dim} = {value}")[0].constraints, snap)[dim]
    return facts, derive({**given, dim: other}, snap)


def test_a_trial_copies_the_reasons_of_the_evaluations_it_reuses(snap, monkeypatch):
    made = []
    real = rec.reason_json
    monkeypatch.setattr(rec, "reason_json", lambda *a, **k: made.append(a[0]) or real(*a, **k))
    facts, trial = _trial(snap, "hardware = dgx-spark", "method", "qlora")
    backend = NativeBackend(snap)
    first = rec.rank("technique", facts, snap, backend, lean=True)
    before = len(made)
    again = rec.rank("technique", facts, snap, backend, lean=True)
    assert again == first and len(made) == before  # every evaluation reused: no reason made again
    rec.rank("technique", trial, snap, backend, lean=True)
    assert before < len(made)  # the trial's changed evaluations make theirs
    fresh = rec.rank("technique", trial, snap, NativeBackend(snap), lean=True)
    assert rec.rank("technique", trial, snap, backend, lean=True) == fresh


def test_a_change_to_one_copy_never_reaches_another(snap):
    facts = facts_of(parse(QUERY)[0].constraints, snap)
    backend = NativeBackend(snap)
    first = rec.rank("technique", facts, snap, backend, lean=True)
    shown = {id(r) for e in first for r in e["because"] + e["against"]}
    for entry in first:
        for r in entry["because"] + entry["against"]:
            r["contribution"], r["match"] = -99.0, "changed"
    again = rec.rank("technique", facts, snap, backend, lean=True)
    reasons = [r for e in again for r in e["because"] + e["against"]]
    assert reasons and not any(id(r) in shown for r in reasons)
    assert not any(r["contribution"] == -99.0 or r["match"] == "changed" for r in reasons)
    assert again == rec.rank("technique", facts, snap, NativeBackend(snap), lean=True)
