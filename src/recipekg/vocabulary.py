"""Resolve a parsed statement's names against the ontology's vocabulary.

Dimension names and aliases become canonical dimensions; categorical values become IRIs;
numbers and quantities are checked against the dimension's kind and range. The result is
one :class:`Facts` per dimension, merged over all constraints on it::

    >>> facts = resolve_constraints(parse("recommend x where rows between 10k and 50k")[0].constraints, snap)
    >>> facts["samples"].intervals                       # doctest: +SKIP
    [(10000.0, True, 50000.0, True)]

Errors (unknown names, a number where a name is meant, ``between 10 and 5``) point at the
offending token and suggest the closest known names.
"""

from __future__ import annotations

import math

from .ast import Constraint, Name, Number, Quantity, String
from .names import slug
from .errors import RangeError, VocabularyError, closest

INF = math.inf
# (low, low_inclusive, high, high_inclusive)
Interval = tuple[float, bool, float, bool]

_UNIT_OF_KIND = {"bytes": "bytes", "duration": "hours", "ratio": "ratio"}
_UNIT_HINT = {"bytes": "a size such as 80GB", "duration": "a duration such as 12h or 3 days",
              "ratio": "a fraction such as 0.4 or 40%", "count": "a number such as 30k or 7B"}


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


def dimension_names(snap: dict) -> dict[str, str]:
    """Every accepted spelling of a dimension → its canonical name."""
    names = {}
    for name, dim in snap["dimensions"].items():
        for alias in dim["aliases"]:
            names[alias] = name
    for name in snap["dimensions"]:
        names[name] = name
    return names


def resolve_dimension(word: Name, snap: dict) -> dict:
    names = dimension_names(snap)
    if word.text in names:
        return snap["dimensions"][names[word.text]]
    raise VocabularyError.at(word.pos, f"unknown dimension '{word.text}'",
                             expected=["a dimension such as data, rows, params, gpus, hardware"],
                             suggestions=closest(word.text, names))


def resolve_value(value, dim: dict, snap: dict) -> "str | float":
    """One value of a constraint on ``dim``: an IRI for categorical, else a number."""
    kind = dim["kind"]
    if kind == "categorical":
        if not isinstance(value, (Name, String)):
            raise VocabularyError.at(value.pos, f"'{dim['name']}' takes a name, not {value.text!r}",
                                     expected=[_examples(dim, snap)], kind="value")
        key = slug(value.text)
        if key in dim["values"]:
            return dim["values"][key]
        raise VocabularyError.at(value.pos, f"unknown {dim['name']} '{value.text}'",
                                 expected=[_examples(dim, snap)], suggestions=_suggest(key, dim, snap))
    if isinstance(value, Quantity):
        if _UNIT_OF_KIND.get(kind) != value.unit_kind:
            raise RangeError.at(value.pos, f"'{dim['name']}' is {_UNIT_HINT[kind]}, "
                                           f"not {value.unit_kind} ({value.text})",
                                expected=[_UNIT_HINT[kind]])
        number = value.value
    elif isinstance(value, Number):
        if kind in ("bytes", "duration"):
            raise RangeError.at(value.pos, f"'{dim['name']}' needs a unit: {_UNIT_HINT[kind]}",
                                expected=[_UNIT_HINT[kind]])
        number = value.value
    else:
        raise VocabularyError.at(value.pos, f"'{dim['name']}' is {_UNIT_HINT[kind]}, not '{value.text}'",
                                 expected=[_UNIT_HINT[kind]], kind="value")
    low, high = dim.get("min"), dim.get("max")
    if not math.isfinite(number) or (low is not None and number < low) or (high is not None and number > high):
        bounds = f"at least {low:g}" if high is None else f"between {low:g} and {high:g}"
        raise RangeError.at(value.pos, f"'{dim['name']}' must be {bounds}, not {value.text}")
    return number


def _suggest(key: str, dim: dict, snap: dict) -> list[str]:
    """Closest values by any spelling, each named once by its id."""
    ids = [snap["nodes"][dim["values"][n]]["id"] for n in closest(key, dim["values"], n=6)]
    return list(dict.fromkeys(ids))[:3]


def _examples(dim: dict, snap: dict) -> str:
    ids = sorted({snap["nodes"][v]["id"] for v in dim["values"].values()})
    return f"{dim['name']} is one of {', '.join(ids[:8])}" + (" ..." if len(ids) > 8 else "")


def resolve_constraints(constraints: tuple[Constraint, ...], snap: dict) -> dict[str, Facts]:
    """Merge the constraints into one :class:`Facts` per canonical dimension."""
    facts: dict[str, Facts] = {}
    for c in constraints:
        dim = resolve_dimension(c.dimension, snap)
        values = [resolve_value(v, dim, snap) for v in c.values]
        f = facts.setdefault(dim["name"], Facts(dim["name"], dim["kind"]))
        f.constraints.append(_describe(c, dim, values, snap))
        if dim["kind"] == "categorical":
            _merge_categorical(f, c, values)
        else:
            _merge_numeric(f, c, values)
    return facts


def _describe(c: Constraint, dim: dict, values: list, snap: dict) -> dict:
    shown = [snap["nodes"][v]["id"] if isinstance(v, str) else v for v in values]
    value = shown if c.op in ("between", "in") else shown[0]
    return {"dimension": dim["name"], "op": c.op, "value": value,
            "text": " ".join([c.dimension.text, c.op, ", ".join(v.text for v in c.values)])}


def _merge_categorical(f: Facts, c: Constraint, values: list[str]) -> None:
    if c.op in ("=", "in"):
        new = set(values)
        f.values = new if f.values is None else f.values & new
        if not f.values:
            raise RangeError.at(c.pos, f"no {f.dimension} is both of these: the constraints on "
                                       f"'{f.dimension}' contradict each other")
    elif c.op == "!=":
        f.excluded |= set(values)
    else:
        raise RangeError.at(c.pos, f"'{c.op}' compares numbers; '{f.dimension}' takes names "
                                   f"(use =, != or in)", expected=["=", "!=", "in"])


def _merge_numeric(f: Facts, c: Constraint, values: list[float]) -> None:
    v = values[0]
    if c.op == "between":
        low, high = values
        if low > high:
            raise RangeError.at(c.pos, f"empty range: between {c.values[0].text} and {c.values[1].text}",
                                suggestions=[f"between {c.values[1].text} and {c.values[0].text}"])
        new = [(low, True, high, True)]
    elif c.op == "in":
        new = [(x, True, x, True) for x in sorted(set(values))]
    else:
        new = {"=": [(v, True, v, True)], "<": [(-INF, False, v, False)],
               "<=": [(-INF, False, v, True)], ">": [(v, False, INF, False)],
               ">=": [(v, True, INF, False)],
               "!=": [(-INF, False, v, False), (v, False, INF, False)]}[c.op]
    merged = new if f.intervals is None else [
        i for a in f.intervals for b in new if (i := intersect(a, b)) is not None]
    if not merged:
        raise RangeError.at(c.pos, f"no value of '{f.dimension}' satisfies all its constraints")
    f.intervals = merged


def intersect(a: Interval, b: Interval) -> Interval | None:
    """The intersection of two intervals, or None when empty."""
    (al, ali, ah, ahi), (bl, bli, bh, bhi) = a, b
    low, low_inc = (al, ali) if al > bl else (bl, bli) if bl > al else (al, ali and bli)
    high, high_inc = (ah, ahi) if ah < bh else (bh, bhi) if bh < ah else (ah, ahi and bhi)
    if low > high or (low == high and not (low_inc and high_inc)):
        return None
    return (low, low_inc, high, high_inc)
