"""recipekg: a knowledge graph of ML training recipes, queried in a constraint language.

    >>> import recipekg
    >>> kb = recipekg.load()
    >>> answer = kb.query("recommend architecture where data = tabular and rows = 30k")  # doctest: +SKIP
"""

__version__ = "0.1.0"


def load(extensions=(), *, use_cache: bool = True):
    """The bundled knowledge base, merged with the user's extension Turtle files."""
    from .kb import KnowledgeBase

    return KnowledgeBase.load(extensions, use_cache=use_cache)
