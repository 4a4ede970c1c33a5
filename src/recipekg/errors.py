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
    "FormulaError", "UsageError", "UnsupportedStatement", "EngineError", "LimitError", "InternalError",
    "FrozenInstanceError", "closest", "printable",
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
        """The message, the query line with a caret under the spot, what was expected: every
        control character written as ``\\u001b`` (:func:`printable`), the caret still under it."""
        loc = self.location()
        out = [printable(f"{loc}: {self.message}" if loc else self.message)]
        if self.source_line is not None and self.column is not None:
            text = self.source_line.rstrip("\r\n")
            shown = [printable(c, keep="\t") for c in text]
            # keep tabs so the caret lines up under tab-indented text
            pad = "".join("\t" if c == "\t" else " " * len(w) for c, w in zip(text, shown[: self.column - 1]))
            pad += " " * max(0, self.column - 1 - len(text))
            width = sum(len(w) for w in shown[self.column - 1: self.column - 1 + self.length])
            out.append("  " + "".join(shown))
            out.append("  " + pad + "^" * max(1, width))
        if self.expected:
            out.append(printable("expected: " + _join(self.expected)))
        if self.suggestions:
            out.append(printable("did you mean: " + ", ".join(_quote(s) for s in self.suggestions)))
        out.extend(printable("note: " + n) for n in self.notes)
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

    def transfer(self) -> dict[str, Any]:
        """Everything :func:`error_of` needs to make this error again (in another process)."""
        return dict(self.to_dict(), length=self.length, source_line=self.source_line)

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


class LimitError(RecipeKGError):
    """A request that outlasted the server's time limit, or found every worker busy for that
    long (kind ``"limit"``; ``recipekg serve`` answers it with 503)."""

    kind = "limit"


class InternalError(RecipeKGError):
    """A bug of recipekg, reported as one short message instead of a traceback."""

    kind = "internal"


def error_of(fields: dict) -> RecipeKGError:
    """The error that :meth:`RecipeKGError.transfer` described (in another process).

    >>> str(error_of(RangeError("too big", line=1, column=5, source_line="plan x").transfer()))
    'line 1, column 5: too big\\n  plan x\\n      ^'
    """
    classes: dict[str, type[RecipeKGError]] = {
        c.kind: c for c in (QuerySyntaxError, VocabularyError, RangeError, KBError, UsageError,
                            EngineError, LimitError, InternalError)}
    cls = classes.get(str(fields.get("kind")), InternalError)
    return cls(fields.get("message", ""), line=fields.get("line"), column=fields.get("column"),
               length=fields.get("length", 1), source_line=fields.get("source_line"),
               expected=fields.get("expected", ()), suggestions=fields.get("suggestions", ()),
               file=fields.get("file"), notes=fields.get("notes", ()))


class FrozenInstanceError(AttributeError):
    """Assigning to a field of a syntax-tree node (nodes are immutable)."""


#: Code points a terminal would act on or that hide text, beyond the C0 and C1 controls:
#: zero-width characters, line and paragraph separators, bidirectional embeddings, overrides
#: and isolates, the byte-order mark.
_INVISIBLE = frozenset([*range(0x200B, 0x2010), 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                        0xFEFF])


def printable(text: str, keep: str = "\n\t") -> str:
    """``text`` with every control character (but those in ``keep``) written as ``\\uXXXX``,
    so that no message or answer sends a terminal an escape sequence (ESC, CSI), and the
    same text is valid inside a JSON string.

    >>> print(printable("tab\x1b[31mular"), printable("a\u202eb"), printable("plain"), printable("XG\u2063Boost"))
    tab\\u001b[31mular a\\u202eb plain XG\\u2063Boost
    """
    if text.isprintable():
        return text
    probe = text
    for kept in keep:
        probe = probe.replace(kept, " ")
    if probe.isprintable():  # every character written out is unprintable (a test checks it): none here
        return text
    table = _TABLES.get(keep)
    if table is None:
        hidden = [*range(0x20), *range(0x7F, 0xA0), *_INVISIBLE]
        table = _TABLES[keep] = {o: f"\\u{o:04x}" for o in hidden if chr(o) not in keep}
    text = text.translate(table)
    if all(ch.isprintable() or ch in keep for ch in text):
        return text
    import unicodedata  # (the other format characters: invisible separators, tag characters, U+061C)

    return "".join(_escaped(ch) if unicodedata.category(ch) == "Cf" and ch not in keep else ch for ch in text)


def _escaped(ch: str) -> str:
    """``ch`` as JSON writes it: ``\\uXXXX``, a pair of surrogates above U+FFFF.

    >>> print(_escaped("\u2063"), _escaped("\U000e0049"))
    \\u2063 \\udb40\\udc49
    """
    o = ord(ch)
    if o <= 0xFFFF:
        return f"\\u{o:04x}"
    o -= 0x10000
    return f"\\u{0xD800 + (o >> 10):04x}\\u{0xDC00 + (o & 0x3FF):04x}"


_TABLES: dict = {}


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
    return s if s.startswith(("'", '"')) else f"'{clipped(s)}'"


def clipped(name: str, limit: int = 80) -> str:
    """A name as a message shows it: at most ``limit`` characters, the rest said by a count (an
    extension's alias may be megabytes long: hostile round 9, 029).

    >>> clipped("rows"), clipped("r" + "q" * 100, 10)
    ('rows', 'rqqqqqqqqq… (101 characters)')
    """
    return name if len(name) <= limit else f"{name[:limit]}… ({len(name):,} characters)"


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]
