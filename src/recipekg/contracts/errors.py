"""The error object every surface gives for a query that cannot be answered
(``{"error": {...}}``; errors.py ``RecipeKGError.to_dict``).

    >>> from recipekg.contracts.schema import required_keys
    >>> sorted(required_keys(ErrorDetail))
    ['column', 'expected', 'kind', 'line', 'message', 'suggestions']
"""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict

from recipekg.contracts.schema import Names

#: The kind of an error: one per error class of recipekg (errors.py).
ErrorKind = Annotated[str, Names("error-kind")]


class ErrorDetail(TypedDict):
    """Where (1-based line and column, null when unknown), what was expected (in the
    language's own words) and, for a misspelled name, the closest known names."""

    kind: ErrorKind
    message: str
    line: int | None
    column: int | None
    expected: list[str]
    suggestions: list[str]
    #: The file the text came from (a KB file, a query file).
    file: NotRequired[str]
    #: Warnings about a suggestion: one that is a different concept, not a spelling.
    notes: NotRequired[list[str]]


class ErrorAnswer(TypedDict):
    """A query that cannot be answered."""

    error: ErrorDetail
