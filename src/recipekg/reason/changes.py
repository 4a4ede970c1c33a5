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

from recipekg.reason.conditions import HELD, bounds, status
from recipekg.reason.derive import derive
from recipekg.reason.facts import Facts, constraint_json, intersect
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
    fixes = _property_fixes(iri, kind, facts, snap)
    candidates = [(None, {"id": "", "strength": None, "conditions": []})] * bool(fixes) + list(_recommending(iri, snap))
    for rule_iri, rule in candidates:
        stuck = [c["label"] for c in map(snap["conditions"].get, rule["conditions"])
                 if c and c["dimension"] in pinned and status(c, pinned, snap) != HELD]
        if stuck:
            fixed.update(stuck)
            continue  # a model size (or a GPU's memory) the named model (or GPU) fixes is not a knob of its own
        changes = _changes_for(rule, {**given, **pinned}, snap)
        if changes is None or not changes and not fixes:
            continue
        merged = {n: f if n not in changes or changes[n].constraints == f.constraints else _merge(changes[n], f, snap)
                  for n, f in fixes.items()}
        if any(m is None for m in merged.values()):
            continue  # the rule needs what the choice's property rules out
        changes = {**changes, **merged}
        facts_changed = sorted(n for n in changes if n in given and snap["dimensions"].get(n, {}).get("problem_fact"))
        if facts_changed:
            blocked.update(c["label"] for c in map(snap["conditions"].get, rule["conditions"])
                           if c and c["dimension"] in facts_changed)
            continue  # a fact of the problem the user stated is not a knob
        key = tuple(sorted(changes))
        if found and _outranked(key, rule, changes, given, found, snap):
            continue  # ranking first or not, it would not be among the changes shown
        trial = dict(given)
        trial.update(changes)
        tried += 1
        if _first(kind, trial, snap, first, tested):
            candidate = _candidate(rule, changes, given, snap["strengths"][rule["strength"]] if rule["strength"] else None)
            if key not in found or candidate < found[key][0]:
                found[key] = (candidate, rule_iri, changes)
    best = sorted(found.values(), key=lambda x: x[0])[:3]
    out = {"found": [{"rule": r, "changes": [c for f in ch.values() for c in f.constraints],
                      "query": _query(kind, given, ch, snap)} for _, r, ch in best]}
    if not best and blocked:
        others = "; the ones that need only a knob leave other choices ahead of it" if tried else ""
        out["why"] = (f"{'some rules for it need' if tried else 'every rule for it needs'} a different problem "
                      f"({', '.join(sorted(blocked))}){others}; only knobs are changed (sizes, budgets, hardware, "
                      f"preferences), never the problem")
    elif not best and fixed:
        out["why"] = (f"the rules for it need what the named {' and '.join(sorted({pinned_by(pinned, d) for d in pinned}))} "
                      f"fixes otherwise ({', '.join(sorted(fixed))}); name another to try them")
    return out


#: The named things whose figures are facts of the query, not knobs: a model configuration's
#: size, an accelerator's memory (``derive``: ``derived`` names what they come from).
PINNING = ("architecture", "hardware")


def pinned_by(pinned: dict[str, Facts], dim: str) -> str:
    """What fixes a pinned dimension: ``model`` for the architecture's, else the hardware."""
    return "model" if pinned[dim].derived == "architecture" else "hardware"


def _candidate(rule: dict, changes: dict, given: dict, strength: dict | None) -> tuple:
    """How a change ranks among the changes found, best first: adding a constraint costs 1,
    overriding one the user gave costs 2; then the stronger rule, then the rule's id."""
    weight = strength["weight"] if strength is not None else 0.0
    return (sum(2 if name in given else 1 for name in changes), -weight, rule["id"])


def _outranked(key: tuple, rule: dict, changes: dict, given: dict, found: dict, snap: dict) -> bool:
    """Whether a change could not be shown whether or not it ranks the choice first: a change
    of the same constraints already found ranks before it, or three changes found do (only
    the best three are shown). Then it need not be re-ranked: the answer is the same.

    >>> found = {("samples",): ((2, -1.0, "b"), "r", {})}
    >>> rule = {"id": "a", "strength": None}
    >>> _outranked(("samples",), rule, {"samples": 0}, {"samples": 0}, found, {}), _outranked(("gpus",), rule, {"gpus": 0}, {}, found, {})
    (True, False)
    """
    strength = snap["strengths"].get(rule["strength"]) if rule["strength"] else None
    if rule["strength"] and strength is None:
        return False  # re-ranked as before (whose error, if it ranks first, is the answer's)
    candidate = _candidate(rule, changes, given, strength)
    if key in found and found[key][0] <= candidate:
        return True
    return sum(c < candidate for c, _, _ in found.values()) >= 3


def _first(kind: str, trial: dict, snap: dict, first, tested: list) -> bool:
    """``first(kind, derive(trial))``, re-ranked once for each distinct trial (two rules may
    need the same constraints)."""
    for earlier, result in tested:
        if earlier == trial:
            return result
    result = first(kind, derive(trial, snap))
    tested.append((trial, result))
    return result


def _property_fixes(iri: str, kind: str, facts: dict, snap: dict) -> dict[str, Facts]:
    """The knob changes that meet the bounds or values of the choice's properties the
    constraints contradict (a ``seq-length`` within BERT's 512 tokens, two GPUs for FSDP,
    ``method = qlora`` for QLoRA); never a change of a fact of the problem."""
    from recipekg.reason.properties import CONTRADICTS, checks, properties_of

    table = snap.get("choice_properties") or {}
    props = {table[p]["id"]: table[p] for p, _ in properties_of(iri, snap) if p in table}
    out: dict[str, Facts] = {}
    for c in checks(iri, kind, facts, snap):
        prop = props.get(c["property"]["id"])
        dim = snap["dimensions"].get(c["dimension"], {})
        if c["verdict"] == CONTRADICTS and prop and prop["test"] in ("at-most", "at-least", "one-of") \
                and not dim.get("problem_fact") and c["dimension"] not in out:
            out[c["dimension"]] = _satisfying(prop["check"], snap)
    return out


def _changes_for(rule: dict, given: dict[str, Facts], snap: dict) -> dict[str, Facts] | None:
    """Facts that would make every condition of ``rule`` hold (None if impossible)."""
    changes: dict[str, Facts] = {}
    todo = [snap["conditions"][c] for c in rule["conditions"]]
    while todo:
        cond = todo.pop(0)
        name = cond["dimension"]
        if status(cond, given, snap) == HELD and name not in changes:
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
                return None
            change = merged
        changes[name] = change
    return changes


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
