"""``plan [where ...]``: size a training run from the KB's formulas and constants.

    >>> a = plan(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> [q["name"] for q in a["quantities"]][:4]
    ['params', 'tokens', 'flops', 'tokens_per_param']
    >>> a["fit"]["verdict"], a["tier"]["id"]
    ('fits', 'multi-gpu-week')

Every number comes from the KB: formulas are looked up by their output and the names they
read (``rkg:expression``), constants by symbol, hardware figures by property, table rows
from the ``rkg:ComputeEstimate`` facts. The only numbers in the code are unit conversions
(3600 s/h, 8 bits/byte) and the definition of a relative change (``x × (1 + change)``, the
unit of the KB's technique effects). Each quantity carries its formula (id and expression),
the papers behind the formula and its constants, the section of the reference, and a
derivation with the numbers plugged in. Ranges (the KB's low/high constants) flow through as
``low``/``high``; ``value`` is the point estimate (the midpoint where the KB gives only a
range).

The steps, in order, each a module of this package; each records its quantities and notes
in the plan's :class:`~recipekg.plan.ledger.Ledger` and returns what later steps need:

1. :mod:`~recipekg.plan.inputs`: the statement's values, checked; :mod:`~recipekg.plan.methods`:
   the method (pretrain, full-fine-tune, lora, qlora, inference) and offload; without a size
   (and without GPUs and a time to plan backwards from), :mod:`~recipekg.plan.capacity` takes
   the largest model the memory holds (backwards by memory);
2. :mod:`~recipekg.plan.sizing`: the strategy (or the ``tokens-per-param`` given);
   :mod:`~recipekg.plan.backwards`: with only GPUs, a time and a peak, the compute they give
   at the MFU; then params, tokens and FLOPs (one or two given, the rest by the strategy's
   ratio) → :class:`~recipekg.plan.sizing.Sizes`;
3. :mod:`~recipekg.plan.data`: epochs and effective tokens of repeated data;
   :mod:`~recipekg.plan.beyond`: the inference-optimal model (``inference-tokens``) and the
   learning rate and batch size of a pretraining run, from the KB's fitted laws;
4. :mod:`~recipekg.plan.memory`: training memory and its breakdown → ``Memory``;
5. :mod:`~recipekg.plan.fit`: fit on the GPUs, replicated and FSDP-sharded → ``Fit``, then the
   method's layout search (:mod:`~recipekg.plan.layout`); :mod:`~recipekg.plan.remedies`: what
   would make it fit, from the detailed model;
   :mod:`~recipekg.plan.savings`: what each memory saving brings when it does not fit;
   the hardware's model-size rules;
6. :mod:`~recipekg.plan.timing`: MFU, GPU-hours, wall time, GPUs for a time budget → ``Timing``;
7. :mod:`~recipekg.plan.tier`: the compute tier and its advice;
8. :mod:`~recipekg.plan.bandwidth`: the ridge point and the bandwidth-bound verdict;
9. :mod:`~recipekg.plan.summary`: the answer's first lines.
"""

from __future__ import annotations

import math

from recipekg.plan.bandwidth import bandwidth
from recipekg.formula.expr import Q
from recipekg.plan.beyond import beyond
from recipekg.plan.data import repetition
from recipekg.plan.energy import energy_and_cost
from recipekg.plan.figures import rounded, show
from recipekg.plan.finetune import (ask_tokens, from_examples, method_flops, needs_tokens, outside_laws, serving_unused,
                                    unsized, untimed)
from recipekg.plan.fit import check_fit, feasibility
from recipekg.plan.inputs import USED, Inputs, read_inputs
from recipekg.plan.kbview import KBView
from recipekg.plan.ledger import Ledger
from recipekg.plan.memory import training_memory
from recipekg.plan.methods import read_method
from recipekg.plan.quantities import FIXED  # noqa: F401  (the contract's fixed names, also read from here)
from recipekg.plan.layout import search_layout
from recipekg.plan.sizing import beyond_laws, choose_strategy, follow_ratio, size, strategies_outside
from recipekg.plan.summary import Findings, summary
from recipekg.plan.tier import compute_tier
from recipekg.plan.placements import placement_facts
from recipekg.plan.timing import Timing, batch_cap, train_time
from recipekg.query.ast import Plan
from recipekg.reason.answers import constraints_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.plan import Feasibility, LargestModel, PlanBody, Remedy


_FIRST = ("params", "tokens", "flops")   # the quantities listed first, in this order


def plan(stmt: Plan, snap: dict) -> PlanBody:
    """The answer to a ``plan`` statement (the JSON the spec describes, plus more fields)."""
    return planned(stmt, snap)[0]


def planned(stmt: Plan, snap: dict) -> tuple[PlanBody, list[str]]:
    """The answer to a ``plan`` statement and the dimensions of the statement plan does not
    read (what its note "not used by plan" names: a recipe lists those no part of it used).

    >>> planned(parse("plan where params = 7B and horizon = long")[0], snap)[1]
    ['horizon']
    """
    kb = KBView.of(snap)
    inputs = read_inputs(stmt, snap)
    ledger = Ledger(kb, stmt.pos)
    method = read_method(ledger, inputs)
    ledger.method = method.id
    beyond_why = _laws_outside(ledger, inputs, method.id)
    if needs_tokens(method.id, inputs):
        inputs = from_examples(ledger, inputs)   # (a fine-tune's examples × its sequence length: a bound)
    inputs, largest = _sized_by_memory(ledger, inputs, method.id)
    strategy = choose_strategy(kb, inputs.facts, inputs.tokens_per_param)
    ask = needs_tokens(method.id, inputs) or bool(beyond_why and not inputs.tokens and not inputs.flops)
    serves = method.id == "inference" and inputs.params is not None
    back = None
    if inputs.backwards and not ask and not serves:  # the steps only some plans take are imported when taken
        from recipekg.plan.backwards import plan_backwards

        back = plan_backwards(ledger, inputs, strategy)
    if serves:
        serving_unused(ledger, inputs)
    if ask or serves:
        sizes = unsized(ledger, inputs, missing=not serves)
    else:
        sizes = size(ledger, inputs, strategy, back.flops if back else None)
        strategy = follow_ratio(ledger, strategy, sizes)
        repetition(ledger, inputs, sizes)
        beyond(ledger, inputs, sizes, method.id)
    if beyond_why:
        strategy = beyond_laws(strategy, beyond_why)
    memory = training_memory(ledger, inputs, sizes.params)
    placed = inputs if ask or serves or back else _on_budget_gpus(ledger, inputs, sizes)
    fit = check_fit(ledger, placed, sizes.params, memory, method)
    if fit is None and not method.trains_all:
        search_layout(ledger, placed, sizes.params, method)
    if not (ask or serves):
        sizes = method_flops(ledger, inputs, sizes, method.id)   # the method's own count, once the adapters are
    recommendations = _recommendations(ledger, placed, sizes, memory, fit, method)
    rules = feasibility(kb, inputs, sizes.params)
    if serves:
        timing = Timing(inputs.hardware)
    else:
        timing = _timed(ledger, inputs, sizes, ask, back)
        timing = batch_cap(ledger, (fit.json.get("layout") if fit is not None else None), timing)
        energy_and_cost(ledger, inputs, timing)
        _recomputation_note(ledger, fit, timing)
    tier = None if method.id == "inference" else compute_tier(
        ledger, inputs, sizes.params, timing, placement_facts(inputs.facts, fit.json if fit else None, inputs.gpu_memory))
    bw = bandwidth(ledger, inputs.hardware)
    unused = inputs.unused()
    if unused:
        ledger.note("not used by plan: " + ", ".join(unused))
    ledger.close()
    first = {n: i for i, n in enumerate(_FIRST)}
    ledger.quantities.sort(key=lambda q: first.get(q["name"], len(first)))
    asked = [ask_tokens(method.id, beyond_why, "samples" in inputs.facts)] if ask else []
    found = Findings(strategy, fit, recommendations, rules, timing, tier, method.id,
                     ask_text=asked[0]["text"] if asked else "")
    return {
        "statement": "plan", "query": stmt.text.strip(),
        # a derived tier has its own section; what plan does not read (the rankings' memory shares) is not its constraint
        "constraints": [c for c in constraints_json(inputs.facts)
                        if not (c.get("derived_from") and (c["dimension"] == "tier" or c["dimension"] not in USED))],
        "summary": (["backwards by memory (no size given): the largest model for each method — "
                     + "; ".join(x["text"] for x in largest)] if largest else []) + summary(ledger, inputs, found),
        "strategy": strategy.json, "backwards": timing.backwards,
        "hardware": kb.hardware_json(inputs.hardware),
        "quantities": ledger.quantities,
        "method": method.id, "largest_models": largest,
        "fit": fit.json if fit else None, "recommendations": recommendations,
        "feasibility": _feasibility(ledger, inputs, rules, timing),
        "ask": asked,
        "tier": tier, "bandwidth": bw,
        "notes": ledger.notes, "warnings": ledger.warnings,
    }, unused


def _timed(ledger: Ledger, inputs: Inputs, sizes, ask: bool, back) -> Timing:
    """The time: none while the tokens are asked for; planning backwards, the budget's (and the
    attention's FLOPs at the size it trains, what its model FLOPs left them); else the run's."""
    if ask:
        return untimed(ledger, inputs.hardware)
    if back is None:
        return train_time(ledger, inputs, sizes)
    if back.timing.gpu_hours is not None:
        from recipekg.plan.attention import attention_flops

        attention_flops(ledger, inputs, sizes)
    return back.timing


def _reach(ledger: Ledger, more: Q) -> str:
    """``: N GPUs would meet it``, or that they are more than one batch spreads over."""
    cap = ledger.values.get("gpus_batch_cap")
    if cap is not None and more.low > cap.high:
        return (f": out of reach as planned, the {show(more, 'GPUs')} it would take being more than the "
                f"{show(cap, 'GPUs')} one batch spreads over (gpus_batch_cap)")
    return f": {show(more, 'GPUs')} would meet it"


def _recomputation_note(ledger: Ledger, fit, timing) -> None:
    """When the layout that fits recomputes every layer, what that does to the time: the
    GPU-hours count the model's training FLOPs, and full recomputation runs each layer's
    forward pass again (Chen et al.'s extra running time, ``c_grad_ckpt_compute_change``)."""
    layout = (fit.json.get("layout") or {}) if fit is not None else {}
    if layout.get("recompute") != "full" or timing.gpu_hours is None:
        return
    c = ledger.kb.constant("c_grad_ckpt_compute_change")
    ledger.note(f"the layout that fits recomputes every layer in the backward pass: about {c['value']:.0%} more "
                f"compute than the model's training FLOPs the time counts, so at the same utilisation of the "
                f"GPUs expect the run toward the long end of its range", c)


def _recommendations(ledger: Ledger, inputs, sizes, memory, fit, method) -> list[Remedy]:
    """What would make the run fit: from the verdict's own model when a layout was searched."""
    if fit is not None and "leanest_layout" in fit.json:
        from recipekg.plan.remedies import remedies

        return remedies(ledger, inputs, sizes.params, method, fit.json)
    if method.trains_all and not method.offload and not (fit and fit.json.get("fits")):
        from recipekg.plan.savings import recommend  # no layout searched: the rule of thumb's savings

        return recommend(ledger, inputs, sizes.params, memory, fit)
    return []


def _on_budget_gpus(ledger: Ledger, inputs: Inputs, sizes) -> Inputs:
    """The inputs the fit is checked on: with a time budget and no GPU count, the fewest GPUs
    the budget needs (the low end of the range the time step computes, found here on a ledger
    of its own: the answer records it once, in its place), not one GPU; the inputs as given
    otherwise."""
    if inputs.gpus is not None or inputs.time_budget is None:
        return inputs
    probe = train_time(Ledger(ledger.kb, ledger.where), inputs, sizes)
    if probe.gpus_needed is None or not math.isfinite(probe.gpus_needed.low) or probe.gpus_needed.low < 2:
        return inputs
    fewest = Q.point(probe.gpus_needed.low)
    ledger.note(f"no gpus given: the fit is checked on {show(fewest, 'GPUs')}, the fewest the "
                f"{show(inputs.time_budget, 'hours')} budget needs (the time step's range: the MFU's)")
    return inputs.with_gpus(fewest)


def _feasibility(ledger: Ledger, inputs, rules: list, timing) -> Feasibility:
    """The answer's ``feasibility``: the hardware's rules on model size, and the time budget
    (whether the plan keeps to it, and ``gpus_for_time``: the GPUs that would)."""
    budget = inputs.time_budget
    more = timing.gpus_for_time
    if more is not None and not math.isfinite(more.high):
        more = None                    # no count of GPUs meets it (the arithmetic gives out)
    out: Feasibility = {"rules": rules, "time_budget": rounded(budget.value) if budget else None,
           "meets_time_budget": timing.budget_met, "gpus_for_time": int(more.high) if more is not None else None,
           "text": None}
    if timing.mfu_for_time is not None:
        out["mfu_for_time"] = rounded(timing.mfu_for_time.high)
    if budget is not None and timing.wall is not None and timing.backwards:
        out["text"] = (f"the compute is planned backwards from the budget: the run takes all of its "
                       f"{show(budget, 'hours')} on {show(inputs.gpus or Q.point(1), 'GPUs')}")
    elif budget is not None and timing.gpus_needed is not None and inputs.gpus is None:
        out["text"] = (f"{show(timing.gpus_needed, 'GPUs')} keep to the {show(budget, 'hours')} budget "
                       f"(no gpus given: the count is the budget's, at the MFU range)")
    elif budget is not None and timing.wall is not None:
        gpus = inputs.gpus or Q.point(1)
        out["text"] = (f"{show(timing.wall, 'hours')} on {show(gpus, 'GPUs')} "
                       + ("keeps to" if timing.budget_met else "may miss" if timing.mfu_for_time else "misses")
                       + f" the {show(budget, 'hours')} budget"
                       + (f" (met from an MFU of {timing.mfu_for_time.high:.2f})" if timing.mfu_for_time else "")
                       + (f": the whole budget would train {show(timing.budget_tokens, 'tokens')} at the same MFU"
                          if timing.budget_tokens else "")
                       + (_reach(ledger, more) if more is not None and not timing.budget_met else ""))
    return out


def _laws_outside(ledger: Ledger, inputs, mid: str) -> str | None:
    """Why no sizing law is for a pretraining run's data (the properties ruling out every
    strategy: :func:`~recipekg.plan.sizing.strategies_outside`), or None; with no size to
    plan from either (no params, nor both tokens and FLOPs), nothing to plan."""
    dims = ledger.kb.snap["dimensions"]
    problem = any(dims.get(n, {}).get("problem_fact") for n, f in inputs.facts.items() if not f.derived)
    # (what a law was fitted on is a fact of the problem, the data: without one given, nothing to check)
    outside = strategies_outside(ledger.kb, inputs.facts) if mid == "pretrain" and problem else []
    why = outside_laws(outside, inputs.facts, ledger.kb.snap) if outside else None
    if why and inputs.params is None and not (inputs.tokens and inputs.flops):
        _unsizable(ledger, why)
    return why


def _sized_by_memory(ledger: Ledger, inputs, mid: str):
    """``(inputs, largest_models)``: tokens, FLOPs and a compute budget size a model to
    pretrain; a fine-tune or a serving plan without a size takes the largest model its memory
    holds (:func:`_by_memory`); ``largest_models`` is None when a size was given or planned."""
    if inputs.params or (mid == "pretrain" and (inputs.tokens or inputs.flops or inputs.backwards
                                                or (inputs.unique_tokens and inputs.epochs))):
        return inputs, None
    return _by_memory(ledger, inputs, mid)


def _unsizable(ledger: Ledger, why: str) -> None:
    """No size given, and no sizing law for the query's data: nothing plan can size from."""
    _nothing_to_plan(ledger, f"nothing to size the model from: {why}; give its size and the tokens it reads "
                             f"(params = 86M and tokens = 70B: examples × tokens per example × epochs), and plan "
                             f"counts its memory and time", ["params = 86M and tokens = 70B"])


def _nothing_to_plan(ledger: Ledger, why: str, expected: list[str]) -> None:
    """Raise :class:`~recipekg.errors.NothingToPlan` at the statement (when the ledger knows where)."""
    from recipekg.errors import NothingToPlan

    raise (NothingToPlan.at(ledger.where, why, expected=expected) if ledger.where is not None
           else NothingToPlan(why, expected=expected))


def _by_memory(ledger: Ledger, inputs, mid: str):
    """No size given, but a memory limit: plan the largest model that fits for the method, and
    say how large each method could go."""
    from recipekg.plan.figures import qjson, show
    from recipekg.plan.capacity import largest_models

    if inputs.gpu_memory is None:  # tokens or FLOPs alone size a model to pretrain, not this one
        _nothing_to_plan(ledger, f"nothing to size the model of method = {mid} from: tokens, FLOPs and a compute "
                                 f"budget size a model to pretrain; give the model, or the memory to fit in (the "
                                 f"largest model that fits)", ["params = 7B", "model = llama-2-7b", "hardware = h100"])
    found = largest_models(ledger, inputs)
    mine = next((x for x in found if x["method"] == mid), None)
    if mine is None:
        ledger.out_of_scale(f"too small a memory to plan with: not even a {show(Q.point(1e6), 'parameters')} "
                            f"model fits for method = {mid}")
    how = (f"the largest model that fits the memory for method = {mid} (no size given): "
           + "; ".join(x["text"] for x in found))
    ledger.note(f"params not given: the plan is for the largest model the memory holds for method = {mid} "
                f"(the answer's largest_models gives every method's)")
    table: list[LargestModel] = [{"method": x["method"], "params": qjson(x["params"]),
                                  "memory_per_gpu": qjson(x["memory_per_gpu"]), "text": x["text"]} for x in found]
    return inputs.with_params(mine["params"], how), table
