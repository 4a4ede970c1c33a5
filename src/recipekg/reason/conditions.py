"""Evaluate a rule's conditions against what the query says.

Each condition is ``held``, ``failed``, ``partly`` (holds for part of the query's range or
values) or ``not given`` (the query says nothing about its dimension). Taxonomies count: a
condition on ``visual`` holds for ``data = video``, one on ``cnn`` for ``architecture = resnet``::

    >>> under_10k = {"dimension": "samples", "values": [], "min": None, "min_inclusive": False,
    ...              "max": 10000.0, "max_inclusive": False}
    >>> status(under_10k, {"samples": Facts("samples", "count", intervals=[(3000.0, True, 3000.0, True)])}, snap)
    'held'
    >>> status(under_10k, {}, snap)
    'not given'

A numeric condition's ends are included or excluded as its ``min_inclusive`` and
``max_inclusive`` say (:func:`bounds`); the query's intervals carry their own flags::

    >>> at_10k = {"samples": Facts("samples", "count", intervals=[(10000.0, True, 10000.0, True)])}
    >>> status(under_10k, at_10k, snap), status({**under_10k, "max_inclusive": True}, at_10k, snap)
    ('failed', 'held')
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


def bounds(cond: dict) -> Interval:
    """A numeric condition as an interval ``(low, low_inclusive, high, high_inclusive)``; a
    missing bound is infinite (and excluded). A condition without the flags is ``[min, max)``."""
    low, high = cond.get("min"), cond.get("max")
    return (-math.inf if low is None else low, low is not None and cond.get("min_inclusive", True),
            math.inf if high is None else high, high is not None and cond.get("max_inclusive", False))


def _numeric(cond: dict, f: Facts) -> str:
    if f.intervals is None:
        return NOT_GIVEN
    if not f.intervals:
        return FAILED  # a dimension with no value here (derived for other methods only: reason/derive.py)
    box = bounds(cond)
    hits = [intersect(i, box) for i in f.intervals]
    if all(h == i for h, i in zip(hits, f.intervals)):
        return HELD
    if all(h is None for h in hits):
        return FAILED
    return PARTLY


def specificity(conds: list[dict], statuses: list[str], facts: dict[str, Facts]) -> list[int]:
    """How specific a rule's match is, to compare advice: the held conditions that name the
    query's own values (not a broader class of them), the held conditions, and the finite
    bounds of the held numeric ones (a range is more specific than a half-line).

    >>> video = {"dimension": "data", "values": ["kb:video"], "min": None, "max": None}
    >>> specificity([video], ["held"], {"data": Facts("data", "categorical", values={"kb:video"})})
    [1, 1, 0]
    """
    exact = held = finite = 0
    for cond, s in zip(conds, statuses):
        if s != HELD:
            continue
        held += 1
        f = facts.get(cond["dimension"])
        if cond["values"]:  # (all of an accelerator's precisions hold at once: naming one names the user's)
            exact += bool(f is not None and f.values and (f.values & set(cond["values"]) if f.all_of
                                                           else f.values <= set(cond["values"])))
        else:
            finite += (cond["min"] is not None) + (cond["max"] is not None)
    return [exact, held, finite]
