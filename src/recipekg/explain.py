"""``explain <choice> [where ...]``: the rules for and against a choice, and what would change.

    >>> out = explain(parse("explain vit where data = images and samples = 3000")[0], snap)   # doctest: +SKIP
    >>> out["rank"], out["would_rank_first_if"][0]["query"]
    (4, 'recommend architecture where data = images and samples >= 1M')

For every rule naming the choice, each condition is marked held, failed, partly or not
given. The smallest change is found by trying, for each rule that recommends the choice, the
constraints that would make all its conditions hold, re-ranking, and keeping the candidates
that put the choice first with the fewest changes (adding a constraint counts one,
overriding one the user gave counts two).
"""

from __future__ import annotations

import math

from . import units
from .ast import Explain
from .names import slug
from .conditions import HELD
from .derive import derive
from .errors import VocabularyError, closest
from .reasoner import constraints_json, evaluate_rule, paper_json, rank, reason_json
from .vocabulary import Facts, resolve_constraints


def resolve_choice(word, snap: dict) -> str:
    """The entity a name or quoted label means: ``vit``, ``"8-bit Adam"``, ``lgbm``."""
    key = slug(word.text)
    names = snap["rule_index"]["choices"] if "rule_index" in snap else _choice_names(snap)
    if key in names:
        return names[key]
    raise VocabularyError.at(word.pos, f"unknown choice '{word.text}'",
                             expected=["an architecture, optimizer, approach, technique or fix of the KB"],
                             suggestions=closest(key, names))


def _choice_names(snap: dict) -> dict[str, str]:
    """Every name of a choice (alias, then id, which wins) -> its IRI (compiler.index_rules)."""
    names = {}
    for iri, node in snap["nodes"].items():
        if node["kinds"]:
            for alias in node["aliases"]:
                names.setdefault(alias, iri)
    for iri, node in snap["nodes"].items():
        if node["kinds"]:
            names[node["id"]] = iri
    return names


def _naming(iri: str, snap: dict):
    """The rules recommending or advising against ``iri``, sorted by IRI."""
    if "rule_index" in snap:
        rules = snap["rules"]
        return [(r, rules[r]) for r in snap["rule_index"]["by_target"].get(iri, ())]
    return sorted(snap["rules"].items())


def explain(stmt: Explain, snap: dict) -> dict:
    iri = resolve_choice(stmt.choice, snap)
    facts = derive(resolve_constraints(stmt.constraints, snap), snap)
    rules = []
    for rule_iri, rule in _naming(iri, snap):
        side = "for" if iri in rule["recommends"] else "against" if iri in rule["against"] else None
        if side:
            ev = evaluate_rule(rule, facts, snap)
            rules.append({"side": side, "fires": ev["fires"], **reason_json(rule_iri, rule, ev, snap)})
    return explain_answer(stmt, iri, facts, rules, snap)


def explain_answer(stmt: Explain, iri: str, facts: dict, rules: list[dict], snap: dict,
                   rank_of=None) -> dict:
    """The explain answer around ``rules`` (the rules naming the choice, with their statuses).

    ``rank_of(kind, facts) -> int | None`` ranks the choice (default: the native reasoner;
    the SPARQL engines pass their own), so both paths build the same answer.
    """
    if rank_of is None:
        rank_of = lambda k, f: _rank_of(iri, k, f, snap)  # noqa: E731
    node = snap["nodes"][iri]
    ranks = {kind: rank_of(kind, facts) for kind in node["kinds"]}
    kind = min(node["kinds"], key=lambda k: (ranks[k] or math.inf, k))
    rules.sort(key=lambda r: (not r["fires"], r["side"] != "for", -r["contribution"], r["id"]))
    return {"statement": "explain", "query": stmt.text.strip(), "kind": kind,
            "choice": {"id": node["id"], "label": node["label"], "iri": iri, "kinds": node["kinds"],
                       "definition": node["definition"],
                       "papers": [paper_json(p, snap) for p in node["papers"]]},
            "constraints": constraints_json(facts), "rank": ranks[kind], "ranks": ranks,
            "rules": rules, "would_rank_first_if": smallest_change(iri, kind, facts, snap, rank_of)}


def _rank_of(iri: str, kind: str, facts: dict, snap: dict) -> int | None:
    return next((r["rank"] for r in rank(kind, facts, snap) if r["iri"] == iri), None)


def smallest_change(iri: str, kind: str, facts: dict, snap: dict, rank_of=None) -> list[dict]:
    """Candidate constraint changes that rank the choice first, fewest changes first.

    ``rank_of(kind, facts) -> int | None`` ranks the choice (default: the native reasoner;
    the SPARQL engines pass their own).
    """
    if rank_of is None:
        rank_of = lambda k, f: _rank_of(iri, k, f, snap)  # noqa: E731
    if rank_of(kind, facts) == 1:
        return []
    given = {n: f for n, f in facts.items() if not f.derived}
    found = {}
    for rule_iri, rule in _naming(iri, snap):
        if iri not in rule["recommends"]:
            continue
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
        if cond_holds(cond, given, snap) and name not in changes:
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


def cond_holds(cond: dict, facts: dict, snap: dict) -> bool:
    from .conditions import status

    return status(cond, facts, snap) == HELD


def _satisfying(cond: dict, snap: dict) -> Facts:
    dim = snap["dimensions"][cond["dimension"]]
    if cond["values"]:
        value = cond["values"][0]
        return Facts(dim["name"], dim["kind"], values={value}, constraints=[
            {"dimension": dim["name"], "op": "=", "value": snap["nodes"][value]["id"]}])
    low, high = cond["min"], cond["max"]
    lo = low if low is not None and low > (dim.get("min") or 0) else None
    constraints = ([{"dimension": dim["name"], "op": ">=", "value": lo}] if lo is not None else []) + (
        [{"dimension": dim["name"], "op": "<", "value": high}] if high is not None else [])
    interval = (lo if lo is not None else -math.inf, lo is not None,
                high if high is not None else math.inf, False)
    return Facts(dim["name"], dim["kind"], intervals=[interval], constraints=constraints)


def _merge(a: Facts, b: Facts) -> Facts | None:
    from .vocabulary import intersect

    if a.intervals and b.intervals:
        merged = [i for x in a.intervals for y in b.intervals if (i := intersect(x, y))]
        if merged:
            return Facts(a.dimension, a.kind, intervals=merged, constraints=a.constraints + b.constraints)
    return None


def _query(kind: str, given: dict[str, Facts], changes: dict[str, Facts], snap: dict) -> str:
    parts = []
    for name, f in {**given, **changes}.items():
        for c in f.constraints:
            parts.append(format_constraint(c, snap))
    return f"recommend {kind}" + (" where " + " and ".join(parts) if parts else "")


def format_constraint(c: dict, snap: dict) -> str:
    """A constraint dict back in query syntax: ``samples between 5k and 50k``."""
    dim = snap["dimensions"][c["dimension"]]
    fmt = lambda x: units.value(dim["kind"], x, dim.get("unit"))  # noqa: E731
    v = c["value"]
    if c["op"] == "between":
        return f"{c['dimension']} between {fmt(v[0])} and {fmt(v[1])}"
    if isinstance(v, list):
        return f"{c['dimension']} {c['op']} ({', '.join(fmt(x) for x in v)})"
    return f"{c['dimension']} {c['op']} {fmt(v)}"
