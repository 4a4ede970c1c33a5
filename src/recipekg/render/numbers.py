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


def value(x, unit: str | None = None) -> str:
    """A constraint's value as the query language writes it, by its unit (names pass through).

    >>> value(0.4, "fraction"), value(3.35e12, "bytes/s"), value("tabular")
    ('40%', '3.35TB/s', 'tabular')
    """
    if isinstance(x, str):
        return x
    return {"bytes": bytes_, "hours": hours, "fraction": ratio,
            "bytes/s": lambda v: bytes_(v) + "/s"}.get(unit or "count", count)(x)


HOURS_PER_DAY = 24.0
DAYS_PER_MONTH = 30.0     # the query language's month
DAYS_PER_YEAR = 365.0


def sci(x: float) -> str:
    """Scientific notation as the reference writes FLOPs, to three significant digits.

    >>> sci(1.2e20), sci(5.88e21), sci(1e21), sci(5.9e23)
    ('1.2e20', '5.88e21', '1e21', '5.9e23')
    """
    mantissa, exponent = f"{x:.3g}".split("e") if "e" in f"{x:.3g}" else (f"{x:.3g}", "0")
    return f"{mantissa}e{int(exponent)}" if exponent != "0" else mantissa


def grouped(x: float, digits: int = 3) -> str:
    """A plain number to ``digits`` significant digits, thousands grouped.

    >>> grouped(19000), grouped(5948.3), grouped(385.2), grouped(0.27749), grouped(1.9e6)
    ('19,000', '5,950', '385', '0.277', '1,900,000')
    """
    if x == 0:
        return "0"
    rounded = float(f"{x:.{digits}g}")
    if abs(rounded) >= 1000:
        return f"{rounded:,.0f}"
    return _trim(rounded) if digits == 3 else f"{rounded:g}"


def num(x: float) -> str:
    """Any number in a formula with the values plugged in: suffixes for big counts,
    exponents for huge or tiny ones, grouped digits otherwise.

    >>> num(7e9), num(9.895e14), num(3600), num(989.5), num(0.85), num(1.2e20), num(-0.3)
    ('7B', '989.5T', '3,600', '989.5', '0.85', '1.2e20', '-0.3')
    """
    ax = abs(x)
    if ax == 0:
        return "0"
    if ax >= 1e15 or ax < 1e-3:
        return sci(x)
    if ax >= 1e6:
        for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
            if ax >= scale:
                return f"{x / scale:.4g}{suffix}"
    return grouped(x, 4)


def duration(h: float) -> str:
    """Hours as a person reads a duration (a month is 30 days, a year 365).

    >>> duration(6), duration(743.6), duration(2400), duration(21000)
    ('6h', '31 days', '3.33 months', '2.4 years')
    """
    if h < 2 * HOURS_PER_DAY:
        return _trim(h) + "h"
    days = h / HOURS_PER_DAY
    if days < 2 * DAYS_PER_MONTH:
        return _trim(days) + " days"
    if days < 2 * DAYS_PER_YEAR:
        return _trim(days / DAYS_PER_MONTH) + " months"
    return _trim(days / DAYS_PER_YEAR) + " years"


def _bytes_parts(low: float, high: float) -> tuple[str, str, str]:
    top = max(abs(low), abs(high))
    for scale, suffix in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB")):
        if top >= scale:
            return _trim(low / scale), _trim(high / scale), suffix
    return _trim(low), _trim(high), "bytes"


#: How plan's units are written: one value, and the unit word after it.
_AMOUNT = {
    "parameters": (count, " parameters"), "tokens": (count, " tokens"), "FLOPs": (sci, " FLOPs"),
    "GPU-hours": (grouped, " GPU-hours"), "FLOPs/byte": (grouped, " FLOPs/byte"),
    "tokens/param": (grouped, " tokens/param"), "bytes/param": (grouped, " bytes/param"),
    "GPUs": (grouped, " GPUs"), "epochs": (grouped, " epochs"), "FLOP/s": (count, " FLOP/s"),
    "bytes/s": (count, " bytes/s"), "fraction of bf16 peak": (grouped, ""),
}


def amount(low: float, high: float | None = None, unit: str = "") -> str:
    """A value or a range in plan's units, readable: one unit after a range.

    >>> amount(1.26e11, 1.4e11, "bytes"), amount(8e10, unit="bytes"), amount(7e11, 1.4e12, "tokens")
    ('126–140 GB', '80 GB', '700B–1.4T tokens')
    >>> amount(1.2e20, unit="FLOPs"), amount(19000, unit="GPU-hours"), amount(743.6, unit="hours")
    ('1.2e20 FLOPs', '19,000 GPU-hours', '31 days')
    >>> amount(731.9, 753.2, "hours"), amount(20, 50, "hours")
    ('30.5–31.4 days', '20h – 2.08 days')
    """
    high = low if high is None else high
    if unit == "bytes":
        a, b, suffix = _bytes_parts(low, high)
        return f"{a} {suffix}" if a == b else f"{a}–{b} {suffix}"
    if unit == "hours":
        a, b = duration(low), duration(high)
        if a == b:
            return a
        (na, _, wa), (nb, _, wb) = a.partition(" "), b.partition(" ")
        if wa and wa == wb:
            return f"{na}–{nb} {wa}"
        return f"{a} – {b}"
    fmt, word = _AMOUNT.get(unit, (num, f" {unit}" if unit else ""))
    a, b = fmt(low), fmt(high)
    if unit == "GPUs" and a == b == "1":
        word = " GPU"
    return f"{a}{word}" if a == b else f"{a}–{b}{word}"
