"""The lean parser: well-formed queries without loading the generated parser.

    >>> from recipekg.query.lean import lean_parse, lean_tokens
    >>> [t.type for t in lean_tokens("recommend optimizer where prefer = low-memory")]
    ['RECOMMEND', 'NAME', 'WHERE', 'NAME', 'EQ', 'NAME']
    >>> (statement,) = lean_parse("recommend optimizer where prefer = low-memory")
    >>> statement.kind.text, statement.constraints[0].value.text
    ('optimizer', 'low-memory')
    >>> lean_parse("recommend optimizer where prefer =") is None  # for the generated parser
    True

A tokenizer with the grammar's own terminals (:data:`TERMINALS`, in the order lark's
lexer tries them) and a recursive descent over the same rules, building the tree with the
same :class:`~recipekg.query.build.AstBuilder` callbacks.  Whatever it does not accept,
or any error a callback raises, it leaves to the generated parser (:func:`lean_parse`
returns None), which is the reference and the only source of error messages.  A property
test checks that the two agree whenever the lean one answers.
"""

from __future__ import annotations

from recipekg.query.build import AstBuilder
from recipekg.query.literals import number_parts

__all__ = ["STATEMENT_KEYWORDS", "KEYWORDS", "TERMINALS", "lean_tokens", "lean_parse"]

#: The words a statement starts with, and every reserved word of the language.
STATEMENT_KEYWORDS = ("recommend", "plan", "explain", "recipe")
KEYWORDS = STATEMENT_KEYWORDS + ("where", "and", "top", "between", "in")

#: The grammar's terminals (grammar.lark, copied verbatim; tests/test_hot_path.py checks
#: they stay equal), in the order lark's lexer tries them: priority first (QUANTITY.3, then
#: NUMBER.2 and _BLANK_LINE.2), then the longest pattern (so ``<=`` before ``<``).  Only
#: QUANTITY/NUMBER and the two-character operators can match at the same place.
TERMINALS = (
    ("QUANTITY", r"[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?[ \t]*(?:%|(?ai:[kmgtp]i?b(?:\/s)?|[kmgtp]i?bit(?:\/s)?|[kmgtp]?flop(?:s|\/s)?|(?:pf|petaflop)-days?|bytes?|h|hrs?|hours?|d|days?|w|weeks?|months?|y|yrs?|years?|min|mins|minutes?|s|secs?|seconds?))(?![a-zA-Z0-9_.%-])"),
    ("NUMBER", r"[0-9]+(?:_[0-9]+)*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+|[kKmMbBGtT]|[ \t]*(?ai:thousand|million|billion|trillion))?(?![a-zA-Z0-9_.%-])"),
    ("_BLANK_LINE", r"\n(?:[ \t\f\r\v]*\n)+"),
    ("RECOMMEND", r"(?ai:recommend)(?![a-zA-Z0-9_-])"),
    ("PLAN", r"(?ai:plan)(?![a-zA-Z0-9_-])"),
    ("EXPLAIN", r"(?ai:explain)(?![a-zA-Z0-9_-])"),
    ("RECIPE", r"(?ai:recipe)(?![a-zA-Z0-9_-])"),
    ("WHERE", r"(?ai:where)(?![a-zA-Z0-9_-])"),
    ("AND", r"(?ai:and)(?![a-zA-Z0-9_-])"),
    ("TOP", r"(?ai:top)(?![a-zA-Z0-9_-])"),
    ("BETWEEN", r"(?ai:between)(?![a-zA-Z0-9_-])"),
    ("IN", r"(?ai:in)(?![a-zA-Z0-9_-])"),
    ("NAME", r"(?!(?ai:recommend|plan|explain|recipe|where|and|top|between|in)(?![a-zA-Z0-9_-]))[a-zA-Z][a-zA-Z0-9_-]*(?:\.[0-9][a-zA-Z0-9_-]*)*"),
    ("STRING", r'"(?:[^"\\\n]|\\[^\n])*"'),
    ("NE", "!="), ("LE", "<="), ("GE", ">="), ("EQ", "="), ("LT", "<"), ("GT", ">"),
    ("LPAR", r"\("), ("RPAR", r"\)"), ("COMMA", ","), ("_SEMI", ";"),
    ("NEWLINE", r"\n(?![ \t\f\r\v]*\n)"),
    ("WS", r"[ \t\f\r\v]+"),
    ("COMMENT", r"#[^\n]*"),
)
_IGNORED = frozenset({"NEWLINE", "WS", "COMMENT"})
_COMPARE_OPS = frozenset({"EQ", "NE", "LT", "LE", "GT", "GE"})
_lean_re = None


class _Tok:
    """A token with the attributes of lark's ``Token`` that :class:`AstBuilder` reads."""

    __slots__ = ("type", "value", "line", "column", "end_line", "end_column", "start_pos", "end_pos")

    def __init__(self, type_, value, line, column, start):
        self.type, self.value, self.line, self.column = type_, value, line, column
        self.end_line, self.end_column = line, column + len(value)
        self.start_pos, self.end_pos = start, start + len(value)

    def __len__(self):
        return len(self.value)


def lean_tokens(text: str) -> list | None:
    """The tokens lark's lexer makes of ``text`` (ignored ones dropped), or None.

    Names, keywords, operators, numbers, quantities, strings, comments and line breaks are
    scanned by hand (compiling :data:`TERMINALS` costs more than a whole plan); whatever the
    hand scanner is not sure of, by the terminals themselves. A property test checks the two
    agree."""
    tokens = quick_tokens(text)
    return tokens if tokens is not None else terminal_tokens(text)


_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_NAME_CHARS = _LETTERS | _DIGITS | frozenset("_-")
_SPACE = frozenset(" \t\f\r\v")
#: What may not follow a number or a quantity: ``(?![a-zA-Z0-9_.%-])``.
_STOP = _NAME_CHARS | frozenset(".%")
_UNIT_CHARS = _LETTERS | frozenset("%/-")
_PAIRS = {"!=": "NE", "<=": "LE", ">=": "GE"}
_SINGLE = {"=": "EQ", "<": "LT", ">": "GT", "(": "LPAR", ")": "RPAR", ",": "COMMA", ";": "_SEMI"}
_SUFFIXES = frozenset("kKmMbBGtT")  # NUMBER's one-letter multipliers
_NUMBER_WORDS = ("thousand", "million", "billion", "trillion")


def _units() -> frozenset:
    """The units QUANTITY accepts, lowercase: the alternatives of its pattern spelt out."""
    units = {"%", "byte", "bytes", "h", "hr", "hrs", "hour", "hours", "d", "day", "days", "w", "week", "weeks",
             "month", "months", "y", "yr", "yrs", "year", "years", "min", "mins", "minute", "minutes", "s",
             "sec", "secs", "second", "seconds", "pf-day", "pf-days", "petaflop-day", "petaflop-days"}
    for p in ("k", "m", "g", "t", "p"):
        for i in ("", "i"):
            units.update(p + i + u + s for u in ("b", "bit") for s in ("", "/s"))
    for p in ("", "k", "m", "g", "t", "p"):
        units.update((p + "flop", p + "flops", p + "flop/s"))
    return frozenset(units)


#: The units of QUANTITY (tests/cli/test_hot_path.py checks each against the terminal).
UNITS_LEXED = _units()


def quick_tokens(text: str) -> list | None:
    """:func:`terminal_tokens`, by hand; None for anything it is not sure of.

    >>> [(t.type, t.value, t.column) for t in quick_tokens("plan where params = 7B")]
    [('PLAN', 'plan', 1), ('WHERE', 'where', 6), ('NAME', 'params', 12), ('EQ', '=', 19), ('NUMBER', '7B', 21)]
    >>> [(t.type, t.value, t.line) for t in quick_tokens("plan where gpu-memory = 80 GB # c\\n\\nplan")][4:]
    [('QUANTITY', '80 GB', 1), ('_BLANK_LINE', '\\n\\n', 1), ('PLAN', 'plan', 3)]
    >>> quick_tokens("plan where x = 1.") is None   # not a token: the terminals decide
    True
    """
    tokens, pos, end, line, line_start = [], 0, len(text), 1, 0
    while pos < end:
        ch = text[pos]
        if ch in _SPACE:
            pos += 1
            continue
        if ch == "\n":
            stop = _blank_line_end(text, pos)
            if stop > pos + 1:
                tokens.append(_Tok("_BLANK_LINE", text[pos:stop], line, pos - line_start + 1, pos))
                line += text.count("\n", pos, stop)
            else:
                line += 1
            pos = line_start = stop
            continue
        if ch == "#":
            pos = text.find("\n", pos)
            pos = end if pos < 0 else pos
            continue
        if ch in _LETTERS:
            stop = _run(text, pos + 1, _NAME_CHARS)
            while text[stop:stop + 1] == "." and text[stop + 1:stop + 2] in _DIGITS:  # a version: llama-3.1-405b
                stop = _run(text, stop + 2, _NAME_CHARS)
            word = text[pos:stop]
            kind = word.upper() if word.lower() in KEYWORDS else "NAME"
        elif ch in _DIGITS:
            kind, stop = _number(text, pos)
        elif ch == '"':
            kind, stop = "STRING", _string_end(text, pos)
        elif text[pos:pos + 2] in _PAIRS:
            kind, stop = _PAIRS[text[pos:pos + 2]], pos + 2
        else:
            kind, stop = _SINGLE.get(ch), pos + 1
        if kind is None or stop is None:
            return None
        tokens.append(_Tok(kind, text[pos:stop], line, pos - line_start + 1, pos))
        pos = stop
    return tokens


def _run(text: str, pos: int, chars: frozenset) -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


def _blank_line_end(text: str, pos: int) -> int:
    """After the last newline of ``\\n(?:[ \\t\\f\\r\\v]*\\n)+`` at ``pos`` (a blank line), or
    ``pos + 1`` (a plain newline)."""
    stop, at = pos + 1, pos + 1
    while True:
        at = _run(text, at, _SPACE)
        if text[at:at + 1] != "\n":
            return stop
        stop = at = at + 1


def _string_end(text: str, pos: int) -> int | None:
    """After the closing quote of ``"(?:[^"\\\\\\n]|\\\\[^\\n])*"`` at ``pos``, or None."""
    at, end = pos + 1, len(text)
    while at < end:
        ch = text[at]
        if ch == '"':
            return at + 1
        if ch == "\n" or (ch == "\\" and text[at + 1:at + 2] in ("", "\n")):
            return None
        at += 2 if ch == "\\" else 1
    return None


def _number(text: str, pos: int) -> tuple[str | None, int | None]:
    """The QUANTITY or NUMBER token at ``pos`` and where it ends, tried in the lexer's order
    (QUANTITY first, then each of NUMBER's endings), or (None, None)."""
    digits, exponent = number_parts(text, pos)
    ok = lambda at: text[at:at + 1] not in _STOP  # noqa: E731 (the terminals' lookahead)
    unit = _run(text, exponent, frozenset(" \t"))
    unit_end = _run(text, unit, _UNIT_CHARS)
    if unit_end > unit and text[unit:unit_end].lower() in UNITS_LEXED and ok(unit_end):
        return "QUANTITY", unit_end
    if exponent > digits:
        return ("NUMBER", exponent) if ok(exponent) else (None, None)
    if text[digits:digits + 1] in _SUFFIXES and ok(digits + 1):
        return "NUMBER", digits + 1
    word = _run(text, digits, frozenset(" \t"))
    for w in _NUMBER_WORDS:
        if text[word:word + len(w)].lower() == w and ok(word + len(w)):
            return "NUMBER", word + len(w)
    return ("NUMBER", digits) if ok(digits) else (None, None)


def terminal_tokens(text: str) -> list | None:
    """The tokens of ``text`` by the grammar's terminals (:data:`TERMINALS`), or None."""
    global _lean_re
    if _lean_re is None:
        import re

        _lean_re = re.compile("|".join(f"(?P<{n}>{p})" for n, p in TERMINALS))
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


def lean_parse(text: str):
    """:func:`recipekg.query.parser.parse` for input the lean parser accepts, else None.

    Whenever it returns statements they are what the generated parser gives: the tokens are
    the ones lark's contextual lexer makes (the first terminal that matches, in lark's order,
    is one the grammar accepts there), the rules are the grammar's, and the AST comes from
    the same :class:`AstBuilder` callbacks.  Anything unusual, including an error a callback
    raises, returns None so that the generated parser reports it exactly as before.
    """
    try:
        tokens = lean_tokens(text)
        if tokens is None:
            return None
        return _LeanParser(text, tokens).start()
    except Exception:
        return None


class _LeanParser:
    def __init__(self, text: str, tokens: list) -> None:
        self.b = AstBuilder(text)
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

    def value(self, words: bool = False):
        tok = self.take("NAME", "NUMBER", "QUANTITY", "STRING")
        if words and tok.type == "NAME" and self.peek() == "NAME":
            words = [self.b.NAME(tok)]
            while self.peek() == "NAME":
                words.append(self.b.NAME(self.take("NAME")))
            return self.b.words(words)
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
        if t in ("PLAN", "RECIPE"):
            children = [self.take(t)]
            if self.peek() == "WHERE":
                children.append(self.where())
            return b.plan(children) if t == "PLAN" else b.recipe(children)
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
            return b.compare([dim, self.take(t), self.value(words=True)])
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
