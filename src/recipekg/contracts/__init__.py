"""The contracts between recipekg's layers and with its users: the typed definitions of every
answer (TypedDicts, checked by mypy over the builders annotated with them: ``tests/contracts``)
and the JSON Schema generated from them (:mod:`recipekg.contracts.documents`, published by
``recipekg schema``, ``GET /api/schema`` and the OpenAPI document).

The definitions are imported only by type checkers (``if TYPE_CHECKING:`` in the builders), the
schema command and the tests: the query path never loads them, nor :mod:`typing`.

    >>> from recipekg.contracts.documents import schema
    >>> schema("recommend")["title"]
    'recipekg recommend answer'
"""

#: The documents ``recipekg schema NAME`` prints (without NAME: every answer and the error): each
#: statement's answer, the error object, the word list, CSL-JSON citations and the compact answer.
DOCUMENTS = ("recommend", "explain", "plan", "recipe", "error", "vocab", "citations", "summary")
