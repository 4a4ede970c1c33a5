"""Completing statements from the KB's vocabulary: for ``recipekg shell`` (TAB) and for the
shells' completion of the command line (click's ``_RECIPEKG_COMPLETE`` protocol).

What may come next is read from the words typed so far with the grammar's layout
(``query/grammar.lark``): a keyword, a kind, a choice, a dimension, an operator, a value of
that dimension, ``and``/``top``. Every name comes from the snapshot (kinds, dimensions with
their aliases, values with their aliases, choices), never from a list in Python::

    >>> vocab = Vocabulary(snap)
    >>> complete("recommend arch", vocab)
    Completions(start=-4, words=['architecture'])
    >>> complete("plan where hardware = h10", vocab).words[:2]
    ['h100', 'h100-80gb']
    >>> complete("recommend fix where symptom = loss-spike ", vocab).words
    ['and', 'top']
    >>> complete('explain "8-bit-adamw', vocab)  # a name the grammar reads only quoted
    Completions(start=-12, words=['"8-bit-adamw"'])

This module imports only the standard library (click only inside the callbacks).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from recipekg.cli.ends import code_of
from recipekg.query.ast import OPERATORS
from recipekg.query.lean import KEYWORDS as _ALL_KEYWORDS, STATEMENT_KEYWORDS as KEYWORDS

_RESERVED = set(_ALL_KEYWORDS)

# strings (even unterminated), comments, separators (';' or a blank line), operators, words
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|;|\n[ \t\f\r\v]*\n|!=|<=|>=|[=<>(),]|[^\s"#;=<>(),!]+')
_END = re.compile(r'(?:;|\n[ \t\f\r\v]*\n)\s*\Z')
_PARTIAL = re.compile(r"[A-Za-z0-9_.%/-]+\Z")
_BARE = re.compile(r"[a-zA-Z][a-zA-Z0-9_-]*")


class Completions(NamedTuple):
    """``words`` that may replace the last ``-start`` characters of the text."""

    start: int
    words: list


class Vocabulary:
    """The names a statement can use, read from a snapshot."""

    def __init__(self, snap: dict) -> None:
        self.kinds = sorted(snap["kinds"])
        self.choices = sorted(snap["rule_index"]["choices"])
        self.dimensions = snap["dimensions"]
        self.spellings = {}  # every spelling of a dimension -> its name
        for name, dim in self.dimensions.items():
            for alias in [name, *dim["aliases"]]:
                self.spellings[alias] = name

    def dimension_words(self, statement: str) -> list[str]:
        """Dimensions and aliases a statement may constrain (plan-only ones in ``plan`` and
        ``recipe``, which plans)."""
        return sorted(s for s, name in self.spellings.items()
                      if statement in ("plan", "recipe") or not self.dimensions[name].get("plan_only"))

    def values(self, spelling: str | None) -> list[str]:
        """The names (and aliases) a categorical dimension takes; [] for a number."""
        dim = self.dimensions.get(self.spellings.get((spelling or "").lower(), ""))
        return sorted(dim["values"]) if dim and dim["kind"] == "categorical" else []


def complete(text: str, vocab: Vocabulary) -> Completions:
    """What may replace the word being typed at the end of ``text`` (the statement so far)."""
    partial = _PARTIAL.search(text)
    partial = partial.group() if partial else ""
    head = text[:len(text) - len(partial)]
    quoted = head.endswith('"') and head.count('"') % 2 == 1  # typing a quoted name: the quote goes too
    tokens = [t for t in _TOKEN.findall(head[:len(head) - quoted]) if not t.startswith("#")]
    cut = max((i for i, t in enumerate(tokens) if t == ";" or t.startswith("\n")), default=-1)
    words = _expected(tokens[cut + 1:], vocab)
    low = partial.lower()
    return Completions(-len(partial) - quoted, [_name(w) for w in words if w.lower().startswith(low)])


def _name(word: str) -> str:
    """A name as a statement can hold it: bare when the grammar reads it as a NAME, else
    quoted (``"8-bit-adam"``: a name may not start with a digit).

    >>> _name("vit"), _name("8-bit-adam"), _name("=")
    ('vit', '"8-bit-adam"', '=')
    """
    if _BARE.fullmatch(word) or word in OPERATORS or word in ("(", ")", ","):
        return word
    return '"' + word + '"'


def ends_input(text: str) -> bool:
    """Whether ``text`` is ready to answer: a shell command, or statements ended by ``;`` or a
    blank line (a ``;`` in a comment or quoted text does not end one)."""
    stripped = text.strip()
    if stripped.startswith("."):
        return True
    return bool(stripped) and bool(_END.search(code_of(text)))


def is_complete(text: str) -> bool:
    """Whether Enter answers ``text`` at the shell's prompt: a shell command, an empty input,
    statements ended by ``;`` or a blank line, or statements that parse completely; text the
    parser could still accept with more words (``plan where``, ``... and``, ``in (a, b``)
    continues on the next line. Text that cannot become a statement whatever follows is
    answered too, so its error shows at once (as a REPL shows a syntax error).

    >>> is_complete("plan where gpus = 8"), is_complete("plan where gpus = 8 and"), is_complete("explain")
    (True, False, False)
    >>> is_complete("plan where gpus == 8"), is_complete("# a comment"), is_complete("plan where\\n")
    (True, False, True)
    """
    if not text.strip() or ends_input(text + "\n"):  # the newline Enter would add: a blank line ends it
        return True
    from recipekg.query import _standalone as generated
    from recipekg.query.parser import generated_parser

    try:
        tree = generated_parser().parse(text)
    except generated.UnexpectedToken as exc:
        return exc.token.type != "$END"  # the input ended where the parser wanted more
    except generated.UnexpectedInput:
        return True
    return bool(tree.children)  # only comments: a statement may follow them


def _expected(tokens: list[str], vocab: Vocabulary) -> list[str]:
    """The words that may follow ``tokens`` (one statement)."""
    state, statement, dim = "start", "", None
    for token in tokens:
        word = token.lower()
        state, dim = _step(state, word, statement, dim)
        if state == "?":
            return []
        statement = statement or word
    return _words(state, statement, dim, vocab)


def _step(state: str, word: str, statement: str, dim):
    """The state after ``word``: a tiny automaton over the grammar's statements."""
    keyword = word in _RESERVED
    if state == "start":
        return {"recommend": "kind", "plan": "clause", "recipe": "clause", "explain": "choice"}.get(word, "?"), None
    if state in ("kind", "choice"):
        return ("?", None) if keyword else ("clause", None)
    if state == "clause" or (state == "next" and word == "top"):
        if word == "where":
            return "dimension", None
        return ("topn", None) if word == "top" and statement == "recommend" else ("?", None)
    if state == "dimension":
        return ("?", None) if keyword else ("operator", word)
    if state == "operator":
        return {"between": ("low", dim), "in": ("open", dim)}.get(word, ("value", dim) if word in OPERATORS
                                                                   else ("?", None))
    if state in ("value", "low", "high", "member"):
        return ("?", None) if keyword else ({"value": "next", "low": "between-and", "high": "next",
                                             "member": "comma"}[state], dim)
    if state == "between-and":
        return ("high", dim) if word == "and" else (state, dim)  # a unit word: 80 GB
    if state == "open":
        return ("member", dim) if word == "(" else ("?", None)
    if state == "comma":
        return {",": ("member", dim), ")": ("next", dim)}.get(word, (state, dim))
    if state == "next":
        return ("dimension", None) if word == "and" else (("?", None) if keyword else (state, dim))
    return "?", None


def _words(state: str, statement: str, dim, vocab: Vocabulary) -> list[str]:
    if state == "start":
        return list(KEYWORDS)
    if state == "kind":
        return vocab.kinds
    if state == "choice":
        return vocab.choices
    if state == "clause":
        return ["where", "top"] if statement == "recommend" else ["where"]
    if state == "dimension":
        return vocab.dimension_words(statement)
    if state == "operator":
        return list(OPERATORS)
    if state in ("value", "low", "high", "member"):
        return vocab.values(dim)
    if state == "next":
        return ["and", "top"] if statement == "recommend" else ["and"]
    if state == "between-and":
        return ["and"]
    return []


# ---------------------------------------------------------------- click's shell completion

def _vocabulary(ctx) -> Vocabulary | None:
    """The vocabulary of the KB the command line names (its ``--kb`` files too), or None."""
    snap = _snapshot(ctx)
    return Vocabulary(snap) if snap is not None else None


def _items(words):
    from click.shell_completion import CompletionItem

    return [CompletionItem(w) for w in words]


def complete_choice(ctx, param, incomplete: str):
    """``recipekg explain <TAB>``, ``recipekg cite --choice <TAB>``: the KB's choices."""
    vocab = _vocabulary(ctx)
    return _items(c for c in (vocab.choices if vocab else []) if c.startswith(incomplete.lower()))


def complete_words(command: str):
    """The callback for the words of ``recipekg explain CHOICE ...`` / ``recipekg plan ...``:
    they make a statement, completed as the shell completes it."""

    def callback(ctx, param, incomplete: str):
        vocab = _vocabulary(ctx)
        if vocab is None:
            return []
        before = [command, *([ctx.params["choice"]] if ctx.params.get("choice") else []),
                  *(ctx.params.get(param.name) or ())]
        found = complete(" ".join([*before, incomplete]), vocab)
        return _items(w for w in found.words if w not in ("(", ")", ","))

    return callback


def complete_statement(ctx, param, incomplete: str):
    """``recipekg query "recommend arch<TAB>``: the whole argument with its last word completed."""
    vocab = _vocabulary(ctx)
    if vocab is None:
        return []
    found = complete(incomplete, vocab)
    head = incomplete[:len(incomplete) + found.start]
    return _items(head + w for w in found.words)


def complete_paper(ctx, param, incomplete: str):
    """``recipekg paper <TAB>``, ``recipekg cite --paper <TAB>``: the bibliography's ids."""
    snap = _snapshot(ctx)
    return _items(p for p in sorted(snap["papers"] if snap else ()) if p.startswith(incomplete))


def complete_rule(ctx, param, incomplete: str):
    """``recipekg cite --rule <TAB>``: the rules' ids (as ``cite --rule`` takes them)."""
    snap = _snapshot(ctx)
    ids = sorted(r["id"] for r in snap["rules"].values()) if snap else []
    return _items(i for i in ids if i.startswith(incomplete))


def _snapshot(ctx) -> dict | None:
    try:
        from recipekg.api import KnowledgeBase

        return KnowledgeBase.load(ctx.params.get("extensions") or ()).snap
    except Exception:  # completion must never print a traceback into the user's shell
        return None
