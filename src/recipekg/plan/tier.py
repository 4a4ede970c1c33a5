"""The compute tier of the reference's budget flowchart a plan falls in, and its advice.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.sizing import choose_strategy, size
    >>> from recipekg.plan.timing import train_time
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> sizes = size(ledger, inputs, choose_strategy(ledger.kb, inputs.facts))
    >>> tier = compute_tier(ledger, inputs, sizes.params, train_time(ledger, inputs, sizes))
    >>> tier["id"], tier["basis"], tier["exact"]
    ('multi-gpu-week', 'gpus', False)

With gpus and a time (given, or the computed wall time) that meet all of a tier's
conditions, that tier. Otherwise, when the query gives the GPUs (or the time), the tier of
what the user has: the one whose GPU range holds them (or is nearest), the nearest in time
among those, never a tier of more GPUs than the user has. With neither, the tier whose GPU and
time ranges can hold the plan's GPU-hours (the largest such tier: 70B-class compute is a
massive-cluster job even though a smaller cluster could grind through it), or the nearest one.
"""

from __future__ import annotations

import math

from recipekg.formula.expr import Q
from recipekg.plan.figures import rounded, show
from recipekg.plan.inputs import Inputs, facts_q, point_facts
from recipekg.plan.kbview import KBView
from recipekg.plan.ledger import Ledger
from recipekg.plan.quantities import PRETRAINING
from recipekg.plan.timing import Timing
from recipekg.reason.answers import reason_json
from recipekg.reason.conditions import FAILED, HELD, bounds, status
from recipekg.reason.facts import Facts, Interval, intersect
from recipekg.reason.scoring import evaluate_rule
from recipekg.render import numbers as units

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.plan import HardwareRule, Tier


def compute_tier(ledger: Ledger, inputs: Inputs, params: Q, timing: Timing, facts: dict | None = None) -> Tier | None:
    """The answer's ``tier`` (None when the KB has no tiers or the plan has no time), with a
    warning for each choice its advice names that the plan's figures rule out (``facts``: the
    plan's, with the memory shares its fit counted; else the query's)."""
    tier = _find_tier(ledger, inputs, params, timing)
    if tier is not None:
        _ruled_out(ledger, tier, facts if facts is not None else inputs.facts)
    return tier


def _ruled_out(ledger: Ledger, tier: Tier, facts: dict) -> None:
    """Warn of each choice the tier's advice recommends that a property of its rules out under
    the plan's facts: the 4-8 GPU tier's DDP for a model whose full copy does not fit one GPU
    (:func:`recipekg.reason.properties.checks`, as recommend excludes it). A choice ruled
    out by a constraint that another choice of the same advice fits is the alternative the user
    did not take ("LoRA/QLoRA" for a LoRA run), not a warning."""
    from recipekg.reason.properties import CONTRADICTS, FITS, checks, properties_of

    snap, seen = ledger.kb.snap, set()
    for advice in tier["advice"]:
        found = []
        for iri in snap["rules"][advice["rule"]]["recommends"]:
            node = snap["nodes"].get(iri, {})
            if node.get("kinds"):
                found.append((iri, node, checks(iri, node["kinds"][0], facts, snap)))
        fitting = {c["dimension"] for _, _, cs in found for c in cs if c["verdict"] == FITS and not c["of_kind"]}
        for iri, node, cs in found:
            ruled = {c["property"]["id"] for c in cs if c["verdict"] == CONTRADICTS and c["dimension"] not in fitting}
            props = [snap["choice_properties"][p] for p, _ in properties_of(iri, snap)
                     if snap["choice_properties"].get(p, {}).get("id") in ruled]
            if props and iri not in seen:
                seen.add(iri)
                ledger.note(f"the tier's advice names {node['label']}, which this run rules out: {props[0]['text']}",
                            props[0], warn=True)


def _find_tier(ledger: Ledger, inputs: Inputs, params: Q, timing: Timing) -> Tier | None:
    snap = ledger.kb.snap
    if not snap["tiers"]:
        return None
    facts = {k: v for k, v in inputs.facts.items() if k != "tier"}
    given_tier = inputs.facts.get("tier")
    if given_tier is not None and given_tier.derived is None and given_tier.values and len(given_tier.values) == 1:
        iri = next(iter(given_tier.values))
        return _tier_json(ledger, params, iri, True, "given in the query", "tier given in the query")
    budget = "time" in facts and _budget_end(facts["time"])  # time < 1 week: what the user has is its end
    if budget:
        facts["time"] = point_facts("time", "duration", budget)
    if "time" not in facts and timing.wall is not None:
        facts["time"] = point_facts("time", "duration", timing.wall)
    if "gpus" not in facts and timing.gpus_needed is not None:
        facts["gpus"] = point_facts("gpus", "count", timing.gpus_needed)
    situation = None
    if "gpus" in facts and "time" in facts and facts["gpus"].intervals and facts["time"].intervals \
            and len(facts["gpus"].intervals) == len(facts["time"].intervals) == 1:
        gpus_q, time_q = facts_q(facts["gpus"]), facts_q(facts["time"])
        situation = f"{show(gpus_q, 'GPUs')} for {'up to ' * bool(budget)}{show(time_q, 'hours')}"
        partly = None  # a larger tier the range reaches into at one end (21.8 days to 2.5 months: months)
        for iri, tier in sorted(snap["tiers"].items(), key=lambda t: -_reach(snap, t[0])):
            statuses = [status(snap["conditions"][c], facts, snap) for c in tier["conditions"]]
            if all(s == HELD for s in statuses):
                out = _tier_json(ledger, params, iri, True, "gpus and time", f"{situation}: the flowchart's tier")
                if partly is not None:
                    out["text"] += f"; at the range's long end, '{snap['nodes'][partly]['label']}'"
                return out
            if partly is None and FAILED not in statuses:
                partly = iri
        held = "gpus" if "gpus" in inputs.constraints else "time" if "time" in inputs.constraints else None
        if held is not None:  # what the user has decides the tier: the nearest one that holds it
            return _tier_of_what_you_have(ledger, params, held, gpus_q, time_q, situation,
                                          given="time" in inputs.constraints)
    if timing.gpu_hours is None:
        return None
    return _tier_by_compute(ledger, params, timing, situation)


def _budget_end(f: Facts) -> Q | None:
    """The end of an upper bound, as what the user has: ``time < 1 week`` is a week to spend,
    not any time from none to a week (plan takes no other bound on the time or the GPUs);
    None for a value or a range.

    >>> _budget_end(Facts("time", "duration", intervals=[(-math.inf, False, 168.0, False)])).value
    168.0
    >>> _budget_end(Facts("time", "duration", intervals=[(24.0, True, 24.0, True)])) is None
    True
    """
    if len(f.intervals) != 1:
        return None
    low, _, high, _ = f.intervals[0]
    return Q.point(high) if not math.isfinite(low) and math.isfinite(high) else None


def _distance(q: Q, box: Interval) -> float:
    """How far a value lies outside an interval, as a log ratio (0 inside)."""
    low, _, high, _ = box
    v = max(q.value, 1e-12)
    if low > 0 and v < low:
        return math.log(low / v)
    if math.isfinite(high) and v > high:
        return math.log(v / max(high, 1e-12))
    return 0.0


def _tier_of_what_you_have(ledger: Ledger, params: Q, held: str, gpus: Q, time: Q, situation: str,
                           given: bool = False) -> Tier:
    """The tier the user's GPUs (or time budget) fall in, whichever of its other range is
    nearest the plan's time (or GPUs); never a tier of more GPUs than the user has. ``given``:
    the time is the user's (a budget), not the plan's."""
    snap = ledger.kb.snap
    other = "time" if held == "gpus" else "gpus"
    mine, theirs = (gpus, time) if held == "gpus" else (time, gpus)
    ranked = sorted(snap["tiers"], key=lambda i: (_distance(mine, _range(snap, i, held)),
                                                  _distance(theirs, _range(snap, i, other)), -_reach(snap, i)))
    iri = ranked[0]
    inside = _distance(mine, _range(snap, iri, held)) == 0
    what = f"your {show(gpus, 'GPUs')}" if held == "gpus" else f"your time budget of {show(time, 'hours')}"
    one = held != "gpus" or gpus.value == 1  # "your 1 GPU falls in", "your 8 GPUs fall in"
    verb = ("falls in" if inside else "is nearest to") if one else ("fall in" if inside else "are nearest to")
    out = _tier_json(ledger, params, iri, False, held, f"{situation} matches no tier of the flowchart; {what} {verb} the tier")
    within = _distance(time, _range(snap, iri, "time")) == 0  # (the budget inside the tier's times, or not)
    out["text"] += (f" (your time budget of {show(time, 'hours')} is {'within' if within else 'outside'} its times)"
                    if held == "gpus" and given else
                    f" (the run needs {show(time, 'hours')} on {'it' if one else 'them'})" if held == "gpus" else
                    f" (the run needs {show(gpus, 'GPUs')} for it)")
    return out


def _tier_by_compute(ledger: Ledger, params: Q, timing: Timing, situation: str | None) -> Tier:
    """The tier whose GPUs × time can hold the plan's GPU-hours (the largest), or the nearest."""
    kb, gh = ledger.kb, timing.gpu_hours
    fitting, distance = [], []
    for iri in kb.snap["tiers"]:
        (g0, g0_in, g1, g1_in), (t0, t0_in, t1, t1_in) = _range(kb.snap, iri, "gpus"), _range(kb.snap, iri, "time")
        # the GPU-hours the tier can hold: products of its ends, included when both factors are
        low, low_in, high, high_in = g0 * t0, g0_in and t0_in, g1 * t1, g1_in and t1_in
        above = gh.value > low or (gh.value == low and low_in)
        below = gh.value < high or (gh.value == high and high_in)
        if above and below:
            fitting.append(iri)
        gap = math.log(low / gh.value) if not above else math.log(gh.value / high) if not below else 0
        distance.append((gap, -_reach(kb.snap, iri), iri))
    exact = bool(fitting)
    iri = max(fitting, key=lambda i: _reach(kb.snap, i)) if fitting else min(distance)[2]
    (g0, _, _, _), (_, _, t1, t1_in) = _range(kb.snap, iri, "gpus"), _range(kb.snap, iri, "time")
    g = g0
    if math.isfinite(t1):  # enough GPUs to finish within the tier's time (before it, if excluded)
        g = max(g0, math.ceil(gh.value / t1) if t1_in else math.floor(gh.value / t1) + 1)
    example = f"{units.grouped(g)} GPUs for {units.duration(gh.value / g)}"
    before = (f"{situation} matches no tier of the flowchart; " if situation else "")
    hw = kb.label(timing.hardware) if timing.hardware else "your GPU"
    text = (f"{before}by its compute ({show(gh, 'GPU-hours')} on {hw}) it is a job for the tier" if exact else
            f"{before}its compute ({show(gh, 'GPU-hours')} on {hw}) falls between the flowchart's tiers; nearest:")
    out = _tier_json(ledger, params, iri, exact, "compute", text)
    out["example"] = {"gpus": g, "hours": rounded(gh.value / g), "text": example}
    out["text"] += f" (for example {example})"
    return out


def _range(snap: dict, iri: str, dim: str) -> Interval:
    """A tier's range on gpus or time, ``(low, low_inclusive, high, high_inclusive)``, from its
    conditions (:func:`recipekg.reason.conditions.bounds`; unbounded: from 0 included, to inf)."""
    box: Interval | None = (0.0, True, math.inf, False)
    for c in snap["tiers"][iri]["conditions"]:
        cond = snap["conditions"][c]
        if cond["dimension"] == dim and box is not None:
            box = intersect(box, bounds(cond))
    return box if box is not None else (0.0, True, math.inf, False)  # contradictory: as if unbounded


def _reach(snap: dict, iri: str) -> float:
    return _range(snap, iri, "gpus")[0] * _range(snap, iri, "time")[0] + _range(snap, iri, "gpus")[0]


def _tier_json(ledger: Ledger, params: Q, iri: str, exact: bool, basis: str, text: str) -> Tier:
    """The tier with the advice of its rules; notes where the plan's size is off the tier's."""
    kb = ledger.kb
    node = kb.snap["nodes"][iri]
    advice = _advice(kb, iri, params)
    for c in kb.constants_for(iri):
        if c["quantity"] == "max-params-from-scratch" and params.low > c["value"]:
            ledger.note(f"{kb.voice(c, 'the flowchart')} puts pretraining of up to {units.count(c['value'])} parameters in the tier "
                        f"'{node['label']}'; {show(params, 'parameters', ledger.given('params'))} is above that", c, warn=True,
                        only=PRETRAINING)
        elif c["quantity"] == "min-params-from-scratch" and params.high < c["value"]:
            ledger.note(f"the tier '{node['label']}' is {kb.voice(c, 'the flowchart')}'s budget for {units.count(c['value'])}+ "
                        f"models; {show(params, 'parameters', ledger.given('params'))} is smaller", c, only=PRETRAINING)
    return {"id": node["id"], "label": node["label"], "iri": iri, "exact": exact, "basis": basis,
            "text": f"{text} '{node['label']}'",
            "section": advice[0]["section"] if advice else None, "advice": advice}


def _advice(kb: KBView, iri: str, params: Q | None = None) -> list[HardwareRule]:
    """The rules that fire for this tier and the plan's model size (``params``: a rule for a
    size the plan's is not, "up to 3B from scratch" for 7B, does not), on those alone (a rule
    that also needs a pretrained model is not the tier's advice), strongest first."""
    snap = kb.snap
    tier_facts = {"tier": Facts("tier", "categorical", values={iri})}
    if params is not None and math.isfinite(params.high) and params.low > 0:
        tier_facts["params"] = Facts("params", "count", intervals=[(params.low, True, params.high, True)])
    advice: list[HardwareRule] = []
    for rid in snap["rule_index"]["by_dimension"].get("tier", ()):
        rule = snap["rules"][rid]
        if any(snap["conditions"][c]["dimension"] not in tier_facts for c in rule["conditions"]):
            continue  # (a rule that also reads what the tier and size do not say, pretrained, is not the tier's)
        ev = evaluate_rule(rule, tier_facts, snap)
        if ev["fires"]:
            advice.append({**reason_json(rid, rule, ev, snap),
                           "recommends": [kb.node_id(x) for x in rule["recommends"]],
                           "advises_against": [kb.node_id(x) for x in rule["against"]]})
    advice.sort(key=lambda r: (-r["contribution"], r["id"]))
    return advice
