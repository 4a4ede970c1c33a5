"""A knob's value that gives a numeric condition the status wanted: the condition is on a
dimension the user gave (``params > 70B``) or on one a KB formula derives from what they gave
(``base-load > 100%``: the frozen base against all the GPUs' memory, from params, the GPU's
memory and the GPU count). explain's change search (:mod:`recipekg.reason.changes`) asks it
for the smallest change of one number the user gave that makes a rule's condition hold (a
rule for the choice) or fail (a rule against it), so that the change it proposes is a knob
the user turns (``params = 12B``, ``gpus = 2``), never a derived share they cannot set.

The value is found on the formula itself, through :func:`recipekg.reason.derive.derive`: the
given number is doubled or halved until the condition's status is the one wanted (the
smaller step of the two directions first), the crossing narrowed by bisection, and the value
shown is the crossing rounded away from it to two significant figures (a whole number for a
count), checked again::

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> given = resolve_constraints(parse("recommend x where method = lora and params = 13B and hardware = rtx-4090 and gpus = 1")[0].constraints, snap)
    >>> over = snap["conditions"]["https://w3id.org/recipekg/cond/base-load-over-all-gpus"]
    >>> [c for ch in knob_changes(over, FAILED, given, snap) for f in ch.values() for c in f.constraints]
    [{'dimension': 'params', 'op': '=', 'value': 12000000000.0, 'unit': 'count'}, {'dimension': 'gpus', 'op': '=', 'value': 2.0, 'unit': 'count'}]
"""

from __future__ import annotations

import math

from recipekg.reason.conditions import FAILED, HELD, bounds, status
from recipekg.reason.derive import derive
from recipekg.reason.facts import Facts, constraint_json

#: doublings (and halvings) tried each way before giving up: a factor of about a million
STEPS = 20
#: bisections of the crossing, each halving its ratio's logarithm (to within 0.01%)
BISECTIONS = 14


def knob_changes(cond: dict, want: str, given: dict[str, Facts], snap: dict) -> list[dict[str, Facts]]:
    """The changes of one number the user gave (``given``: their facts, none derived) that
    give ``cond`` the status ``want`` (HELD or FAILED), one per knob that can, in the order
    of the dimension's inputs: the condition's own dimension when the user gave it, else the
    inputs of the formula deriving it. Empty when no number can (a category, a knob the
    user did not give, a formula that no longer derives a value)."""
    if cond["values"] or want not in (HELD, FAILED):
        return []
    name, dims = cond["dimension"], snap["dimensions"]
    dim = dims.get(name) or {}
    inputs = [name] if name in given else dim.get("derived_from", ()) if dim.get("derived_by") else ()
    out = []
    for knob in inputs:
        f = given.get(knob)
        if f is None or f.derived or not _point(f) or dims.get(knob, {}).get("problem_fact"):
            continue
        value = _crossing(cond, want, knob, f.intervals[0][0], given, snap)
        if value is not None:
            out.append({knob: point(dims[knob], value)})
    return out


def point(dim: dict, value: float) -> Facts:
    """The fact ``dim = value``, as a query would give it."""
    return Facts(dim["name"], dim["kind"], intervals=[(value, True, value, True)],
                 constraints=[constraint_json(dim, "=", value)])


def _point(f: Facts) -> bool:
    """Whether ``f`` is one finite positive number (what can be doubled and halved)."""
    return bool(f.intervals) and len(f.intervals) == 1 and f.intervals[0][0] == f.intervals[0][2] \
        and 0 < f.intervals[0][0] < math.inf


def _crossing(cond: dict, want: str, knob: str, start: float, given: dict, snap: dict) -> float | None:
    """The value of ``knob`` nearest ``start`` (by ratio) giving ``cond`` the status ``want``,
    rounded as :func:`_readable` says; None when no doubling or halving within :data:`STEPS`
    does (or the status stops being known on the way)."""
    dim = snap["dimensions"][knob]

    def has(v: float) -> bool | None:  # True: wanted; False: known, not wanted; None: unknown
        s = status(cond, derive({**given, knob: point(dim, v)}, snap), snap)
        return True if s == want else False if s in (HELD, FAILED) or s == "partly" else None

    if has(start) is not False:
        return None
    alive = {2.0: True, 0.5: True}
    for step in range(1, STEPS + 1):
        for factor in (2.0, 0.5):
            v = start * factor ** step
            if not alive[factor] or (dim["kind"] == "count" and v < 1):
                alive[factor] = False
                continue
            found = has(v)
            if found is None:
                alive[factor] = False
            elif found:
                near = _bisect(has, start * factor ** (step - 1), v)
                return _readable(near, start * factor ** (step - 1), dim, has)
    return None


def _bisect(has, no: float, yes: float) -> float:
    """A value near the crossing between ``no`` (not wanted) and ``yes`` (wanted), on the
    wanted side."""
    for _ in range(BISECTIONS):
        mid = math.sqrt(no * yes)
        if has(mid):
            yes = mid
        else:
            no = mid
    return yes


def _readable(yes: float, no: float, dim: dict, has) -> float:
    """``yes`` rounded away from ``no`` to two significant figures (three, four, when the
    rounding crosses back), a whole number for a count, and still wanted.

    >>> _readable(11.07e9, 11.08e9, {"kind": "count"}, lambda v: v <= 11.07e9)
    11000000000.0
    >>> _readable(1.08, 1.0, {"kind": "count"}, lambda v: v >= 1.08)
    2.0
    """
    up = yes > no
    for digits in (2, 3, 4):
        scale = 10.0 ** (math.floor(math.log10(yes)) - digits + 1)
        if dim["kind"] == "count":
            scale = max(scale, 1.0)
        v = (math.ceil(yes / scale) if up else math.floor(yes / scale)) * scale
        v = float(f"{v:.{digits + 1}g}")
        if v > 0 and has(v):
            return v
    return yes


def missing_knob(cond: dict, given: dict[str, Facts], snap: dict) -> dict[str, Facts] | None:
    """The one input the user did not give, as the interval that gives ``cond`` (a numeric
    condition on a dimension a KB formula derives) the status HELD, solved on the formula with
    the other inputs they gave (``memory-load > 100%`` without a model size on one T4:
    ``params = 890M``, the smallest that holds it): a knob to give, not the derived share itself. None when more than one
    input is missing, the formula reads a model figure, or no interval of the input holds.

        >>> from recipekg.reason.resolve import resolve_constraints
        >>> given = resolve_constraints(parse("recommend x where hardware = t4 and gpus = 1")[0].constraints, snap)
        >>> over = snap["conditions"]["https://w3id.org/recipekg/cond/memory-load-over-all-gpus"]
        >>> [c["op"] + " " + format(c["value"], ".3g") for c in missing_knob(over, given, snap)["params"].constraints]
        ['= 8.9e+08']
    """
    from recipekg.formula.expr import Q, const_q, formula_of, solve
    from recipekg.reason.facts import measured, derived_formula

    dims = snap["dimensions"]
    dim = dims[cond["dimension"]]
    facts = derive(given, snap)  # (a GPU's memory from the hardware named)
    record = derived_formula(dim, facts, snap)
    missing = [d for d in dim.get("derived_from", ()) if d not in facts or not facts[d].intervals]
    if cond["values"] or record is None or len(missing) != 1 or dim.get("derived_through"):
        return None
    knob = missing[0]
    kdim = dims[knob]
    if kdim.get("value_class") or kdim.get("problem_fact"):
        return None
    f = formula_of(record)
    env = {c["symbol"]: const_q(c) for c in map(snap["constants"].get, record["constants"]) if c}
    env |= {d.replace("-", "_"): Q.span(*measured(facts[d])) for d in dim["derived_from"] if d != knob}
    low, _, high, _ = bounds(cond)
    ends = [solve(f, knob.replace("-", "_"), {**env, f.output: Q.point(b)}) if math.isfinite(b) and b > 0 else None
            for b in (low, high)]
    # the knob's interval over which every end of the formula's ranges stays inside the condition's:
    # the condition's low end gives the knob's low end when the formula grows with it (a model size),
    # its high end when the formula falls as it grows (a GPU count); the one that holds is kept
    for first, second in ((ends[0], ends[1]), (ends[1], ends[0])):
        lo = first.high if first is not None else 0.0
        hi = second.low if second is not None else math.inf
        if lo < hi and (out := _knob_fact(kdim, *_inward(lo, hi, kdim))) is not None \
                and status(cond, derive({**given, knob: out}, snap), snap) == HELD:
            return {knob: out}
    return None


def _knob_fact(dim: dict, lo: float, hi: float) -> Facts | None:
    """The knob's interval as a fact to give: a half-line's finite end (the smallest change; a
    formula derives from numbers), else the interval."""
    if not math.isfinite(hi) or lo <= 0:
        end = lo if not math.isfinite(hi) else hi
        return point(dim, end) if math.isfinite(end) and end > 0 else None
    return Facts(dim["name"], dim["kind"], intervals=[(lo, True, hi, True)],
                 constraints=[constraint_json(dim, ">=", lo), constraint_json(dim, "<=", hi)])


def _inward(lo: float, hi: float, dim: dict) -> tuple[float, float]:
    """``lo`` rounded up and ``hi`` down to two significant figures (whole numbers for a count),
    unless that empties the interval."""
    def rnd(x: float, up: bool) -> float:
        if not math.isfinite(x) or x <= 0:
            return x
        step = 10 ** (math.floor(math.log10(x)) - 1)
        v = (math.ceil(x / step) if up else math.floor(x / step)) * step
        return float(math.ceil(v) if up else math.floor(v)) if dim["kind"] == "count" and v >= 1 else float(f"{v:.3g}")
    a, b = rnd(lo, True), rnd(hi, False)
    return (a, b) if a < b else (lo, hi)
