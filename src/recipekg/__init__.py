"""recipekg: a knowledge graph of ML training recipes, queried in a constraint language.

    >>> import recipekg
    >>> kb = recipekg.load()
    >>> answer = kb.query("recommend architecture where data = tabular and rows = 30k")  # doctest: +SKIP
"""

__version__ = "0.1.0"


def load(extensions=(), *, use_cache: bool = True, shacl: bool | None = None):
    """The bundled knowledge base, merged with the user's extension Turtle files.

    Extensions are validated (structure and SHACL shapes) before use; ``shacl=False`` skips
    the shapes for very large extensions (see :meth:`recipekg.kb.KnowledgeBase.load`).
    """
    from .kb import KnowledgeBase

    return KnowledgeBase.load(extensions, use_cache=use_cache, shacl=shacl)
