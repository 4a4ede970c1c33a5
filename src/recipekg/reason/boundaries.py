"""Both sides of a threshold: when a given value lies within a factor of 2 of a threshold that
decides the ranking, the answer names both sides (``near_boundary``).

A threshold is a bound of a numeric condition of a rule about the situation: one the query
narrowly misses (the rule is *near*, :mod:`recipekg.reason.situation`) or one it narrowly
meets. The choices are ranked again with the value moved just past the threshold (a tenth
beyond it, into the neighbouring row), and the threshold is named when the first choice there
differs, or when a rule on the other side speaks for another choice. Where the literature places the threshold
differently from the reference (``rkg:differsFrom``), the entry says both, with sources::

    >>> from recipekg.reason.recommend import recommend
    >>> a = recommend(parse("recommend optimizer where batch-size = 30k")[0], snap)
    >>> n = a["near_boundary"][0]
    >>> n["threshold"], n["other_side"]["pick"], [x["threshold"] for x in n["literature"]]
    (32000.0, 'layerwise-adaptive-optimizers', [8192.0, 8192.0])
"""

from __future__ import annotations

from recipekg.reason.answers import decision, sources_json
from recipekg.reason.derive import derive, smallest
from recipekg.reason.facts import Facts
from recipekg.reason.families import entries_by_choice
from recipekg.reason.situation import held_near
from recipekg.render.constraints import format_constraint

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.recommend import Decision, Literature, NearBoundary, Position


def boundaries(kind: str, facts: dict, ranked: dict, results: list, snap: dict, rerank,
               decided: Decision | None = None) -> list[NearBoundary]:
    """``[{"dimension", "value", "threshold", "text", "rule", "rules", "side", "other_side",
    "literature"}]`` for ``results`` (family entries) ranked under ``facts``;
    ``rerank(trial_facts) -> entries`` ranks the choices again; ``decided``: ``decision(results)``
    when the caller has it."""
    decided = decided or decision(results)
    here, tied = decided["pick"], set(decided.get("tied_with", ()))
    found: dict[tuple[str, float], dict] = {}
    entries = entries_by_choice(results)
    for r in ranked["results"]:
        for reason in r["because"] + r["against"]:
            if reason["match"] == "near":
                n = reason["near"]
                _note(found, n["dimension"], n["value"], n["threshold"], reason, _for(r, reason, entries), missed=True,
                      own=r["id"])
            elif reason["match"] == "full" and "via" not in reason:
                for dim, value, threshold in held_near(reason, facts, snap):
                    _note(found, dim, value, threshold, reason, _for(r, reason, entries), missed=False, own=r["id"])
    given = {n: f for n, f in facts.items() if not f.derived}
    out = []
    for (dim, threshold), spot in _nearest(found, given):
        other, value = _other_side(dim, spot, threshold, given, snap, rerank)
        labels = {e["id"]: e["label"] for e in results + other}
        there = decision(other)["pick"]
        if there in tied:  # one of the picks the advice does not separate here: no change of pick
            there = here
        speaks = sorted({t for r in spot["missed"] for t in r["for"]} - {here})
        if there == here and not speaks:
            continue  # the threshold does not decide the ranking
        # the rule that makes the other side's first choice first, then the rules for another choice
        # (a member of the pick's family entry here counts as itself: its own entry there)
        spot["missed"].sort(key=lambda r: (there != here and there not in r["for"] | r["own"],
                                           not (r["for"] - {here})))
        out.append(_entry(dim, spot, threshold, value, (here, there, speaks), labels, facts, snap))
    return out


def _nearest(found: dict, given: dict) -> list:
    """The thresholds near a number the query gives, at most :data:`recipekg.limits.MAX_BOUNDARY_TRIALS`
    per dimension, the nearest to the number (each costs a ranking), in the order of the thresholds.

    >>> spots = {("samples", t): {"value": 1000.0} for t in (600.0, 900.0, 1100.0, 1500.0, 1900.0, 510.0)}
    >>> [t for (_, t), _ in _nearest(spots, {"samples": None})]
    [600.0, 900.0, 1100.0, 1500.0]
    """
    from math import log

    from recipekg.limits import MAX_BOUNDARY_TRIALS

    by_dim: dict[str, list] = {}
    for (dim, threshold), spot in found.items():
        if dim in given:
            by_dim.setdefault(dim, []).append(((dim, threshold), spot))
    kept = [pair for pairs in by_dim.values() for pair in sorted(
        pairs, key=lambda p: (abs(log(p[0][1] / p[1]["value"])) if p[0][1] > 0 < p[1]["value"] else 0.0, p[0][1])
    )[:MAX_BOUNDARY_TRIALS]]
    return sorted(kept, key=lambda p: p[0])


def _for(result: dict, reason: dict, entries: dict[str, dict]) -> str | None:
    """The id of the entry (the choice's own, or its family's) a reason for ``result`` speaks
    for (None for a reason against it)."""
    if reason not in result["because"]:
        return None
    entry = entries.get(result["iri"])
    return entry["id"] if entry else None


def _note(found: dict, dim: str, value: float, threshold: float, reason: dict, choice: str | None,
          missed: bool, own: str) -> None:
    """Record ``reason`` at its threshold: the entry it speaks for (``choice``: the choice's
    own or its family's) and the choice itself (``own``)."""
    spot = found.setdefault((dim, threshold), {"value": value, "missed": [], "held": []})
    side = spot["missed" if missed else "held"]
    rule = next((r for r in side if r["rule"] == reason["rule"]), None)
    if rule is None:
        side.append(rule := {"rule": reason["rule"], "id": reason["id"], "for": set(), "own": set()})
    if choice:
        rule["for"].add(choice)
        rule["own"].add(own)


#: How far past a threshold the other side is tried: just beyond it, in the neighbouring row.
STEP = 1.1


def _other_side(dim: str, spot: dict, threshold: float, given: dict, snap: dict, rerank) -> tuple[list, float]:
    """The ranking with ``dim`` just on the other side of ``threshold`` (a tenth past it). A
    value at the threshold is on the side its own interval holds, and the other side is where
    the rules it narrowly misses there would hold (above an exclusive lower bound: 100k
    sequences misses "over 100K" above, not below)."""
    f, value = given[dim], spot["value"]
    at = _missed_side(dim, spot, threshold, snap) if value == threshold else None
    below = value < threshold or value == threshold and (at == "above" if at else not _below(f, threshold))
    other = threshold * STEP if below else threshold / STEP
    rounded = float(f"{other:.3g}")
    if (rounded - threshold) * (other - threshold) > 0:
        other = rounded
    if other < smallest(snap["dimensions"][dim]) <= threshold:  # no value below: the threshold itself (1 GPU)
        other = threshold
    trial = dict(given)
    trial[dim] = Facts(dim, f.kind, intervals=[(other, True, other, True)])
    return rerank(derive(trial, snap)), other


def _missed_side(dim: str, spot: dict, threshold: float, snap: dict) -> Position | None:
    """Where the rules a value at ``threshold`` narrowly misses would hold: "above" when one of
    them needs ``dim`` past the threshold (its lower bound), "below" when one needs it under
    (its upper bound), None when none says (the rules it meets there decide)."""
    for r in spot["missed"]:
        for c in (snap["conditions"].get(i) for i in snap["rules"][r["rule"]]["conditions"]):
            if c and c["dimension"] == dim and not c["values"]:
                if c["min"] == threshold:
                    return "above"
                if c["max"] == threshold:
                    return "below"
    return None


def _below(f: Facts, threshold: float) -> bool:
    return f.intervals is not None and bool(f.intervals) and f.intervals[-1][2] <= threshold


def _entry(dim: str, spot: dict, threshold: float, mirrored: float, picks: tuple, labels: dict,
           facts: dict, snap: dict) -> NearBoundary:
    here, there, speaks = picks
    value = spot["value"]
    rules = spot["missed"] + spot["held"]
    primary = snap["rules"][rules[0]["rule"]]
    side: Position = "below" if value < threshold else "above" if value > threshold else "at"
    constraint = {**facts[dim].constraints[0], "op": "=", "value": value}
    shown = format_constraint({**constraint, "value": threshold}).split(" = ", 1)[1]
    other = "above" if mirrored > threshold else "below" if mirrored < threshold else "at"
    def named(i: str | None) -> str:
        return labels.get(i, i or "no choice")

    if there != here:
        then = f"{other} {shown} {named(there)} would rank first"
    else:
        then = f"{other} {shown} it still would, and the advice there also speaks for " + ", ".join(map(named, speaks))
    where = "is at" if side == "at" else "is within a factor of 2 of"
    text = (f"{format_constraint(constraint)} {where} {shown}, a threshold of the advice "
            f"'{primary['label'].replace(' -> ', ' → ')}': here {named(here)} ranks first; {then}.")
    return {"dimension": dim, "value": value, "threshold": threshold, "unit": constraint.get("unit"), "side": side,
            "text": text,
            "rule": primary["id"], "rules": [r["id"] for r in rules],
            "other_side": {"value": mirrored, "pick": there, "label": labels.get(there)},
            "literature": _literature(rules, dim, threshold, snap)}


def _literature(rules: list[dict], dim: str, threshold: float, snap: dict) -> list[Literature]:
    """Where other rules place this threshold differently (``rkg:differsFrom``), with sources."""
    out: list[Literature] = []
    seen = set()
    for r in rules:
        for other in snap["rules"][r["rule"]].get("differs_from", ()):
            rule = snap["rules"].get(other)
            if rule is None or other in seen:
                continue
            seen.add(other)
            for c in (snap["conditions"].get(i) for i in rule["conditions"]):
                if c and c["dimension"] == dim and not c["values"]:
                    bound = c["min"] if c["min"] is not None else c["max"]
                    if bound is not None and bound != threshold:
                        out.append({"rule": rule["id"], "threshold": bound, "text": rule["text"],
                                    "sources": sources_json(rule, snap)})
    return out
