"""Time: GPU-hours at an MFU (given, or what the reference's GPU-hours table implies), the
wall time on the plan's GPUs, and the GPUs a ``time`` budget needs.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.sizing import choose_strategy, size
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 1B and hardware = a100 and time = 3 days")[0], snap)
    >>> t = train_time(ledger, inputs, size(ledger, inputs, choose_strategy(ledger.kb, inputs.facts)))
    >>> ledger.kb.node_id(t.hardware), f"{t.mfu.value:.3f}", show(t.gpu_hours, "GPU-hours"), show(t.gpus_needed)
    ('a100', '0.277', '379–390 GPU-hours', '6')

Without a bf16 peak for the hardware (the reference leaves DGX Spark's open) there is no
time: GPU-hours and wall time are recorded as missing, with the reason.
"""

from __future__ import annotations

from recipekg.plan.expr import Q, solve
from recipekg.plan.figures import rounded, round_up, show
from recipekg.plan.inputs import Inputs
from recipekg.plan.kbview import KBFormula
from recipekg.plan.ledger import Ledger
from recipekg.plan.sizing import Sizes
from recipekg.plan.record import Record
from recipekg.render import numbers as units


class Timing(Record):
    """The hardware time is computed for (given, or the reference table's), and what was
    computed on it (None when it could not be)."""

    hardware: str | None
    mfu: Q | None = None
    gpu_hours: Q | None = None
    wall: Q | None = None
    gpus_needed: Q | None = None


def train_time(ledger: Ledger, inputs: Inputs, sizes: Sizes) -> Timing:
    """Record MFU, GPU-hours, wall time and the GPUs needed for the time budget."""
    kb = ledger.kb
    rows = sorted((f for f in kb.snap["facts"].values()
                   if "ComputeEstimate" in f["types"] and f.get("gpu_hours") and f.get("flops")
                   and kb.peak(f.get("hardware"))), key=lambda f: (f["params"], f["id"]))
    table_hw = rows[0]["hardware"] if rows else None
    hw = inputs.hardware or table_hw
    gpu_f = kb.formula("gpu_hours", "flops", "mfu")
    wall_f = kb.formula("wall_time", "gpu_hours", "gpus")
    mfu = _mfu(ledger, inputs, hw, rows, gpu_f)
    if hw is not None and inputs.hardware is None:
        ledger.note(f"no hardware given: time is for {kb.label(hw)}, the hardware of the reference's table")
    peak = kb.peak(hw) if hw else None
    if mfu is None or peak is None:
        _no_time(ledger, hw, peak, gpu_f, wall_f)
        return Timing(hw)
    gpu_hours, env = ledger.compute(gpu_f, {"flops": sizes.flops, "mfu": mfu, "bf16_peak": Q.point(peak)})
    extra = {}
    row = sizes.table_row
    if row is not None and row.get("gpu_hours") and kb.peak(row.get("hardware")):
        on_row_hw, _ = ledger.compute(gpu_f, {"flops": sizes.flops, "mfu": mfu,
                                              "bf16_peak": Q.point(kb.peak(row["hardware"]))})
        extra["table"] = {"fact": row["id"], "label": row["label"], "value": row["gpu_hours"],
                          "hardware": kb.node_id(row["hardware"]),
                          "formula_value_on_table_hardware": rounded(on_row_hw.value),
                          "section": kb.section(row), "sources": kb.sources(row)}
    ledger.add("gpu_hours", gpu_hours, "GPU-hours", formula=gpu_f, env=env,
               extra_sources=[kb.snap["nodes"][hw]], hardware=kb.node_id(hw), **extra)
    gpus = inputs.gpus or Q.point(1)
    wall, wenv = ledger.compute(wall_f, {"gpu_hours": gpu_hours, "gpus": gpus})
    ledger.add("wall_time", wall, "hours", formula=wall_f, env=wenv)
    need = _against_budget(ledger, inputs, gpu_hours, wall, wall_f)
    return Timing(hw, mfu, gpu_hours, wall, need)


def _mfu(ledger: Ledger, inputs: Inputs, hw: str | None, rows: list[dict], gpu_f: KBFormula) -> Q | None:
    """The MFU to plan with: given, or implied by the reference's table (None: no time on ``hw``)."""
    kb = ledger.kb
    if hw is not None and not kb.peak(hw):
        return None
    if inputs.mfu is not None:
        ledger.add("mfu", inputs.mfu, "fraction of bf16 peak", label="mfu", given=True,
                   derivation=inputs.given_text("mfu"))
        return inputs.mfu
    if not rows:
        return None
    table_hw = rows[0]["hardware"]
    implied_f = kb.formula("mfu", "gpu_hours", "flops")
    per_row = [(f, ledger.compute(implied_f, {"flops": Q.point(f["flops"]), "gpu_hours": Q.point(f["gpu_hours"]),
                                              "bf16_peak": Q.point(kb.peak(f["hardware"]))})[0].value)
               for f in rows]
    values = [v for _, v in per_row]
    mfu = Q.span(min(values), max(values), sum(values) / len(values))
    ledger.add("mfu", mfu, "fraction of bf16 peak", formula=implied_f,
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
    why = (f"{kb.label(hw)} has no bf16 peak in the KB (the reference leaves it open), so GPU-hours and "
           f"wall time cannot be computed" if hw and peak is None
           else "no hardware with a bf16 peak to compute time on")
    for name, unit, f in (("gpu_hours", "GPU-hours", gpu_f), ("wall_time", "hours", wall_f)):
        ledger.add(name, None, unit, formula=f, derivation=why, missing=why)
    about = [f for f in kb.snap["facts"].values() if hw in f["about"] and "mfu" in f["id"]]
    ledger.note(why + "".join(f"; {f['text']}" for f in about), *about, *([kb.snap["nodes"][hw]] if hw else []))


def _against_budget(ledger: Ledger, inputs: Inputs, gpu_hours: Q, wall: Q, wall_f: KBFormula) -> Q | None:
    """The GPUs needed for the time budget (when gpus are not given), or whether the wall time
    keeps to it (when they are)."""
    budget, gpus = inputs.time_budget, inputs.gpus or Q.point(1)
    if budget is None:
        if inputs.gpus is None:
            ledger.note("no gpus given: the wall time is for one GPU; add gpus = 8 (for example), or a time "
                        "budget such as time = 2 weeks to get the GPUs needed")
        return None
    if inputs.gpus is None:
        need = solve(wall_f.parsed, "gpus", {"gpu_hours": gpu_hours, "wall_time": budget}, bracket=(1e-6, 1e12))
        if need is None:
            return None
        need = round_up(need)
        ledger.add("gpus_needed", need, "GPUs", formula=wall_f, label="GPUs needed for the time budget",
                   derivation=f"{wall_f.data['label']}: {wall_f.data['expression']}, solved for gpus with "
                              f"wall_time = {show(budget, 'hours')} ({units.grouped(budget.value)}h): "
                              f"{show(gpu_hours, 'GPU-hours')} / {units.grouped(budget.value)}h → "
                              f"{show(need, 'GPUs')}, rounded up")
        return need
    if wall.low > budget.high:
        ledger.note(f"{show(wall, 'hours')} on {show(gpus)} GPUs is longer than the time budget of "
                    f"{show(budget, 'hours')}", wall_f.data, warn=True)
    elif wall.high > budget.high:
        ledger.note(f"{show(wall, 'hours')} on {show(gpus)} GPUs may overrun the time budget of "
                    f"{show(budget, 'hours')}", wall_f.data, warn=True)
    else:
        ledger.note(f"{show(wall, 'hours')} on {show(gpus)} GPUs is within the time budget of "
                    f"{show(budget, 'hours')}", wall_f.data)
    return None
