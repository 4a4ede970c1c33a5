"""The query language: from text to a syntax tree.

    >>> from recipekg.query.parser import parse
    >>> (statement,) = parse("recommend architecture where data = tabular top 3")
    >>> statement.kind.text, statement.top
    ('architecture', 3)

- :mod:`~recipekg.query.parser`: :func:`~recipekg.query.parser.parse`, the entry point,
  and the full parse with the LALR parser generated from ``grammar.lark``
  (``_standalone.py``, written by ``tools/gen_parser.sh``; never edit it by hand);
- :mod:`~recipekg.query.lean`: the lean tokenizer and parser that answer well-formed
  queries without loading the generated parser;
- :mod:`~recipekg.query.build`: the tree builder both parsers share;
- :mod:`~recipekg.query.literals`: numbers, quantities and units, strings;
- :mod:`~recipekg.query.syntax_errors`: the generated parser's errors in the language's words;
- :mod:`~recipekg.query.ast`: the syntax tree.

Importing this package imports none of them, so ``recipekg.query.ast`` stays light.
"""
