"""How a plan rounds and shows its numbers, and the arithmetic of a relative change.

    >>> show(Q.span(1.26e11, 1.4e11), "bytes"), show(Q.point(8)), percent(Q.span(-0.7, -0.5))
    ('126–140 GB', '8', '50–70%')
    >>> qjson(Q.point(1.0000000000000002e9))
    {'value': 1000000000.0, 'low': 1000000000.0, 'high': 1000000000.0}
    >>> relative_change(Q.point(100), Q.point(-0.3)).value
    70.0

The only numbers here are definitions: ten significant digits in the JSON, and what a
relative change means (``x × (1 + change)``, the unit of the KB's technique effects).
"""

from __future__ import annotations

import math

from recipekg.formula.expr import Q
from recipekg.render import numbers as units

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import Range


def rounded(x: float | None) -> float | None:
    """Ten significant digits in the JSON: drops float noise (1.0000000000000002e9), keeps inputs."""
    if x is None or not math.isfinite(x):
        return None
    return float(f"{x:.10g}")


def qjson(q: Q | None) -> Range | None:
    """A :class:`Q` as the JSON's ``{"value", "low", "high"}`` (rounded)."""
    return None if q is None else {"value": rounded(q.value), "low": rounded(q.low), "high": rounded(q.high)}


def show(q: Q, unit: str = "", exact: bool = False) -> str:
    """A value or range for a derivation: with its unit, or as a bare number; ``exact`` for a
    number the user gave (every digit, not three). A whole number below a million without a
    unit (a count: GPUs, layers, a degree of parallelism) is shown with every digit.

    >>> show(Q.point(16384)), show(Q.point(20)), show(Q.point(7e9)), show(Q.point(0.277))
    ('16,384', '20', '7B', '0.277')
    """
    if not unit and not q.is_range and math.isfinite(q.value) and q.value == int(q.value) and abs(q.value) < 1e6:
        return f"{int(q.value):,}"
    if unit:
        return (units.amount(q.low, q.high, unit, exact) if q.is_range
                else units.amount(q.value, unit=unit, exact=exact))
    return units.num(q.value) if not q.is_range else f"{units.num(q.low)}–{units.num(q.high)}"


def percent(q: Q) -> str:
    """A relative change as a percentage of its size: −0.7..−0.5 → ``50–70%``."""
    a, b = sorted((abs(q.low) * 100, abs(q.high) * 100))
    return f"{a:.0f}%" if round(a) == round(b) else f"{a:.0f}–{b:.0f}%"


def round_up(q: Q) -> Q:
    """Each end rounded up to a whole number, at least 1 (a count of GPUs)."""
    up = lambda x: max(1.0, float(math.ceil(x - 1e-9))) if math.isfinite(x) else x  # noqa: E731
    return Q(up(q.value), up(q.low), up(q.high))


def relative_change(x: Q, change: Q) -> Q:
    """Apply a KB constant whose unit is "relative change": ``x × (1 + change)``.

    That is the definition of the unit (``-0.3`` means 30% less), not a claim of the KB.
    """
    return x * (1 + change)
