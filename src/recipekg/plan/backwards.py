"""Planning backwards: from GPUs, a time and a peak (the hardware's, or ``peak-flops``) to
the compute they give at the plan's MFU; sizing then splits it into params and tokens by the
strategy. Both steps solve the KB's time formulas for their inputs (``wall_time = gpu_hours
/ gpus`` for the GPU-hours, ``gpu_hours = (flops + attention_flops) / (peak × mfu × 3600)`` for
the model FLOPs); given the strategy, the attention's share at the size the budget trains is
left to it (:func:`recipekg.plan.attention.budget_split`), the rest is the training FLOPs.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where gpus = 64 and hardware = h100 and time = 2 weeks")[0], snap)
    >>> back = plan_backwards(ledger, inputs)
    >>> show(back.timing.gpu_hours, "GPU-hours"), show(back.flops, "FLOPs")
    ('21,500 GPU-hours', '1.35e22–3.29e22 FLOPs')
    >>> print(back.timing.backwards["text"])
    planned backwards from 64 GPUs × 2 weeks (14 days) of NVIDIA H100 SXM (bf16 peak 989.5 TFLOP/s) at the MFU of published runs, 0.176–0.430 (0.291): 21,500 GPU-hours → 1.35e22–3.29e22 FLOPs of compute, split into params and tokens by the strategy

Without GPUs and a time, or with something to size from, there is nothing to plan backwards
(None). A GPU without a peak in the KB cannot be planned backwards: a :class:`RangeError`.
"""

from __future__ import annotations

from recipekg.errors import RangeError
from recipekg.formula.expr import CONVERSIONS, Q, evaluate
from recipekg.plan.figures import qjson, show
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger
from recipekg.record import Record
from recipekg.plan.timing import Setup, Timing, time_setup
from recipekg.render import numbers as units


class Backwards(Record):
    """The compute planning backwards found, and the time it was found from."""

    flops: Q
    timing: Timing


def _trains_a_model(ledger: Ledger, total: Q, gpus: Q, time: Q, peak) -> None:
    """A RangeError at the statement when the compute the GPUs and time give at the peak is less
    than one parameter trained on one token (hostile round 5, 042: a peak of 1e-30 FLOP/s, given
    or an extension's, ended in "division by a range that includes zero", with no position)."""
    f = ledger.kb.formula("flops", "params", "tokens")
    least = evaluate(f.parsed, {**ledger.kb.constants_in(f), "params": Q.point(1.0), "tokens": Q.point(1.0)})
    if total is None or not total.low >= least.value:
        shown = show(total, "FLOPs") if total is not None else "no finite compute"
        ledger.out_of_scale(f"beyond what trains a model: {show(gpus, 'GPUs')} for {show(time, 'hours')} at "
                            f"{show(Q.point(peak.value))} FLOP/s give {shown}, less than one parameter "
                            f"trained on one token ({f.data['expression']})")


def plan_backwards(ledger: Ledger, inputs: Inputs, strategy=None) -> Backwards | None:
    """GPU-hours from gpus × time, FLOPs from them at the peak and MFU, recorded in the ledger:
    the model FLOPs the budget gives, less the attention's share at the size they train (by
    ``strategy``, :func:`recipekg.plan.attention.budget_split`)."""
    if not inputs.backwards:
        return None
    setup = time_setup(ledger, inputs)
    hw, mfu, peak = setup.hardware, setup.mfu, setup.peak
    if mfu is None or peak.value is None:
        c = inputs.constraints.get("hardware") or inputs.constraints["time"]
        raise RangeError.at(c.pos, f"cannot plan backwards on {ledger.kb.label(hw)}: the KB has no peak FLOP "
                                   f"rate for it to turn GPUs and time into compute",
                            expected=["peak-flops = 989 TFLOPS", "flops = 1e21", "params = 7B"])
    gpus, time = inputs.gpus, inputs.time_budget
    wall_f, gpu_f = setup.wall_f, peak.formula
    gpu_hours = ledger.solve(wall_f.parsed, "gpu_hours", {"wall_time": time, "gpus": gpus})
    ledger.add("gpu_hours", gpu_hours, formula=wall_f, label="GPU-hours of the GPUs and time given",
               derivation=f"{wall_f.data['label']}: {wall_f.data['expression']}, solved for gpu_hours with "
                          f"gpus = {show(gpus)} and wall_time = {show(time, 'hours')}: {show(gpu_hours, 'GPU-hours')}")
    ledger.add("wall_time", time, label="wall_time", given=True, derivation=inputs.given_text("time"))
    env = {**ledger.kb.constants_in(gpu_f), "gpu_hours": gpu_hours, "mfu": mfu, peak.name: Q.point(peak.value),
           **{n: Q.point(v) for n, v in CONVERSIONS.items() if n in gpu_f.parsed.names}}
    total = ledger.solve(gpu_f.parsed, "flops", {**env, "attention_flops": Q.point(0.0)})
    _trains_a_model(ledger, total, gpus, time, peak)
    flops, share = total, 0.0
    if strategy is not None:
        from recipekg.plan.attention import budget_split

        flops, share = budget_split(ledger, inputs, strategy, total)
    peak_text = f"{peak.name} = {units.amount(peak.value, unit='FLOP/s')}"
    ledger.add("flops", flops, formula=gpu_f,
               extra_sources=[ledger.kb.snap["nodes"][hw]] if hw else [],
               derivation=f"{gpu_f.data['label']}: {gpu_f.data['expression']}, solved for flops + attention_flops "
                          f"with {show(gpu_hours, 'GPU-hours')}, {peak_text} and mfu = {_mfu(mfu)}: "
                          f"{show(total, 'FLOPs')} of model FLOPs"
                          + (f", of which the attention's at the size they train is {share:.1%} "
                             f"(attention_flops): {show(flops, 'FLOPs')} of training FLOPs" if share else ""))
    text = _text(ledger, inputs, setup, gpu_hours, total, (flops, share))
    about = {"text": text, "gpus": qjson(gpus), "time_hours": qjson(time),
             "hardware": ledger.kb.node_id(hw) if hw else None, "peak": peak.precision,
             "peak_flops_per_second": peak.value, "mfu": qjson(mfu), "gpu_hours": qjson(gpu_hours),
             "flops": qjson(flops)}
    # the compute is sized to the budget: the run takes all of it, and keeps to it
    return Backwards(flops, Timing(hw, mfu, gpu_hours, time, None, backwards=about, budget_met=True))


def _text(ledger: Ledger, inputs: Inputs, setup: Setup, gpu_hours: Q, flops: Q, split: tuple = (None, 0.0)) -> str:
    """One sentence: planned backwards, from what, at which MFU, to how much compute."""
    kb, peak = ledger.kb, setup.peak
    given = " to ".join(v.text for v in inputs.constraints["time"].values)
    hours = show(inputs.time_budget, "hours")
    time = given if given.replace(" ", "") == hours.replace(" ", "") else f"{given} ({hours})"
    on = kb.label(setup.hardware) if setup.hardware else "your GPU"
    which = "the peak given" if peak.precision == "given" else f"{peak.precision} peak"
    mfu = "the mfu given" if inputs.mfu is not None else "the MFU of published runs"
    return (f"planned backwards from {show(inputs.gpus, 'GPUs')} × {time} of {on} "
            f"({which} {units.amount(peak.value, unit='FLOP/s')}) at {mfu}, {_mfu(setup.mfu)}: "
            f"{show(gpu_hours, 'GPU-hours')} → {show(flops, 'FLOPs')} of compute, "
            + (f"{show(split[0], 'FLOPs')} of them training FLOPs once the attention's {split[1]:.1%} at the size "
               f"they train is left aside, " if split[1] else "")
            + "split into params and tokens by the strategy")


def _mfu(mfu: Q) -> str:
    """An MFU as the plan's MFU quantity shows it: three decimals, the range and its point."""
    return f"{mfu.low:.3f}–{mfu.high:.3f} ({mfu.value:.3f})" if mfu.is_range else f"{mfu.value:.3f}"
