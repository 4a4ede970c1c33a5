"""From tokens and rule matches to the syntax tree (:mod:`recipekg.query.ast`).

:class:`AstBuilder` has one method per rule and per value terminal of ``grammar.lark``,
lark-style: each gets the children of its match, already built, and returns the node.  The
generated parser calls it through a lark ``Transformer`` (:mod:`recipekg.query.parser`);
the lean parser (:mod:`recipekg.query.lean`) calls it directly with the same children, so
both give the same tree.

    >>> from recipekg.query.build import AstBuilder
    >>> from recipekg.query.lean import lean_tokens
    >>> text = "plan where rows = 30k"
    >>> plan, where, rows, eq, value = lean_tokens(text)
    >>> b = AstBuilder(text)
    >>> constraint = b.compare([b.NAME(rows), eq, b.NUMBER(value)])
    >>> (statement,) = b.start([b.plan([plan, b.where([where, constraint])])])
    >>> statement.text, statement.constraints[0].value.value
    ('plan where rows = 30k', 30000.0)

The builder also checks what the grammar cannot: plain ranges (``top 0``,
``between 10 and 5``) raise :class:`~recipekg.errors.RangeError`.
"""

from __future__ import annotations

from recipekg.errors import RangeError
from recipekg.query.ast import (Constraint, Explain, Name, Number, Plan, Position, Quantity,
                                Recipe, Recommend, String)
from recipekg.query.literals import number, quantity, unescape

__all__ = ["AstBuilder", "position"]


# Unit kinds that measure the same thing (the dimension converts or checks them): bits and
# bytes, bits/s and bytes/s, and FLOPs however written.
_FAMILY = {"bits": "bytes", "bits/s": "bytes/s", "flops": "flop", "flop/s": "flop"}


def position(tok) -> Position:
    """The :class:`~recipekg.query.ast.Position` of a token (lark's or the lean one)."""
    return Position(tok.line, tok.column, tok.end_line, tok.end_column, tok.start_pos,
                    tok.end_pos)


class _Where:
    def __init__(self, constraints: tuple[Constraint, ...], pos: Position) -> None:
        self.constraints, self.pos = constraints, pos


class _Top:
    def __init__(self, n: int, pos: Position) -> None:
        self.n, self.pos = n, pos


def _span(first, last) -> Position:
    a = first.pos if hasattr(first, "pos") else position(first)
    b = last.pos if hasattr(last, "pos") else position(last)
    return a.through(b)


def _no_thousands(values) -> None:
    """In a list a comma separates values, so ``in (1,000, 2)`` would silently be 1, 0 and 2: a
    number of one to three digits, a comma with no space, then three digits is an error."""
    for a, b in zip(values, values[1:]):
        if (isinstance(a, Number) and isinstance(b, Number) and a.text.isdigit() and len(a.text) <= 3
                and len(b.text) == 3 and b.text.isdigit() and b.pos.start == a.pos.end + 1):
            written = f"{a.text},{b.text}"
            raise RangeError.at(_span(a, b), f"'{written}' in a list reads as two values, {a.text} and {b.text}: "
                                f"a comma separates the values of a list; write {a.text}{b.text} (or put a space "
                                f"after the comma for two values)", suggestions=[f"{a.text}{b.text}", f"{a.text}, {b.text}"])


class AstBuilder:
    """Methods named after the grammar's rules and terminals build the AST bottom-up.

    ``text`` is the whole query (a statement's ``text`` is a slice of it).
    """

    def __init__(self, text: str) -> None:
        self._text = text

    # --------------------------------------------------------------- terminals
    def NAME(self, tok):
        return Name(tok.value.lower(), position(tok))

    def words(self, children):
        """Several words as one name: ``low memory`` -> ``Name("low memory")``."""
        return Name(" ".join(w.text for w in children), _span(children[0], children[-1]))

    def NUMBER(self, tok):
        return Number(number(tok), tok.value, position(tok))

    def QUANTITY(self, tok):
        value, kind = quantity(tok)
        return Quantity(value, kind, tok.value, position(tok))

    def STRING(self, tok):
        return String(unescape(tok.value[1:-1]), position(tok))

    # --------------------------------------------------------------- constraints
    def compare(self, children):
        dim, op, value = children
        return Constraint(dim, op.value, (value,), _span(dim, value))

    def between(self, children):
        dim, _between, low, _and, high = children
        for v in (low, high):
            if not isinstance(v, (Number, Quantity)):
                raise RangeError.at(v.pos, "'between' needs two numbers or quantities, "
                                    f"e.g. {dim.text} between 10k and 50k",
                                    expected=["a number", "a quantity (e.g. 80GB, 12h, 40%)"])
        kinds = {_FAMILY.get(k, k) for k in (getattr(v, "unit_kind", "count") for v in (low, high))}
        if len(kinds) > 1:
            raise RangeError.at(_span(low, high), f"the bounds of '{dim.text} between' must "
                                "have the same kind of unit (both counts, sizes or durations)")
        if low.value > high.value:
            raise RangeError.at(_span(low, high), f"empty range: {low.text} is larger than "
                                f"{high.text}", suggestions=[f"between {high.text} and {low.text}"])
        return Constraint(dim, "between", (low, high), _span(dim, high))

    def member(self, children):
        dim, values, rpar = children[0], children[3:-1], children[-1]
        values = tuple(v for v in values if isinstance(v, (Name, Number, Quantity, String)))
        _no_thousands(values)
        return Constraint(dim, "in", values, _span(dim, rpar))

    # --------------------------------------------------------------- statements
    def where(self, children):
        constraints = tuple(c for c in children if isinstance(c, Constraint))
        return _Where(constraints, _span(children[0], children[-1]))

    def top(self, children):
        keyword, count = children
        if count.value != int(count.value) or count.value < 1:
            raise RangeError.at(count.pos, f"'top' needs a whole number of at least 1, "
                                f"not {count.text}", expected=["a whole number"])
        return _Top(int(count.value), _span(keyword, count))

    def _statement(self, keyword, rest):
        pos = _span(keyword, rest[-1] if rest else keyword)
        where = next((r for r in rest if isinstance(r, _Where)), None)
        return pos, self._text[pos.start:pos.end], where.constraints if where else ()

    def recommend(self, children):
        keyword, kind, *rest = children
        pos, text, constraints = self._statement(keyword, [kind, *rest])
        top = next((r.n for r in rest if isinstance(r, _Top)), None)
        return Recommend(kind, constraints, top, pos, text)

    def plan(self, children):
        keyword, *rest = children
        pos, text, constraints = self._statement(keyword, rest)
        return Plan(constraints, pos, text)

    def recipe(self, children):
        keyword, *rest = children
        pos, text, constraints = self._statement(keyword, rest)
        return Recipe(constraints, pos, text)

    def explain(self, children):
        keyword, choice, *rest = children
        pos, text, constraints = self._statement(keyword, [choice, *rest])
        return Explain(choice, constraints, pos, text)

    def start(self, children):
        return tuple(children)
