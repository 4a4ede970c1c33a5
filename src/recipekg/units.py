"""Numbers as people write them, in the query language's own forms.

    >>> count(30000), count(1.4e12), count(2.5e20), bytes_(8e10), hours(72), hours(6)
    ('30k', '1.4T', '2.5e20', '80GB', '3 days', '6h')
"""

from __future__ import annotations


def _trim(x: float) -> str:
    text = f"{x:.3g}"
    return text[:-2] if text.endswith(".0") else text


def count(x: float) -> str:
    """A count with k/M/B/T suffixes; exponents beyond a thousand trillion."""
    ax = abs(x)
    if ax >= 1e15:
        mantissa, exponent = f"{x:.2g}".split("e")
        return f"{mantissa}e{int(exponent)}"
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if ax >= scale:
            return _trim(x / scale) + suffix
    return _trim(x)


def bytes_(x: float) -> str:
    for scale, suffix in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB")):
        if abs(x) >= scale:
            return _trim(x / scale) + suffix
    return _trim(x) + " bytes"


def hours(x: float) -> str:
    if x >= 720 and x % 720 == 0:
        n = int(x // 720)
        return f"{n} month" + "s" * (n != 1)
    if x >= 168 and x % 168 == 0:
        n = int(x // 168)
        return f"{n} week" + "s" * (n != 1)
    if x >= 24 and x % 24 == 0:
        n = int(x // 24)
        return f"{n} day" + "s" * (n != 1)
    return _trim(x) + "h"


def ratio(x: float) -> str:
    return _trim(x * 100) + "%"


def value(kind: str, x) -> str:
    """Format a dimension's value by its kind (names pass through)."""
    if isinstance(x, str):
        return x
    return {"count": count, "bytes": bytes_, "duration": hours, "ratio": ratio}.get(kind, count)(x)
