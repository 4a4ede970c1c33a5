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
(``_standalone.py``), never lark, so the query path stays light.  After editing the
grammar, regenerate with::

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
from decimal import Decimal, InvalidOperation

from . import _standalone as _lark
from .ast import (Constraint, Explain, Name, Number, Plan, Position, Quantity, Recommend,
                  Statement, String)
from .errors import QuerySyntaxError, RangeError, RecipeKGError, closest

__all__ = ["parse", "STATEMENT_KEYWORDS", "KEYWORDS"]

STATEMENT_KEYWORDS = ("recommend", "plan", "explain")
KEYWORDS = STATEMENT_KEYWORDS + ("where", "and", "top", "between", "in")

_parser = None


def _get_parser():
    global _parser
    if _parser is None:
        _parser = _lark.Lark_StandAlone()
    return _parser


def parse(text: str) -> tuple[Statement, ...]:
    """All statements of ``text`` in order; empty statements produce nothing.

    >>> [s.text for s in parse("plan where gpus = 8 ;; # nothing\\n\\nexplain vit")]
    ['plan where gpus = 8', 'explain vit']
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() needs a str, not {type(text).__name__}")
    try:
        try:
            tree = _get_parser().parse(text)
        except _lark.UnexpectedInput as exc:
            raise _syntax_error(text, exc) from None
        try:
            return _ToAst(text).transform(tree)
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

_D = Decimal
_UNITS: dict[str, tuple[str, Decimal]] = {}
for _names, _kind, _factor in [
    ("kb", "bytes", _D(10) ** 3), ("mb", "bytes", _D(10) ** 6), ("gb", "bytes", _D(10) ** 9),
    ("tb", "bytes", _D(10) ** 12), ("pb", "bytes", _D(10) ** 15),
    ("kib", "bytes", _D(2) ** 10), ("mib", "bytes", _D(2) ** 20), ("gib", "bytes", _D(2) ** 30),
    ("tib", "bytes", _D(2) ** 40), ("pib", "bytes", _D(2) ** 50),
    ("s sec secs second seconds", "hours", 1 / _D(3600)),
    ("min mins minute minutes", "hours", 1 / _D(60)),
    ("h hr hrs hour hours", "hours", _D(1)),
    ("d day days", "hours", _D(24)),
    ("w week weeks", "hours", _D(168)),
    ("month months", "hours", _D(720)),
    ("%", "ratio", _D("0.01")),
]:
    for _n in _names.split():
        _UNITS[_n] = (_kind, _factor)

_NUM = r"[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_QUANTITY_RE = re.compile(rf"({_NUM})[ \t]*(.+)")
_UNIT_HINT = ("numbers take a suffix k, K, M, B, G or T (30k, 7B, 1e21); quantities a unit: "
              "GB, GiB, MB, TB, h, d, w, month, min or %")


def _finite(value: Decimal, tok) -> float:
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
    mult = 1
    if s[-1] in _SUFFIX:
        s, mult = s[:-1], _SUFFIX[s[-1]]
    try:
        return _finite(Decimal(s) * mult, tok)
    except (ArithmeticError, InvalidOperation):
        return _finite(Decimal("Infinity"), tok)


def _quantity(tok) -> tuple[float, str]:
    """``80 GB`` -> (8e10, "bytes"), ``3 days`` -> (72.0, "hours"), ``40%`` -> (0.4, "ratio")."""
    m = _QUANTITY_RE.fullmatch(tok.value)
    assert m, tok.value  # the lexer only makes QUANTITY tokens of this form
    kind, factor = _UNITS[m.group(2).lower()]
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


class _ToAst(_lark.Transformer):
    """Methods named after the grammar's rules and terminals build the AST bottom-up."""

    def __init__(self, text: str) -> None:
        super().__init__(visit_tokens=True)
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
        values = tuple(v for v in values if not isinstance(v, _lark.Token))
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
