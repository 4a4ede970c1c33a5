"""Backwards by memory: the largest model whose leanest layout fits the GPUs' memory, for a
method, from the same detailed model the layout search uses (``kb/memory-model.ttl``,
``kb/methods.ttl``)::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where hardware = rtx-4090")[0], snap)
    >>> for found in largest_models(ledger, inputs):
    ...     print(found["text"])
    pretrain: ...
    full-fine-tune: ...
    lora: ...
    qlora: ...
    inference: ...
    >>> [show(largest_params(ledger, inputs, m)["params"], "parameters") for m in ("pretrain", "qlora")]
    ['1.35B parameters', '29.2B parameters']
"""

from __future__ import annotations

import math

from recipekg.formula.expr import Q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs
from recipekg.plan.layout import Evaluator, describe, lean_best
from recipekg.plan.ledger import Ledger
from recipekg.plan.methods import METHODS, Method, read_method
from recipekg.plan.shape import model_shape, optimizer_state_bytes

#: The sizes the search looks between (parameters) and how many halvings of that span it takes
#: (18: the log-span of 1e9 to within 1e-4, finer than the three significant figures shown).
LOWEST, HIGHEST, STEPS = 1e6, 1e15, 18


def leanest(ledger: Ledger, inputs: Inputs, params: Q, method: Method, gpus: int | None = None) -> dict | None:
    """The layout needing the least memory for ``params`` with ``method`` (on a scratch ledger:
    nothing is recorded in the plan's)."""
    scratch = Ledger(ledger.kb, ledger.where)
    shape = model_shape(scratch, inputs, params)
    states, _ = optimizer_state_bytes(scratch, inputs)
    gpus = gpus or (int(round(inputs.gpus.value)) if inputs.gpus else 1)
    return lean_best(Evaluator(scratch, params, shape, states, method, inputs), inputs, gpus)


def largest_params(ledger: Ledger, inputs: Inputs, mid: str, method: Method | None = None) -> dict | None:
    """``{"method", "params", "layout", "memory_per_gpu", "text"}``: the largest model that fits
    (three significant figures, rounded down); None without a memory limit or when not even
    the smallest model fits."""
    cap = inputs.gpu_memory
    if cap is None:
        return None
    method = method or read_method(ledger, inputs, mid)

    def fits(p: float) -> dict | None:
        best = leanest(ledger, inputs, Q.point(p), method)
        return best if best is not None and best["per_gpu"].high <= cap.low else None

    if fits(LOWEST) is None:
        return None
    lo, hi = math.log(LOWEST), math.log(HIGHEST)
    if fits(HIGHEST) is not None:
        lo = hi
    for _ in range(STEPS if lo < hi else 0):
        mid_ = (lo + hi) / 2
        lo, hi = (mid_, hi) if fits(math.exp(mid_)) is not None else (lo, mid_)
    p = _round_down(math.exp(lo))
    best = fits(p) or fits(math.exp(lo))
    return {"method": mid, "params": Q.point(p), "layout": best,
            "memory_per_gpu": best["per_gpu"],
            "text": f"{mid}: up to {show(Q.point(p), 'parameters')} ({describe(best)}, "
                    f"{show(best['per_gpu'], 'bytes')} of {show(cap, 'bytes')} per GPU)"}


def largest_models(ledger: Ledger, inputs: Inputs) -> list[dict]:
    """The largest model per method on the plan's GPUs."""
    out = []
    for mid in METHODS:
        found = largest_params(ledger, inputs, mid)
        if found is not None:
            out.append(found)
    return out


def _round_down(x: float) -> float:
    """Three significant figures, rounded down (so that the size shown still fits).

    >>> _round_down(70_612_345_678.0)
    70600000000.0
    """
    scale = 10 ** (math.floor(math.log10(x)) - 2)
    return float(math.floor(x / scale) * scale)
