"""Syntax tree of the recipekg query language (what :func:`recipekg.query.parser.parse` returns).

Every node is a frozen value object (a slotted :class:`recipekg.record.Record`: fields,
equality, hash, repr, pickling) with a :class:`Position` (1-based line and column of the first character, plus the end,
so an error can underline the whole token)::

    >>> from recipekg.query.parser import parse
    >>> (stmt,) = parse("recommend architecture where rows = 30k top 3")
    >>> stmt.kind.text, stmt.top
    ('architecture', 3)
    >>> c = stmt.constraints[0]
    >>> c.dimension.text, c.op, c.values[0].value, c.values[0].text
    ('rows', '=', 30000.0, '30k')
    >>> c.pos.line, c.pos.column, c.pos.end_column
    (1, 30, 40)

Names are lowercased; which names exist is checked later against the ontology
(:mod:`recipekg.reason.resolve`).  :func:`plain` renders any node as plain JSON-able data
(the shape used by ``tests/cases/parse.json``).
"""

from __future__ import annotations

from recipekg.errors import FrozenInstanceError  # noqa: F401  (also importable from here)
from recipekg.record import Record

__all__ = [
    "Position", "Name", "Number", "Quantity", "String", "Value", "Constraint",
    "Recommend", "Plan", "Explain", "Recipe", "Statement", "OPERATORS", "plain",
]

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported on the query path; ast.UnitKind still works (below)
    from typing import Literal

    UnitKind = Literal["bytes", "bits", "bytes/s", "bits/s", "hours", "ratio", "flops", "flop/s", "flop"]

#: The operators of a constraint, as they appear in :attr:`Constraint.op`.
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "between", "in")


_set = object.__setattr__


class Position(Record, slots=True):
    """Where a node is in the query text.

    ``line``/``column`` are 1-based and point at the first character; ``end_line``/
    ``end_column`` point just past the last one; ``start``/``end`` are 0-based offsets
    into the whole text (``text[pos.start:pos.end]`` is the node's source).

    >>> Position(1, 30, 1, 40, 29, 39).length
    10
    """

    line: int
    column: int
    end_line: int
    end_column: int
    start: int
    end: int

    def __init__(self, line: int, column: int, end_line: int, end_column: int, start: int, end: int) -> None:
        _set(self, "line", line)
        _set(self, "column", column)
        _set(self, "end_line", end_line)
        _set(self, "end_column", end_column)
        _set(self, "start", start)
        _set(self, "end", end)

    @property
    def length(self) -> int:
        """Characters to underline on the first line (at least 1)."""
        if self.end_line == self.line:
            return max(1, self.end_column - self.column)
        return 1

    def through(self, other: Position) -> Position:
        """The span from the start of ``self`` to the end of ``other``."""
        return Position(self.line, self.column, other.end_line, other.end_column,
                        self.start, other.end)


# ----------------------------------------------------------------------------- values

class Name(Record, slots=True):
    """A bare word, lowercased: ``Time-Series`` -> ``Name("time-series")``."""

    text: str
    pos: Position

    def __init__(self, text: str, pos: Position) -> None:
        _set(self, "text", text)
        _set(self, "pos", pos)


class Number(Record, slots=True):
    """A plain count: ``30k`` -> ``Number(30000.0, "30k")``; ``1e21``, ``30_000``, ``7B``."""

    value: float
    text: str
    pos: Position

    def __init__(self, value: float, text: str, pos: Position) -> None:
        _set(self, "value", value)
        _set(self, "text", text)
        _set(self, "pos", pos)


class Quantity(Record, slots=True):
    """A number with a unit, normalised: ``80GB`` -> ``Quantity(8e10, "bytes", "80GB")``.

    Bytes (GB = 1e9, GiB = 2**30), bits (``80Gb``: a capital prefix and a small b), bytes
    or bits per second (``3.35TB/s``, ``100Gb/s``), hours (``3 days`` -> 72.0, a month is
    720, a year 8760), a ratio (``40%`` -> 0.4), FLOPs (``5.88e21 FLOPs``, ``10 PF-days``),
    FLOP/s (``989 TFLOPS``, ``989 TFLOP/s``) or ``flop``, FLOPS in another case
    (``989 Tflops``), read by its dimension.  Bits stay bits here: the dimension they are
    given for converts them (:mod:`recipekg.reason.resolve`).
    """

    value: float
    unit_kind: UnitKind
    text: str
    pos: Position

    def __init__(self, value: float, unit_kind: UnitKind, text: str, pos: Position) -> None:
        _set(self, "value", value)
        _set(self, "unit_kind", unit_kind)
        _set(self, "text", text)
        _set(self, "pos", pos)


class String(Record, slots=True):
    """A quoted string with its escapes resolved: ``"8-bit \\"Adam\\""`` -> ``8-bit "Adam"``."""

    text: str
    pos: Position

    def __init__(self, text: str, pos: Position) -> None:
        _set(self, "text", text)
        _set(self, "pos", pos)


Value = Name | Number | Quantity | String


# ----------------------------------------------------------------------------- constraints

class Constraint(Record, slots=True):
    """``<dimension> <op> <value>``.

    ``op`` is one of :data:`OPERATORS`; ``values`` has one value for a comparison, two for
    ``between`` (low, high) and one or more for ``in``::

        rows between 10k and 50k   -> Constraint(Name("rows"), "between", (Number(1e4), Number(5e4)))
        data in (images, video)    -> Constraint(Name("data"), "in", (Name("images"), Name("video")))
    """

    dimension: Name
    op: str
    values: tuple[Value, ...]
    pos: Position

    def __init__(self, dimension: Name, op: str, values: tuple[Value, ...], pos: Position) -> None:
        _set(self, "dimension", dimension)
        _set(self, "op", op)
        _set(self, "values", values)
        _set(self, "pos", pos)

    @property
    def value(self) -> Value:
        """The single value of a comparison (the first value otherwise)."""
        return self.values[0]


# ----------------------------------------------------------------------------- statements

class Recommend(Record, slots=True):
    """``recommend architecture where data = tabular top 3``.

    ``kind`` is the kind word as written (lowercased, plural allowed; checked later);
    ``top`` is ``None`` when absent; ``text`` is the statement's source text.
    """

    kind: Name
    constraints: tuple[Constraint, ...]
    top: int | None
    pos: Position
    text: str

    def __init__(self, kind: Name, constraints: tuple[Constraint, ...], top: int | None, pos: Position, text: str) -> None:
        _set(self, "kind", kind)
        _set(self, "constraints", constraints)
        _set(self, "top", top)
        _set(self, "pos", pos)
        _set(self, "text", text)


class Plan(Record, slots=True):
    """``plan where params = 7B and hardware = h100 and gpus = 8``."""

    constraints: tuple[Constraint, ...]
    pos: Position
    text: str

    def __init__(self, constraints: tuple[Constraint, ...], pos: Position, text: str) -> None:
        _set(self, "constraints", constraints)
        _set(self, "pos", pos)
        _set(self, "text", text)


class Explain(Record, slots=True):
    """``explain vit where data = images`` or ``explain "8-bit Adam" where ...``."""

    choice: Name | String
    constraints: tuple[Constraint, ...]
    pos: Position
    text: str

    def __init__(self, choice: Name | String, constraints: tuple[Constraint, ...], pos: Position, text: str) -> None:
        _set(self, "choice", choice)
        _set(self, "constraints", constraints)
        _set(self, "pos", pos)
        _set(self, "text", text)


class Recipe(Record, slots=True):
    """``recipe where params = 7B and hardware = h100 and gpus = 64``: the whole training
    recipe for the situation (:mod:`recipekg.recipe`)."""

    constraints: tuple[Constraint, ...]
    pos: Position
    text: str

    def __init__(self, constraints: tuple[Constraint, ...], pos: Position, text: str) -> None:
        _set(self, "constraints", constraints)
        _set(self, "pos", pos)
        _set(self, "text", text)


Statement = Recommend | Plan | Explain | Recipe


def __getattr__(name: str):
    if name == "UnitKind":  # typing is not imported on the query path
        from typing import Literal

        return Literal["bytes", "bits", "bytes/s", "bits/s", "hours", "ratio", "flops", "flop/s", "flop"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ----------------------------------------------------------------------------- rendering

def plain(node: object) -> object:
    """Render a node (or a tuple of them) as plain data, without positions.

    >>> from recipekg.query.parser import parse
    >>> plain(parse("plan where gpu-memory = 80 GB"))
    [{'statement': 'plan', 'constraints': [{'dimension': 'gpu-memory', 'op': '=', \
'values': [{'quantity': 80000000000.0, 'unit': 'bytes', 'text': '80 GB'}]}]}]
    """
    if isinstance(node, (tuple, list)):
        return [plain(n) for n in node]
    if isinstance(node, Name):
        return {"name": node.text}
    if isinstance(node, Number):
        return {"number": node.value, "text": node.text}
    if isinstance(node, Quantity):
        return {"quantity": node.value, "unit": node.unit_kind, "text": node.text}
    if isinstance(node, String):
        return {"string": node.text}
    if isinstance(node, Constraint):
        return {"dimension": node.dimension.text, "op": node.op, "values": plain(node.values)}
    if isinstance(node, Recommend):
        return {"statement": "recommend", "kind": node.kind.text,
                "constraints": plain(node.constraints), "top": node.top}
    if isinstance(node, Plan):
        return {"statement": "plan", "constraints": plain(node.constraints)}
    if isinstance(node, Recipe):
        return {"statement": "recipe", "constraints": plain(node.constraints)}
    if isinstance(node, Explain):
        return {"statement": "explain", "choice": plain(node.choice),
                "constraints": plain(node.constraints)}
    raise TypeError(f"not a query node: {node!r}")
