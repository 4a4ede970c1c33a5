"""explain's smallest change: the constraints that would rank a choice first, fewest first,
turning only knobs (sizes, budgets, hardware, preferences), never a fact of the problem the
user stated (``rkg:problemFact`` in ontology/dimensions.ttl: data, task, symptom, ...).

    >>> from recipekg.reason.recommend import rank
    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend x where data = text and task = classification")[0].constraints, snap)
    >>> patchtst = snap["rule_index"]["choices"]["patchtst"]
    >>> first = lambda kind, trial: rank(kind, trial, snap)[:1] == [r for r in rank(kind, trial, snap) if r["iri"] == patchtst]
    >>> change = smallest_change(patchtst, "architecture", facts, snap, first)
    >>> change["found"], change["why"].startswith("every rule for it needs a different")
    ([], True)
"""

from __future__ import annotations

import math

from recipekg.reason.conditions import FAILED, HELD, bounds, status
from recipekg.reason.derive import derive, not_for_method
from recipekg.reason.facts import Facts, constraint_json, derived_formula, intersect
from recipekg.reason.inverse import knob_changes, missing_knob, point
from recipekg.render.constraints import format_constraint


def _recommending(iri: str, snap: dict):
    """The KB's rules recommending ``iri`` (the candidates for a change), sorted by IRI."""
    rules = snap["rules"]
    for r in snap["rule_index"]["by_target"].get(iri, ()):
        if iri in rules[r]["recommends"]:
            yield r, rules[r]


def smallest_change(iri: str, kind: str, facts: dict, snap: dict, first) -> dict:
    """``{"found": [candidate changes, fewest first], "why": ...}``: the changes that rank the
    choice first (``why`` says what stood in the way when none does).

    ``first(kind, facts) -> bool``: whether the choice ranks first (through the answer's backend).
    """
    if first(kind, facts):
        return {"found": []}
    given = {n: f for n, f in facts.items() if not f.derived}
    pinned = {n: f for n, f in facts.items() if f.derived in PINNING}  # what a named model or GPU fixes
    found, blocked, fixed, tried = {}, set(), set(), 0
    tested: list[tuple[dict, bool]] = []  # the trials re-ranked so far and whether the choice came first
    fixes, derived = _property_fixes(iri, kind, facts, snap)
    for rule_iri, rule, changes in _candidates(iri, facts, given, pinned, derived if fixes else None, fixed, snap):
        needed, changes = _needed(fixes, derived, given, changes, snap)
        if not changes and not needed:
            continue
        merged = {n: f if n not in changes or changes[n].constraints == f.constraints else _merge(changes[n], f, snap)
                  for n, f in needed.items()}
        if any(m is None for m in merged.values()):
            continue  # the rule needs what the choice's property rules out
        changes = {**changes, **merged}
        facts_changed = sorted(n for n in changes if _changes_problem(n, changes[n], facts, given, snap))
        if facts_changed:
            blocked.update(c["label"] for c in map(snap["conditions"].get, rule["conditions"])
                           if c and c["dimension"] in facts_changed)
            continue  # a fact of the problem the user stated is not a knob
        key = tuple(sorted(changes))
        if any(_contains(changes, ch) for _, _, ch, _ in found.values()):
            continue  # a change found already does it with less: this one would add nothing shown
        if found and _outranked(key, rule, changes, given, found, snap):
            continue  # ranking first or not, it would not be among the changes shown
        trial = dict(given)
        trial.update(changes)
        tried += 1
        if _first(kind, trial, snap, first, tested):
            candidate = _candidate(rule, changes, given, snap["strengths"][rule["strength"]] if rule["strength"] else None,
                                   snap["nodes"])
            if key not in found or candidate < found[key][0]:
                found[key] = (candidate, rule_iri, changes, iri in rule.get("against", ()))
    ordered = sorted(found.values(), key=lambda x: x[0])
    best = [x for x in ordered if not any(y is not x and _contains(x[2], y[2]) for y in ordered)][:3]
    out = {"found": [{"rule": r, "changes": [c for f in ch.values() for c in f.constraints],
                      "query": _query(kind, given, ch, snap), **({"turns_off": True} if off else {})}
                     for _, r, ch, off in best]}
    if not best and blocked:
        others = "; the ones that need only a knob leave other choices ahead of it" if tried else ""
        out["why"] = (f"{'some rules for it need' if tried else 'every rule for it needs'} a different problem "
                      f"({', '.join(sorted(blocked))}){others}; only knobs are changed (sizes, budgets, hardware, "
                      f"preferences), never the problem")
    elif not best and fixed:
        out["why"] = (f"the rules for it need what the named {' and '.join(sorted({pinned_by(pinned, d) for d in pinned}))} "
                      f"fixes otherwise ({', '.join(sorted(fixed))}); name another to try them")
    elif not best and not tried and (why := _nothing_to_meet(iri, facts, snap)):
        out["why"] = why
    return out


def _nothing_to_meet(iri: str, facts: dict, snap: dict) -> str | None:
    """Why no change was even tried, when no rule for the choice has a condition left to meet:
    none recommends it, or each that does holds already (general advice, or met by the
    constraints), and the advice for the choices above it outweighs them.

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend x where prefer = low-memory")[0].constraints, snap)
    >>> _nothing_to_meet(snap["rule_index"]["choices"]["lion"], facts, snap).startswith("every rule for it holds already (2)")
    True
    """
    rules = [rule for _, rule in _recommending(iri, snap)]
    if not rules:
        return ("no rule of the KB recommends it itself, only rules about the families it is one of, which rank "
                "as families" if snap["nodes"].get(iri, {}).get("ancestors") else "no rule of the KB recommends it")
    conditions = snap["conditions"]
    if all(c in conditions and status(conditions[c], facts, snap) == HELD for r in rules for c in r["conditions"]):
        return (f"every rule for it holds already ({len(rules)}), as general advice or met by your constraints, "
                f"and the advice for the choices above it outweighs {'them' if len(rules) > 1 else 'it'}: "
                f"no condition of its own is left for a change to meet")
    return None


def _changes_problem(name: str, change: Facts, facts: dict, given: dict, snap: dict) -> bool:
    """Whether ``change`` would change a fact of the problem: one the user stated, or one the
    query implies (``data = audio`` from ``task = speech-recognition``), which a change could
    only contradict (audit 15/09: ``data = text`` for a speech task)."""
    if not snap["dimensions"].get(name, {}).get("problem_fact") or name not in facts:
        return False
    if name in given:
        return True
    had = facts[name].values
    return bool(had) and not (change.values and change.values <= had)


def _candidates(iri: str, facts: dict, given: dict, pinned: dict, fixes: dict | None, fixed: set, snap: dict):
    """``(rule IRI, rule, changes)``: the choice's property fixes alone (when ``fixes`` is
    not None: it holds those on a derived share, each also met by a knob the user gave), then
    the changes that make a rule for the choice hold (each way of turning its numbers), then
    those that make a rule against it, which holds, fail (one knob each). A rule for it whose
    conditions a named model or GPU fixes otherwise is noted in ``fixed`` instead."""
    if fixes is not None:
        alone = {"id": "", "strength": None, "conditions": []}
        yield None, alone, {}
        for check in fixes.values():
            for changes in knob_changes(check, HELD, given, snap):
                yield None, alone, changes
    for rule_iri, rule in _recommending(iri, snap):
        stuck = [c["label"] for c in map(snap["conditions"].get, rule["conditions"])
                 if c and c["dimension"] in pinned and status(c, pinned, snap) != HELD]
        if stuck:
            fixed.update(stuck)
            continue  # a model size (or a GPU's memory) the named model (or GPU) fixes is not a knob of its own
        for changes in _changes_for(rule, {**given, **pinned}, snap):
            yield rule_iri, rule, changes
    rules, conditions = snap["rules"], snap["conditions"]
    for rule_iri in snap["rule_index"]["by_target"].get(iri, ()):
        rule = rules[rule_iri]
        conds = [conditions[c] for c in rule["conditions"]]
        if iri in rule["against"] and conds and all(status(c, facts, snap) == HELD for c in conds):
            for cond in conds:
                for changes in knob_changes(cond, FAILED, given, snap):
                    yield rule_iri, rule, changes


#: The named things whose figures are facts of the query, not knobs: a model configuration's
#: size, an accelerator's memory (``derive``: ``derived`` names what they come from).
PINNING = ("architecture", "hardware")


def pinned_by(pinned: dict[str, Facts], dim: str) -> str:
    """What fixes a pinned dimension: ``model`` for the architecture's, else the hardware."""
    return "model" if pinned[dim].derived == "architecture" else "hardware"


def _method_bound(dim: dict, given: dict, snap: dict) -> bool:
    """Whether the query gives no method and no formula of ``dim`` is for the one it then plans
    (``rkg:forMethod``, the method's default: pretraining): stating the share would not say the
    run is one of its methods (the frozen base's share of a LoRA run)."""
    return "method" not in given and derived_formula(dim, given, snap) is None


def _contains(changes: dict, other: dict) -> bool:
    """Whether ``changes`` makes every change of ``other`` (the same constraints), and more.

    >>> a, b = Facts("gpus", "count", intervals=[(2.0, True, 2.0, True)]), Facts("prefer", "categorical", values={"x"})
    >>> _contains({"gpus": a, "prefer": b}, {"gpus": a}), _contains({"gpus": a}, {"gpus": a})
    (True, False)
    """
    return len(changes) > len(other) and all(n in changes and changes[n].constraints == f.constraints
                                             for n, f in other.items())


def _candidate(rule: dict, changes: dict, given: dict, strength: dict | None, nodes: dict) -> tuple:
    """How a change ranks among the changes found, best first: adding a constraint costs 1, and
    so does narrowing one the user gave (a value of it, or a number within it:
    :func:`_narrows`), overriding one costs 2; then the stronger rule, then the rule's id."""
    weight = strength["weight"] if strength is not None else 0.0
    return (sum(2 if name in given and not _narrows(changes[name], given[name], nodes) else 1 for name in changes),
            -weight, rule["id"])


def _narrows(change: Facts, was: Facts, nodes: dict) -> bool:
    """Whether ``change`` says more of what the user gave rather than something else: each value
    a narrower one of a value given (a ConvNeXt for a CNN), or each number within the numbers
    given.

    >>> cnn, convnext = snap["rule_index"]["choices"]["cnn"], snap["rule_index"]["choices"]["convnext"]
    >>> f = lambda *v: Facts("architecture", "categorical", values=set(v))
    >>> _narrows(f(convnext), f(cnn), snap["nodes"]), _narrows(f(cnn), f(convnext), snap["nodes"])
    (True, False)
    >>> n = lambda lo, hi: Facts("samples", "count", intervals=[(lo, True, hi, True)])
    >>> _narrows(n(2e4, 2e4), n(1e4, 5e4), {}), _narrows(n(6e4, 6e4), n(1e4, 5e4), {})
    (True, False)
    """
    if change.values and was.values:
        return all(not was.values.isdisjoint(nodes.get(v, {}).get("ancestors", ())) for v in change.values)
    if change.intervals and was.intervals:
        return all(any(intersect(c, w) == c for w in was.intervals) for c in change.intervals)
    return False


def _outranked(key: tuple, rule: dict, changes: dict, given: dict, found: dict, snap: dict) -> bool:
    """Whether a change could not be shown whether or not it ranks the choice first: a change
    of the same constraints already found ranks before it, or three changes found do (only
    the best three are shown). Then it need not be re-ranked: the answer is the same.

    >>> found = {("samples",): ((2, -1.0, "b"), "r", {}, False)}
    >>> rule = {"id": "a", "strength": None}
    >>> at = lambda dim, x: {dim: Facts(dim, "count", intervals=[(x, True, x, True)])}
    >>> _outranked(("samples",), rule, at("samples", 1e3), at("samples", 5e3), found, {"nodes": {}}), _outranked(("gpus",), rule, at("gpus", 2), {}, found, {"nodes": {}})
    (True, False)
    """
    strength = snap["strengths"].get(rule["strength"]) if rule["strength"] else None
    if rule["strength"] and strength is None:
        return False  # re-ranked as before (whose error, if it ranks first, is the answer's)
    candidate = _candidate(rule, changes, given, strength, snap["nodes"])
    if key in found and found[key][0] <= candidate:
        return True
    shown = [c for c, _, ch, _ in found.values() if not any(_contains(ch, o[2]) for o in found.values())]
    return sum(c < candidate for c in shown) >= 3


def _first(kind: str, trial: dict, snap: dict, first, tested: list) -> bool:
    """``first(kind, derive(trial))``, re-ranked once for each distinct trial (two rules may
    need the same constraints)."""
    for earlier, result in tested:
        if earlier == trial:
            return result
    result = first(kind, derive(trial, snap))
    tested.append((trial, result))
    return result


def _property_fixes(iri: str, kind: str, facts: dict, snap: dict) -> tuple[dict[str, Facts], dict[str, dict]]:
    """The knob changes that meet the bounds or values of the choice's properties the
    constraints contradict (a ``seq-length`` within BERT's 512 tokens, two GPUs for FSDP,
    ``method = qlora`` for QLoRA), never a change of a fact of the problem; and the checks
    among them on a share a formula derives from the user's numbers (the frozen base against
    all the GPUs' memory, for FSDP), which a change of those numbers may meet instead."""
    from recipekg.reason.properties import CONTRADICTS, checks, properties_of

    table = snap.get("choice_properties") or {}
    props = {table[p]["id"]: table[p] for p, _ in properties_of(iri, snap) if p in table}
    out: dict[str, Facts] = {}
    derived: dict[str, dict] = {}
    for c in checks(iri, kind, facts, snap):
        prop = props.get(c["property"]["id"])
        dim = snap["dimensions"].get(c["dimension"], {})
        if c["verdict"] == CONTRADICTS and prop and prop["test"] in ("at-most", "at-least", "one-of") \
                and not dim.get("problem_fact") and c["dimension"] not in out:
            out[c["dimension"]] = _satisfying(prop["check"], snap)
            if dim.get("derived_by") and facts[c["dimension"]].derived:
                derived[c["dimension"]] = prop["check"]
    return out, derived


def _needed(fixes: dict[str, Facts], derived: dict[str, dict], given: dict[str, Facts], changes: dict[str, Facts],
            snap: dict) -> tuple[dict[str, Facts], dict[str, Facts]]:
    """The property fixes a trial still needs, with its changes: a fix on a derived share is
    not needed when the numbers the trial gives meet it already, as they are or with a
    half-line among them made its end (``gpus >= 2`` as ``gpus = 2``: then so changed), or
    when one more change of a number the user gave does (the first knob that can: then added)."""
    if not derived:
        return fixes, changes
    inputs = [i for n in derived for i in snap["dimensions"][n]["derived_from"]]
    best = None
    for way in (changes, _pinned(changes, inputs, snap)):
        facts = derive({**given, **way}, snap)
        needed = {n: f for n, f in fixes.items() if n not in derived or status(derived[n], facts, snap) != HELD}
        if best is None or len(needed) < len(best[0]):
            best = (needed, way)
    needed, way = best
    for n in [n for n in needed if n in derived]:
        knob = next((k for k in knob_changes(derived[n], HELD, {**given, **way}, snap) if not set(k) & set(way)), None)
        if knob is not None:
            way = {**way, **knob}
            del needed[n]
    return needed, way


def _changes_for(rule: dict, given: dict[str, Facts], snap: dict) -> list[dict[str, Facts]]:
    """The ways to make every condition of ``rule`` hold (none if impossible): the facts its
    conditions on what the user can give need, then, for a condition on a dimension a KB
    formula derives, each knob value that makes it hold (:mod:`recipekg.reason.inverse`: a
    model size, a GPU count), or the derived value itself when no knob the user gave does."""
    changes: dict[str, Facts] = {}
    derived: list[dict] = []
    todo = [snap["conditions"][c] for c in rule["conditions"]]
    while todo:
        cond = todo.pop(0)
        name = cond["dimension"]
        if status(cond, given, snap) == HELD and name not in changes:
            continue
        if snap["dimensions"][name].get("derived_by") and (not_for_method(snap["dimensions"][name], given, snap)
                                                           or _method_bound(snap["dimensions"][name], given, snap)):
            return []  # (a share the query's method has none of, or one only a method not given has: a LoRA base's)
        if snap["dimensions"][name].get("derived_by") and name not in given:
            derived.append(cond)  # (after the others: their changes are the ground it is derived on)
            continue
        defined = snap["tiers"].get(cond["values"][0]) if cond["values"] else None
        if defined and snap["dimensions"][name].get("derived_from") and name not in given:
            # a value defined by conditions (a tier: GPUs and time): propose those, not the value itself
            todo.extend(snap["conditions"][c] for c in defined["conditions"])
            continue
        change = _satisfying(cond, snap)
        if name in changes and change.constraints != changes[name].constraints:
            merged = _merge(changes[name], change)
            if merged is None:
                return []
            change = merged
        changes[name] = change
    ways = [changes]
    for cond in derived:
        ways = [w for way in ways for w in _deriving(cond, way, given, snap)][:MAX_WAYS]
    return [w for w in ways if all(status(c, derive({**given, **w}, snap), snap) == HELD for c in derived)]


#: the ways of making one rule hold tried at most (each a re-ranking when it is not outranked)
MAX_WAYS = 4


def _deriving(cond: dict, way: dict[str, Facts], given: dict[str, Facts], snap: dict) -> list[dict[str, Facts]]:
    """``way`` extended so that ``cond``, on a formula's dimension, holds: as it is when it
    already does, else with each knob value that makes it (merged with ``way``'s own change
    of that knob), else with the derived value stated."""
    way = _pinned(way, snap["dimensions"][cond["dimension"]]["derived_from"], snap)
    ground = {**given, **way}
    if status(cond, derive(ground, snap), snap) == HELD:
        return [way]
    knobs = (knob_changes(cond, HELD, ground, snap) or [k for k in [missing_knob(cond, ground, snap)] if k]
             or [{cond["dimension"]: _satisfying(cond, snap)}])
    out = []
    for knob in knobs:
        (name, change), = knob.items()
        if name in way:
            change = _merge(way[name], change, snap) if way[name].constraints != change.constraints else change
        if change is not None:
            out.append({**way, name: change})
    return out


def _pinned(way: dict[str, Facts], inputs, snap: dict) -> dict[str, Facts]:
    """``way`` with each change of a formula's input that is a half-line with an included
    end (``gpus >= 2``) made that end (``gpus = 2``): a formula derives from numbers, not from
    a half-line, and the end is the smallest change that meets the condition it came from."""
    out = dict(way)
    for name in inputs:
        f = way.get(name)
        if f is None or not f.intervals or len(f.intervals) != 1:
            continue
        low, low_inc, high, high_inc = f.intervals[0]
        if low == high or (math.isfinite(low) and low_inc) == (math.isfinite(high) and high_inc):
            continue
        out[name] = point(snap["dimensions"][name], low if math.isfinite(low) and low_inc else high)
    return out


def _satisfying(cond: dict, snap: dict) -> Facts:
    dim = snap["dimensions"][cond["dimension"]]
    if cond["values"]:
        value = cond["values"][0]
        return Facts(dim["name"], dim["kind"], values={value},
                     constraints=[constraint_json(dim, "=", snap["nodes"][value]["id"])])
    # the query constraints whose interval is the condition's, each end included or not as
    # the condition says ("time <= 168h" for [24 h, 168 h], "params > 70B" for (70B, inf))
    interval = bounds(cond)
    return Facts(dim["name"], dim["kind"], intervals=[interval], constraints=_written(dim, interval))


def _written(dim: dict, interval) -> list[dict]:
    """The query constraints of an interval, each end included or not."""
    low, low_inc, high, high_inc = interval
    if low == high:
        return [constraint_json(dim, "=", low)]
    constraints = []
    if low != -math.inf:
        constraints.append(constraint_json(dim, ">=" if low_inc else ">", low))
    if high != math.inf:
        constraints.append(constraint_json(dim, "<=" if high_inc else "<", high))
    return constraints


def _merge(a: Facts, b: Facts, snap: dict | None = None) -> Facts | None:
    """Two changes on one dimension at once: the intersection of their intervals, written as
    its constraints (with ``snap``; else the constraints of both, each once); None when they
    cannot both hold."""
    if a.intervals and b.intervals:
        merged = [i for x in a.intervals for y in b.intervals if (i := intersect(x, y))]
        if len(merged) == 1 and snap is not None:
            return Facts(a.dimension, a.kind, intervals=merged, constraints=_written(snap["dimensions"][a.dimension],
                                                                                     merged[0]))
        if merged:
            return Facts(a.dimension, a.kind, intervals=merged,
                         constraints=a.constraints + [c for c in b.constraints if c not in a.constraints])
    return None


def _query(kind: str, given: dict[str, Facts], changes: dict[str, Facts], snap: dict) -> str:
    parts = []
    for name, f in {**given, **changes}.items():
        for c in f.constraints:
            parts.append(format_constraint(c))
    return f"recommend {kind}" + (" where " + " and ".join(parts) if parts else "")
