"""recipekg: a knowledge graph of ML training recipes, queried in a constraint language.

    >>> import recipekg
    >>> kb = recipekg.load()
    >>> answer, = kb.query("recommend architecture where data = tabular and rows = 30k")
    >>> answer["results"][0]["id"]
    'gradient-boosted-trees'

The public API is :func:`load`, :class:`KnowledgeBase` and the error classes; the pipeline
behind it is described in docs/architecture.md.
"""

from recipekg.api import KnowledgeBase, load
from recipekg.errors import (EngineError, FormulaError, InternalError, KBError, QuerySyntaxError, RangeError,
                             RecipeKGError, UnsupportedStatement, UsageError, VocabularyError)
from recipekg.version import __version__

__all__ = [
    "load", "KnowledgeBase", "__version__",
    "RecipeKGError", "QuerySyntaxError", "VocabularyError", "RangeError", "KBError", "FormulaError",
    "UsageError", "UnsupportedStatement", "EngineError", "InternalError",
]
