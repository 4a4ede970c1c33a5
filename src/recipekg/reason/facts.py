"""What a query says about each dimension, as plain data the reasoner compares with rules.

    >>> f = Facts("samples", "count", intervals=[(3000.0, True, 3000.0, True)])
    >>> intersect(f.intervals[0], (0.0, True, 10000.0, False))
    (3000.0, True, 3000.0, True)
    >>> constraint_json({"name": "mfu", "kind": "ratio", "unit": None}, "=", 0.4)
    {'dimension': 'mfu', 'op': '=', 'value': 0.4, 'unit': 'fraction'}
"""

from __future__ import annotations

import math

INF = math.inf
# (low, low_inclusive, high, high_inclusive)
Interval = tuple[float, bool, float, bool]

# How a numeric dimension's values are measured, for people and programs reading an answer
# (``"unit"`` of a constraint): the dimension's kind, or its QUDT unit where it has one.
_UNIT_OF = {"count": "count", "bytes": "bytes", "duration": "hours", "ratio": "fraction"}
_QUDT_UNITS = {"BYTE-PER-SEC": "bytes/s"}


class Facts:
    """What the query says about one dimension.

    Categorical: ``values`` (any of these IRIs) and ``excluded`` (none of these).
    Numeric: ``intervals``, a union of intervals the value lies in.
    ``derived`` names the dimension it was derived from (``hardware``), if any.
    ``all_of`` marks values that all hold at once (a run can be in two overlapping compute
    tiers), rather than a choice among them (``data in (images, video)``).

    (A mutable dataclass, written out so the query path does not import ``dataclasses``.)
    """

    _FIELDS = ("dimension", "kind", "values", "excluded", "intervals", "constraints", "derived",
               "all_of")
    __match_args__ = _FIELDS
    __hash__ = None  # mutable, compared by value

    def __init__(self, dimension: str, kind: str, values: set[str] | None = None,
                 excluded: set[str] | None = None, intervals: list[Interval] | None = None,
                 constraints: list[dict] | None = None, derived: str | None = None,
                 all_of: bool = False) -> None:
        self.dimension = dimension
        self.kind = kind
        self.values = values
        self.excluded = set() if excluded is None else excluded
        self.intervals = intervals
        self.constraints = [] if constraints is None else constraints
        self.derived = derived
        self.all_of = all_of

    def _astuple(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._astuple() == other._astuple()
        return NotImplemented

    def __repr__(self) -> str:
        return "Facts(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"


def constraint_json(dim: dict, op: str, value, **more) -> dict:
    """One constraint as answers show it: dimension, operator, value(s) and, for a number,
    its unit (``count``, ``bytes``, ``hours``, ``fraction``, ``bytes/s``)."""
    out = {"dimension": dim["name"], "op": op, "value": value}
    unit = _QUDT_UNITS.get(dim.get("unit") or "") or _UNIT_OF.get(dim["kind"])
    if unit:
        out["unit"] = unit
    out.update(more)
    return out


def intersect(a: Interval, b: Interval) -> Interval | None:
    """The intersection of two intervals, or None when empty."""
    (al, ali, ah, ahi), (bl, bli, bh, bhi) = a, b
    low, low_inc = (al, ali) if al > bl else (bl, bli) if bl > al else (al, ali and bli)
    high, high_inc = (ah, ahi) if ah < bh else (bh, bhi) if bh < ah else (ah, ahi and bhi)
    if low > high or (low == high and not (low_inc and high_inc)):
        return None
    return (low, low_inc, high, high_inc)
