"""What a query says about each dimension, as plain data the reasoner compares with rules.

    >>> f = Facts("samples", "count", intervals=[(3000.0, True, 3000.0, True)])
    >>> intersect(f.intervals[0], (0.0, True, 10000.0, False))
    (3000.0, True, 3000.0, True)
    >>> constraint_json({"name": "mfu", "kind": "ratio", "unit": None}, "=", 0.4)
    {'dimension': 'mfu', 'op': '=', 'value': 0.4, 'unit': 'fraction'}
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right

from recipekg.record import Record

INF = math.inf
# (low, low_inclusive, high, high_inclusive)
Interval = tuple[float, bool, float, bool]

# How a numeric dimension's values are measured, for people and programs reading an answer
# (``"unit"`` of a constraint): the dimension's kind, or its QUDT unit where it has one.
_UNIT_OF = {"count": "count", "bytes": "bytes", "duration": "hours", "ratio": "fraction"}
_QUDT_UNITS = {"BYTE-PER-SEC": "bytes/s", "FLOP-PER-SEC": "FLOP/s"}


class Facts(Record, frozen=False, slots=True):
    """What the query says about one dimension.

    Categorical: ``values`` (any of these IRIs) and ``excluded`` (none of these).
    Numeric: ``intervals``, a union of intervals the value lies in.
    ``derived`` names the dimension it was derived from (``hardware``), if any.
    ``all_of`` marks values that all hold at once (a run can be in two overlapping compute
    tiers), rather than a choice among them (``data in (images, video)``).
    ``near``: for a derived dimension no value of which holds, the values the query misses
    narrowly (value IRI -> the dimension it is derived from that misses, the query's value
    there and the threshold: 8 GPUs for 2 weeks against the 4-8 GPUs for 1-7 days tier).
    ``counted``: for a named model's size, the count of its weights, which the formulas read
    (:func:`measured`), where the conditions read ``intervals``, the size it is published as
    (70.55B counted, 70B nominal: in the 30-70B class).
    ``implied``: the dimension of the user's value these values are what it is (``task``:
    summarization is done on text; ``architecture``: a named CNN is for images), whether derived
    from it or given too and saying no more: a category of the user's value, which a rule on it
    uses only in part (:func:`recipekg.reason.facts.uses`).

    (A mutable :class:`recipekg.record.Record`: compared by value, unhashable.)
    """

    dimension: str
    kind: str
    values: set[str] | None
    excluded: set[str]
    intervals: list[Interval] | None
    constraints: list[dict]
    derived: str | None
    all_of: bool
    near: dict[str, tuple[str, float, float]]
    counted: list[Interval] | None
    implied: str | None

    def __init__(self, dimension: str, kind: str, values: set[str] | None = None,
                 excluded: set[str] | None = None, intervals: list[Interval] | None = None,
                 constraints: list[dict] | None = None, derived: str | None = None,
                 all_of: bool = False, near: dict[str, tuple[str, float, float]] | None = None,
                 counted: list[Interval] | None = None, implied: str | None = None) -> None:
        self.dimension = dimension
        self.kind = kind
        self.values = values
        self.excluded = set() if excluded is None else excluded
        self.intervals = intervals
        self.constraints = [] if constraints is None else constraints
        self.derived = derived
        self.all_of = all_of
        self.near = {} if near is None else near
        self.counted = counted
        self.implied = implied


def measured(f: Facts) -> tuple[float, float]:
    """The lowest and highest value a formula reads of a numeric fact: its ``counted`` value
    where it has one (a named model's weights), else its intervals' span.

    >>> measured(Facts("params", "count", intervals=[(7e10, True, 7e10, True)], counted=[(7.06e10, True, 7.06e10, True)]))
    (70600000000.0, 70600000000.0)
    """
    iv = f.counted or f.intervals
    return iv[0][0], iv[-1][2]


def unit_of(dim: dict) -> str | None:
    """The unit a dimension's numbers are in, as answers name it (None for names).

    >>> unit_of({"kind": "duration"}), unit_of({"kind": "count", "unit": "BYTE-PER-SEC"})
    ('hours', 'bytes/s')
    """
    return _QUDT_UNITS.get(dim.get("unit") or "") or _UNIT_OF.get(dim["kind"])


def constraint_json(dim: dict, op: str, value, **more) -> dict:
    """One constraint as answers show it: dimension, operator, value(s) and, for a number,
    its unit (``count``, ``bytes``, ``hours``, ``fraction``, ``bytes/s``, ``FLOP/s``)."""
    out = {"dimension": dim["name"], "op": op, "value": value}
    unit = unit_of(dim)
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


def intersect_all(intervals: list[Interval], new: list[Interval]) -> list[Interval]:
    """Two sorted lists of disjoint intervals intersected, sorted and disjoint in turn.

    Each interval of ``new`` finds its overlap in ``intervals`` by bisection, and only the two
    intervals at each end of that overlap can be cut, so a thousand ``rows != ...`` cost a
    thousand bisections and list copies rather than a million comparisons::

        >>> intersect_all([(-INF, False, 3.0, False), (3.0, False, INF, False)], [(1.0, True, 5.0, True)])
        [(1.0, True, 3.0, False), (3.0, False, 5.0, True)]
    """
    out: list[Interval] = []
    for b in new:
        part = intervals[bisect_left(intervals, b[0], key=_high):bisect_right(intervals, b[2], key=_low)]
        if len(part) <= 4:
            out.extend(i for a in part if (i := intersect(a, b)) is not None)
            continue
        out.extend(i for a in part[:2] if (i := intersect(a, b)) is not None)
        out.extend(part[2:-2])  # strictly inside b: an interval's neighbours keep it off b's ends
        out.extend(i for a in part[-2:] if (i := intersect(a, b)) is not None)
    return out


def exclude_points(intervals: list[Interval], points: list[float]) -> list[Interval]:
    """Sorted disjoint intervals without the given points (sorted, each once): what a run of
    ``!=`` constraints leaves, in one pass::

        >>> exclude_points([(-INF, False, INF, False), ], [1.0, 2.0])
        [(-inf, False, 1.0, False), (1.0, False, 2.0, False), (2.0, False, inf, False)]
        >>> exclude_points([(3.0, True, 3.0, True), (4.0, True, 5.0, True)], [3.0, 5.0])
        [(4.0, True, 5.0, False)]
    """
    out: list[Interval] = []
    for low, low_inc, high, high_inc in intervals:
        for p in points[bisect_left(points, low):bisect_right(points, high)]:
            if low < p:
                out.append((low, low_inc, p, False))
            low, low_inc = p, False
        if low < high or (low == high and low_inc and high_inc):
            out.append((low, low_inc, high, high_inc))
    return out


def covers(intervals: list[Interval], v: float) -> bool:
    """Whether sorted disjoint intervals hold ``v`` (by bisection).

    >>> covers([(1.0, True, 2.0, False)], 1.0), covers([(1.0, True, 2.0, False)], 2.0)
    (True, False)
    """
    k = bisect_right(intervals, v, key=_low) - 1
    return k >= 0 and intersect(intervals[k], (v, True, v, True)) is not None


def _low(i: Interval) -> float:
    return i[0]


def _high(i: Interval) -> float:
    return i[2]


def asked_for(dim: dict, snap: dict, given: dict | tuple = ()) -> str:
    """What a question asks the user to give for ``dim``: its own question, or for a dimension
    derived from others, theirs first, less those the query gives or derives (the compute tier: the
    number of GPUs and the time budget; what the hardware gives: the hardware, or the figure
    itself).

    >>> asked_for(snap["dimensions"]["tier"], snap)
    'the number of GPUs (gpus = 8) and the time budget (time = 3 days)'
    >>> asked_for(snap["dimensions"]["tier"], snap, {"gpus": None})
    'the time budget (time = 3 days)'
    >>> asked_for(snap["dimensions"]["gpu-memory"], snap)
    'the hardware (hardware = h100, dgx-spark, ...), or the memory per GPU (gpu-memory = 80GB)'
    >>> asked_for(snap["dimensions"]["zero"], snap)  # a dimension without a question: its example
    'the zero (zero = 3)'
    """
    dims = snap["dimensions"]
    own = dim.get("question")
    sources = dim.get("derived_from") or (["hardware"] if dim.get("derived_via") and "hardware" in dims else [])
    sources = [d for d in sources if d in dims and d not in given]
    if not sources:
        return own or f"the {dim['name']}" + (f" ({dim['example']})" if dim.get("example") else "")
    through = " and ".join(dims[d].get("question") or f"the {d}" for d in sources)
    return f"{through}, or {own}" if own else through


def for_method(record: dict, facts: dict[str, Facts], snap: dict) -> bool:
    """Whether a formula's ``rkg:forMethod`` admits the query's method: one of them given, or
    none given and one of them the method's default (``rkg:defaultValue``: a query without a
    method plans pretraining). The rule of thumb's training memory is not LoRA's, nor
    inference's; a LoRA base's share is no pretraining's."""
    methods, method = record.get("for_methods"), facts.get("method")
    if not methods:
        return True
    if method is not None and method.values:
        return method.values <= set(methods)
    default = snap["dimensions"].get("method", {}).get("default")
    return default in methods if default else any(snap["trains_weights"].get(m, True) for m in methods)


def derived_formula(dim: dict, facts: dict[str, Facts], snap: dict) -> dict | None:
    """The formula a dimension is derived by for the query's method (:func:`for_method`): the
    first of its formulas that admits it (the frozen base's share: 16-bit for LoRA, 4-bit for
    QLoRA), or None."""
    for iri in dim.get("derived_by_all") or ([dim["derived_by"]] if dim.get("derived_by") else ()):
        record = snap["formulas"].get(iri)
        if record is not None and for_method(record, facts, snap):
            return record
    return None


def chosen(facts: dict[str, Facts], snap: dict) -> set[str]:
    """The choices the user made: the values they gave (an optimizer, an architecture) and the
    approaches that are the training method they gave (``rkg:asMethod``): advice for one of
    them is no news to them, and what it applies to is theirs to know."""
    given = {v for f in facts.values() if not f.derived for v in f.values or ()}
    methods = snap["training_methods"]
    return given | {a for a, m in methods.items() if m in given}


def uses(conds: list[dict], statuses: list[str], facts: dict) -> list[str]:
    """The user's constraints a rule holds on and uses: a numeric condition, or one naming the
    user's own value (not a broader category of it). A derived number (a memory load a
    formula computes from the model, the hardware and the GPUs) uses each constraint it comes
    from; a derived category (a compute tier from the GPUs and the time) is a class of them,
    one use whatever it comes from. A value the user's implies (``data = audio`` for ``task =
    speech-recognition``: what the task is done on) is a category of theirs: a rule holding on
    it alone uses that constraint in part (marked :data:`IMPLIED`, counted at the partial
    credit by :func:`recipekg.reason.scoring.situate`); the rule written for the task uses it whole.

    >>> load = Facts("kv-load", "numeric", intervals=[(1.2, True, 1.2, True)], derived="method and hardware and gpus")
    >>> uses([{"dimension": "kv-load", "values": []}], ["held"], {"kv-load": load})
    ['gpus', 'hardware', 'method']
    >>> data = Facts("data", "categorical", values={"audio"}, derived="task", implied="task")
    >>> uses([{"dimension": "data", "values": ["audio"]}], ["held"], {"data": data})
    ['task (implied)']
    """
    out: set[str] = set()
    for c, s in zip(conds, statuses):
        f = facts.get(c["dimension"])
        named = f is not None and f.values and (f.values & set(c["values"]) if f.all_of else f.values <= set(c["values"]))
        if s != "held" or f is None or c["values"] and not named:
            continue
        if f.implied:
            out.add(f.implied + IMPLIED)
            continue
        out.update(f.derived.split(" and ") if f.derived and f.intervals is not None else (f.derived or c["dimension"],))
    return sorted(u for u in out if not u.endswith(IMPLIED) or u.removesuffix(IMPLIED) not in out)


#: How :func:`uses` marks a constraint a rule uses only through a value it implies.
IMPLIED = " (implied)"
