"""``recommend <kind> [where ...] [top n]``: ranked choices with the rules for and against each.

    >>> answer = recommend(parse("recommend architecture where data = tabular and rows = 30k")[0], snap)
    >>> answer["results"][0]["id"], answer["results"][0]["because"][0]["match"]
    ('gradient-boosted-trees', 'full')

How the rules' evaluations become scores and an order is :mod:`recipekg.reason.scoring`
(docs/scoring.md); where the evaluations come from is the backend's business
(:mod:`recipekg.reason.backend`: the native rule index, or a SPARQL engine).
"""

from __future__ import annotations

from recipekg.query.ast import Recommend
from recipekg.reason.answers import constraints_json, order_results, reason_json
from recipekg.reason.backend import Backend, NativeBackend
from recipekg.reason.resolve import facts_of, resolve_kind


def recommend(stmt: Recommend, snap: dict, backend: Backend | None = None) -> dict:
    """The answer to a ``recommend`` statement (the JSON the spec describes)."""
    kind = resolve_kind(stmt.kind, snap)
    facts = facts_of(stmt.constraints, snap)
    results = rank(kind, facts, snap, backend)
    if stmt.top is not None:
        results = results[:stmt.top]
    return {"statement": "recommend", "kind": kind, "query": stmt.text.strip(),
            "constraints": constraints_json(facts), "results": results}


def rank(kind: str, facts: dict, snap: dict, backend: Backend | None = None) -> list[dict]:
    """Ranked choices of ``kind`` under ``facts``, with the rules for and against each."""
    backend = backend or NativeBackend(snap)
    choices: dict[str, dict] = {}
    for a in backend.applying(kind, facts):
        entry = choices.setdefault(a.choice, {"because": [], "against": []})
        entry["because" if a.side == "for" else "against"].append(reason_json(a.rule, a.view, a.ev, snap))
    return order_results(choices, snap)
