"""Time: GPU-hours at an MFU (given, or the range published runs reached on the GPU, the
reference's own assumption included), the wall time on the plan's GPUs, and the GPUs a
``time`` budget needs.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.sizing import choose_strategy, size
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 1B and hardware = a100 and time = 3 days")[0], snap)
    >>> t = train_time(ledger, inputs, size(ledger, inputs, choose_strategy(ledger.kb, inputs.facts)))
    >>> ledger.kb.node_id(t.hardware), f"{t.mfu.value:.3f}", show(t.gpu_hours, "GPU-hours"), show(t.gpus_needed)
    ('a100', '0.358', '219–449 GPU-hours', '4–7')

Without a bf16 peak for the hardware (the reference leaves DGX Spark's open) there is no
time: GPU-hours and wall time are recorded as missing, with the reason.
"""

from __future__ import annotations

import math

from recipekg.formula.expr import Q, const_q, solve
from recipekg.knowledge.terms import FACT
from recipekg.plan.figures import rounded, round_up, show
from recipekg.plan.inputs import Inputs
from recipekg.plan.kbview import KBFormula, const_json
from recipekg.plan.ledger import Ledger
from recipekg.plan.sizing import Sizes
from recipekg.record import Record
from recipekg.render import numbers as units

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.plan import Backwards, Layout, QuantityMore


class Timing(Record):
    """The hardware time is computed for (given, or the reference table's), and what was
    computed on it (None when it could not be); ``backwards``: how planning backwards found
    the compute (None when plan sized forwards)."""

    hardware: str | None
    mfu: Q | None = None
    gpu_hours: Q | None = None
    wall: Q | None = None
    gpus_needed: Q | None = None
    backwards: Backwards | None = None
    gpus_for_time: Q | None = None     # GPUs that would meet a time budget the plan's GPUs miss
    budget_met: bool | None = None     # whether the wall time keeps to the time budget (None: no budget)
    mfu_for_time: Q | None = None      # the MFU from which a budget the MFU range straddles is met
    budget_tokens: Q | None = None     # the tokens a time budget the run uses less than half of would train
    past_batch: str | None = None      # the plan's GPUs are more than its batch spreads over: the batch they take


class Peak(Record):
    """The per-GPU peak time is computed on: FLOP/s (None: the KB has none), the name the
    GPU-hours formula reads it by, that formula, and which peak it is."""

    value: float | None
    name: str
    formula: KBFormula
    precision: str          # "bf16", "fp16", "fp8" or "given"


class Setup(Record):
    """What time is computed with: the hardware, the reference's GPU-hours rows, the peak,
    the MFU (recorded in the ledger; None when there is none) and the wall-time formula."""

    hardware: str | None
    rows: list
    peak: Peak
    mfu: Q | None
    wall_f: KBFormula


def time_setup(ledger: Ledger, inputs: Inputs, params: Q | None = None) -> Setup:
    """The hardware, peak and MFU time is computed with (the MFU of runs near ``params`` in
    size; of every size when planning backwards, before the size is known), and the notes."""
    kb = ledger.kb
    rows = sorted((f for f in kb.facts_of_type("ComputeEstimate")
                   if f.get("gpu_hours") and f.get("flops")
                   and kb.peak(f.get("hardware"))), key=lambda f: (f["params"], f["id"]))
    table_hw = rows[0]["hardware"] if rows else None
    hw = inputs.hardware or (None if inputs.peak_flops else table_hw)
    peak = _peak(kb, inputs, hw)
    mfu = _mfu(ledger, inputs, hw, rows, peak, params)
    if mfu is not None and peak.precision == "fp8":
        ledger.entry("mfu")["unit"] = "fraction of fp8 peak"
        if inputs.mfu is None:
            mfu = _fp8_span(ledger, kb.peak(hw) / peak.value, mfu)
    if mfu is not None and inputs.mfu is None and inputs.method is not None:
        mfu = _slowed(ledger, inputs.method, mfu)
    if hw is not None and inputs.hardware is None:
        ledger.note(f"no hardware given: time is for {kb.label(hw)}, the hardware of the reference's table")
    _say_peak(ledger, inputs, hw, peak)
    return Setup(hw, rows, peak, mfu, kb.formula("wall_time", "gpu_hours", "gpus"))


def _fp8_span(ledger: Ledger, ratio: float, mfu: Q) -> Q:
    """An fp8 plan's MFU as a fraction of the fp8 peak, from published MFUs measured in bf16
    (``ratio``: the bf16 peak over the fp8 peak): from no gain at all, their low end and median
    against the bf16 peak, to the whole fp8 peak at their high end. No published run the KB
    holds measures what fp8 gains end to end, so the range spans both."""
    span = Q.span(mfu.low * ratio, mfu.high, mfu.value * ratio)
    entry = ledger.entry("mfu")
    if entry is not None:
        entry["value"], entry["low"], entry["high"] = rounded(span.value), rounded(span.low), rounded(span.high)
        entry["derivation"] += (f"; as a fraction of the fp8 peak: {span.low:.3f}–{span.high:.3f} "
                                f"(median {span.value:.3f}): the low end and the median are the published "
                                f"ones times the bf16 peak over the fp8 peak ({ratio:.3g}), no gain from fp8, "
                                f"the high end the published one against the fp8 peak, the whole gain")
    ledger.values["mfu"] = span
    return span


def _slowed(ledger: Ledger, method: str, mfu: Q) -> Q:
    """The MFU of a run whose method does work its model FLOPs do not count (QLoRA dequantizes
    its 4-bit base before every product): the published runs' MFU divided by the method's
    training-time factor (a constant of quantity ``training-time-factor`` on the method,
    ``const:qlora-time-over-lora``), its low end by the factor's high end; a method without
    one keeps the MFU. An mfu the user gives is the run's own and is never divided."""
    kb = ledger.kb
    factor = next(iter(kb.constants_for(method, "training-time-factor")), None)
    if factor is None:
        return mfu
    f = const_q(factor)
    span = Q.span(mfu.low / f.high, mfu.high / f.low, mfu.value / f.value)
    by = f"{factor['label']} ({f.low:g}–{f.high:g}×, {f.value:g}× as a typical figure)"
    entry = ledger.entry("mfu")
    if entry is not None:
        entry["value"], entry["low"], entry["high"] = rounded(span.value), rounded(span.low), rounded(span.high)
        entry["label"] += f", divided by {factor['label']}"
        entry["derivation"] += (f"; for {kb.label(method)}, divided by {by}, the low end by the high one: "
                                f"{span.low:.3f}–{span.high:.3f} (median {span.value:.3f})")
        entry["constants"] = [*(entry.get("constants") or ()), const_json(factor)]
        entry["sources"] = kb.sources({"sources": entry["sources"]}, factor)
    ledger.note(f"method = {ledger.method or kb.label(method)}: time divides the MFU of published runs by {by}", factor)
    ledger.values["mfu"] = span
    return span


def _fp8(kb, inputs: Inputs) -> bool:
    return inputs.precision is not None and kb.node_id(inputs.precision) == "fp8"


def _peak(kb, inputs: Inputs, hw: str | None) -> Peak:
    """The peak given, else the hardware's fp8 peak for ``precision = fp8`` (when the KB has
    one), else its dense 16-bit peak."""
    bf16_f = kb.formula("gpu_hours", "flops", "mfu", "bf16_peak")
    if inputs.peak_flops:
        return Peak(inputs.peak_flops.value, "bf16_peak", bf16_f, "given")
    if _fp8(kb, inputs) and hw and kb.fp8_peak(hw) and kb.peak(hw):
        return Peak(kb.fp8_peak(hw), "fp8_peak", kb.formula("gpu_hours", "flops", "mfu", "fp8_peak"), "fp8")
    return Peak(kb.peak(hw) if hw else None, "bf16_peak", bf16_f, kb.peak_precision(hw) or "bf16")


def _runs(kb, hw: str) -> list[str]:
    """The precisions the hardware's tensor cores run, by id (the precision dimension's
    ``rkg:runsOn`` dimension, through its ``rkg:derivedVia``); none when the KB states none."""
    dims = kb.snap["dimensions"]
    on = dims.get(dims.get("precision", {}).get("runs_on") or "")
    via = on.get("derived_via") if on else None
    return sorted(kb.node_id(p) for p in kb.snap["hardware"].get(hw, {}).get(via) or ()) if via else []


def _say_peak(ledger: Ledger, inputs: Inputs, hw: str | None, peak: Peak) -> None:
    """Which peak time uses, and what follows from it."""
    kb, fp8 = ledger.kb, _fp8(ledger.kb, inputs)
    if peak.precision == "given":
        ledger.note(f"time uses the peak given ({units.amount(peak.value, unit='FLOP/s')})"
                    + (f" instead of {kb.label(hw)}'s figure" if hw and kb.peak(hw) else "")
                    + (" for precision = fp8" if fp8 else ""))
    elif peak.precision == "fp8":
        fact = kb.fact("published-mfu-measured-in-bf16")
        mfu_text = ("at the mfu given, a fraction of the fp8 peak" if inputs.mfu is not None else
                    "the published MFUs were measured in bf16 training, none in fp8, so the time spans no gain "
                    "from fp8 (their low end and median against the bf16 peak) to the whole fp8 peak at their "
                    "high end; give mfu (a fraction of the fp8 peak) to plan with an fp8 utilisation of your own")
        ledger.note(f"precision = fp8: time uses {kb.label(hw)}'s dense fp8 peak "
                    f"({units.amount(peak.value, unit='FLOP/s')}, {units.grouped(peak.value / kb.peak(hw), 2)}× "
                    f"its bf16 peak); {mfu_text}", kb.snap["nodes"][hw], *([fact] if fact and inputs.mfu is None else []))
    elif fp8 and peak.value is not None:
        runs = _runs(kb, hw)
        why = (f"{kb.label(hw)}'s tensor cores do not run fp8 (they run {', '.join(runs)}: the hardware's "
               f"supported precisions), so a run in fp8 is none it does" if runs and "fp8" not in runs else
               f"the KB has no fp8 peak for {kb.label(hw)} (its notes say why)")
        ledger.note(f"precision = fp8, but {why}: time uses its dense {peak.precision} peak, as for 16-bit "
                    f"training", kb.snap["nodes"][hw], warn=True)
    unrun = _unrun(kb, inputs, hw) if peak.value is not None and not fp8 else None
    if peak.value is not None and peak.precision == "fp16":
        why = kb.snap["choice_properties"].get(FACT + "bf16-needs-tensor-cores")
        ledger.note((f"precision = {unrun}, but " if unrun else "")
                    + f"{kb.label(hw)} has no bf16 tensor cores: time uses its dense fp16 peak (FP32 accumulation); "
                    f"mixed precision on it is fp16 with loss scaling, whose 16-bit values take the 2 bytes the "
                    f"memory counts for bf16", *([why] if why else []), *([kb.snap["nodes"][hw]] if unrun else []),
                    warn=bool(unrun))
    elif unrun:
        ledger.note(f"precision = {unrun}, but {kb.label(hw)} does not compute in {unrun} (it runs "
                    f"{', '.join(_runs(kb, hw))}: the hardware's supported precisions): time uses its dense "
                    f"{peak.precision} peak, whose 16-bit values take the same 2 bytes the memory counts",
                    kb.snap["nodes"][hw], warn=True)


def _unrun(kb, inputs: Inputs, hw: str | None) -> str | None:
    """The precision given when the hardware's tensor cores do not run it while another
    accelerator of the KB does (bf16 on a V100, fp16 on a TPU); None otherwise (a precision no
    hardware states, fp32, is run without tensor cores and not checked)."""
    given = kb.node_id(inputs.precision) if inputs.precision and hw else None
    runs = _runs(kb, hw) if given else []
    if not runs or given in runs:
        return None
    stated = {p for other in kb.snap["hardware"] for p in _runs(kb, other)}
    return given if given in stated else None


def train_time(ledger: Ledger, inputs: Inputs, sizes: Sizes) -> Timing:
    """Record MFU, GPU-hours, wall time and the GPUs needed for the time budget."""
    kb = ledger.kb
    setup = time_setup(ledger, inputs, _compared_size(ledger, inputs, sizes.params))
    hw, mfu, peak, wall_f = setup.hardware, setup.mfu, setup.peak, setup.wall_f
    if mfu is None or peak.value is None:
        _no_time(ledger, hw, peak.value, peak.formula, wall_f)
        return Timing(hw)
    gpu_f = peak.formula
    from recipekg.plan.attention import attention_flops

    attention = attention_flops(ledger, inputs, sizes)
    gpu_hours, env = ledger.compute(gpu_f, {"flops": sizes.flops, "attention_flops": attention, "mfu": mfu,
                                            peak.name: Q.point(peak.value)})
    extra: QuantityMore = {"hardware": kb.node_id(hw) if hw else None}
    row = sizes.table_row
    if row is not None and row.get("gpu_hours") and kb.peak(row.get("hardware")):
        on_row_hw, _ = ledger.compute(kb.formula("gpu_hours", "flops", "mfu", "bf16_peak"),
                                      {"flops": sizes.flops, "attention_flops": attention, "mfu": mfu,
                                       "bf16_peak": Q.point(kb.peak(row["hardware"]))})
        extra["table"] = {"fact": row["id"], "label": row["label"], "value": row["gpu_hours"],
                          "hardware": kb.node_id(row["hardware"]),
                          "formula_value_on_table_hardware": rounded(on_row_hw.value),
                          "section": kb.section(row), "sources": kb.sources(row)}
    ledger.add("gpu_hours", gpu_hours, formula=gpu_f, env=env,
               extra_sources=[kb.snap["nodes"][hw]] if hw else [], **extra)
    gpus = inputs.gpus or Q.point(1)
    wall, wenv = ledger.compute(wall_f, {"gpu_hours": gpu_hours, "gpus": gpus})
    ledger.add("wall_time", wall, formula=wall_f, env=wenv)
    need, more, met = _against_budget(ledger, inputs, gpu_hours, wall, wall_f)
    enough = _mfu_for_time(ledger, inputs, gpu_f, env, wall) if met is False else None
    slack = _slack(ledger, inputs, sizes, gpu_f, env, wall) if met and inputs.gpus is not None and _idle(inputs, wall) else None
    return Timing(hw, mfu, gpu_hours, wall, need, gpus_for_time=more, budget_met=met, mfu_for_time=enough,
                  budget_tokens=slack)


def _idle(inputs: Inputs, wall: Q) -> bool:
    """Whether the run leaves at least half its time budget idle: at every MFU of the range, or,
    for a run whose tokens a law chose (none given), at its highest (audit 13/14: 1B on 8 A100s
    for 3 days takes 23.7 h to 2.24 days; the days left would train more than the 20 tokens per
    parameter the law gives, which is what a user giving params, GPUs and time asks)."""
    chosen = inputs.tokens is None and inputs.flops is None
    return (wall.low if chosen else wall.high) * 2 <= inputs.time_budget.high


def _slack(ledger: Ledger, inputs: Inputs, sizes: Sizes, gpu_f: KBFormula, env: dict, wall: Q) -> Q | None:
    """A pretraining run that leaves half its time budget idle (:func:`_idle`): the tokens the whole budget
    would train at the same MFU (the GPU-hours formula solved for the FLOPs the GPUs x the
    budget give, then the FLOPs formula for the tokens at the plan's size), said beside the
    plan, since the reference's compute-optimal ratio is a minimum and training a small model
    longer is its standard practice (1B on 8 A100s for a week: 20B tokens take at most 2.24
    days; the week trains about 60-190B)."""
    kb, budget = ledger.kb, inputs.time_budget
    if ledger.method not in (None, "pretrain"):
        return None
    allowed = Q.point(budget.high * inputs.gpus.value)
    rest = {k: v for k, v in env.items() if not k.startswith("__") and k not in ("flops", "gpu_hours")}
    attention = rest.pop("attention_flops")
    # the model FLOPs the budget gives (the attention's as a share of them: both grow with the tokens)
    total = solve(gpu_f.parsed, "flops", {**rest, "attention_flops": Q.point(0.0), "gpu_hours": allowed})
    flops = total and total * Q.point(sizes.flops.value / (sizes.flops.value + attention.value))
    per_token = "active_params" if inputs.active_params is not None else "params"
    flops_f = kb.formula("flops", per_token, "tokens")
    size = inputs.active_params if inputs.active_params is not None else sizes.params
    tokens = solve(flops_f.parsed, "tokens", {**kb.constants_in(flops_f), per_token: size, "flops": flops}) \
        if flops is not None else None
    if tokens is None or not math.isfinite(tokens.high):
        return None
    over = kb.constant("c_inference_optimal_tokens_per_param")
    practice = (f", as the reference calls standard practice for a model that will be deployed (over-training, "
                f"{show(const_q(over), 'tokens/param')})" if over else "")
    ledger.note(f"the run takes {show(wall, 'hours')} of the {show(budget, 'hours')} budget: the whole "
                f"budget on {show(inputs.gpus, 'GPUs')} would train {show(tokens, 'tokens')} at the same MFU "
                f"({show(Q.span(tokens.low / sizes.params.value, tokens.high / sizes.params.value), 'tokens/param')}; "
                f"{gpu_f.data['expression']} and {flops_f.data['expression']}, solved for the FLOPs and the tokens"
                + (f", the attention's {attention.value / (sizes.flops.value + attention.value):.0%} of the model FLOPs "
                   f"kept" if attention.value else "") + "); "
                f"give tokens = {units.count(tokens.low)} (for example) to plan a longer run{practice}",
                gpu_f.data, flops_f.data, *([over] if over else []))
    return tokens


def _compared_size(ledger: Ledger, inputs: Inputs, params: Q | None) -> Q | None:
    """The size whose published runs a plan's MFU is taken from: the model's, or for a mixture of
    experts (``active-params`` given) every size from its active parameters, which each token's
    matrix products run, to its total, which its GPUs hold and exchange (QA round 6, F4: by its
    total alone, DeepSeek-V2's published 1.40M H800-hours fell above the range)."""
    active = inputs.active_params
    if active is None or params is None or active.high >= params.low:
        return params
    ledger.note(f"a mixture of experts: its MFU is taken from the published dense runs of {show(active)} (its active "
                f"parameters, which each token computes with) to {show(params)} (its total, which the GPUs hold and "
                f"exchange between experts); the KB has no published run of a mixture of experts, whose expert "
                f"all-to-all traffic can lower it further: give mfu = 25% (for example) to plan with your own", warn=True)
    return Q.span(active.low, params.high)


def _mfu_for_time(ledger: Ledger, inputs: Inputs, gpu_f: KBFormula, env: dict, wall: Q) -> Q | None:
    """For a wall time whose range straddles the time budget (met at the high MFUs, missed at
    the low), the MFU from which the GPUs given keep to it: the GPU-hours formula solved for
    the MFU with the GPU-hours the budget gives (GPUs x hours). A verdict over the range of
    published MFUs is no verdict; this is what decides it (8 H100s for a 3B model in 5 days:
    met from an MFU of 0.32, where Llama 3's steady MFU was 0.38-0.43)."""
    budget, gpus = inputs.time_budget, inputs.gpus or Q.point(1)
    if wall.low > budget.high or env.get("mfu") is None or not env["mfu"].is_range:
        return None  # missed at every MFU of the range (the GPUs say what would meet it), or one MFU given
    allowed = Q.point(budget.high * gpus.value)
    inputs_ = {k: v for k, v in env.items() if not k.startswith("__") and k not in ("mfu", "gpu_hours")}
    need = solve(gpu_f.parsed, "mfu", {**inputs_, "gpu_hours": allowed}, bracket=(1e-6, 1e3))
    if need is None or not math.isfinite(need.high):
        return None
    ledger.add("mfu_for_time", need, "fraction of fp8 peak" if gpu_f.parsed.names & {"fp8_peak"} else None,
               formula=gpu_f, label="MFU that would meet the time budget",
               derivation=f"{gpu_f.data['expression']}, solved for mfu with gpu_hours = {show(gpus, 'GPUs')} × "
                          f"{show(budget, 'hours')} = {show(allowed, 'GPU-hours')}: {show(need)} (the published "
                          f"runs' range is {show(env['mfu'])}: the budget is met from this MFU on)")
    return need


def _mfu(ledger: Ledger, inputs: Inputs, hw: str | None, rows: list[dict], peak: Peak, params: Q | None) -> Q | None:
    """The MFU to plan with: given, else the range of published runs near the plan's size on
    GPUs of ``hw``'s peak (:mod:`recipekg.plan.utilisation`, the reference's table's implied
    MFU beside it), else that implied MFU (None: no time on ``hw``)."""
    from recipekg.plan.utilisation import mfu_range, points

    kb = ledger.kb
    if hw is not None and not kb.peak(hw) and inputs.peak_flops is None:
        return None
    if inputs.mfu is not None:
        ledger.add("mfu", inputs.mfu, label="mfu", given=True,
                   derivation=inputs.given_text("mfu"))
        return inputs.mfu
    if not points(ledger):
        return _table_mfu(ledger, hw, rows, peak.formula) if rows else None
    return mfu_range(ledger, hw, params, rows, _implied(ledger, rows) if rows else [])


def _implied(ledger: Ledger, rows: list[dict]) -> list[float]:
    """The MFU each row of the reference's GPU-hours table implies."""
    kb = ledger.kb
    implied_f = kb.formula("mfu", "gpu_hours", "flops")
    # the table's FLOPs are 6 · N · D alone (it gives no shape): its MFU counts no attention
    return [ledger.compute(implied_f, {"flops": Q.point(f["flops"]), "gpu_hours": Q.point(f["gpu_hours"]),
                                       "attention_flops": Q.point(0.0),
                                       "bf16_peak": Q.point(kb.peak(f["hardware"]))})[0].value for f in rows]


def _table_mfu(ledger: Ledger, hw: str | None, rows: list[dict], gpu_f: KBFormula) -> Q:
    """The MFU the reference's GPU-hours table implies (when the KB has no published run)."""
    kb = ledger.kb
    table_hw = rows[0]["hardware"]
    implied_f = kb.formula("mfu", "gpu_hours", "flops")
    per_row = list(zip(rows, _implied(ledger, rows)))
    values = [v for _, v in per_row]
    mfu = Q.span(min(values), max(values), sum(values) / len(values))
    ledger.add("mfu", mfu, formula=implied_f,
               label="MFU implied by the reference's GPU-hours table",
               extra_sources=[rows[0], kb.snap["nodes"][table_hw]],
               derivation=(f"{implied_f.data['expression']} for each row of the reference's FLOPs table "
                           f"({kb.label(table_hw)}, bf16 peak {units.amount(kb.peak(table_hw), unit='FLOP/s')}): "
                           + ", ".join(f"{units.count(f['params'])} → {v:.3f}" for f, v in per_row)
                           + f"; mean {mfu.value:.3f} (range {mfu.low:.3f}–{mfu.high:.3f})"),
               rows=[{"fact": f["id"], "params": f["params"], "flops": f["flops"],
                      "gpu_hours": f["gpu_hours"], "mfu": rounded(v)} for f, v in per_row])
    if hw and hw != table_hw and kb.peak(hw):
        ledger.note(f"the MFU is the one the reference's {kb.label(table_hw)} table implies, assumed to hold "
                    f"on {kb.label(hw)} too; give mfu = 40% (for example) to plan with another", gpu_f.data)
    return mfu


def _no_time(ledger: Ledger, hw: str | None, peak: float | None, gpu_f: KBFormula, wall_f: KBFormula) -> None:
    """Record GPU-hours and wall time as missing, and why."""
    kb = ledger.kb
    reason = ("the reference leaves it open" if hw and "reference" in kb.snap["nodes"][hw].get("sources", ())
              else "no vendor figure could be verified; its notes say why")
    why = (f"{kb.label(hw)} has no bf16 peak in the KB ({reason}), so GPU-hours and "
           f"wall time cannot be computed: give its dense 16-bit peak to time the run (peak-flops = ..., as an H100 SXM's 989.5T)"
           if hw and peak is None
           else "no hardware with a bf16 peak to compute time on: give the hardware (hardware = h100) or its "
                "dense 16-bit peak (peak-flops = 989.5T)")
    for name, f in (("gpu_hours", gpu_f), ("wall_time", wall_f)):
        ledger.add(name, None, formula=f, derivation=why, missing=why)
    about = [f for f in kb.snap["facts"].values() if hw in f["about"] and "mfu" in f["id"]]
    ledger.note(why + "".join(f"; {f['text']}" for f in about), *about, *([kb.snap["nodes"][hw]] if hw else []))


def _against_budget(ledger: Ledger, inputs: Inputs, gpu_hours: Q, wall: Q,
                    wall_f: KBFormula) -> tuple[Q | None, Q | None, bool | None]:
    """The GPUs needed for the time budget (when gpus are not given), or whether the wall time
    keeps to it and the GPUs that would (when they are): ``(gpus_needed, gpus_for_time, met)``."""
    budget, gpus = inputs.time_budget, inputs.gpus or Q.point(1)
    if budget is None:
        if inputs.gpus is None:
            ledger.note("no gpus given: the wall time is for one GPU; add gpus = 8 (for example), or a time "
                        "budget such as time = 2 weeks to get the GPUs needed")
        return None, None, None
    if inputs.gpus is None:
        need = solve(wall_f.parsed, "gpus", {"gpu_hours": gpu_hours, "wall_time": budget}, bracket=(1e-6, 1e12))
        if need is None:
            return None, None, None
        need = round_up(need)
        ledger.add("gpus_needed", need, formula=wall_f, label="GPUs needed for the time budget",
                   derivation=f"{wall_f.data['label']}: {wall_f.data['expression']}, solved for gpus with "
                              f"wall_time = {show(budget, 'hours')} ({units.grouped(budget.value)}h): "
                              f"{show(gpu_hours, 'GPU-hours')} / {units.grouped(budget.value)}h → "
                              f"{show(need, 'GPUs')}, rounded up")
        return need, need, True
    if wall.high > budget.high:
        more = solve(wall_f.parsed, "gpus", {"gpu_hours": gpu_hours, "wall_time": budget}, bracket=(1e-6, 1e12))
        more = round_up(more) if more is not None else None
        late = wall.low > budget.high
        ledger.note(f"{show(wall, 'hours')} on {show(gpus, 'GPUs')} {'is longer than' if late else 'may overrun'} the "
                    f"time budget of {show(budget, 'hours')}"
                    + (f": {show(more, 'GPUs')} would meet it at the same MFU" if more is not None else ""),
                    wall_f.data, warn=True)
        if more is not None:
            ledger.add("gpus_for_time", more, formula=wall_f, label="GPUs that would meet the time budget",
                       derivation=f"{wall_f.data['expression']}, solved for gpus with wall_time = "
                                  f"{show(budget, 'hours')}: {show(gpu_hours, 'GPU-hours')} / "
                                  f"{units.grouped(budget.value)}h → {show(more, 'GPUs')}, rounded up (the same MFU "
                                  f"assumed: more GPUs often run at a lower one)")
        return None, more, False
    ledger.note(f"{show(wall, 'hours')} on {show(gpus)} GPUs is within the time budget of "
                f"{show(budget, 'hours')}", wall_f.data)
    return None, None, True


def batch_cap(ledger: Ledger, layout: Layout | None, timing: Timing) -> Timing:
    """The most GPUs one global batch spreads over (``formula:gpus-one-batch-spreads-over``:
    its sequences at the layout's micro-batch, each data-parallel group the layout's tensor ×
    pipeline GPUs), when it bounds the plan: more GPUs would meet the time budget (7B on H100s
    in an hour would take 3,839-11,924 GPUs, where a 3.86M-token batch of 2,048-token sequences
    keeps 1,885 busy), or the plan's own GPUs are more than it (:func:`_past_the_batch`: the
    timing returned then says so)."""
    more, v = timing.gpus_for_time, ledger.values
    if not layout or timing.gpu_hours is None or v.get("batch_tokens") is None or v.get("seq_length") is None:
        return timing
    f = ledger.kb.by_id("gpus-one-batch-spreads-over")
    tp, pp, mb = layout["tensor_parallel"], layout["pipeline_parallel"], layout["micro_batch"]
    cap, env = ledger.compute(f, {"batch_tokens": v["batch_tokens"], "seq_length": v["seq_length"],
                                  "micro_batch": Q.point(mb), "tensor_parallel": Q.point(tp),
                                  "pipeline_parallel": Q.point(pp)})
    cap = Q.span(math.floor(cap.low), math.floor(cap.high), math.floor(cap.value))
    gpus = tp * pp * layout["data_parallel"]
    past = gpus > cap.high and cap.high >= 1
    if not (more is not None or past):
        return timing
    ledger.add("gpus_batch_cap", cap, formula=f, env=env, label="the most GPUs one global batch spreads over")
    if more is not None and more.low > cap.high:
        ledger.note(f"the {show(more, 'GPUs')} the time budget would take are more than one global batch spreads "
                    f"over: {show(v['batch_tokens'], 'tokens')} in sequences of {v['seq_length'].value:,.0f} tokens keep at "
                    f"most {show(cap, 'GPUs')} busy at this layout's micro-batch and model parallelism "
                    f"({f.data['expression']}); past them the budget needs a larger batch (more tokens past its "
                    f"critical size) or more tensor or pipeline parallelism (a lower MFU), so it is out of reach as "
                    f"planned", f.data, warn=True)
    elif past and more is None:
        # (a copy with past_batch, the record's last field, set)
        return Timing(*timing.astuple()[:-1], past_batch=_past_the_batch(ledger, layout, timing, cap, f))
    return timing


def _past_the_batch(ledger: Ledger, layout: Layout, timing: Timing, cap: Q, f: KBFormula) -> str:
    """The plan's GPUs are more than its batch spreads over: one optimizer step on all of them
    takes a larger batch than the plan's (a sequence per data-parallel group at the least), and
    past the critical batch size a larger batch needs more data for the same loss (Kaplan et al.
    Section 5.1), so their wall time holds only at that batch; what the plan's batch takes on the
    GPUs it does keep busy (returned, as the time line says it). 125M on 1,024 H100s: 2.1M
    tokens a step, 7.6× the 277k planned."""
    v, gpus = ledger.values, layout["tensor_parallel"] * layout["pipeline_parallel"] * layout["data_parallel"]
    least = layout["data_parallel"] * layout["micro_batch"] * v["seq_length"].value
    wall_f = ledger.kb.formula("wall_time", "gpu_hours", "gpus")
    on_cap, _ = ledger.compute(wall_f, {"gpu_hours": timing.gpu_hours, "gpus": Q.point(cap.low)})
    times = f"{least / v['batch_tokens'].value:.1f}× the planned {show(v['batch_tokens'], 'tokens')}"
    ledger.note(f"the {gpus:,} GPUs are more than one global batch spreads over: {show(v['batch_tokens'], 'tokens')} in "
                f"sequences of {v['seq_length'].value:,.0f} tokens keep at most {show(cap, 'GPUs')} busy at this "
                f"layout's micro-batch and model parallelism ({f.data['expression']}). On all {gpus:,} a step takes "
                f"at least {show(Q.point(least), 'tokens')} ({times}), and past its critical size a larger batch "
                f"needs more tokens for the same loss, so their {show(timing.wall, 'hours')} holds only at that "
                f"batch; at the planned batch {show(cap, 'GPUs')} take {show(on_cap, 'hours')}", f.data, warn=True)
    return (f"at a batch of at least {show(Q.point(least), 'tokens')} a step ({times}: at it, "
            f"{show(cap, 'GPUs')} take {show(on_cap, 'hours')}; gpus_batch_cap)")
