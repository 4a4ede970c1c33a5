"""Evaluate a rule's conditions against what the query says.

Each condition is ``held``, ``failed``, ``partly`` (holds for part of the query's range or
values) or ``not given`` (the query says nothing about its dimension). Taxonomies count: a
condition on ``visual`` holds for ``data = video``, one on ``cnn`` for ``architecture = resnet``::

    >>> under_10k = {"dimension": "samples", "values": [], "min": None, "max": 10000.0}
    >>> status(under_10k, {"samples": Facts("samples", "count", intervals=[(3000.0, True, 3000.0, True)])}, snap)
    'held'
    >>> status(under_10k, {}, snap)
    'not given'
"""

from __future__ import annotations

import math

from recipekg.reason.facts import Facts, Interval, intersect

HELD, FAILED, PARTLY, NOT_GIVEN = "held", "failed", "partly", "not given"


def status(cond: dict, facts: dict[str, Facts], snap: dict) -> str:
    f = facts.get(cond["dimension"])
    if f is None:
        return NOT_GIVEN
    if cond["values"]:
        return _categorical(cond["values"], f, snap["nodes"])
    return _numeric(cond, f)


def _categorical(allowed: list[str], f: Facts, nodes: dict) -> str:
    def within(q: str) -> bool:  # q is one of the allowed values or narrower than one
        return q in allowed or any(a in nodes.get(q, {}).get("ancestors", ()) for a in allowed)

    def overlaps(q: str) -> bool:  # q is broader than an allowed value (it may be that one)
        return any(q in nodes.get(a, {}).get("ancestors", ()) for a in allowed)

    if f.values is not None:
        inside = [within(q) for q in f.values]
        if f.all_of and any(inside):
            return HELD
        if all(inside):
            return HELD
        if not any(inside) and not any(overlaps(q) for q in f.values):
            return FAILED
        return PARTLY
    if f.excluded and all(any(a == x or x in nodes.get(a, {}).get("ancestors", ()) for x in f.excluded)
                          for a in allowed):
        return FAILED
    return NOT_GIVEN


def _numeric(cond: dict, f: Facts) -> str:
    if f.intervals is None:
        return NOT_GIVEN
    low = cond["min"] if cond["min"] is not None else -math.inf
    high = cond["max"] if cond["max"] is not None else math.inf
    box: Interval = (low, True, high, False)
    hits = [intersect(i, box) for i in f.intervals]
    if all(h == i for h, i in zip(hits, f.intervals)):
        return HELD
    if all(h is None for h in hits):
        return FAILED
    return PARTLY
