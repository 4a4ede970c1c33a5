"""The literal values of the query language: numbers, quantities with units, strings.

    >>> from recipekg.query.literals import number, quantity, unescape
    >>> class Tok:  # what the parsers hand over: a token's text and where it starts
    ...     line, column = 1, 1
    ...     def __init__(self, value): self.value = value
    ...     def __len__(self): return len(self.value)
    >>> number(Tok("30k")), number(Tok("1.5M")), number(Tok("2.5e20")), number(Tok("7b")), number(Tok("1.4t"))
    (30000.0, 1500000.0, 2.5e+20, 7000000000.0, 1400000000000.0)
    >>> quantity(Tok("80 GB")), quantity(Tok("3 days")), quantity(Tok("40%"))
    ((80000000000.0, 'bytes'), (72.0, 'hours'), (0.4, 'ratio'))
    >>> quantity(Tok("3.35TB/s")), quantity(Tok("80Gb")), quantity(Tok("989 TFLOPS")), quantity(Tok("1 PF-day"))
    ((3350000000000.0, 'bytes/s'), (80000000000.0, 'bits'), (989000000000000.0, 'flop/s'), (8.64e+19, 'flops'))
    >>> number(Tok("7 billion")), number(Tok("1.4 trillion")), number(Tok("2 thousand"))
    (7000000000.0, 1400000000000.0, 2000.0)
    >>> print(unescape(r'8-bit \\"Adam\\"'))
    8-bit "Adam"

A token is anything with ``value``, ``line``, ``column`` and a length (lark's ``Token`` or
the lean tokenizer's).  A value too large for a float is a
:class:`~recipekg.errors.RangeError` underlining the token.  ``decimal`` is imported only
for numbers of more than 20 characters and quantities whose factor is not an integer
(seconds, minutes) or whose digits are many, and ``re`` never, so the query path stays light.
"""

from __future__ import annotations

import math

from recipekg.errors import RangeError

__all__ = ["SUFFIXES", "WORDS", "UNITS", "BITS_PER_BYTE", "NUMBER_PATTERN", "UNIT_HINT", "number",
           "quantity", "unit_factor", "unit_kind", "unescape"]

#: The suffixes of a number and their multipliers: ``30k``, ``1.5M``, ``7B``; lowercase
#: ``m``, ``b`` and ``t`` too, as people write them (``7b``, ``1.5m``, ``1.4t``): a count is
#: never in bytes or metres, and ``7tb``, ``80gb`` and ``30min`` stay quantities.
SUFFIXES = {"k": 10**3, "K": 10**3, "m": 10**6, "M": 10**6, "b": 10**9, "B": 10**9, "G": 10**9, "t": 10**12,
            "T": 10**12}
_SUFFIX_EXP = {"k": 3, "K": 3, "m": 6, "M": 6, "b": 9, "B": 9, "G": 9, "t": 12, "T": 12}
#: Numbers in words: ``7 billion``, ``1.4 trillion`` (short scale).
WORDS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}

#: A definition, not a claim: a byte is 8 bits (``80Gb`` of memory is 10 GB).
BITS_PER_BYTE = 8

_PREFIXES = {"k": 3, "m": 6, "g": 9, "t": 12, "p": 15}
_BINARY = {"ki": 10, "mi": 20, "gi": 30, "ti": 40, "pi": 50}

#: unit (lowercase) -> (kind, factor); the factor is a function of ``Decimal``, so that
#: ``decimal`` is only imported when a query holds a quantity (see :func:`unit_factor`).
#: Kinds: ``bytes``, ``bits``, ``bytes/s``, ``bits/s``, ``hours``, ``ratio``, ``flops`` (an
#: amount of compute), ``flop/s`` (a rate) and ``flop`` (FLOPS written in another case: an
#: amount or a rate by the dimension it is given for).  :func:`unit_kind` reads the case
#: that matters: ``Gb`` (a capital prefix, a small b) is gigabits, ``FLOPS`` a rate and
#: ``FLOPs`` an amount.
UNITS: dict[str, tuple] = {}
for _p, _e in _PREFIXES.items():
    UNITS[_p + "b"] = ("bytes", lambda D, e=_e: D(10) ** e)
    UNITS[_p + "b/s"] = ("bytes/s", lambda D, e=_e: D(10) ** e)
    UNITS[_p + "bit"] = ("bits", lambda D, e=_e: D(10) ** e)
    UNITS[_p + "bit/s"] = ("bits/s", lambda D, e=_e: D(10) ** e)
    UNITS[_p + "flop"] = ("flops", lambda D, e=_e: D(10) ** e)
    UNITS[_p + "flops"] = ("flop", lambda D, e=_e: D(10) ** e)
    UNITS[_p + "flop/s"] = ("flop/s", lambda D, e=_e: D(10) ** e)
for _p, _e in _BINARY.items():
    UNITS[_p + "b"] = ("bytes", lambda D, e=_e: D(2) ** e)
    UNITS[_p + "b/s"] = ("bytes/s", lambda D, e=_e: D(2) ** e)
    UNITS[_p + "bit"] = ("bits", lambda D, e=_e: D(2) ** e)
    UNITS[_p + "bit/s"] = ("bits/s", lambda D, e=_e: D(2) ** e)
for _names, _kind, _factor in [
    ("flop", "flops", lambda D: D(1)), ("flops", "flop", lambda D: D(1)),
    ("flop/s", "flop/s", lambda D: D(1)),
    ("pf-day pf-days petaflop-day petaflop-days", "flops", lambda D: D(10) ** 15 * 86400),
    ("byte bytes", "bytes", lambda D: D(1)),
    ("s sec secs second seconds", "hours", lambda D: 1 / D(3600)),
    ("min mins minute minutes", "hours", lambda D: 1 / D(60)),
    ("h hr hrs hour hours", "hours", lambda D: D(1)),
    ("d day days", "hours", lambda D: D(24)),
    ("w week weeks", "hours", lambda D: D(168)),
    ("month months", "hours", lambda D: D(720)),
    ("y yr yrs year years", "hours", lambda D: D(8760)),
    ("%", "ratio", lambda D: D("0.01")),
]:
    for _n in _names.split():
        UNITS[_n] = (_kind, _factor)
_FACTORS: dict = {}

#: The digits of a number or quantity (no suffix, no unit), as a regular expression.
NUMBER_PATTERN = r"[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"

#: What an error says about suffixes and units.
UNIT_HINT = ("numbers take a suffix k, M, B, G or T, in either case but G (30k, 7B, 7b, 1e21) or a word (7 billion); "
             "quantities a unit: GB, GiB, MB, TB, Gb (bits), TB/s, GB/s, TFLOPS, TFLOP/s, "
             "FLOPs, PF-days, h, d, w, month, year, min or %")

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def unit_kind(unit: str) -> str:
    """The key of :data:`UNITS` for a unit as written, reading the case where it matters.

    >>> unit_kind("GB"), unit_kind("Gb"), unit_kind("gb"), unit_kind("Gb/s"), unit_kind("kB")
    ('gb', 'gbit', 'gb', 'gbit/s', 'kb')
    >>> unit_kind("TFLOPS"), unit_kind("TFLOPs"), unit_kind("tflops"), unit_kind("PF-days")
    ('tflop/s', 'tflop', 'tflops', 'pf-days')
    """
    key = unit.lower()
    if _is_bits(unit):   # a capital prefix and a small b: bits (Gb, Tb/s, Gib)
        head, slash, rest = key.partition("/")
        return head[:-1] + "bit" + slash + rest
    if unit.endswith("FLOPS"):     # FLOPS: per second
        return key[:-1] + "/s"
    if unit.endswith(("FLOPs", "FLOP")):  # FLOPs: an amount
        return key.removesuffix("s")
    return key


def _is_bits(unit: str) -> bool:
    """``[KMGTP]i?b(?:/[sS])?``: a capital prefix and a small b.

    >>> _is_bits("Gb"), _is_bits("Gib/S"), _is_bits("GB"), _is_bits("gb"), _is_bits("Gbit")
    (True, True, False, False, False)
    """
    rest = unit[1:2].removeprefix("i") + unit[2:] if unit[:1] in ("K", "M", "G", "T", "P") else ""
    return rest in ("b", "b/s", "b/S")


def unit_factor(unit: str):
    """The unit's kind and its factor as an exact Decimal (computed once per unit).

    >>> unit_factor("gib"), unit_factor("tflop")
    (('bytes', Decimal('1073741824')), ('flops', Decimal('1000000000000')))
    """
    from decimal import Decimal

    if unit not in _FACTORS:
        kind, factor = UNITS[unit]
        _FACTORS[unit] = (kind, factor(Decimal))
    return _FACTORS[unit]


def _finite(value, tok) -> float:
    """``value`` (a number's text or a Decimal) as a float; a RangeError at the token when it
    is too large for one, or so small that it would silently become 0 (``1e-400``)."""
    try:
        f = float(value)
    except (ArithmeticError, ValueError):
        f = math.inf
    if not math.isfinite(f):
        raise RangeError(f"'{tok}' is too large", line=tok.line, column=tok.column,
                         length=len(tok))
    if f == 0.0 and _nonzero(value):
        raise RangeError(f"'{tok}' is too small: it would be 0 as a number", line=tok.line,
                         column=tok.column, length=len(tok), expected=["a number of at least about 1e-300"])
    return f


def _nonzero(value) -> bool:
    if isinstance(value, str):
        return any(c in "123456789" for c in value.lower().split("e")[0])
    return bool(value)


def number(tok) -> float:
    """``30_000`` -> 30000.0, ``1.5M`` -> 1500000.0, ``2.5e20`` -> 2.5e20, ``7 billion`` -> 7e9."""
    s = tok.value.replace("_", "")
    if s[-1].isalpha() and s[-1] not in _SUFFIX_EXP:  # a word: 7 billion
        word = len(s.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        s = s[:word].rstrip(" \t") + "e" + str(WORDS[s[word:].lower()])
    if len(s) <= 20:
        # At most 20 digits: Decimal(s) * 10**k is exact (28-digit context) and float() of
        # it is the correctly rounded double, which is what float() of the same decimal
        # text gives; so this equals the Decimal path below without importing decimal.
        text = s[:-1] + "e" + str(_SUFFIX_EXP[s[-1]]) if s[-1] in _SUFFIX_EXP else s
        return _finite(text, tok)
    from decimal import Decimal, InvalidOperation

    mult = 1
    if s[-1] in SUFFIXES:
        s, mult = s[:-1], SUFFIXES[s[-1]]
    try:
        return _finite(Decimal(s) * mult, tok)
    except (ArithmeticError, InvalidOperation):
        return _finite(Decimal("Infinity"), tok)


_DIGIT_SET = frozenset("0123456789")


def _digits_end(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _DIGIT_SET:
        pos += 1
    return pos


def number_parts(text: str, pos: int) -> tuple[int, int]:
    """Where the digits of a number (``[0-9]+(?:_[0-9]+)*(?:\\.[0-9]+)?``) starting at ``pos``
    end, and where its exponent (``[eE][+-]?[0-9]+``) ends (the same place when it has none).

    >>> number_parts("1_000.5e-3 GB", 0), number_parts("1.e3", 0)
    ((7, 10), (1, 1))
    """
    stop = _digits_end(text, pos)
    while text[stop:stop + 1] == "_" and text[stop + 1:stop + 2] in _DIGIT_SET:
        stop = _digits_end(text, stop + 1)
    if text[stop:stop + 1] == "." and text[stop + 1:stop + 2] in _DIGIT_SET:
        stop = _digits_end(text, stop + 1)
    at = stop + 1 + (text[stop + 1:stop + 2] in ("+", "-"))
    if text[stop:stop + 1] in ("e", "E") and text[at:at + 1] in _DIGIT_SET:
        return stop, _digits_end(text, at)
    return stop, stop


def quantity(tok) -> tuple[float, str]:
    """``80 GB`` -> (8e10, "bytes"), ``3 days`` -> (72.0, "hours"), ``40%`` -> (0.4, "ratio")."""
    digits, exponent = number_parts(tok.value, 0)
    text, unit = tok.value[:exponent], tok.value[exponent:].lstrip(" \t")
    assert text and unit, tok.value  # the lexer only makes QUANTITY tokens of this form
    key = unit_kind(unit)
    exact = _exact(text.replace("_", ""), key)
    if exact is not None:
        return _finite(exact, tok), UNITS[key][0]
    from decimal import Decimal, InvalidOperation

    kind, factor = unit_factor(key)
    try:
        return _finite(Decimal(text.replace("_", "")) * factor, tok), kind
    except (ArithmeticError, InvalidOperation):
        return _finite(Decimal("Infinity"), tok), kind


def _exact(text: str, unit: str) -> str | None:
    """``Decimal(text) * factor`` of the unit, written out exactly as decimal text (so that
    ``float`` of it is the Decimal path's float), when the factor is an integer (or ``%``)
    and the product has at most 28 digits (Decimal's precision: no rounding) and a modest
    exponent; else None (the Decimal path decides).

    >>> _exact("80", "gb"), _exact("1.5e3", "d"), _exact("40", "%"), _exact("3", "s") is None
    ('80000000000e0', '360e2', '40e-2', True)
    """
    if unit not in _INT_FACTORS:
        factor = UNITS[unit][1]
        try:
            value = factor(int)
        except ValueError:  # "0.01"
            value = None
        _INT_FACTORS[unit] = (1, -2) if unit == "%" else (value, 0) if type(value) is int else None
    scale = _INT_FACTORS[unit]
    if scale is None:
        return None
    mantissa, _, power = text.lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    if len(power) > 4:
        return None
    coefficient = int(whole + fraction) * scale[0]
    if len(str(coefficient)) > 28:
        return None
    return f"{coefficient}e{int(power or 0) - len(fraction) + scale[1]}"


_INT_FACTORS: dict = {}


def unescape(body: str) -> str:
    r"""``\"`` ``\\`` ``\n`` ``\t`` ``\r``; any other ``\x`` stands for ``x``."""
    if "\\" not in body:
        return body
    out, i, end = [], 0, len(body)
    while i < end:
        ch = body[i]
        if ch == "\\" and i + 1 < end and body[i + 1] != "\n":
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)
