"""The generated parser's exceptions, told in the query language's own words.

    >>> from recipekg.query.parser import generated_parser
    >>> from recipekg.query.syntax_errors import syntax_error
    >>> text = "plan where gpus == 8"
    >>> try:
    ...     generated_parser().parse(text)
    ... except Exception as exc:
    ...     err = syntax_error(text, exc)
    >>> print(err.with_source(text))
    line 1, column 17: use '=' to compare, not '=='
      plan where gpus == 8
                      ^^
    expected: an operator (=, !=, <, <=, >, >=, between, in)
    did you mean: '='

:func:`syntax_error` turns lark's ``UnexpectedCharacters`` (the lexer found no terminal)
and ``UnexpectedToken`` (the parser cannot take the token) into a
:class:`~recipekg.errors.QuerySyntaxError`: the position and length of the offending
text, a message naming the situation (a statement's start, two operators, a missing value
or name, an unclosed list, ...), ``expected`` in the language's words (never terminal
names) and suggestions.  The source line is not attached here: that happens once, in
:meth:`recipekg.api.KnowledgeBase.query` (:meth:`~recipekg.errors.RecipeKGError.with_source`).
"""

from __future__ import annotations

import re

from recipekg.errors import QuerySyntaxError, RecipeKGError, closest
from recipekg.query import _standalone as generated
from recipekg.query.lean import KEYWORDS, STATEMENT_KEYWORDS
from recipekg.query.literals import NUMBER_PATTERN, SUFFIXES, UNIT_HINT, UNITS

__all__ = ["syntax_error", "expected_words"]

_OPS = frozenset({"EQ", "NE", "LT", "LE", "GT", "GE", "BETWEEN", "IN"})
_COMPARISONS = frozenset({"EQ", "NE", "LT", "LE", "GT", "GE"})
_VALUES = frozenset({"NAME", "NUMBER", "QUANTITY", "STRING"})
_STARTS = frozenset(k.upper() for k in STATEMENT_KEYWORDS)
_ENDS = frozenset({"$END", "_SEMI", "_BLANK_LINE"})
_STARTING = ", ".join(f"'{k}'" for k in STATEMENT_KEYWORDS[:-1]) + f" or '{STATEMENT_KEYWORDS[-1]}'"
_OPERATOR_WORDS = "an operator (=, !=, <, <=, >, >=, between, in)"
_QUANTITY_WORDS = "a quantity (e.g. 80GB, 12h, 40%)"

# terminal -> the language's words, in the order they are listed
_WORDS = [
    *((k.upper(), f"'{k}'") for k in STATEMENT_KEYWORDS),
    ("NAME", "a name"), ("NUMBER", "a number"), ("QUANTITY", _QUANTITY_WORDS),
    ("STRING", "a quoted string"),
    ("EQ", _OPERATOR_WORDS), ("NE", _OPERATOR_WORDS), ("LT", _OPERATOR_WORDS),
    ("LE", _OPERATOR_WORDS), ("GT", _OPERATOR_WORDS), ("GE", _OPERATOR_WORDS),
    ("BETWEEN", _OPERATOR_WORDS), ("IN", _OPERATOR_WORDS),
    ("LPAR", "'('"), ("COMMA", "','"), ("RPAR", "')'"),
    ("WHERE", "'where'"), ("AND", "'and'"), ("TOP", "'top'"),
    ("_SEMI", "';'"), ("$END", "the end of the statement"),
]


def expected_words(terminals) -> list[str]:
    """What the terminals mean, in the language's words (each phrase once, in a fixed order).

    >>> expected_words({"NAME", "STRING", "EQ", "LT"})
    ['a name', 'a quoted string', 'an operator (=, !=, <, <=, >, >=, between, in)']
    """
    out: list[str] = []
    for name, words in _WORDS:
        if name in terminals and words not in out:
            out.append(words)
    if "_BLANK_LINE" in terminals and "$END" not in terminals:
        out.append("the end of the statement")
    return out


def syntax_error(text: str, exc) -> RecipeKGError:
    """The :class:`~recipekg.errors.QuerySyntaxError` for the generated parser's ``exc``."""
    if isinstance(exc, generated.UnexpectedCharacters):
        return _bad_characters(text, exc)
    if isinstance(exc, generated.UnexpectedToken):
        return _bad_token(text, exc)
    return QuerySyntaxError(f"cannot parse: {exc.__class__.__name__}",
                            line=getattr(exc, "line", None), column=getattr(exc, "column", None))


# ============================================================================ the parser's state

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
    while isinstance(node, generated.Tree):
        if not node.children:
            return None
        node = node.children[-1]
    return node if isinstance(node, generated.Token) else None


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


def _err(message, line, column, length=1, expected=(), suggestions=()):
    return QuerySyntaxError(message, line=line, column=column, length=length,
                            expected=expected, suggestions=suggestions)


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


# ============================================================================ characters

def _bad_characters(text: str, exc) -> RecipeKGError:
    """No terminal matches at ``exc.pos_in_stream``."""
    i, line, column = exc.pos_in_stream, exc.line, exc.column
    allowed = _parser_expected(exc, exc.allowed)
    expected = expected_words(allowed)
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
        return _bad_number(word, allowed, line, column, expected)
    if ch == "!":
        return _err("'!' must be followed by '=' (not equal: '!=')", line, column, 1, expected,
                    ["!="])
    if ch == "[" and "LPAR" in allowed:
        return _err("write the list in parentheses: in (a, b)", line, column, 1, expected)
    if ch == "." and prev is not None and prev.end_pos == i and prev.type == "NAME":
        return _err("names may contain only letters, digits, '-', '_' and a '.' before a digit (llama-3.1-405b): "
                    "put other text in quotes", line, column, 1, expected, [f'"{prev.value}{word}"'])
    shown = f"'{ch}'" if ch.isprintable() and not ch.isspace() else f"U+{ord(ch):04X}"
    return _err(f"unexpected character {shown}", line, column, 1, expected)


def _bad_number(word: str, allowed, line, column, expected) -> RecipeKGError:
    """A ``word`` starting with a digit that is neither a number nor a quantity here."""
    if "NUMBER" not in allowed and ("NAME" in allowed or "STRING" in allowed):
        return _err(f"'{word}' is not a name: names start with a letter; put other text "
                    f'in quotes, e.g. "{word}"', line, column, len(word), expected,
                    [f'"{word}"'])
    m = re.match(NUMBER_PATTERN, word)
    num, tail = m.group(0), word[m.end():]
    if "NUMBER" in allowed and "QUANTITY" not in allowed:  # after 'top'
        return _err(f"'top' needs a whole number, not '{word}'", line, column, len(word),
                    ["a whole number"])
    if tail and tail.isalpha():
        suggestions = []
        if tail == "m":
            suggestions = [f"{num}M", f"{num}min"]
        else:
            suggestions = [num + u for u in closest(tail, [*SUFFIXES, *UNITS], n=2)]
        return _err(f"unknown unit or suffix '{tail}' in '{word}': {UNIT_HINT}", line,
                    column, len(word), expected, suggestions)
    return _err(f"'{word}' is not a number: write e.g. 30000, 30_000, 30k, 1.5M or 2.5e20",
                line, column, len(word), expected)


# ============================================================================ tokens

class _Situation:
    """An unexpected token and what surrounds it: the parser's state, told plainly."""

    def __init__(self, text: str, exc) -> None:
        tok = self.tok = exc.token
        self.text = text
        self.expected_set = _parser_expected(exc, exc.expected)
        self.expected = expected_words(self.expected_set)
        self.prev, self.shifted = _previous(exc)
        if tok.type == "$END":
            self.where = (tok.end_line, tok.end_column, 1)
        else:
            length = (tok.end_column - tok.column) if tok.end_line == tok.line else 1
            self.where = (tok.line, tok.column, length)
        self.found = _describe(tok)
        self.ends = tok.type in _ENDS or tok.type in _STARTS
        self.p = self.prev.value if self.prev is not None else ""

    def prev_is(self, *types) -> bool:
        return self.prev is not None and self.prev.type in types

    def err(self, message, suggestions=(), at=None, exp=None) -> RecipeKGError:
        line, column, length = at if at else self.where
        return _err(message, line, column, length, self.expected if exp is None else exp,
                    suggestions)


def _bad_token(text: str, exc) -> RecipeKGError:
    """The parser cannot take ``exc.token``: the first situation that fits explains why."""
    s = _Situation(text, exc)
    for explain in (_at_statement_start, _two_operators, _missing_and, _missing_value, _missing_name,
                    _missing_operator, _inside_constraint):
        error = explain(s)
        if error is not None:
            return error
    return _after_constraint(s)


def _at_statement_start(s: _Situation) -> RecipeKGError | None:
    if not _STARTS <= s.expected_set:
        return None
    tok, expected = s.tok, expected_words(_STARTS)
    if tok.type == "NAME":
        kw = _keyword_prefix(tok.value, STATEMENT_KEYWORDS)
        if kw:
            rest = tok.value[len(kw):]
            return s.err(f"'{tok.value}' is not a keyword: put a space after '{kw}'",
                         [f"{kw} {rest.lstrip('_-')}"], exp=expected)
        return s.err(f"a statement starts with {_STARTING}, not {s.found}",
                     closest(tok.value, STATEMENT_KEYWORDS), exp=expected)
    if _after_blank_line(s.text, tok.start_pos):
        return s.err(f"{s.found} cannot start a statement: the blank line before it ended the "
                     "previous one (a statement may span lines, but not blank lines)",
                     exp=expected)
    return s.err(f"a statement starts with {_STARTING}, not {s.found}", exp=expected)


def _two_operators(s: _Situation) -> RecipeKGError | None:
    """``==``, ``=<``, ``=>``, ``<>``, or two operators apart."""
    tok, prev, p = s.tok, s.prev, s.p
    if not (s.prev_is(*_COMPARISONS) and tok.type in _COMPARISONS | _OPS):
        return None
    both = p + tok.value
    fix = {"==": "=", "=<": "<=", "=>": ">=", "<>": "!=", "!==": "!="}.get(both)
    span = (prev.line, prev.column, tok.end_pos - prev.start_pos)
    if prev.end_pos != tok.start_pos:
        return s.err(f"two operators in a row: '{p}' and '{tok.value}'", [p], span,
                     [_OPERATOR_WORDS])
    if both == "==":
        return s.err("use '=' to compare, not '=='", ["="], span, [_OPERATOR_WORDS])
    return s.err(f"'{both}' is not an operator", [fix] if fix else [], span, [_OPERATOR_WORDS])


def _missing_and(s: _Situation) -> RecipeKGError | None:
    """An operator after a value's name, where another name or ``and`` could follow: the name
    was the next constraint's dimension (``data = tabular rows = 30k``)."""
    prev = s.prev
    if not (s.tok.type in _OPS and s.prev_is("NAME") and "AND" in s.expected_set):
        return None
    return s.err(f"'{prev.value}' starts another constraint: join constraints with 'and'",
                 [f"and {prev.value}"], (prev.line, prev.column, len(prev.value)))


def _missing_value(s: _Situation) -> RecipeKGError | None:
    if not _VALUES <= s.expected_set:
        return None
    what = "value"
    if s.prev_is("BETWEEN"):
        what = "lower bound"
    elif s.prev_is("AND"):
        what = "upper bound"
    after = f" after '{s.p}'" if s.prev is not None else ""
    if s.ends or s.tok.type in _OPS | {"AND", "WHERE", "TOP"}:
        return s.err(f"missing {what}{after}")
    return s.err(f"expected a {what}{after}, found {s.found}")


def _missing_name(s: _Situation) -> RecipeKGError | None:
    if not (s.expected_set <= {"NAME", "STRING"} and "NAME" in s.expected_set):
        return None
    if s.prev_is("RECOMMEND"):
        message = "expected what to recommend after 'recommend' (a kind such as " \
                  "architecture or optimizer)"
    elif s.prev_is("EXPLAIN"):
        message = "expected the choice to explain after 'explain' (a name or a quoted string)"
    elif s.prev_is("WHERE", "AND"):
        message = (f"missing constraint after '{s.p}'" if s.ends else
                   f"expected a dimension name after '{s.p}', found {s.found}")
        if s.tok.type == "NUMBER" or s.tok.type == "QUANTITY":
            message += " (names start with a letter)"
    else:
        message = f"expected a name, found {s.found}"
    return s.err(message)


def _missing_operator(s: _Situation) -> RecipeKGError | None:
    if not _OPS <= s.expected_set:
        return None
    if s.ends:
        return s.err(f"missing operator and value after '{s.p}'")
    suggestions = closest(s.tok.value, ["between", "in"]) if s.tok.type == "NAME" else []
    return s.err(f"expected an operator after '{s.p}', found {s.found}", suggestions)


def _inside_constraint(s: _Situation) -> RecipeKGError | None:
    """In the middle of ``top <n>``, ``in (...)`` or ``between <low> and <high>``."""
    expected_set, tok, found = s.expected_set, s.tok, s.found
    if expected_set == {"NUMBER"}:
        return s.err(f"'top' needs a whole number, e.g. 'top 3', not {found}",
                     exp=["a whole number"])
    if expected_set == {"LPAR"}:
        return s.err(f"'in' needs a list in parentheses, e.g. in (a, b), not {found}")
    if expected_set == {"AND"}:
        suggestions = closest(tok.value, ["and"]) if tok.type == "NAME" else []
        return s.err(f"'between' needs two bounds joined by 'and': between <low> and <high>; "
                     f"found {found}", suggestions)
    if {"COMMA", "RPAR"} <= expected_set:
        lpar = next((t for t in reversed(s.shifted) if t.type == "LPAR"), None)
        opened = f" (opened at line {lpar.line}, column {lpar.column})" if lpar else ""
        if s.ends:
            return s.err(f"unclosed '('{opened}: end the list with ')'")
        return s.err(f"expected ',' or ')' in the list{opened}, found {found}")
    return None


def _thousands(s: _Situation) -> RecipeKGError | None:
    """``rows = 30,000``: a number written with thousands separators (outside a list, where a
    comma separates values): the error proposes it without them and with a suffix.

    >>> from recipekg.query.parser import parse
    >>> try:
    ...     parse("recommend architecture where rows = 1,500,000")
    ... except Exception as exc:
    ...     print(exc.message, exc.suggestions)
    write '1,500,000' without thousands separators: 1500000 or 1.5M ['1500000', '1.5M']
    """
    prev = s.prev
    if prev is None or prev.type != "NUMBER" or not prev.value.isdigit() or len(prev.value) > 3:
        return None
    m = re.match(r"(?:,[0-9]{3})+(?![0-9A-Za-z_.])", s.text[prev.end_pos:])
    if m is None:
        return None
    written = prev.value + m.group(0)
    digits = written.replace(",", "")
    short = _suffixed(int(digits))
    suggestions = [digits] + ([short] if short != digits else [])
    return s.err(f"write '{written}' without thousands separators: {' or '.join(suggestions)}", suggestions,
                 at=(prev.line, prev.column, len(written)))


def _suffixed(n: int) -> str:
    """``30000`` -> ``30k``, ``1500000`` -> ``1.5M`` (exactly, or the digits when no suffix says it in 4 digits)."""
    for suffix, scale in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("k", 10**3)):
        if n >= scale:
            if (n * 1000) % scale:
                break
            whole, rest = divmod(n, scale)
            return f"{whole}" + (f".{str(rest * 1000 // scale).zfill(3).rstrip('0')}" if rest else "") + suffix
    return str(n)


def _starts_constraint(rest: str) -> bool:
    """Whether the text after a word goes on as a constraint does (an operator, ``between``,
    ``in``, ``not in``): the word was a dimension, and the ``and`` before it is missing.

    >>> _starts_constraint(" = 8"), _starts_constraint(" between 1 and 2"), _starts_constraint(" hours")
    (True, True, False)
    """
    rest = rest.lstrip()
    if rest[:1] in ("=", "<", ">", "!"):
        return True
    word = rest.split(None, 1)[0].lower() if rest else ""
    return word in ("between", "in", "not")


def _after_constraint(s: _Situation) -> RecipeKGError:
    """After a complete constraint or statement: a stray word, unit, keyword or comma."""
    tok, prev, expected_set = s.tok, s.prev, s.expected_set
    if tok.type == "TOP" and "TOP" not in expected_set:
        return s.err("'top' only limits the list of a 'recommend' statement")
    if tok.type == "COMMA" and "AND" in expected_set:
        grouped = _thousands(s)
        if grouped is not None:
            return grouped
        return s.err("join constraints with 'and', not ','", ["and"])
    if tok.type in _STARTS:
        return s.err(f"'{tok.value}' starts a new statement: separate statements with ';' or "
                     "a blank line")
    keywords = [kw for kw in KEYWORDS if kw.upper() in expected_set]
    if tok.type == "NAME" and "AND" in expected_set and _starts_constraint(s.text[tok.end_pos:]):
        return s.err(f"'{tok.value}' starts another constraint: join constraints with 'and'",
                     [f"{prev.value} and {tok.value}"] if prev is not None else ["and"])
    if (tok.type == "NAME" and s.prev_is("NUMBER")
            and not s.text[prev.end_pos:tok.start_pos].strip()
            and not closest(tok.value, keywords) and not _keyword_prefix(tok.value, keywords)):
        suggestions = [f"{prev.value} {u}" for u in closest(tok.value, UNITS, n=2)]
        if tok.value in SUFFIXES:
            suggestions.insert(0, prev.value + tok.value)
        return s.err(f"unknown unit '{tok.value}' after '{prev.value}': {UNIT_HINT}",
                     suggestions)
    if tok.type == "NAME":
        kw = _keyword_prefix(tok.value, keywords)
        if kw:
            rest = tok.value[len(kw):]
            return s.err(f"'{tok.value}' is not a keyword: put a space after '{kw}'",
                         [f"{kw} {rest.lstrip('_-')}"])
        return s.err(f"unexpected {s.found}", closest(tok.value, keywords))
    return s.err(f"unexpected {s.found}")
