"""recipekg: a knowledge graph of ML training recipes, queried in a constraint language.

    >>> import recipekg
    >>> kb = recipekg.load()
    >>> answer, = kb.query("recommend architecture where data = tabular and rows = 30k")
    >>> answer["results"][0]["id"]
    'gradient-boosted-trees'

The public API is :func:`load`, :class:`KnowledgeBase` and the error classes; the pipeline
behind it is described in docs/architecture.md.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from recipekg.version import __version__
    from recipekg.api import KnowledgeBase, load
    from recipekg.errors import (EngineError, FormulaError, InternalError, KBError, QuerySyntaxError, RangeError,
                                 RecipeKGError, UnsupportedStatement, UsageError, VocabularyError)

__all__ = [
    "load", "KnowledgeBase", "__version__",
    "RecipeKGError", "QuerySyntaxError", "VocabularyError", "RangeError", "KBError", "FormulaError",
    "UsageError", "UnsupportedStatement", "EngineError", "InternalError",
]


def __getattr__(name: str):
    """The public names, imported when first read: importing the package (as the executable
    does, for :mod:`recipekg.cli.fast`) loads none of the library until it is used."""
    if name in ("load", "KnowledgeBase"):
        from recipekg import api as module
    elif name == "__version__":
        from recipekg import version as module
    elif name in __all__:
        from recipekg import errors as module
    else:
        raise AttributeError(f"module 'recipekg' has no attribute {name!r}")
    value = globals()[name] = getattr(module, name)
    return value
