"""``recommend <kind> [where ...] [top n]``: ranked choices with the rules for and against each,
the pick, and the questions whose answers would change it.

    >>> answer = recommend(parse("recommend architecture where data = tabular and rows = 30k")[0], snap)
    >>> answer["decision"]["pick"], answer["results"][0]["group"]
    ('gradient-boosted-trees', 'matches')
    >>> [a["dimension"] for a in recommend(parse("recommend architecture where data = tabular")[0], snap)["ask"]]
    ['samples']

How the rules' evaluations become scores, groups and an order is
:mod:`recipekg.reason.scoring` (docs/scoring.md); where the evaluations come from is the
backend's business (:mod:`recipekg.reason.backend`: the native rule index, or a SPARQL engine).
"""

from __future__ import annotations

from recipekg.query.ast import Recommend
from recipekg.reason.answers import constraints_json, decision, order_results, reason_json
from recipekg.reason.ask import questions
from recipekg.reason.backend import Backend, NativeBackend, ranks_kind
from recipekg.reason.conditions import FAILED, specificity, status
from recipekg.reason.resolve import facts_of, resolve_kind


def recommend(stmt: Recommend, snap: dict, backend: Backend | None = None) -> dict:
    """The answer to a ``recommend`` statement (the JSON the spec describes)."""
    kind = resolve_kind(stmt.kind, snap)
    facts = facts_of(stmt.constraints, snap)
    results = rank(kind, facts, snap, backend)
    ask = questions(kind, facts, results, snap, lambda trial: rank(kind, trial, snap))
    shown = results if stmt.top is None else results[:stmt.top]
    return {"statement": "recommend", "kind": kind, "query": stmt.text.strip(),
            "constraints": constraints_json(facts), "decision": decision(shown), "ask": ask,
            "results": shown}


def rank(kind: str, facts: dict, snap: dict, backend: Backend | None = None,
         among: tuple[str, ...] | None = None) -> list[dict]:
    """Ranked choices of ``kind`` under ``facts``, with the rules for and against each; with
    ``among``, only those choices (as they rank among all of them: each choice's score is its
    own), from the rules that name them alone."""
    backend = backend or NativeBackend(snap)
    choices: dict[str, dict] = {}
    applied = backend.applying(kind, facts) if among is None else _naming(backend, kind, among, facts, snap)
    for a in applied:
        reason = reason_json(a.rule, a.view, a.ev, snap)
        reason["disputed_by"] = [d for d in reason["disputed_by"] if could_apply(d["rule"], facts, snap)]
        reason["specificity"] = specificity(a.ev["conditions"], a.ev["statuses"], facts)
        entry = choices.setdefault(a.choice, {"because": [], "against": []})
        entry["because" if a.side == "for" else "against"].append(reason)
    return order_results(choices, snap)


def _naming(backend: Backend, kind: str, among: tuple[str, ...], facts: dict, snap: dict) -> list:
    """What ``backend.applying(kind, facts)`` gives for the choices ``among``, in its order."""
    nodes = snap["nodes"]
    found = [a for choice in among if kind in nodes.get(choice, {}).get("kinds", ())
             for a in backend.naming(choice, facts) if a.ev["fires"] and ranks_kind(a.view, kind)]
    entry = snap["rule_index"]["kinds"].get(kind) or {"rules": []}
    order = {iri: i for i, iri in enumerate(entry["rules"])}  # the rules' order, as applying() gives them
    return sorted(found, key=lambda a: (order.get(a.rule, len(order)), among.index(a.choice)))


def could_apply(rule_iri: str, facts: dict, snap: dict) -> bool:
    """Whether no condition of the rule fails under ``facts`` (a disagreement is worth
    showing only where both rules can apply)."""
    rule = snap["rules"][rule_iri]
    return all(status(snap["conditions"][c], facts, snap) != FAILED for c in rule["conditions"])
