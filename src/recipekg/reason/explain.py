"""``explain <choice> [where ...]``: the rules for and against a choice, and what would change.

    >>> out = explain(parse("explain vit where data = images and samples = 3000")[0], snap)
    >>> out["rank"] > 1, out["would_rank_first_if"][0]["query"].startswith("recommend architecture where")
    (True, True)

For every rule naming the choice, each condition is marked held, failed, partly or not
given. The smallest change is found by trying, for each rule that recommends the choice, the
constraints that would make all its conditions hold, re-ranking, and keeping the candidates
that put the choice first with the fewest changes (adding a constraint counts one,
overriding one the user gave counts two). The backend (:mod:`recipekg.reason.backend`)
evaluates the rules and every re-ranking.
"""

from __future__ import annotations

import math

from recipekg.query.ast import Explain
from recipekg.reason.answers import choice_json, constraints_json, reason_json
from recipekg.reason.backend import Backend, NativeBackend
from recipekg.reason.conditions import HELD, bounds, status
from recipekg.reason.derive import derive
from recipekg.reason.facts import Facts, constraint_json, intersect
from recipekg.reason.recommend import rank
from recipekg.reason.resolve import facts_of, resolve_choice
from recipekg.render.constraints import format_constraint


def explain(stmt: Explain, snap: dict, backend: Backend | None = None) -> dict:
    """The answer to an ``explain`` statement (the JSON the spec describes)."""
    backend = backend or NativeBackend(snap)
    iri = resolve_choice(stmt.choice, snap)
    facts = facts_of(stmt.constraints, snap)
    rules = [{"side": a.side, "fires": a.ev["fires"], **reason_json(a.rule, a.view, a.ev, snap)}
             for a in backend.naming(iri, facts)]
    node = snap["nodes"][iri]
    # each kind ranked once under the query's facts (the answer and smallest_change both need it)
    results = {kind: _result_of(iri, kind, facts, snap, backend) or {} for kind in node["kinds"]}
    ranks = {kind: result.get("rank") for kind, result in results.items()}
    rank_of = lambda kind, trial: (ranks[kind] if trial is facts  # noqa: E731
                                   else (_result_of(iri, kind, trial, snap, backend) or {}).get("rank"))
    kind = min(node["kinds"], key=lambda k: (ranks[k] or math.inf, k))
    rules.sort(key=lambda r: (not r["fires"], r["side"] != "for", -r["contribution"], r["id"]))
    result = results[kind]
    return {"statement": "explain", "query": stmt.text.strip(), "kind": kind,
            "choice": {**choice_json(iri, snap), "definition": node["definition"]},
            "constraints": constraints_json(facts), "rank": ranks[kind], "ranks": ranks,
            "group": result.get("group"), "waits_for": result.get("waits_for", []),
            "rules": rules, "would_rank_first_if": smallest_change(iri, kind, facts, snap, rank_of)}


def _result_of(iri: str, kind: str, facts: dict, snap: dict, backend: Backend) -> dict | None:
    return next((r for r in rank(kind, facts, snap, backend) if r["iri"] == iri), None)


def _recommending(iri: str, snap: dict):
    """The KB's rules recommending ``iri`` (the candidates for a change), sorted by IRI."""
    rules = snap["rules"]
    for r in snap["rule_index"]["by_target"].get(iri, ()):
        if iri in rules[r]["recommends"]:
            yield r, rules[r]


def smallest_change(iri: str, kind: str, facts: dict, snap: dict, rank_of) -> list[dict]:
    """Candidate constraint changes that rank the choice first, fewest changes first.

    ``rank_of(kind, facts) -> int | None`` ranks the choice (through the answer's backend).
    """
    if rank_of(kind, facts) == 1:
        return []
    given = {n: f for n, f in facts.items() if not f.derived}
    found = {}
    for rule_iri, rule in _recommending(iri, snap):
        changes = _changes_for(rule, given, snap)
        if not changes:
            continue
        trial = dict(given)
        trial.update(changes)
        if rank_of(kind, derive(trial, snap)) == 1:
            key = tuple(sorted(changes))
            weight = snap["strengths"][rule["strength"]]["weight"]
            # Adding a constraint costs 1; overriding one the user gave costs 2.
            cost = sum(2 if name in given else 1 for name in changes)
            candidate = (cost, -weight, rule["id"])
            if key not in found or candidate < found[key][0]:
                found[key] = (candidate, rule_iri, changes)
    best = sorted(found.values(), key=lambda x: x[0])[:3]
    return [{"rule": r, "changes": [c for f in ch.values() for c in f.constraints],
             "query": _query(kind, given, ch, snap)} for _, r, ch in best]


def _changes_for(rule: dict, given: dict[str, Facts], snap: dict) -> dict[str, Facts] | None:
    """Facts that would make every condition of ``rule`` hold (None if impossible)."""
    changes: dict[str, Facts] = {}
    todo = [snap["conditions"][c] for c in rule["conditions"]]
    while todo:
        cond = todo.pop(0)
        name = cond["dimension"]
        if status(cond, given, snap) == HELD and name not in changes:
            continue
        if name == "tier" and cond["values"] and "tier" not in given:
            tier = snap["tiers"].get(cond["values"][0])
            if tier:  # propose the gpus and time of the tier, not the tier itself
                todo.extend(snap["conditions"][c] for c in tier["conditions"])
                continue
        change = _satisfying(cond, snap)
        if name in changes and change.constraints != changes[name].constraints:
            merged = _merge(changes[name], change)
            if merged is None:
                return None
            change = merged
        changes[name] = change
    return changes


def _satisfying(cond: dict, snap: dict) -> Facts:
    dim = snap["dimensions"][cond["dimension"]]
    if cond["values"]:
        value = cond["values"][0]
        return Facts(dim["name"], dim["kind"], values={value},
                     constraints=[constraint_json(dim, "=", snap["nodes"][value]["id"])])
    # the query constraints whose interval is the condition's, each end included or not as
    # the condition says ("time <= 168h" for [24 h, 168 h], "params > 70B" for (70B, inf))
    interval = low, low_inc, high, high_inc = bounds(cond)
    if low == high:
        return Facts(dim["name"], dim["kind"], intervals=[interval], constraints=[constraint_json(dim, "=", low)])
    constraints = []
    if low != -math.inf:
        constraints.append(constraint_json(dim, ">=" if low_inc else ">", low))
    if high != math.inf:
        constraints.append(constraint_json(dim, "<=" if high_inc else "<", high))
    return Facts(dim["name"], dim["kind"], intervals=[interval], constraints=constraints)


def _merge(a: Facts, b: Facts) -> Facts | None:
    """Two changes on one dimension at once: the intersection of their intervals, with the
    constraints of both (each once); None when they cannot both hold."""
    if a.intervals and b.intervals:
        merged = [i for x in a.intervals for y in b.intervals if (i := intersect(x, y))]
        if merged:
            return Facts(a.dimension, a.kind, intervals=merged,
                         constraints=a.constraints + [c for c in b.constraints if c not in a.constraints])
    return None


def _query(kind: str, given: dict[str, Facts], changes: dict[str, Facts], snap: dict) -> str:
    parts = []
    for name, f in {**given, **changes}.items():
        for c in f.constraints:
            parts.append(format_constraint(c))
    return f"recommend {kind}" + (" where " + " and ".join(parts) if parts else "")
