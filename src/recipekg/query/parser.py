"""Parse query text into statements (:mod:`recipekg.query.ast`).

    >>> from recipekg.query.parser import parse
    >>> [type(s).__name__ for s in parse("recommend optimizer where prefer = low-memory; plan")]
    ['Recommend', 'Plan']
    >>> text = "recomend architecture"
    >>> try:
    ...     parse(text)
    ... except Exception as exc:
    ...     err = exc
    >>> type(err).__name__, err.line, err.column, err.length, err.source_line
    ('QuerySyntaxError', 1, 1, 8, None)
    >>> print(err.with_source(text))
    line 1, column 1: a statement starts with 'recommend', 'plan', 'explain' or 'recipe', not 'recomend'
      recomend architecture
      ^^^^^^^^
    expected: 'recommend', 'plan', 'explain' or 'recipe'
    did you mean: 'recommend'

The grammar is ``grammar.lark``; this package imports only the parser generated from it
(``_standalone.py``), never lark, so the query path stays light.  A well-formed query does
not even load the generated parser: :func:`recipekg.query.lean.lean_parse` answers it, and
anything it does not accept goes to the generated parser (:func:`full_parse`), which is the
reference and the only source of error messages (:mod:`recipekg.query.syntax_errors`).
Both build the tree with :class:`recipekg.query.build.AstBuilder`, whose methods are named
after the grammar's rules; here it becomes a lark ``Transformer``.  After editing the
grammar, regenerate with::

    sh tools/gen_parser.sh
    # = python -m lark.tools.standalone --start start --lexer contextual \\
    #       --out src/recipekg/query/_standalone.py src/recipekg/query/grammar.lark

The parser checks syntax, units and plain ranges (``top 0``, ``between 10 and 5``); names
are checked later against the ontology.  Whatever the text, :func:`parse` returns a tuple
of statements or raises :class:`~recipekg.errors.RecipeKGError` (never a lark exception)
with its line, column and length; the caller attaches the source text
(:meth:`~recipekg.errors.RecipeKGError.with_source`, done by
:meth:`recipekg.api.KnowledgeBase.query`).
"""

from __future__ import annotations

from recipekg.errors import InternalError, RecipeKGError, UsageError
from recipekg.limits import MAX_QUERY_CHARS, MAX_STATEMENTS
from recipekg.query.ast import Statement
from recipekg.query.build import AstBuilder
from recipekg.query.lean import KEYWORDS, STATEMENT_KEYWORDS, lean_parse

__all__ = ["parse", "full_parse", "generated_parser", "STATEMENT_KEYWORDS", "KEYWORDS"]

_parser = None
_transformer = None


def parse(text: str) -> tuple[Statement, ...]:
    """All statements of ``text`` in order; empty statements produce nothing.

    >>> [s.text for s in parse("plan where gpus = 8 ;; # nothing\\n\\nexplain vit")]
    ['plan where gpus = 8', 'explain vit']
    """
    if not isinstance(text, str):
        raise UsageError(f"a query is text (str), not {type(text).__name__}")
    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"the query is too long: {len(text):,} characters (at most {MAX_QUERY_CHARS:,}); "
                         f"split it into several files or calls")
    statements = lean_parse(text)
    if statements is None:
        statements = full_parse(text)
    if len(statements) > MAX_STATEMENTS:
        pos = statements[MAX_STATEMENTS].pos
        raise UsageError(f"too many statements: {len(statements)} (at most {MAX_STATEMENTS} per query text)",
                         line=pos.line, column=pos.column)
    return statements


def full_parse(text: str) -> tuple[Statement, ...]:
    """:func:`parse` with the generated LALR parser (the reference, and all error messages).

    >>> [type(s).__name__ for s in full_parse("explain vit where data = images")]
    ['Explain']
    """
    from recipekg.query import _standalone as generated

    try:
        try:
            tree = generated_parser().parse(text)
        except generated.UnexpectedInput as exc:
            from recipekg.query.syntax_errors import syntax_error

            raise syntax_error(text, exc) from None
        try:
            return _ast_transformer()(text).transform(tree)
        except generated.VisitError as exc:
            if isinstance(exc.orig_exc, RecipeKGError):
                raise exc.orig_exc from None
            raise
    except RecipeKGError:
        raise
    except Exception as exc:  # a bug here must still reach the user as one short message
        raise InternalError(f"internal error while parsing: {type(exc).__name__}: {exc}") from exc


def generated_parser():
    """The LALR parser generated from ``grammar.lark`` (built on first use).

    >>> generated_parser().parse("plan").data
    'start'
    """
    global _parser
    if _parser is None:
        from recipekg.query import _standalone as generated

        _parser = generated.Lark_StandAlone()
    return _parser


def _ast_transformer():
    """:class:`~recipekg.query.build.AstBuilder` as a lark Transformer of the generated trees."""
    global _transformer
    if _transformer is None:
        from recipekg.query import _standalone as generated

        class ToAst(AstBuilder, generated.Transformer):
            """The tree -> AST transformer: a method per rule and value terminal."""

            def __init__(self, text: str) -> None:
                generated.Transformer.__init__(self, visit_tokens=True)
                AstBuilder.__init__(self, text)

        _transformer = ToAst
    return _transformer
