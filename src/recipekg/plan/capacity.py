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

#: The sizes the search looks between (parameters), and the bracket (in log-size: 1%) within
#: which it looks at the figures shown one by one.
LOWEST, HIGHEST, NARROW = 1e6, 1e15, 0.01


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

    p, best = _largest(lambda p: leanest(ledger, inputs, Q.point(p), method), cap.low)
    if best is None:
        return None
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


def _largest(leanest_at, cap: float) -> tuple[float, dict | None]:
    """``(p, layout)``: the largest size of three significant figures (the figures shown) whose
    leanest layout (``leanest_at(p)``, None when there is none) fits ``cap`` bytes per GPU, and
    that layout; ``(0, None)`` when not even :data:`LOWEST` fits. Memory grows with the size, so
    the boundary is bracketed in log-size and narrowed by false position (the Illinois method: the
    log of the memory is nearly linear in the log of the size; halving instead where a size has
    no layout or false position creeps from one side) to within :data:`NARROW`, then found among
    the figures shown inside the bracket by halving them: about 11 layouts where halving the span
    took 21 (docs/performance.md).

    >>> _largest(lambda p: {"per_gpu": Q.point(2.0 * p + 1e9)}, 80e9)[0]
    39500000000.0
    >>> _largest(lambda p: {"per_gpu": Q.point(2.0 * p)}, 1e6)
    (0, None)
    """
    def over(p: float) -> tuple[dict | None, float | None]:  # the layout, and log(memory / cap) (None: no layout)
        best = leanest_at(p)
        return best, None if best is None else math.log(best["per_gpu"].high / cap)

    low, f_low = over(LOWEST)
    if low is None or f_low > 0:
        return 0, None
    top, f_high = over(HIGHEST)
    if top is not None and f_high <= 0:
        return _round_down(HIGHEST), top
    lo, hi, side = math.log(LOWEST), math.log(HIGHEST), 0
    while hi - lo > NARROW:
        x = (lo + hi) / 2 if f_high is None or abs(side) > 2 else hi - f_high * (hi - lo) / (f_high - f_low)
        x = min(max(x, lo + (hi - lo) / 64), hi - (hi - lo) / 64)  # (never stalled at an end)
        best, f = over(math.exp(x))
        if best is not None and f <= 0:
            lo, f_low, side = x, f, min(side, 0) - 1
            f_high = f_high / 2 if side < -1 and f_high is not None else f_high  # (Illinois: an end kept twice)
        else:
            hi, f_high, side = x, f, max(side, 0) + 1
            f_low = f_low / 2 if side > 1 else f_low
        side = 0 if abs(side) > 3 else side  # (after one halving)
    figures = _figures(math.exp(lo), math.exp(hi))
    k, n, found = 0, len(figures), None  # the figures below k fit, those from n do not; found: figures[k - 1]'s
    while k < n:
        mid = (k + n) // 2
        best, f = over(figures[mid])
        if best is not None and f <= 0:
            k, found = mid + 1, (figures[mid], best)
        else:
            n = mid
    if found is not None:
        return found
    p = _below(math.exp(lo) * (1 + 1e-12))  # the largest figure at or below the bracket's fitting end
    best, f = over(p)
    return p, best if best is not None and f <= 0 else over(math.exp(lo))[0]


def _figures(low: float, high: float) -> list[float]:
    """The sizes of three significant figures strictly between ``low`` and ``high``, ascending.

    >>> _figures(1.234e9, 1.27e9)
    [1240000000.0, 1250000000.0, 1260000000.0]
    """
    out, x = [], _below(high)
    while x > low:
        out.append(x)
        x = _below(x)
    return out[::-1]


def _below(x: float) -> float:
    """The largest figure of three significant figures below ``x``.

    >>> _below(70_612_345_678.0), _below(70_600_000_000.0)
    (70600000000.0, 70500000000.0)
    """
    down = _round_down(x)
    if down < x:
        return down
    scale = 10 ** (math.floor(math.log10(x)) - 2)
    return _round_down(down - scale / 2)


def _round_down(x: float) -> float:
    """Three significant figures, rounded down (so that the size shown still fits).

    >>> _round_down(70_612_345_678.0)
    70600000000.0
    """
    scale = 10 ** (math.floor(math.log10(x)) - 2)
    return float(math.floor(x / scale) * scale)
