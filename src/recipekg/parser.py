"""Parse query text into statements (:mod:`recipekg.ast`).

    >>> from recipekg.parser import parse
    >>> [type(s).__name__ for s in parse("recommend optimizer where prefer = low-memory; plan")]
    ['Recommend', 'Plan']
    >>> parse("recomend architecture")
    Traceback (most recent call last):
    ...
    recipekg.errors.QuerySyntaxError: line 1, column 1: a statement starts with 'recommend', 'plan' or 'explain', not 'recomend'
      recomend architecture
      ^^^^^^^^
    expected: 'recommend', 'plan' or 'explain'
    did you mean: 'recommend'

The grammar is ``grammar.lark``; this module imports only the parser generated from it
(``_standalone.py``), never lark, so the query path stays light.  A well-formed query does
not even load the generated parser: :func:`_lean_parse` (a tokenizer with the grammar's own
terminals and a recursive descent over the same rules, building the AST with the same
callbacks) answers it, and anything it does not accept goes to the generated parser, which
is the reference and the only source of error messages.  A property test checks that the
two agree whenever the lean one answers.  After editing the grammar, regenerate with::

    sh tools/gen_parser.sh
    # = python -m lark.tools.standalone --start start --lexer contextual \\
    #       --out src/recipekg/_standalone.py src/recipekg/grammar.lark

The parser checks syntax, units and plain ranges (``top 0``, ``between 10 and 5``); names
are checked later against the ontology.  Whatever the text, :func:`parse` returns a tuple
of statements or raises :class:`~recipekg.errors.RecipeKGError` (never a lark exception).
"""

from __future__ import annotations

import math
import re

from .ast import (Constraint, Explain, Name, Number, Plan, Position, Quantity, Recommend,
                  Statement, String)
from .errors import QuerySyntaxError, RangeError, RecipeKGError, closest

__all__ = ["parse", "STATEMENT_KEYWORDS", "KEYWORDS"]

STATEMENT_KEYWORDS = ("recommend", "plan", "explain")
KEYWORDS = STATEMENT_KEYWORDS + ("where", "and", "top", "between", "in")

_parser = None
_lark = None  # the generated module (_standalone), imported on first use


def _generated():
    global _lark
    if _lark is None:
        from . import _standalone

        _lark = _standalone
    return _lark


def _get_parser():
    global _parser
    if _parser is None:
        _parser = _generated().Lark_StandAlone()
    return _parser


def parse(text: str) -> tuple[Statement, ...]:
    """All statements of ``text`` in order; empty statements produce nothing.

    >>> [s.text for s in parse("plan where gpus = 8 ;; # nothing\\n\\nexplain vit")]
    ['plan where gpus = 8', 'explain vit']
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() needs a str, not {type(text).__name__}")
    statements = _lean_parse(text)
    if statements is not None:
        return statements
    return _full_parse(text)


def _full_parse(text: str) -> tuple[Statement, ...]:
    """:func:`parse` with the generated LALR parser (the reference, and all error messages)."""
    _lark = _generated()
    try:
        try:
            tree = _get_parser().parse(text)
        except _lark.UnexpectedInput as exc:
            raise _syntax_error(text, exc) from None
        try:
            return _transformer()(text).transform(tree)
        except _lark.VisitError as exc:
            if isinstance(exc.orig_exc, RecipeKGError):
                raise exc.orig_exc from None
            raise
    except RecipeKGError as exc:
        raise exc.with_source(text) from None
    except Exception as exc:  # a bug here must still reach the user as one short message
        raise RecipeKGError(f"internal error while parsing: {type(exc).__name__}: {exc}",
                            kind="internal") from exc


# ============================================================================ values

_SUFFIX = {"k": 10**3, "K": 10**3, "M": 10**6, "B": 10**9, "G": 10**9, "T": 10**12}
_SUFFIX_EXP = {"k": 3, "K": 3, "M": 6, "B": 9, "G": 9, "T": 12}

# unit -> (kind, factor); the factor is a function of Decimal, so that ``decimal`` is only
# imported when a query holds a quantity (see _unit_factor)
_UNITS: dict[str, tuple] = {}
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
        _UNITS[_n] = (_kind, _factor)
_FACTORS: dict = {}


def _unit_factor(unit: str):
    """The unit's kind and its factor as an exact Decimal (computed once per unit)."""
    from decimal import Decimal

    if unit not in _FACTORS:
        kind, factor = _UNITS[unit]
        _FACTORS[unit] = (kind, factor(Decimal))
    return _FACTORS[unit]

_NUM = r"[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_QUANTITY_RE = re.compile(rf"({_NUM})[ \t]*(.+)")
_UNIT_HINT = ("numbers take a suffix k, K, M, B, G or T (30k, 7B, 1e21); quantities a unit: "
              "GB, GiB, MB, TB, h, d, w, month, min or %")


def _finite(value, tok) -> float:
    try:
        f = float(value)
    except (ArithmeticError, ValueError):
        f = math.inf
    if not math.isfinite(f):
        raise RangeError(f"'{tok}' is too large", line=tok.line, column=tok.column,
                         length=len(tok))
    return f


def _number(tok) -> float:
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
    if s[-1] in _SUFFIX:
        s, mult = s[:-1], _SUFFIX[s[-1]]
    try:
        return _finite(Decimal(s) * mult, tok)
    except (ArithmeticError, InvalidOperation):
        return _finite(Decimal("Infinity"), tok)


def _quantity(tok) -> tuple[float, str]:
    """``80 GB`` -> (8e10, "bytes"), ``3 days`` -> (72.0, "hours"), ``40%`` -> (0.4, "ratio")."""
    from decimal import Decimal, InvalidOperation

    m = _QUANTITY_RE.fullmatch(tok.value)
    assert m, tok.value  # the lexer only makes QUANTITY tokens of this form
    kind, factor = _unit_factor(m.group(2).lower())
    try:
        return _finite(Decimal(m.group(1).replace("_", "")) * factor, tok), kind
    except (ArithmeticError, InvalidOperation):
        return _finite(Decimal("Infinity"), tok), kind


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unescape(body: str) -> str:
    r"""``\"`` ``\\`` ``\n`` ``\t`` ``\r``; any other ``\x`` stands for ``x``."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def _pos(tok) -> Position:
    return Position(tok.line, tok.column, tok.end_line, tok.end_column, tok.start_pos,
                    tok.end_pos)


# ============================================================================ tree -> AST

class _Where:
    def __init__(self, constraints: tuple[Constraint, ...], pos: Position) -> None:
        self.constraints, self.pos = constraints, pos


class _Top:
    def __init__(self, n: int, pos: Position) -> None:
        self.n, self.pos = n, pos


def _span(first, last) -> Position:
    a = first.pos if hasattr(first, "pos") else _pos(first)
    b = last.pos if hasattr(last, "pos") else _pos(last)
    return a.through(b)


class _Build:
    """Methods named after the grammar's rules and terminals build the AST bottom-up.

    The generated parser calls them through a lark ``Transformer`` (:func:`_transformer`);
    :func:`_lean_parse` calls them directly with the same children.
    """

    def __init__(self, text: str) -> None:
        self._text = text

    # --------------------------------------------------------------- terminals
    def NAME(self, tok):
        return Name(tok.value.lower(), _pos(tok))

    def NUMBER(self, tok):
        return Number(_number(tok), tok.value, _pos(tok))

    def QUANTITY(self, tok):
        value, kind = _quantity(tok)
        return Quantity(value, kind, tok.value, _pos(tok))

    def STRING(self, tok):
        return String(_unescape(tok.value[1:-1]), _pos(tok))

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
        kinds = {getattr(v, "unit_kind", "count") for v in (low, high)}
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
        return Constraint(dim, "in", values, _span(dim, rpar))

    # --------------------------------------------------------------- statements
    def where(self, children):
        constraints = tuple(c for c in children if isinstance(c, Constraint))
        return _Where(constraints, _span(children[0], children[-1]))

    def top(self, children):
        keyword, number = children
        if number.value != int(number.value) or number.value < 1:
            raise RangeError.at(number.pos, f"'top' needs a whole number of at least 1, "
                                f"not {number.text}", expected=["a whole number"])
        return _Top(int(number.value), _span(keyword, number))

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

    def explain(self, children):
        keyword, choice, *rest = children
        pos, text, constraints = self._statement(keyword, [choice, *rest])
        return Explain(choice, constraints, pos, text)

    def start(self, children):
        return tuple(children)


_ToAst = None


def _transformer():
    """``_Build`` as a lark Transformer of the generated module's trees."""
    global _ToAst
    if _ToAst is None:
        lark = _generated()

        class _ToAst(_Build, lark.Transformer):
            def __init__(self, text: str) -> None:
                lark.Transformer.__init__(self, visit_tokens=True)
                _Build.__init__(self, text)

        globals()["_ToAst"] = _ToAst
    return _ToAst


# ============================================================================ lean parser

# The grammar's terminals (grammar.lark, copied verbatim; tests/test_parser.py checks they
# stay equal), in the order lark's lexer tries them: priority first (QUANTITY.3, then
# NUMBER.2 and _BLANK_LINE.2), then the longest pattern (so ``<=`` before ``<``).  Only
# QUANTITY/NUMBER and the two-character operators can match at the same place.
_TERMINALS = (
    ("QUANTITY", r"[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?[ \t]*(?:%|(?ai:[kmgtp]i?b|h|hrs?|hours?|d|days?|w|weeks?|months?|min|mins|minutes?|s|secs?|seconds?))(?![a-zA-Z0-9_.%-])"),
    ("NUMBER", r"[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+|[kKMBGT])?(?![a-zA-Z0-9_.%-])"),
    ("_BLANK_LINE", r"\n(?:[ \t\f\r\v]*\n)+"),
    ("RECOMMEND", r"(?ai:recommend)(?![a-zA-Z0-9_-])"),
    ("PLAN", r"(?ai:plan)(?![a-zA-Z0-9_-])"),
    ("EXPLAIN", r"(?ai:explain)(?![a-zA-Z0-9_-])"),
    ("WHERE", r"(?ai:where)(?![a-zA-Z0-9_-])"),
    ("AND", r"(?ai:and)(?![a-zA-Z0-9_-])"),
    ("TOP", r"(?ai:top)(?![a-zA-Z0-9_-])"),
    ("BETWEEN", r"(?ai:between)(?![a-zA-Z0-9_-])"),
    ("IN", r"(?ai:in)(?![a-zA-Z0-9_-])"),
    ("NAME", r"(?!(?ai:recommend|plan|explain|where|and|top|between|in)(?![a-zA-Z0-9_-]))[a-zA-Z][a-zA-Z0-9_-]*"),
    ("STRING", r'"(?:[^"\\\n]|\\[^\n])*"'),
    ("NE", "!="), ("LE", "<="), ("GE", ">="), ("EQ", "="), ("LT", "<"), ("GT", ">"),
    ("LPAR", r"\("), ("RPAR", r"\)"), ("COMMA", ","), ("_SEMI", ";"),
    ("NEWLINE", r"\n(?![ \t\f\r\v]*\n)"),
    ("WS", r"[ \t\f\r\v]+"),
    ("COMMENT", r"#[^\n]*"),
)
_IGNORED = frozenset({"NEWLINE", "WS", "COMMENT"})
_COMPARE_OPS = frozenset({"EQ", "NE", "LT", "LE", "GT", "GE"})
_VALUE_TOKENS = frozenset({"NAME", "NUMBER", "QUANTITY", "STRING"})
_lean_re = None


class _Tok:
    """A token with the attributes of lark's ``Token`` that :class:`_Build` reads."""

    __slots__ = ("type", "value", "line", "column", "end_line", "end_column", "start_pos", "end_pos")

    def __init__(self, type_, value, line, column, start):
        self.type, self.value, self.line, self.column = type_, value, line, column
        self.end_line, self.end_column = line, column + len(value)
        self.start_pos, self.end_pos = start, start + len(value)

    def __len__(self):
        return len(self.value)


def _lean_tokens(text: str) -> list | None:
    """The tokens lark's lexer makes of ``text`` (ignored ones dropped), or None."""
    global _lean_re
    if _lean_re is None:
        _lean_re = re.compile("|".join(f"(?P<{n}>{p})" for n, p in _TERMINALS))
    match = _lean_re.match
    tokens, pos, end, line, line_start = [], 0, len(text), 1, 0
    while pos < end:
        m = match(text, pos)
        if m is None:
            return None
        kind, value = m.lastgroup, m.group()
        if kind not in _IGNORED:
            tokens.append(_Tok(kind, value, line, pos - line_start + 1, pos))
        newlines = value.count("\n")
        if newlines:
            line += newlines
            line_start = pos + value.rindex("\n") + 1
        pos = m.end()
    return tokens


class _NoParse(Exception):
    """The lean parser does not accept the input (the generated parser decides)."""


def _lean_parse(text: str):
    """:func:`parse` for input the lean parser accepts, else None.

    Whenever it returns statements they are what the generated parser gives: the tokens are
    the ones lark's contextual lexer makes (the first terminal that matches, in lark's order,
    is one the grammar accepts there), the rules are the grammar's, and the AST comes from
    the same :class:`_Build` callbacks.  Anything unusual, including an error a callback
    raises, returns None so that the generated parser reports it exactly as before.
    """
    try:
        tokens = _lean_tokens(text)
        if tokens is None:
            return None
        return _LeanParser(text, tokens).start()
    except Exception:
        return None


class _LeanParser:
    def __init__(self, text: str, tokens: list) -> None:
        self.b = _Build(text)
        self.toks = tokens
        self.i = 0

    def peek(self):
        return self.toks[self.i].type if self.i < len(self.toks) else "$END"

    def take(self, *types):
        if self.peek() not in types:
            raise _NoParse
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def value(self):
        tok = self.take("NAME", "NUMBER", "QUANTITY", "STRING")
        return getattr(self.b, tok.type)(tok)

    def start(self):
        b, statements = self.b, []
        while True:
            t = self.peek()
            if t == "$END":
                return b.start(statements)
            if t in ("_SEMI", "_BLANK_LINE"):
                self.i += 1
                continue
            statements.append(self.statement(t))
            if self.peek() not in ("$END", "_SEMI", "_BLANK_LINE"):
                raise _NoParse

    def statement(self, t):
        b = self.b
        if t == "RECOMMEND":
            children = [self.take("RECOMMEND"), b.NAME(self.take("NAME"))]
            if self.peek() == "WHERE":
                children.append(self.where())
            if self.peek() == "TOP":
                children.append(b.top([self.take("TOP"), b.NUMBER(self.take("NUMBER"))]))
            return b.recommend(children)
        if t == "PLAN":
            children = [self.take("PLAN")]
            if self.peek() == "WHERE":
                children.append(self.where())
            return b.plan(children)
        if t == "EXPLAIN":
            children = [self.take("EXPLAIN")]
            choice = self.take("NAME", "STRING")
            children.append(getattr(b, choice.type)(choice))
            if self.peek() == "WHERE":
                children.append(self.where())
            return b.explain(children)
        raise _NoParse

    def where(self):
        children = [self.take("WHERE"), self.constraint()]
        while self.peek() == "AND":
            children += [self.take("AND"), self.constraint()]
        return self.b.where(children)

    def constraint(self):
        b = self.b
        dim = b.NAME(self.take("NAME"))
        t = self.peek()
        if t in _COMPARE_OPS:
            return b.compare([dim, self.take(t), self.value()])
        if t == "BETWEEN":
            return b.between([dim, self.take("BETWEEN"), self.value(), self.take("AND"), self.value()])
        if t == "IN":
            children = [dim, self.take("IN"), self.take("LPAR"), self.value()]
            while self.peek() == "COMMA":
                children.append(self.take("COMMA"))
                if self.peek() == "RPAR":
                    break
                children.append(self.value())
            children.append(self.take("RPAR"))
            return b.member(children)
        raise _NoParse


# ============================================================================ errors

_OPS = frozenset({"EQ", "NE", "LT", "LE", "GT", "GE", "BETWEEN", "IN"})
_COMPARISONS = frozenset({"EQ", "NE", "LT", "LE", "GT", "GE"})
_VALUES = frozenset({"NAME", "NUMBER", "QUANTITY", "STRING"})
_STARTS = frozenset({"RECOMMEND", "PLAN", "EXPLAIN"})
_ENDS = frozenset({"$END", "_SEMI", "_BLANK_LINE"})
_OPERATOR_WORDS = "an operator (=, !=, <, <=, >, >=, between, in)"
_QUANTITY_WORDS = "a quantity (e.g. 80GB, 12h, 40%)"

# terminal -> the language's words, in the order they are listed
_WORDS = [
    ("RECOMMEND", "'recommend'"), ("PLAN", "'plan'"), ("EXPLAIN", "'explain'"),
    ("NAME", "a name"), ("NUMBER", "a number"), ("QUANTITY", _QUANTITY_WORDS),
    ("STRING", "a quoted string"),
    ("EQ", _OPERATOR_WORDS), ("NE", _OPERATOR_WORDS), ("LT", _OPERATOR_WORDS),
    ("LE", _OPERATOR_WORDS), ("GT", _OPERATOR_WORDS), ("GE", _OPERATOR_WORDS),
    ("BETWEEN", _OPERATOR_WORDS), ("IN", _OPERATOR_WORDS),
    ("LPAR", "'('"), ("COMMA", "','"), ("RPAR", "')'"),
    ("WHERE", "'where'"), ("AND", "'and'"), ("TOP", "'top'"),
    ("_SEMI", "';'"), ("$END", "the end of the statement"),
]


def _expected_words(terminals) -> list[str]:
    out: list[str] = []
    for name, words in _WORDS:
        if name in terminals and words not in out:
            out.append(words)
    if "_BLANK_LINE" in terminals and "$END" not in terminals:
        out.append("the end of the statement")
    return out


def _describe(tok) -> str:
    if tok.type == "$END":
        return "the end of the input"
    if tok.type == "_BLANK_LINE":
        return "a blank line (which ends the statement)"
    if tok.type == "STRING":
        return "a quoted string"
    return f"'{tok.value}'"


def _last_token(node):
    """The last token of a token or parse (sub)tree, or None."""
    while isinstance(node, _lark.Tree):
        if not node.children:
            return None
        node = node.children[-1]
    return node if isinstance(node, _lark.Token) else None


def _previous(exc):
    """The token before the offending one, and every token the parser has shifted."""
    history = getattr(exc, "token_history", None)
    stack = list(getattr(getattr(exc, "state", None), "value_stack", None) or ())
    shifted = [t for t in (_last_token(v) for v in stack) if t is not None]
    if history and history[-1] is not None:
        return history[-1], shifted
    return (shifted[-1] if shifted else None), shifted


def _parser_expected(exc, fallback) -> set[str]:
    """The terminals the parser would really accept here.

    An LALR state's table can list more (lookaheads merged from other contexts), so each
    candidate is tried on a copy of the parser (lark's ``InteractiveParser.accepts``).
    """
    interactive = getattr(exc, "interactive_parser", None)
    if interactive is not None:
        try:
            return set(interactive.accepts())
        except Exception:  # pragma: no cover - fall back to the table
            pass
    state = getattr(exc, "state", None)
    try:
        return {s for s in state.parse_conf.states[state.position] if s.isupper()}
    except Exception:  # no parser state: use what the lexer allowed
        return set(fallback or ())


def _syntax_error(text: str, exc) -> RecipeKGError:
    if isinstance(exc, _lark.UnexpectedCharacters):
        return _bad_characters(text, exc)
    if isinstance(exc, _lark.UnexpectedToken):
        return _bad_token(text, exc)
    return QuerySyntaxError(f"cannot parse: {exc.__class__.__name__}",
                            line=getattr(exc, "line", None), column=getattr(exc, "column", None))


def _err(message, line, column, length=1, expected=(), suggestions=()):
    return QuerySyntaxError(message, line=line, column=column, length=length,
                            expected=expected, suggestions=suggestions)


def _bad_characters(text: str, exc) -> RecipeKGError:
    i, line, column = exc.pos_in_stream, exc.line, exc.column
    allowed = _parser_expected(exc, exc.allowed)
    expected = _expected_words(allowed)
    prev, _ = _previous(exc)
    ch = text[i]
    rest_of_line = text[i:].split("\n", 1)[0]

    if ch == '"':
        return _err("unclosed string: end it with '\"' on the same line", line, column,
                    len(rest_of_line), ['\'"\''])
    word = re.match(r"[0-9A-Za-z_.%+-]*", text[i + (ch == "-"):]).group(0)
    if ch == "-" and word[:1] in tuple("0123456789"):
        return _err(f"negative numbers are not allowed: '-{word}'", line, column,
                    len(word) + 1, expected)
    if ch in "0123456789":
        if "NUMBER" not in allowed and ("NAME" in allowed or "STRING" in allowed):
            return _err(f"'{word}' is not a name: names start with a letter; put other text "
                        f'in quotes, e.g. "{word}"', line, column, len(word), expected,
                        [f'"{word}"'])
        m = re.match(_NUM, word)
        num, tail = m.group(0), word[m.end():]
        if "NUMBER" in allowed and "QUANTITY" not in allowed:  # after 'top'
            return _err(f"'top' needs a whole number, not '{word}'", line, column, len(word),
                        ["a whole number"])
        if tail and tail.isalpha():
            suggestions = []
            if tail == "m":
                suggestions = [f"{num}M", f"{num}min"]
            else:
                suggestions = [num + u for u in closest(tail, [*_SUFFIX, *_UNITS], n=2)]
            return _err(f"unknown unit or suffix '{tail}' in '{word}': {_UNIT_HINT}", line,
                        column, len(word), expected, suggestions)
        return _err(f"'{word}' is not a number: write e.g. 30000, 30_000, 30k, 1.5M or 2.5e20",
                    line, column, len(word), expected)
    if ch == "!":
        return _err("'!' must be followed by '=' (not equal: '!=')", line, column, 1, expected,
                    ["!="])
    if ch == "[" and "LPAR" in allowed:
        return _err("write the list in parentheses: in (a, b)", line, column, 1, expected)
    if ch == "." and prev is not None and prev.end_pos == i and prev.type == "NAME":
        return _err("names may contain only letters, digits, '-' and '_': put other text in "
                    "quotes", line, column, 1, expected, [f'"{prev.value}{word}"'])
    shown = f"'{ch}'" if ch.isprintable() and not ch.isspace() else f"U+{ord(ch):04X}"
    return _err(f"unexpected character {shown}", line, column, 1, expected)


def _keyword_prefix(word: str, keywords) -> str | None:
    """``recommendarchitecture`` -> ``recommend`` (longest keyword that starts the word)."""
    lower = word.lower()
    for kw in sorted(keywords, key=len, reverse=True):
        if lower.startswith(kw) and len(lower) > len(kw):
            return kw
    return None


def _after_blank_line(text: str, pos: int) -> bool:
    """Is there a blank line between ``pos`` and the previous token (comments aside)?"""
    lines = text[:pos].split("\n")
    if len(lines) < 2 or lines[-1].strip():
        return False
    for line in reversed(lines[:-1]):
        stripped = line.strip()
        if not stripped:
            return True
        if not stripped.startswith("#"):
            return False
    return False


def _bad_token(text: str, exc) -> RecipeKGError:
    tok = exc.token
    expected_set = _parser_expected(exc, exc.expected)
    expected = _expected_words(expected_set)
    prev, shifted = _previous(exc)
    if tok.type == "$END":
        line, column, length = tok.end_line, tok.end_column, 1
    else:
        line, column = tok.line, tok.column
        length = (tok.end_column - tok.column) if tok.end_line == tok.line else 1
    found = _describe(tok)
    ends = tok.type in _ENDS or tok.type in _STARTS
    p = prev.value if prev is not None else ""

    def err(message, suggestions=(), at=None, exp=None):
        ln, col, n = at if at else (line, column, length)
        return _err(message, ln, col, n, expected if exp is None else exp, suggestions)

    # ---- the start of a statement
    if _STARTS <= expected_set:
        expected = _expected_words(_STARTS)
        if tok.type == "NAME":
            kw = _keyword_prefix(tok.value, STATEMENT_KEYWORDS)
            if kw:
                rest = tok.value[len(kw):]
                return err(f"'{tok.value}' is not a keyword: put a space after '{kw}'",
                           [f"{kw} {rest.lstrip('_-')}"])
            return err("a statement starts with 'recommend', 'plan' or 'explain', not "
                       f"{found}", closest(tok.value, STATEMENT_KEYWORDS))
        if _after_blank_line(text, tok.start_pos):
            return err(f"{found} cannot start a statement: the blank line before it ended the "
                       "previous one (a statement may span lines, but not blank lines)")
        return err(f"a statement starts with 'recommend', 'plan' or 'explain', not {found}")

    # ---- two operators in a row: ==, =<, =>, <>
    if prev is not None and prev.type in _COMPARISONS and tok.type in _COMPARISONS | _OPS:
        both = p + tok.value
        fix = {"==": "=", "=<": "<=", "=>": ">=", "<>": "!=", "!==": "!="}.get(both)
        span = (prev.line, prev.column, tok.end_pos - prev.start_pos)
        if prev.end_pos != tok.start_pos:
            return err(f"two operators in a row: '{p}' and '{tok.value}'", [p], span,
                       [_OPERATOR_WORDS])
        if both == "==":
            return err("use '=' to compare, not '=='", ["="], span, [_OPERATOR_WORDS])
        return err(f"'{both}' is not an operator", [fix] if fix else [], span, [_OPERATOR_WORDS])

    # ---- a value is missing or wrong
    if _VALUES <= expected_set:
        what = "value"
        if prev is not None and prev.type == "BETWEEN":
            what = "lower bound"
        elif prev is not None and prev.type == "AND":
            what = "upper bound"
        after = f" after '{p}'" if prev is not None else ""
        if ends or tok.type in _OPS | {"AND", "WHERE", "TOP"}:
            return err(f"missing {what}{after}")
        return err(f"expected a {what}{after}, found {found}")

    # ---- a name is missing or wrong
    if expected_set <= {"NAME", "STRING"} and "NAME" in expected_set:
        if prev is not None and prev.type == "RECOMMEND":
            message = "expected what to recommend after 'recommend' (a kind such as " \
                      "architecture or optimizer)"
        elif prev is not None and prev.type == "EXPLAIN":
            message = "expected the choice to explain after 'explain' (a name or a quoted string)"
        elif prev is not None and prev.type in ("WHERE", "AND"):
            message = (f"missing constraint after '{p}'" if ends else
                       f"expected a dimension name after '{p}', found {found}")
            if tok.type == "NUMBER" or tok.type == "QUANTITY":
                message += " (names start with a letter)"
        else:
            message = f"expected a name, found {found}"
        return err(message)

    # ---- an operator is missing or wrong
    if _OPS <= expected_set:
        if ends:
            return err(f"missing operator and value after '{p}'")
        suggestions = closest(tok.value, ["between", "in"]) if tok.type == "NAME" else []
        return err(f"expected an operator after '{p}', found {found}", suggestions)

    if expected_set == {"NUMBER"}:
        return err(f"'top' needs a whole number, e.g. 'top 3', not {found}",
                   exp=["a whole number"])
    if expected_set == {"LPAR"}:
        return err(f"'in' needs a list in parentheses, e.g. in (a, b), not {found}")
    if expected_set == {"AND"}:
        suggestions = closest(tok.value, ["and"]) if tok.type == "NAME" else []
        return err(f"'between' needs two bounds joined by 'and': between <low> and <high>; "
                   f"found {found}", suggestions)
    if {"COMMA", "RPAR"} <= expected_set:
        lpar = next((t for t in reversed(shifted) if t.type == "LPAR"), None)
        opened = f" (opened at line {lpar.line}, column {lpar.column})" if lpar else ""
        if ends:
            return err(f"unclosed '('{opened}: end the list with ')'")
        return err(f"expected ',' or ')' in the list{opened}, found {found}")

    # ---- after a complete constraint or statement
    if tok.type == "TOP" and "TOP" not in expected_set:
        return err("'top' only limits the list of a 'recommend' statement")
    if tok.type == "COMMA" and "AND" in expected_set:
        return err("join constraints with 'and', not ','", ["and"])
    if tok.type in _STARTS:
        return err(f"'{tok.value}' starts a new statement: separate statements with ';' or "
                   "a blank line")
    keywords = [kw for kw in KEYWORDS if kw.upper() in expected_set]
    if (tok.type == "NAME" and prev is not None and prev.type == "NUMBER"
            and not text[prev.end_pos:tok.start_pos].strip()
            and not closest(tok.value, keywords) and not _keyword_prefix(tok.value, keywords)):
        suggestions = [f"{prev.value} {u}" for u in closest(tok.value, _UNITS, n=2)]
        if tok.value in _SUFFIX:
            suggestions.insert(0, prev.value + tok.value)
        return err(f"unknown unit '{tok.value}' after '{prev.value}': {_UNIT_HINT}",
                   suggestions)
    if tok.type == "NAME":
        kw = _keyword_prefix(tok.value, keywords)
        if kw:
            rest = tok.value[len(kw):]
            return err(f"'{tok.value}' is not a keyword: put a space after '{kw}'",
                       [f"{kw} {rest.lstrip('_-')}"])
        return err(f"unexpected {found}", closest(tok.value, keywords))
    return err(f"unexpected {found}")
