"""Numbers as people write them, in the query language's own forms.

    >>> count(30000), count(1.4e12), count(2.5e20), bytes_(8e10), hours(72), hours(6)
    ('30k', '1.4T', '2.5e20', '80GB', '3 days', '6h')

Estimates are shown to three significant digits; a number the user gave and an exact count
(of GPUs) are shown as they are (``exact=True``)::

    >>> count(2048), count(2048, exact=True), count(6.738e9, exact=True), grouped(2048, exact=True)
    ('2.05k', '2048', '6.738B', '2,048')
"""

from __future__ import annotations



#: Significant digits of a number shown as given: enough for any value typed in a query
#: (and few enough to drop float noise such as 3.3500000000000001).
EXACT_DIGITS = 12


def _trim(x: float, exact: bool = False) -> str:
    text = f"{x:.{EXACT_DIGITS if exact else 3}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text[:-2] if text.endswith(".0") else text


def _rounded(x: float, exact: bool) -> float:
    """``x`` as it will be shown, so that the scale is chosen after rounding (999.96B is 1T)."""
    return x if exact else float(f"{x:.3g}")


def count(x: float, exact: bool = False) -> str:
    """A count with k/M/B/T suffixes; exponents beyond a thousand trillion. ``exact``: every
    digit, and a whole number below a million that no suffix shortens as plain digits (2048)."""
    x = _rounded(x, exact)
    ax = abs(x)
    if ax >= 1e15:
        mantissa, exponent = f"{x:.{EXACT_DIGITS if exact else 2}g}".split("e")
        return f"{mantissa}e{int(exponent)}"
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if ax >= scale:
            short = _trim(x / scale, exact)
            if exact and ax < 1e6 and x == int(x) and len(short.replace(".", "").lstrip("-0")) > 3:
                return str(int(x))
            return short + suffix
    return _trim(x, exact)


#: A gibibyte: memories sized in powers of two (a TPU v4's 32 GiB) are written in GiB, exactly.
GIB = float(1 << 30)


def bytes_(x: float, exact: bool = False) -> str:
    """A size in bytes: ``80GB``; one the query gives or a figure states to every digit that is a
    whole number of GiB and no round number of GB is written in GiB, which parses back (``32GiB``,
    not ``34.359738368GB``).

    >>> bytes_(34359738368, exact=True), bytes_(34359738368), bytes_(8e10, exact=True), bytes_(1 << 40, exact=True)
    ('32GiB', '34.4GB', '80GB', '1024GiB')
    """
    if exact and x >= GIB and x % GIB == 0 and x % 1e9:
        return f"{int(x // GIB)}GiB"
    x = _rounded(x, exact)
    for scale, suffix in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if abs(x) >= scale:
            return _trim(x / scale, exact) + suffix
    return _trim(x, exact) + " bytes"


def hours(x: float, exact: bool = False) -> str:
    if x >= 720 and x % 720 == 0:
        n = int(x // 720)
        return f"{n} month" + "s" * (n != 1)
    if x >= 168 and x % 168 == 0:
        n = int(x // 168)
        return f"{n} week" + "s" * (n != 1)
    if x >= 24 and x % 24 == 0:
        n = int(x // 24)
        return f"{n} day" + "s" * (n != 1)
    return _trim(x, exact) + "h"


def ratio(x: float, exact: bool = False) -> str:
    return _trim(x * 100, exact) + "%"


def value(x, unit: str | None = None) -> str:
    """A constraint's value as the query language writes it, by its unit (names pass through),
    to every digit: what it prints parses back to the same value.

    >>> value(0.4, "fraction"), value(3.35e12, "bytes/s"), value("tabular"), value(2048), value(2.039e12, "bytes/s")
    ('40%', '3.35TB/s', 'tabular', '2048', '2.039TB/s')
    >>> value(9.895e14, "FLOP/s"), value(1.5e10, "bytes"), value(36, "hours"), value(1.4e12)
    ('989.5TFLOP/s', '15GB', '36h', '1.4T')
    """
    if isinstance(x, str):
        return x
    return {"bytes": bytes_, "hours": hours, "fraction": ratio, "bytes/s": bytes_per_second,
            "FLOP/s": flop_rate}.get(unit or "count", count)(x, exact=True)


def bytes_per_second(x: float, exact: bool = False) -> str:
    """A bandwidth: ``3.35TB/s``."""
    return bytes_(x, exact) + "/s"


def flop_rate(x: float, exact: bool = False) -> str:
    """A rate of FLOPs: ``989.5TFLOP/s`` (``989.5T FLOP/s`` would not parse back)."""
    x = _rounded(x, exact)
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return _trim(x / scale, exact) + prefix + "FLOP/s"
    return _trim(x, exact) + "FLOP/s"


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


def grouped(x: float, digits: int = 3, exact: bool = False) -> str:
    """A plain number to ``digits`` significant digits (``exact``: every digit), thousands grouped.

    >>> grouped(19000), grouped(5948.3), grouped(385.2), grouped(0.27749), grouped(1.9e6)
    ('19,000', '5,950', '385', '0.277', '1,900,000')
    """
    if x == 0:
        return "0"
    if exact:
        return f"{x:,.{EXACT_DIGITS}g}"
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
    top = _rounded(max(abs(low), abs(high)), False)
    for scale, suffix in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB")):
        if top >= scale:
            return _trim(low / scale), _trim(high / scale), suffix
    return _trim(low), _trim(high), "bytes"


#: How plan's units are written: one value, and the unit word after it.
_AMOUNT = {
    "parameters": (count, " parameters"), "tokens": (count, " tokens"), "FLOPs": (sci, " FLOPs"),
    "GPU-hours": (grouped, " GPU-hours"), "FLOPs/byte": (grouped, " FLOPs/byte"),
    "tokens/param": (grouped, " tokens/param"), "bytes/param": (grouped, " bytes/param"),
    "GPUs": (lambda x: grouped(x, exact=True), " GPUs"), "epochs": (grouped, " epochs"),
    "fraction of bf16 peak": (grouped, ""),
}
#: Units written as a value of the query language, with a space: ``3.35 TB/s``, ``989 TFLOP/s``.
_SPACED = {"bytes/s": bytes_per_second, "FLOP/s": flop_rate}


def amount(low: float, high: float | None = None, unit: str = "", exact: bool = False) -> str:
    """A value or a range in plan's units, readable: one unit after a range. GPUs are counted
    exactly; with ``exact`` (a number the user gave) so are parameters and tokens.

    >>> amount(1.26e11, 1.4e11, "bytes"), amount(8e10, unit="bytes"), amount(7e11, 1.4e12, "tokens")
    ('126–140 GB', '80 GB', '700B–1.4T tokens')
    >>> amount(1.2e20, unit="FLOPs"), amount(19000, unit="GPU-hours"), amount(743.6, unit="hours")
    ('1.2e20 FLOPs', '19,000 GPU-hours', '31 days')
    >>> amount(731.9, 753.2, "hours"), amount(20, 50, "hours")
    ('30.5–31.4 days', '20h – 2.08 days')
    >>> amount(2048, unit="GPUs"), amount(6.738e9, unit="parameters", exact=True), amount(3.35e12, unit="bytes/s")
    ('2,048 GPUs', '6.738B parameters', '3.35 TB/s')

    An exact count with more digits than a suffix reads well is rounded, every digit after it;
    a configuration's other figures keep every digit::

    >>> amount(6738415616, unit="parameters", exact=True), amount(11008, unit="hidden units", exact=True)
    ('6.74B parameters (6,738,415,616)', '11,008 hidden units')
    >>> amount(9.895e14, unit="FLOP/s"), amount(3.12e14, 9.895e14, "FLOP/s")
    ('989.5 TFLOP/s', '312 TFLOP/s – 989.5 TFLOP/s')
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
    if unit in _SPACED:  # hardware figures: as the KB or the user gives them
        a, b = (_SPACED[unit](x, True) for x in (low, high))
        a, b = (_space_unit(x) for x in (a, b))
        return a if a == b else f"{a} – {b}"
    fmt, word = _AMOUNT.get(unit, (num, f" {unit}" if unit else ""))
    if exact and unit in ("parameters", "tokens"):
        if low == high and (spelled := exact_count(low)) is not None:
            return f"{count(low)}{word} ({spelled})"
        fmt = lambda x: count(x, exact=True)  # noqa: E731
    elif exact and fmt is num and low == high == int(low) and abs(low) < 1e6:
        fmt = lambda x: grouped(x, exact=True)  # noqa: E731  # a configuration's 11,008 hidden units
    a, b = fmt(low), fmt(high)
    if unit == "GPUs" and a == b == "1":
        word = " GPU"
    return f"{a}{word}" if a == b else f"{a}–{b}{word}"


#: The most significant digits a count given exactly is written with behind its suffix
#: (6.738B); one with more is written rounded, with every digit after it.
SHORT_DIGITS = 4


def exact_count(x: float) -> str | None:
    """Every digit of an exact count too long to read behind a suffix (a configuration's
    6,738,415,616 parameters), grouped; None when the suffixed form says it in at most
    :data:`SHORT_DIGITS` digits (7B, 6.738B, 2048) or no suffix applies.

    >>> exact_count(6738415616), exact_count(7e9), exact_count(6.738e9), exact_count(2048)
    ('6,738,415,616', None, None, None)
    """
    short = count(x, exact=True)
    if short[-1:] not in ("k", "M", "B", "T"):
        return None
    digits = short[:-1].replace(".", "").replace("-", "").lstrip("0")
    return grouped(x, exact=True) if len(digits) > SHORT_DIGITS else None


def _space_unit(text: str) -> str:
    """A space between the first digit and the letter after it: ``989.5TFLOP/s`` → ``989.5 TFLOP/s``."""
    for i in range(1, len(text)):
        if text[i - 1] in "0123456789" and ("a" <= text[i] <= "z" or "A" <= text[i] <= "Z"):
            return f"{text[:i]} {text[i:]}"
    return text


def quantity_value(q: dict) -> str:
    """A quantity's value (or range) in readable units; why not, when it is missing."""
    if q.get("value") is None:
        return "cannot be computed" if q.get("missing") else "does not apply" if q.get("not_applicable") else "—"
    unit = q.get("unit", "")
    if unit.startswith("fraction of"):
        text = f"{q['value']:.3f}"
        return text + (f" ({q['low']:.3f}–{q['high']:.3f})" if q["low"] != q["high"] else "")
    exact = bool(q.get("given") or q.get("exact"))
    if q["low"] is not None and q["high"] is not None and q["low"] != q["high"]:
        return amount(q["low"], q["high"], unit, exact)
    return amount(q["value"], unit=unit, exact=exact)
