"""Errors of recipekg: one base class that knows where it happened and how to say so.

    >>> err = QuerySyntaxError("missing value after '='", line=1, column=36,
    ...                        source_line="recommend architecture where data =",
    ...                        expected=["a name", "a number"], suggestions=["tabular"])
    >>> print(err)
    line 1, column 36: missing value after '='
      recommend architecture where data =
                                         ^
    expected: a name or a number
    did you mean: 'tabular'
    >>> err.to_dict()["kind"]
    'syntax'

Every error class of recipekg lives here; a class's ``kind`` is the ``"kind"`` of the JSON
error object. Errors raised without the query text (the vocabulary check only has a
statement) get their source line in one place, :meth:`recipekg.api.KnowledgeBase.query`,
through :meth:`RecipeKGError.with_source`; :mod:`recipekg.render.errors` writes them out.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the query path imports neither typing's nor difflib's weight
    from collections.abc import Iterable, Sequence
    from typing import Any

    from recipekg.contracts.errors import ErrorDetail

__all__ = [
    "RecipeKGError", "QuerySyntaxError", "VocabularyError", "RangeError", "KBError",
    "FormulaError", "UsageError", "UnsupportedStatement", "EngineError", "InternalError",
    "FrozenInstanceError", "closest",
]


#: What every surface says about a failure that is not the user's (a bug): one line, no traceback.
INTERNAL_ERROR = "internal error, please report it"


class RecipeKGError(Exception):
    """Base of every error recipekg reports to a user.

    ``kind`` is set by the subclass: ``"syntax"``, ``"unknown-name"``, ``"value"``, ``"kb"``,
    ``"usage"``, ``"engine"`` or ``"internal"``; ``line``/``column`` are 1-based (``None`` when unknown); ``length`` is how
    many characters the caret line underlines; ``source_line`` is the text of that line;
    ``expected`` and ``suggestions`` are phrases in the language's own words; ``notes`` warn
    about a suggestion (one that is a different concept, not a spelling of what was typed);
    ``file`` names the file the text came from (a KB file, a query file), if any.
    """

    kind: str = "error"

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        length: int = 1,
        source_line: str | None = None,
        expected: Iterable[str] = (),
        suggestions: Iterable[str] = (),
        file: str | None = None,
        notes: Iterable[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.length = max(1, length)
        self.source_line = source_line
        self.expected = list(expected)
        self.suggestions = list(suggestions)
        self.file = file
        self.notes = list(notes)

    @classmethod
    def at(cls, pos: Any, message: str, **kwargs: Any) -> RecipeKGError:
        """An error underlining ``pos`` (a :class:`recipekg.ast.Position` or any object
        with ``line``, ``column`` and ``length``)::

            VocabularyError.at(name.pos, "unknown value 'tabularr'", suggestions=["tabular"])
        """
        return cls(message, line=pos.line, column=pos.column,
                   length=getattr(pos, "length", 1), **kwargs)

    def with_source(self, text: str, file: str | None = None) -> RecipeKGError:
        """Fill in the source line from the whole ``text`` (and the file name); returns self."""
        if self.line is not None and self.source_line is None:
            lines = text.split("\n")
            if 1 <= self.line <= len(lines):
                self.source_line = lines[self.line - 1].rstrip("\r")
        if file is not None and self.file is None:
            self.file = file
        return self

    # ------------------------------------------------------------------ rendering

    def location(self) -> str:
        """``file: line L, column C`` (the parts that are known)."""
        parts = []
        if self.line is not None:
            parts.append(f"line {self.line}")
            if self.column is not None:
                parts.append(f"column {self.column}")
        where = ", ".join(parts)
        if self.file:
            return f"{self.file}: {where}" if where else self.file
        return where

    def __str__(self) -> str:
        loc = self.location()
        out = [f"{loc}: {self.message}" if loc else self.message]
        if self.source_line is not None and self.column is not None:
            text = self.source_line.rstrip("\r\n")
            # keep tabs so the caret lines up under tab-indented text
            pad = "".join(c if c == "\t" else " " for c in text[: self.column - 1])
            pad += " " * max(0, self.column - 1 - len(text))
            width = min(self.length, max(1, len(text) - self.column + 1))
            out.append("  " + text)
            out.append("  " + pad + "^" * width)
        if self.expected:
            out.append("expected: " + _join(self.expected))
        if self.suggestions:
            out.append("did you mean: " + ", ".join(_quote(s) for s in self.suggestions))
        out.extend("note: " + n for n in self.notes)
        return "\n".join(out)

    def to_dict(self) -> ErrorDetail:
        """The JSON error of the spec: ``{"kind", "message", "line", "column", "expected",
        "suggestions"}`` (plus ``"file"`` when the error is about a file)."""
        d: ErrorDetail = {
            "kind": self.kind,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "expected": list(self.expected),
            "suggestions": list(self.suggestions),
        }
        if self.file is not None:
            d["file"] = self.file
        if self.notes:
            d["notes"] = list(self.notes)
        return d

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.message!r}, kind={self.kind!r}, "
                f"line={self.line!r}, column={self.column!r})")


class QuerySyntaxError(RecipeKGError):
    """The query text does not follow the grammar (kind ``"syntax"``)."""

    kind = "syntax"


class VocabularyError(RecipeKGError):
    """An unknown dimension, value or kind (kind ``"unknown-name"``); carries suggestions."""

    kind = "unknown-name"


class RangeError(RecipeKGError):
    """A value of the wrong sort or out of range: ``top 0``, ``between 10 and 5``, a number
    where a name is meant, a negative count (kind ``"value"``)."""

    kind = "value"


class NothingToPlan(RangeError):
    """A ``plan`` without anything to size from (a recipe then leaves plan out)."""


class KBError(RecipeKGError):
    """A broken knowledge-base file (kind ``"kb"``): ``file``, ``line``, ``column``."""

    kind = "kb"


class FormulaError(KBError):
    """A KB formula that is not plain arithmetic, or that cannot be evaluated (kind ``"kb"``)."""


class UsageError(RecipeKGError):
    """A command used the wrong way: options that exclude each other, an unreadable input
    file, a bad setting in the environment (kind ``"usage"``)."""

    kind = "usage"


class UnsupportedStatement(UsageError):
    """A statement the chosen backend cannot answer: ``plan`` has no SPARQL form."""

    @classmethod
    def plan(cls) -> "UnsupportedStatement":
        """What a ``plan`` statement gets from every SPARQL path."""
        return cls("plan has no SPARQL form: it evaluates formulas, not rules; run it without "
                   "--engine/--endpoint", expected=["recommend <kind> where ...", "explain <choice> where ..."])

    @classmethod
    def recipe(cls) -> "UnsupportedStatement":
        """What a ``recipe`` statement gets from every SPARQL path."""
        return cls("recipe has no SPARQL form: its sizes, memory and time are plan's formulas; run it without "
                   "--engine/--endpoint", expected=["recommend <kind> where ...", "explain <choice> where ..."])


class EngineError(RecipeKGError):
    """A SPARQL engine or endpoint failed, or answered something unusable (kind ``"engine"``)."""

    kind = "engine"


class InternalError(RecipeKGError):
    """A bug of recipekg, reported as one short message instead of a traceback."""

    kind = "internal"


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a syntax-tree node (nodes are immutable)."""


def closest(name: str, candidates: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The candidates closest to ``name`` (case-insensitive), best first.

    >>> closest("recomend", ["recommend", "plan", "explain"])
    ['recommend']
    >>> closest("tabulr", ["tabular", "text", "time-series"])
    ['tabular']
    """
    import difflib

    by_lower: dict[str, str] = {}
    for c in candidates:
        by_lower.setdefault(c.lower(), c)
    matches = difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=cutoff)
    return [by_lower[m] for m in matches]


def _quote(s: str) -> str:
    return s if s.startswith(("'", '"')) else f"'{s}'"


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]
