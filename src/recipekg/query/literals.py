"""The literal values of the query language: numbers, quantities with units, strings.

    >>> from recipekg.query.literals import number, quantity, unescape
    >>> class Tok:  # what the parsers hand over: a token's text and where it starts
    ...     line, column = 1, 1
    ...     def __init__(self, value): self.value = value
    ...     def __len__(self): return len(self.value)
    >>> number(Tok("30k")), number(Tok("1.5M")), number(Tok("2.5e20"))
    (30000.0, 1500000.0, 2.5e+20)
    >>> quantity(Tok("80 GB")), quantity(Tok("3 days")), quantity(Tok("40%"))
    ((80000000000.0, 'bytes'), (72.0, 'hours'), (0.4, 'ratio'))
    >>> print(unescape(r'8-bit \\"Adam\\"'))
    8-bit "Adam"

A token is anything with ``value``, ``line``, ``column`` and a length (lark's ``Token`` or
the lean tokenizer's).  A value too large for a float is a
:class:`~recipekg.errors.RangeError` underlining the token.  ``decimal`` is imported only
for quantities and for numbers of more than 20 characters, so the query path stays light.
"""

from __future__ import annotations

import math
import re

from recipekg.errors import RangeError

__all__ = ["SUFFIXES", "UNITS", "NUMBER_PATTERN", "UNIT_HINT", "number", "quantity",
           "unit_factor", "unescape"]

#: The suffixes of a number and their multipliers: ``30k``, ``1.5M``, ``7B``.
SUFFIXES = {"k": 10**3, "K": 10**3, "M": 10**6, "B": 10**9, "G": 10**9, "T": 10**12}
_SUFFIX_EXP = {"k": 3, "K": 3, "M": 6, "B": 9, "G": 9, "T": 12}

#: unit (lowercase) -> (kind, factor); the factor is a function of ``Decimal``, so that
#: ``decimal`` is only imported when a query holds a quantity (see :func:`unit_factor`).
UNITS: dict[str, tuple] = {}
for _names, _kind, _factor in [
    ("kb", "bytes", lambda D: D(10) ** 3), ("mb", "bytes", lambda D: D(10) ** 6),
    ("gb", "bytes", lambda D: D(10) ** 9), ("tb", "bytes", lambda D: D(10) ** 12),
    ("pb", "bytes", lambda D: D(10) ** 15),
    ("kib", "bytes", lambda D: D(2) ** 10), ("mib", "bytes", lambda D: D(2) ** 20),
    ("gib", "bytes", lambda D: D(2) ** 30), ("tib", "bytes", lambda D: D(2) ** 40),
    ("pib", "bytes", lambda D: D(2) ** 50),
    ("s sec secs second seconds", "hours", lambda D: 1 / D(3600)),
    ("min mins minute minutes", "hours", lambda D: 1 / D(60)),
    ("h hr hrs hour hours", "hours", lambda D: D(1)),
    ("d day days", "hours", lambda D: D(24)),
    ("w week weeks", "hours", lambda D: D(168)),
    ("month months", "hours", lambda D: D(720)),
    ("%", "ratio", lambda D: D("0.01")),
]:
    for _n in _names.split():
        UNITS[_n] = (_kind, _factor)
_FACTORS: dict = {}

#: The digits of a number or quantity (no suffix, no unit), as a regular expression.
NUMBER_PATTERN = r"[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_QUANTITY_RE = re.compile(rf"({NUMBER_PATTERN})[ \t]*(.+)")

#: What an error says about suffixes and units.
UNIT_HINT = ("numbers take a suffix k, K, M, B, G or T (30k, 7B, 1e21); quantities a unit: "
             "GB, GiB, MB, TB, h, d, w, month, min or %")

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def unit_factor(unit: str):
    """The unit's kind and its factor as an exact Decimal (computed once per unit).

    >>> unit_factor("gib")
    ('bytes', Decimal('1073741824'))
    """
    from decimal import Decimal

    if unit not in _FACTORS:
        kind, factor = UNITS[unit]
        _FACTORS[unit] = (kind, factor(Decimal))
    return _FACTORS[unit]


def _finite(value, tok) -> float:
    try:
        f = float(value)
    except (ArithmeticError, ValueError):
        f = math.inf
    if not math.isfinite(f):
        raise RangeError(f"'{tok}' is too large", line=tok.line, column=tok.column,
                         length=len(tok))
    return f


def number(tok) -> float:
    """``30_000`` -> 30000.0, ``1.5M`` -> 1500000.0, ``2.5e20`` -> 2.5e20."""
    s = tok.value.replace("_", "")
    if len(s) <= 20:
        # At most 20 digits: Decimal(s) * 10**k is exact (28-digit context) and float() of
        # it is the correctly rounded double, which is what float() of the same decimal
        # text gives; so this equals the Decimal path below without importing decimal.
        text = s[:-1] + "e" + str(_SUFFIX_EXP[s[-1]]) if s[-1] in _SUFFIX_EXP else s
        return _finite(float(text), tok)
    from decimal import Decimal, InvalidOperation

    mult = 1
    if s[-1] in SUFFIXES:
        s, mult = s[:-1], SUFFIXES[s[-1]]
    try:
        return _finite(Decimal(s) * mult, tok)
    except (ArithmeticError, InvalidOperation):
        return _finite(Decimal("Infinity"), tok)


def quantity(tok) -> tuple[float, str]:
    """``80 GB`` -> (8e10, "bytes"), ``3 days`` -> (72.0, "hours"), ``40%`` -> (0.4, "ratio")."""
    from decimal import Decimal, InvalidOperation

    m = _QUANTITY_RE.fullmatch(tok.value)
    assert m, tok.value  # the lexer only makes QUANTITY tokens of this form
    kind, factor = unit_factor(m.group(2).lower())
    try:
        return _finite(Decimal(m.group(1).replace("_", "")) * factor, tok), kind
    except (ArithmeticError, InvalidOperation):
        return _finite(Decimal("Infinity"), tok), kind


def unescape(body: str) -> str:
    r"""``\"`` ``\\`` ``\n`` ``\t`` ``\r``; any other ``\x`` stands for ``x``."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
