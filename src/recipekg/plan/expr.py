"""A small, safe evaluator for the KB's formulas (``rkg:expression "out = ..."``).

Expressions are parsed with Python's :mod:`ast` and only arithmetic is allowed: numbers,
names, ``+ - * / **``, unary minus, parentheses and the functions ``exp``, ``sqrt``,
``min`` and ``max``. Nothing is ever passed to ``eval``::

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

import ast
import itertools
import math

from recipekg.errors import FormulaError
from recipekg.plan.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported when planning: annotations only
    from typing import Callable, Mapping, Union

    Number = Union[int, float, "Q"]

#: The magnitudes plan computes with, inputs and unknowns alike. Not a claim about training
#: runs: a few products of numbers in this span stay far inside floating point's range, so no
#: quantity underflows to 0 or overflows to infinity.
SCALE = (1e-30, 1e40)

#: The longest formula text accepted: the KB's longest is a few hundred characters; the cap
#: keeps parsing and evaluating bounded whatever an extension holds (docs/security.md).
MAX_FORMULA, MAX_DEPTH = 2_000, 100

__all__ = ["Q", "Formula", "parse_formula", "evaluate", "solve", "substitute", "as_q"]


# ---------------------------------------------------------------------------- values

_set = object.__setattr__

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
        _set(self, "value", value)
        _set(self, "low", low)
        _set(self, "high", high)

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
        o = as_q(o)
        return Q(self.value + o.value, self.low + o.low, self.high + o.high)

    __radd__ = __add__

    def __neg__(self):
        return Q(-self.value, -self.high, -self.low)

    def __sub__(self, o):
        return self + (-as_q(o))

    def __rsub__(self, o):
        return as_q(o) - self

    def __mul__(self, o):
        o = as_q(o)
        corners = [a * b for a in (self.low, self.high) for b in (o.low, o.high)]
        return Q(self.value * o.value, min(corners), max(corners))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = as_q(o)
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


#: The functions an expression may call, with how many arguments.
FUNCTIONS: dict[str, tuple[Callable[..., Q], range]] = {
    "exp": (_monotone(math.exp), range(1, 2)),
    "sqrt": (_monotone(math.sqrt), range(1, 2)),
    "min": (_qmin, range(2, 16)),
    "max": (_qmax, range(2, 16)),
}

_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b}
_SYMBOLS = {ast.Add: "+", ast.Sub: "−", ast.Mult: "×", ast.Div: "/", ast.Pow: "^"}


# ---------------------------------------------------------------------------- parsing

class Formula(Record):
    """A parsed ``output = expression``: ``names`` are the free names the expression reads."""

    text: str
    output: str
    body: ast.expr
    names: frozenset[str]


def parse_formula(text: str) -> Formula:
    """Parse ``"out = arithmetic"``; raise :class:`FormulaError` for anything else.

    >>> parse_formula("tokens = c_chinchilla_tokens_per_param * params").output
    'tokens'
    >>> parse_formula("x = [1, 2]")
    Traceback (most recent call last):
    recipekg.errors.FormulaError: 'x = [1, 2]': a list is not allowed
    >>> parse_formula("x = y if z else 1")
    Traceback (most recent call last):
    recipekg.errors.FormulaError: 'x = y if z else 1': a conditional expression is not allowed
    """
    if len(text) > MAX_FORMULA:
        raise FormulaError(f"{text[:40]!r}...: {len(text)} characters (a formula has at most {MAX_FORMULA})")
    try:
        tree = ast.parse(text.strip(), mode="exec")
    except SyntaxError as exc:
        raise FormulaError(f"{text!r}: not an expression ({exc.msg})") from None
    except (RecursionError, MemoryError):
        raise FormulaError(f"{text[:40]!r}...: nested too deeply") from None
    if (len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign)
            or len(tree.body[0].targets) != 1 or not isinstance(tree.body[0].targets[0], ast.Name)):
        raise FormulaError(f"{text!r}: expected 'output = expression'")
    assign = tree.body[0]
    names: set[str] = set()
    _check(assign.value, text, names)
    return Formula(text, assign.targets[0].id, assign.value, frozenset(names))


_WHAT = {ast.Attribute: "attribute access", ast.Subscript: "indexing", ast.List: "a list",
         ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Lambda: "a lambda", ast.IfExp: "a conditional expression",
         ast.Compare: "a comparison", ast.BoolOp: "a boolean operator", ast.JoinedStr: "an f-string"}


def _check(node: ast.AST, text: str, names: set[str], depth: int = 0) -> None:
    def refuse(what: str):
        raise FormulaError(f"{text!r}: {what} is not allowed")

    if depth > MAX_DEPTH:
        refuse(f"nesting deeper than {MAX_DEPTH}")
    depth += 1
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            refuse(f"the literal {node.value!r}")
    elif isinstance(node, ast.Name):
        if node.id.startswith("_"):
            refuse(f"the name {node.id!r}")
        names.add(node.id)
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BINOPS:
            refuse(f"the operator {type(node.op).__name__}")
        _check(node.left, text, names, depth)
        _check(node.right, text, names, depth)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            refuse(f"the operator {type(node.op).__name__}")
        _check(node.operand, text, names, depth)
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute):
            refuse("attribute access")
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            refuse(f"calling {ast.unparse(node.func)!r} (only {', '.join(sorted(FUNCTIONS))})")
        if node.keywords or not node.args or any(isinstance(a, ast.Starred) for a in node.args):
            refuse("keyword or starred arguments")
        if len(node.args) not in FUNCTIONS[node.func.id][1]:
            refuse(f"{node.func.id}() with {len(node.args)} arguments")
        for a in node.args:
            _check(a, text, names, depth)
    else:
        refuse(_WHAT.get(type(node), f"a {type(node).__name__} node"))


# ---------------------------------------------------------------------------- evaluation

def evaluate(formula: Formula, env: Mapping[str, Number]) -> Q:
    """The formula's value with the names bound by ``env`` (numbers or :class:`Q`)."""
    missing = sorted(formula.names - set(env))
    if missing:
        raise FormulaError(f"{formula.text!r}: no value for {', '.join(missing)}")
    return _eval(formula.body, {k: as_q(v) for k, v in env.items() if k in formula.names})


def _eval(node: ast.expr, env: dict[str, Q]) -> Q:
    if isinstance(node, ast.Constant):
        return Q.point(float(node.value))
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env), _eval(node.right, env)
        try:
            return _BINOPS[type(node.op)](left, right)
        except ZeroDivisionError:
            raise FormulaError("division by zero") from None
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, env)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call):
        return FUNCTIONS[node.func.id][0](*(_eval(a, env) for a in node.args))
    raise FormulaError(f"cannot evaluate {ast.dump(node)}")  # unreachable after parse_formula()


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

    def f(x: float) -> float:
        return _eval(formula.body, {k: Q.point(v) for k, v in dict(env, **{unknown: x}).items()
                                    if k in formula.names}).value - target

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

    def show(node: ast.expr, parent_prec: int = 0) -> str:
        if isinstance(node, ast.Constant):
            return fmt(Q.point(float(node.value)))
        if isinstance(node, ast.Name):
            return fmt(as_q(env[node.id]))
        if isinstance(node, ast.UnaryOp):
            return ("−" if isinstance(node.op, ast.USub) else "+") + show(node.operand, 4)
        if isinstance(node, ast.Call):
            return f"{node.func.id}(" + ", ".join(show(a) for a in node.args) + ")"
        prec = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.Pow: 3}[type(node.op)]
        right_prec = prec + (0 if isinstance(node.op, (ast.Add, ast.Mult)) else 1)
        text = f"{show(node.left, prec)} {_SYMBOLS[type(node.op)]} {show(node.right, right_prec)}"
        return f"({text})" if prec < parent_prec else text

    return show(formula.body)
