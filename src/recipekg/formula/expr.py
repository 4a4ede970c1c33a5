"""A small, safe evaluator for the KB's formulas (``rkg:expression "out = ..."``).

Expressions are read by :mod:`recipekg.formula.syntax` (only arithmetic: numbers, names,
``+ - * / **``, unary minus, parentheses and the functions ``exp``, ``sqrt``, ``min`` and
``max``; nothing is ever passed to ``eval``) when the snapshot is compiled; planning
evaluates the trees it stored, without importing :mod:`ast`::

    >>> f = parse_formula("flops = c_flops_per_param_token * params * tokens")
    >>> f.output, sorted(f.names)
    ('flops', ['c_flops_per_param_token', 'params', 'tokens'])
    >>> evaluate(f, {"c_flops_per_param_token": 6, "params": 7e9, "tokens": 1.4e11})
    Q(value=5.88e+21, low=5.88e+21, high=5.88e+21)

Values are :class:`Q`: a point estimate with a ``[low, high]`` range around it, and ranges
flow through the arithmetic (interval arithmetic, each range taken end to end)::

    >>> evaluate(parse_formula("memory = c * params"), {"c": Q.span(18, 20), "params": 1e9})
    Q(value=19000000000.0, low=18000000000.0, high=20000000000.0)

Anything else is refused with :class:`recipekg.errors.FormulaError` (a :class:`KBError`:
a formula that is not arithmetic is a broken KB)::

    >>> parse_formula("x = __import__('os').system('true')")
    Traceback (most recent call last):
    recipekg.errors.FormulaError: "x = __import__('os').system('true')": attribute access is not allowed

:func:`solve` inverts a formula for one of its inputs (monotone formulas only), and
:func:`substitute` shows a formula with the numbers plugged in::

    >>> solve(parse_formula("tokens = c * params"), "params", {"c": 20, "tokens": 1.4e11}).value
    7000000000.0
    >>> substitute(parse_formula("flops = c * params * tokens"),
    ...            {"c": 6, "params": 7e9, "tokens": 1.4e11}, lambda q: f"{q.value:g}")
    '6 × 7e+09 × 1.4e+11'
"""

from __future__ import annotations

import itertools
import math

from recipekg.errors import FormulaError
from recipekg.limits import MAGNITUDES
from recipekg.record import Record

#: Pure unit conversions: definitions, not claims of the reference, so they live here and not
#: in the KB. The KB's formulas name them (seconds_per_hour, bits_per_byte, watts_per_kilowatt)
#: and whoever evaluates a formula binds them (plan, the reasoner's derived dimensions).
CONVERSIONS = {"seconds_per_hour": 3600.0, "bits_per_byte": 8.0, "watts_per_kilowatt": 1000.0}

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported when planning: annotations only
    from typing import Callable, Mapping, Union

    Number = Union[int, float, "Q"]

#: The magnitudes plan computes with, inputs and unknowns alike: the product-safety limit of
#: recipekg.limits, which validate applies to the KB's figures too.
SCALE = MAGNITUDES

__all__ = ["Q", "Formula", "parse_formula", "formula_of", "compose", "evaluate", "solve", "substitute",
           "unparse", "as_q", "const_q"]


# ---------------------------------------------------------------------------- values

class Q(Record):
    """A number with a range: ``value`` is the point estimate, ``low``/``high`` the bounds.

    >>> Q.span(100, 200)                # a range without a point: the midpoint stands for it
    Q(value=150.0, low=100.0, high=200.0)
    >>> Q.point(3) * Q.span(1, 2) - 1
    Q(value=3.5, low=2.0, high=5.0)
    """

    value: float
    low: float
    high: float

    def __init__(self, value: float, low: float, high: float) -> None:  # Record's, unrolled: the hot one
        fields = self.__dict__  # frozen: past __setattr__, by the dict's own item assignment (the cheapest)
        fields["value"], fields["low"], fields["high"] = value, low, high

    @classmethod
    def point(cls, x: float) -> "Q":
        x = float(x)
        return cls(x, x, x)

    @classmethod
    def span(cls, low: float, high: float, value: float | None = None) -> "Q":
        low, high = sorted((float(low), float(high)))
        return cls((low + high) / 2 if value is None else float(value), low, high)

    @property
    def is_range(self) -> bool:
        return self.low != self.high

    def __add__(self, o):
        o = o if type(o) is Q else as_q(o)
        return Q(self.value + o.value, self.low + o.low, self.high + o.high)

    __radd__ = __add__

    def __neg__(self):
        return Q(-self.value, -self.high, -self.low)

    def __sub__(self, o):
        return self + (-as_q(o))

    def __rsub__(self, o):
        return as_q(o) - self

    def __mul__(self, o):
        o = o if type(o) is Q else as_q(o)
        low, high = self.low, self.high
        corners = (low * o.low, low * o.high, high * o.low, high * o.high)  # the order min and max see
        return Q(self.value * o.value, min(corners), max(corners))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = o if type(o) is Q else as_q(o)
        if o.low <= 0 <= o.high:
            raise FormulaError("division by a range that includes zero")
        return self * Q(1 / o.value, 1 / o.high, 1 / o.low)

    def __rtruediv__(self, o):
        return as_q(o) / self

    def __pow__(self, o):
        o = as_q(o)
        try:
            value = self.value ** o.value
            corners = [a ** b for a in (self.low, self.high) for b in (o.low, o.high)]
        except (OverflowError, ZeroDivisionError) as exc:
            raise FormulaError(f"power out of range: {exc}") from None
        if any(isinstance(c, complex) for c in corners + [value]):
            raise FormulaError("a negative number to a fractional power")
        low, high = min(corners), max(corners)
        if self.low < 0 < self.high and o.low == o.high and o.low > 0 and o.low == int(o.low) and int(o.low) % 2 == 0:
            low = 0.0  # an even power of a range through zero
        return Q(value, low, high)


def const_q(c: dict) -> Q:
    """A KB constant (a snapshot record) as a :class:`Q`: its low–high range around its value,
    or its value.

    >>> const_q({"value": None, "low": 18.0, "high": 20.0})
    Q(value=19.0, low=18.0, high=20.0)
    """
    if c["low"] is not None and c["high"] is not None:
        return Q.span(c["low"], c["high"], c["value"])
    return Q.point(c["value"])


def as_q(x: Number) -> Q:
    """A number or a :class:`Q` as a :class:`Q`."""
    if isinstance(x, Q):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise FormulaError(f"not a number: {x!r}")
    return Q.point(float(x))


def _monotone(fn: Callable[[float], float]) -> Callable[[Q], Q]:
    def apply(x: Q) -> Q:
        try:
            return Q(fn(x.value), fn(x.low), fn(x.high))
        except (OverflowError, ValueError) as exc:
            raise FormulaError(f"{fn.__name__}: {exc}") from None
    return apply


def _qmin(*args: Q) -> Q:
    return Q(min(a.value for a in args), min(a.low for a in args), min(a.high for a in args))


def _qmax(*args: Q) -> Q:
    return Q(max(a.value for a in args), max(a.low for a in args), max(a.high for a in args))


#: The functions an expression may call (:data:`recipekg.formula.syntax.ARITY` says with how
#: many arguments).
FUNCTIONS: dict[str, Callable[..., Q]] = {
    "exp": _monotone(math.exp), "sqrt": _monotone(math.sqrt), "min": _qmin, "max": _qmax,
}

_BINOPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
           "/": lambda a, b: a / b, "^": lambda a, b: a ** b}
_SYMBOLS = {"+": "+", "-": "−", "*": "×", "/": "/", "^": "^"}
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}


# ---------------------------------------------------------------------------- formulas

class Formula(Record):
    """A parsed ``output = expression``: ``body`` is its tree (:mod:`recipekg.formula.syntax`),
    ``names`` the free names the expression reads."""

    text: str
    output: str
    body: object
    names: frozenset[str]


def parse_formula(text: str) -> Formula:
    """Parse ``"out = arithmetic"``; raise :class:`FormulaError` for anything else (this
    imports :mod:`ast`: planning reads the trees the snapshot stored, :func:`formula_of`).

    >>> parse_formula("tokens = c_chinchilla_tokens_per_param * params").output
    'tokens'
    """
    from recipekg.formula.syntax import read_formula

    output, body, names = read_formula(text)
    return Formula(text, output, body, frozenset(names))


def formula_of(record: dict) -> Formula:
    """The formula a snapshot record holds (``expression``, and what it ``computes``, the
    ``tree`` and the ``names`` the compiler read from it, or the ``error`` it found).

    >>> formula_of({"expression": "y = 2 * x", "computes": "y", "tree": ["*", 2, "x"], "names": ["x"]}).names
    frozenset({'x'})
    """
    if record.get("error"):
        raise FormulaError(record["error"])
    return Formula(record["expression"], record["computes"], record["tree"], frozenset(record["names"]))


def compose(outer: Formula, name: str, inner: Formula) -> Formula:
    """``outer`` with its input ``name`` replaced by ``inner``'s expression.

    >>> compose(parse_formula("f = 6 * p / t"), "t", parse_formula("t = 20 * p")).text
    'f = 6 * p / (20 * p)'
    """
    def put(node):
        if node == name and type(node) is str:
            return inner.body
        return [node[0], *map(put, node[1:])] if type(node) is list else node

    body = put(outer.body)
    names = (outer.names - {name}) | inner.names if name in outer.names else outer.names
    return Formula(f"{outer.output} = {unparse(body)}", outer.output, body, names)


# ---------------------------------------------------------------------------- evaluation

def evaluate(formula: Formula, env: Mapping[str, Number]) -> Q:
    """The formula's value with the names bound by ``env`` (numbers or :class:`Q`)."""
    if not formula.names <= env.keys():
        missing = sorted(formula.names - set(env))
        raise FormulaError(f"{formula.text!r}: no value for {', '.join(missing)}")
    return _eval(formula.body, {k: v if type(v) is Q else as_q(v) for k, v in env.items() if k in formula.names})


def _eval(node, env: dict[str, Q]) -> Q:
    kind = type(node)
    if kind is str:
        return env[node]
    if kind is not list:
        return Q.point(float(node))
    op = node[0]
    if op in _BINOPS:
        left, right = _eval(node[1], env), _eval(node[2], env)
        try:  # the commonest operators without the table's call
            if op == "*":
                return left * right
            if op == "/":
                return left / right
            return _BINOPS[op](left, right)
        except ZeroDivisionError:
            raise FormulaError("division by zero") from None
    if op == "neg":
        return -_eval(node[1], env)
    if op == "pos":
        return _eval(node[1], env)
    return FUNCTIONS[op](*(_eval(a, env) for a in node[1:]))


def solve(formula: Formula, unknown: str, env: Mapping[str, Number],
          bracket: tuple[float, float] | None = None) -> Q | None:
    """The value of input ``unknown`` for which the formula gives ``env[formula.output]``.

    The formula must be monotone in ``unknown`` on the (positive) ``bracket``; each end of
    every range in ``env`` is solved separately, so ranges come back as ranges, each bound
    from the ends that solved. An end with no solution in the bracket (the target is below
    an asymptote there) makes the high bound infinite, and the point estimate too when the
    point has none; ``None`` when no end solves at all::

        >>> solve(parse_formula("m = a * p / g + b * p"), "g", {"a": 12, "b": 4, "p": 7e9, "m": 8e10}).value
        1.61538461538
        >>> solve(parse_formula("m = a * p / g + b * p"), "g", {"a": 12, "b": 8, "p": 7e9, "m": 5e10}) is None
        True
        >>> solve(parse_formula("m = a * p / g + b * p"), "g", {"a": 12, "b": Q.span(4, 8), "p": 13e9, "m": 8e10})
        Q(value=78.0, low=5.57142857143, high=inf)
    """
    bracket = bracket or SCALE
    env = {k: as_q(v) for k, v in env.items()}
    ranged = sorted(k for k, v in env.items() if v.is_range and (k in formula.names or k == formula.output))
    point_env = {k: v.value for k, v in env.items()}
    value = _solve_point(formula, unknown, point_env, bracket)
    solved, unsolved = [], False
    for ends in itertools.product(*[(env[k].low, env[k].high) for k in ranged]):
        x = _solve_point(formula, unknown, dict(point_env, **dict(zip(ranged, ends))), bracket)
        if x is None:
            unsolved = True
        else:
            solved.append(x)
    if value is not None:
        solved.append(value)
    if not solved:
        return None
    # The bounds come from the ends that solved; an end with no solution leaves the range
    # open above (and the point estimate too, when the point itself has none).
    high = math.inf if unsolved or value is None else max(solved)
    return Q(math.inf if value is None else value, min(solved), high)


def _solve_point(formula: Formula, unknown: str, env: dict[str, float], bracket) -> float | None:
    target = env[formula.output]

    bound = {k: Q.point(v) for k, v in env.items() if k in formula.names}

    def f(x: float) -> float:
        bound[unknown] = Q.point(x)
        return _eval(formula.body, bound).value - target

    lo, hi = math.log(bracket[0]), math.log(bracket[1])
    try:
        flo, fhi = f(math.exp(lo)), f(math.exp(hi))
    except (FormulaError, OverflowError):
        return None
    if flo == 0:
        return math.exp(lo)
    if fhi == 0:
        return math.exp(hi)
    if (flo > 0) == (fhi > 0):
        return None
    return _tidy(math.exp(_illinois(lambda t: f(math.exp(t)), lo, flo, hi, fhi)))


def _illinois(g: Callable[[float], float], a: float, ga: float, b: float, gb: float) -> float:
    """A root of ``g`` in ``[a, b]`` (``ga``, ``gb`` of opposite signs): false position with
    the Illinois correction, and a bisection step whenever the bracket does not halve, so it
    never takes more steps than bisection and usually about ten."""
    side, width = 0, b - a
    for _ in range(200):
        if b - a <= 1e-13 * max(1.0, abs(a), abs(b)):
            break
        c = (a * gb - b * ga) / (gb - ga)
        if not a < c < b or (b - a) > width / 2:  # a slow step: bisect instead
            c, side = (a + b) / 2, 0
        width = b - a
        gc = g(c)
        if gc == 0:
            return c
        if (gc > 0) == (gb > 0):
            b, gb = c, gc
            ga, side = (ga / 2 if side == -1 else ga), -1
        else:
            a, ga = c, gc
            gb, side = (gb / 2 if side == 1 else gb), 1
    return (a + b) / 2


def _tidy(x: float) -> float:
    """Round away the last bits bisection leaves (1.6000000000000003 → 1.6)."""
    return float(f"{x:.12g}")


# ---------------------------------------------------------------------------- display

def substitute(formula: Formula, env: Mapping[str, Number], fmt: Callable[[Q], str]) -> str:
    """The expression with each name replaced by ``fmt`` of its value (× for *, − for -)."""
    return _show(formula.body, lambda name: fmt(as_q(env[name])), lambda x: fmt(Q.point(float(x))), _SYMBOLS)


def unparse(tree) -> str:
    """A tree as the formula text it came from (up to spacing and parentheses).

    >>> unparse(["-", "a", ["-", "b", ["neg", "c"]]])
    'a - (b - -c)'
    """
    return _show(tree, str, repr, {op: op if op != "^" else "**" for op in _SYMBOLS})


def _show(node, name: Callable, number: Callable, symbols: dict, parent_prec: int = 0) -> str:
    kind = type(node)
    if kind is str:
        return name(node)
    if kind is not list:
        return number(node)
    op = node[0]
    if op in ("neg", "pos"):
        text = (symbols["-"] if op == "neg" else "+") + _show(node[1], name, number, symbols, 4)
        return f"({text})" if parent_prec >= 3 else text
    if op not in _PRECEDENCE:
        return f"{op}(" + ", ".join(_show(a, name, number, symbols) for a in node[1:]) + ")"
    prec = _PRECEDENCE[op]
    right_prec = prec + (0 if op in ("+", "*") else 1)
    text = (f"{_show(node[1], name, number, symbols, prec)} {symbols[op]} "
            f"{_show(node[2], name, number, symbols, right_prec)}")
    return f"({text})" if prec < parent_prec else text
