"""Answers that fit the whole situation: thresholds near the user's values, and the
constraints no advice used.

**Near a threshold.** A rule that fails only because one numeric condition misses by less
than a factor of 2 (``rows = 45k`` against "from 50K") is *near*: it ranks its choices at a
share of its weight (``rkg:partlyCredit``, docs/scoring.md), so the choice on the other side of
the threshold stays in sight::

    >>> from_50k = {"dimension": "samples", "values": [], "min": 50000.0, "min_inclusive": True,
    ...             "max": None, "max_inclusive": False}
    >>> near_miss(from_50k, [(45000.0, True, 45000.0, True)]), near_miss(from_50k, [(20000.0, True, 20000.0, True)])
    ((45000.0, 50000.0), None)

**Unused.** A constraint is used when a rule about the situation depends on it (the rule
applies and holds on it, or it is the one condition that rules the rule out) or a property of
a choice checks it; any other given constraint is listed in ``unused`` with why.
"""

from __future__ import annotations

from recipekg.reason.conditions import FAILED, HELD, NOT_GIVEN, PARTLY, bounds, status
from recipekg.reason.facts import asked_for, derived_formula
from recipekg.render.constraints import format_constraint

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import Near, Unused

#: How many of the rules on a dimension an unused constraint's check for other kinds reads
#: (:func:`_other_kinds`): a bound on the work, not a threshold of the advice.
OTHER_KINDS_SCAN = 2000

#: How far a value may lie from a threshold (either way, as a ratio) and still be near it.
NEAR_FACTOR = 2.0


def near_miss(cond: dict, intervals: list) -> tuple[float, float] | None:
    """``(value, threshold)`` when the query's intervals miss the numeric condition ``cond``
    on one side by less than :data:`NEAR_FACTOR` (the query's end nearest the threshold)."""
    if cond["values"] or not intervals:
        return None
    low, _, high, _ = bounds(cond)
    q_low, q_high = intervals[0][0], intervals[-1][2]
    if q_high <= low and cond["min"] is not None:
        value, threshold = q_high, low
    elif q_low >= high and cond["max"] is not None:
        value, threshold = q_low, high
    else:
        return None
    return (value, threshold) if _near(value, threshold) else None


def _near(value: float, threshold: float) -> bool:
    return value > 0 and threshold > 0 and threshold / NEAR_FACTOR <= value <= threshold * NEAR_FACTOR


def near_reasons(evaluated: list, facts: dict, dims: dict) -> dict[tuple[str, str, str], Near]:
    """``(rule, choice, side) → {"dimension", "value", "threshold"}`` for the rules for a
    choice that fail only by one numeric condition they miss narrowly, every other condition
    held (a comparison or a rule against a choice is never near); the one failing condition
    may name a derived value the query misses narrowly (``Facts.near``: a compute tier), and
    the miss is then on the dimension it derives from (the time, the GPUs). A condition on a
    capacity share (``dims``' ``capacity``: memory against the GPUs' memory) is a physical
    limit, not a band: missing it is never near (the weights at 60% of a GPU fit it)."""
    out: dict[tuple[str, str, str], Near] = {}
    for a in evaluated:
        if a.side != "for" or FAILED not in a.ev["statuses"] or a.view.get("role") == "comparison":
            continue  # near keeps an alternative in sight; it never counts against a choice
        statuses, conds = a.ev["statuses"], a.ev["conditions"]
        failed = [c for c, s in zip(conds, statuses) if s == FAILED]
        if len(failed) != 1 or any(s not in (HELD, FAILED) for s in statuses) \
                or dims.get(failed[0]["dimension"], {}).get("capacity"):
            continue
        f = facts.get(failed[0]["dimension"])
        hit = near_miss(failed[0], f.intervals) if f is not None and f.intervals else None
        dim = failed[0]["dimension"]
        if hit is None and f is not None and f.near:  # a derived value missed narrowly: through what it derives from
            through = next((f.near[v] for v in sorted(failed[0]["values"]) if v in f.near), None)
            if through is not None:
                dim, hit = through[0], (through[1], through[2])
                f = facts.get(dim)
        if hit and f is not None:
            near: Near = {"dimension": dim, "value": hit[0], "threshold": hit[1]}
            unit = next((c.get("unit") for c in f.constraints if c.get("unit")), None)
            if unit:
                near["unit"] = unit
            out[(a.rule, a.choice, a.side)] = near
    return out


def held_near(reason: dict, facts: dict, snap: dict) -> list[tuple[str, float, float]]:
    """``(dimension, value, threshold)`` for each numeric condition a fully matching rule holds
    whose bound lies within :data:`NEAR_FACTOR` of the query's value."""
    rule = snap["rules"].get(reason["rule"], {})
    out = []
    for c in (snap["conditions"].get(i) for i in rule.get("conditions", ())):
        f = facts.get(c["dimension"]) if c else None
        if not c or c["values"] or f is None or not f.intervals:
            continue
        q_low, q_high = f.intervals[0][0], f.intervals[-1][2]
        for bound, value in ((c["min"], q_low), (c["max"], q_high)):
            if bound is not None and _near(value, bound):
                out.append((c["dimension"], value, bound))
    return out


# ----------------------------------------------------------------------------- unused

def sources_of(dim: str, facts: dict) -> set[str]:
    """The given dimensions a fact stands for: itself, or those it was derived from."""
    f = facts.get(dim)
    return set(f.derived.split(" and ")) if f is not None and f.derived else {dim}


def unused(kind: str, facts: dict, evaluated: list, verdicts: list[dict], snap: dict,
           near: dict | None = None, excluded: list | None = None) -> list[Unused]:
    """``[{"dimension", "value", "why"}]`` for each given constraint that no rule about the
    situation and no property of a choice of ``kind`` depends on (``evaluated``: the backend's
    evaluations of the rules on the given dimensions; ``verdicts``: the property checks made).

    A rule uses a constraint when it applies and holds (or partly holds) on it, or when it is
    near its threshold on it; a rule the constraint merely rules out does not use it, and
    what such rules need is the why (``near``: ``near_reasons(evaluated, facts, dims)``, when known).
    A rule for a choice a property rules out (``excluded``: the answer's) uses nothing: a
    constraint only such rules read is unused, and the why names those choices."""
    near = near_reasons(evaluated, facts, snap["dimensions"]) if near is None else near
    out_ids = {e["id"]: e["label"] for e in excluded or ()}
    ruled_out: dict[str, set[str]] = {}  # a constraint → the ruled-out choices whose rules read it
    used: set[str] = set()
    for v in verdicts:
        for dim in (v["dimension"], *v.get("when", ())):
            used |= sources_of(dim, facts)
    given = {name for name, f in facts.items() if not f.derived}
    needs: dict[str, set[str]] = {}
    for find_needs in (False, True):  # first what is used; then, for what is not, what the rules need
        left = given - used
        for a in evaluated if left else ():
            statuses, conds = a.ev["statuses"], a.ev["conditions"]
            applies = FAILED not in statuses
            miss = near.get((a.rule, a.choice, a.side))
            for c, s in zip(conds, statuses):
                if c["dimension"] not in facts:
                    continue
                # a rule that applies, or one near its threshold: the conditions it holds and the one it narrowly misses
                about = ((applies or miss is not None) and s in (HELD, PARTLY)
                         or miss is not None and (miss["dimension"] == c["dimension"] or s == FAILED))
                if about and not find_needs and (gone := out_ids.get(snap["nodes"].get(a.choice, {}).get("id"))):
                    for g in sources_of(c["dimension"], facts):
                        ruled_out.setdefault(g, set()).add(gone)
                elif about and not find_needs:
                    used |= sources_of(c["dimension"], facts)
                elif not about and find_needs:
                    for g in sources_of(c["dimension"], facts) & left:
                        needs.setdefault(g, set()).update(
                            o["label"] for o, so in zip(conds, statuses) if so in (FAILED, NOT_GIVEN))
            if not find_needs and given <= used:
                break  # every constraint is used: no why to find
    for name in sorted(given - used - set(needs)):  # read only through facts derived from it that no rule reached
        found = _derived_needs(kind, name, facts, snap)
        if found:
            needs[name] = found
    out: list = []  # Unused entries, their keys in the order shown
    for name, f in facts.items():
        if f.derived or name in used:
            continue
        out.extend(unused_entries(kind, name, facts, needs.get(name), snap, ruled_out.get(name)))
    return out


def unused_entries(kind: str, name: str, facts: dict, needs: set[str] | None, snap: dict,
                   gone: set[str] | None = None) -> list[Unused]:
    """The ``unused`` entries of the given constraint ``name``, one per constraint on it, with
    why: that only the rules for choices ruled out read it (``gone``: their labels), what the
    rules of ``kind`` on it need (``needs``), what else the dimensions they read it through need
    (:func:`_underived`), or the statements of other kinds whose advice holds for it
    (``answered_by``); and, after the first two, another kind's advice that reads it here."""
    f = facts[name]
    underived = _underived(kind, name, facts, snap)
    elsewhere = [] if needs or underived else _other_kinds(kind, name, f, snap)
    through = [] if needs or underived or elsewhere else _through_derived(kind, name, facts, snap)
    if needs and underived:  # both: what the rules reached need, then what the others need given
        underived = (f"{_why(kind, name, needs, [], snap)}; it also reads it"
                     f"{underived.split(f'depends on {name} reads it', 1)[1]}")
    here = _held_elsewhere(kind, name, facts, snap) if needs or underived else []
    out: list = []
    for c in f.constraints:
        asks = [] if gone else [_statement(k, name, c) for k in elsewhere] or [whole_statement(k, facts) for k in through]
        why = (f"the {kind} advice that depends on {name} is for {', '.join(sorted(gone))}, which "
               f"{'is' if len(gone) == 1 else 'are'} ruled out here (see why under ruled out)" if gone else
               f"no {kind} advice depends on {format_constraint({'dimension': name, 'op': '=', **c})}; "
               f"the KB's advice for it is about other choices: {'; '.join(asks)}" if asks
               else underived or _why(kind, name, needs, _checked_by(kind, name, snap), snap))
        if here:  # this kind's advice on it is for other situations; another kind's holds here
            asks = [whole_statement(k, facts) for k in here]
            reads = "reads" if len(here) == 1 else "read"
            why += f"; here the {' and the '.join(here)} advice {reads} it: {'; '.join(asks)}"
        entry: Unused = ({"dimension": name, "op": c.get("op", "="), "value": c["value"], "unit": c["unit"], "why": why}
                         if c.get("unit") else {"dimension": name, "op": c.get("op", "="), "value": c["value"], "why": why})
        if asks:
            entry["answered_by"] = asks
        out.append(entry)
    return out


def _derived_needs(kind: str, name: str, facts: dict, snap: dict) -> set[str]:
    """What the rules of ``kind`` on a fact derived from the constraint ``name`` need, where that
    fact rules them out (``serving-memory`` = 17.5% from params and the hardware, against the
    rule for more than 100%): the rule index does not reach them, so the backend did not
    evaluate them."""
    out: set[str] = set()
    for d, rule, statuses in _on_derived(name, facts, snap):
        if kind in _kinds_of(rule, snap) and any(c["dimension"] == d and st == FAILED for c, st in statuses):
            out.update(c["label"] for c, st in statuses if st in (FAILED, NOT_GIVEN))
    return out


def _on_derived(name: str, facts: dict, snap: dict):
    """``(dimension, rule, [(condition, status)])`` for the rules on each fact a formula derives
    from the constraint ``name`` (an implied value is reached as a given one is), at most
    :data:`OTHER_KINDS_SCAN` per fact."""
    rules, conds, dims = snap["rules"], snap["conditions"], snap["dimensions"]
    for d, f in facts.items():
        if not f.derived or not dims.get(d, {}).get("derived_by") or name not in f.derived.split(" and "):
            continue
        for iri in snap["rule_index"]["by_dimension"].get(d, ())[:OTHER_KINDS_SCAN]:
            rule = rules.get(iri)
            if rule is not None:
                yield d, rule, [(conds[c], status(conds[c], facts, snap)) for c in rule["conditions"] if c in conds]


def _kinds_of(rule: dict, snap: dict) -> set[str]:
    """The kinds of choice a rule ranks: those of the choices it names (its ``for_kinds`` among them)."""
    nodes = snap["nodes"]
    targets = {k for t in (*rule["recommends"], *rule["against"]) for k in nodes.get(t, {}).get("kinds", ())}
    return targets & set(rule["for_kinds"]) if rule["for_kinds"] else targets


def _other_kinds(kind: str, name: str, f, snap: dict) -> list[str]:
    """The other kinds of choice whose rules hold a condition on the constraint ``name`` as
    given (``f``: its facts): ``symptom = loss-spike`` asked of techniques is a question for
    the fixes."""
    return _holding(kind, name, {name: f}, snap)


def _holding(kind: str, name: str, facts: dict, snap: dict) -> list[str]:
    """The other kinds of choice whose rules hold on the constraint ``name`` under ``facts``,
    none of their conditions failing (on the constraint alone, the others are not given). At
    most :data:`OTHER_KINDS_SCAN` of the rules on ``name`` are read."""
    rules, conds = snap["rules"], snap["conditions"]
    kinds: set[str] = set()
    for iri in snap["rule_index"]["by_dimension"].get(name, ())[:OTHER_KINDS_SCAN]:
        rule = rules.get(iri)
        statuses = [(conds[c], status(conds[c], facts, snap)) for c in rule["conditions"] if c in conds] if rule else ()
        if all(st != FAILED for _, st in statuses) and any(c["dimension"] == name and st == HELD for c, st in statuses):
            kinds |= _kinds_of(rule, snap)
    kinds.discard(kind)
    return sorted(kinds)


def _through_derived(kind: str, name: str, facts: dict, snap: dict) -> list[str]:
    """The other kinds of choice whose rules hold here on a fact a formula derives from the
    constraint ``name`` and others (``gpus`` with ``params``, the hardware and ``method = qlora``:
    the frozen base's share of the GPUs' memory, which the approach advice reads), none of their
    conditions failing."""
    kinds: set[str] = set()
    for d, rule, statuses in _on_derived(name, facts, snap):
        if all(st != FAILED for _, st in statuses) and any(c["dimension"] == d and st == HELD for c, st in statuses):
            kinds |= _kinds_of(rule, snap)
    kinds.discard(kind)
    return sorted(kinds)


def _held_elsewhere(kind: str, name: str, facts: dict, snap: dict) -> list[str]:
    """The other kinds of choice whose rules hold here on the constraint ``name`` (:func:`_holding`
    under the query's facts), or on a fact a formula derives from it (:func:`_through_derived`):
    a 13B full fine-tune on four 80 GB GPUs asked of techniques, whose advice on the model size
    is for runs that do not fit, is a question for the approaches (a full copy does not fit one
    GPU: shard it)."""
    return sorted({*_holding(kind, name, facts, snap), *_through_derived(kind, name, facts, snap)})


def whole_statement(kind: str, facts: dict) -> str:
    """The query's own constraints asked of ``kind`` (what a derived fact needs is all there)."""
    return f"recommend {kind} where " + " and ".join(
        format_constraint({"dimension": n, "op": "=", **c}) for n, f in facts.items() if not f.derived for c in f.constraints)


def _statement(kind: str, name: str, c: dict) -> str:
    """The statement that asks ``kind`` about the constraint ``c`` alone, in query syntax.

    >>> _statement("fix", "symptom", {"op": "=", "value": "loss-spike"})
    'recommend fix where symptom = loss-spike'
    >>> _statement("approach", "time", {"op": "<", "value": 100.0, "unit": "hours"})
    'recommend approach where time < 100h'
    """
    return f"recommend {kind} where {format_constraint({'dimension': name, 'op': '=', **c})}"


def _underived(kind: str, name: str, facts: dict, snap: dict) -> str | None:
    """Why ``name`` is not used when the advice of ``kind`` reads it only through dimensions a
    formula derives from it and others the query does not give (seq-length without the
    hardware: the share of a GPU's memory one sequence takes), and what to give; None otherwise."""
    dims = snap["dimensions"]
    entry = snap["rule_index"]["kinds"].get(kind) or {}
    through = [d for d, _ in entry.get("dimensions", ()) if name in (dims.get(d, {}).get("derived_from") or ())
               and (_partly_derived(d, facts) or d not in facts and dims[d].get("derived_by")
                    and derived_formula(dims[d], facts, snap) is not None)]
    missing = sorted({i for d in through for i in (*dims[d]["derived_from"], *_unconfigured(dims[d], facts, snap))
                      if i not in facts}, key=list(dims).index)
    if not through or not missing:
        return None
    # (each asked for once: a derived one's own sources that are asked for beside it are not repeated)
    give = " and ".join(asked_for(dims[i], snap, {**facts, **dict.fromkeys(set(missing) - {i})}) for i in missing)
    them = " and ".join(d + (f" (extension {dims[d]['origin']['file']}, line {dims[d]['origin']['line']})"
                             if dims[d].get("origin") else "") for d in through)  # (hostile round 5, 049)
    return (f"the {kind} advice that depends on {name} reads it through {them}, "
            f"{'which need' if len(through) > 1 else 'which needs'} more than {name}: give {give} to derive "
            f"{'them' if len(through) > 1 else 'it'}")


def _unconfigured(dim: dict, facts: dict, snap: dict) -> list[str]:
    """The model figures a derived dimension's formula reads only from the query or a named
    model's configuration (no rule of thumb: the vocabulary), which neither gives here."""
    arch = facts.get("architecture")
    models = [snap["models"].get(v, {}) for v in sorted(arch.values or ())] if arch else []
    return [figure for figure, by in dim.get("derived_through") or () if not by
            and not (models and all(m.get(figure.replace("-", "_")) for m in models))]


def _partly_derived(d: str, facts: dict) -> bool:
    """Whether the query narrows a derived dimension without deciding it, from some of what it
    is derived from (the compute tier from a time budget alone: not the multi-GPU tiers)."""
    f = facts.get(d)
    return f is not None and bool(f.derived) and not f.values and bool(f.excluded)


def _checked_by(kind: str, name: str, snap: dict) -> list[str]:
    """The choices of ``kind`` with a property that checks dimension ``name``."""
    props, nodes = snap.get("choice_properties") or {}, snap["nodes"]
    found = (props[p] for p in (snap.get("properties_by_dimension") or {}).get(name, ()) if p in props)
    return sorted({nodes[p["of"]]["label"] for p in found if kind in nodes.get(p["of"], {}).get("kinds", ())
                   and (not p["for_kinds"] or kind in p["for_kinds"])})


def _why(kind: str, name: str, needs: set[str] | None, checked: list[str], snap: dict) -> str:
    dim = snap["dimensions"].get(name, {})
    if not needs and snap["rule_index"]["by_dimension"].get(name):
        return f"the advice in the KB that depends on {name} is for other situations than this one"
    if checked and not needs:
        return (f"no {kind} advised here depends on {name}; the {kind}s whose properties check it "
                f"({', '.join(checked[:4])}) are not advised for this situation")
    if needs:
        shown = sorted(needs)
        more = f" and {len(shown) - 4} more" if len(shown) > 4 else ""
        return (f"the {kind} advice that depends on {name} is for other situations: it needs "
                f"{', '.join(shown[:4])}{more}")
    if dim.get("plan_only"):
        return f"no {kind} advice depends on {name}: it is a dimension of plan"
    return f"no {kind} advice in the KB depends on {name}"
