"""The documents beside the answers that the command line's ``--format json`` and the MCP
tools give: the word list (``recipekg vocab``, the ``vocab`` tool) and CSL-JSON citations
(``recipekg cite --format csl-json``, the ``cite`` tool's default).

    >>> from recipekg.contracts.schema import schema_of
    >>> defs = {}
    >>> schema_of(CslItem, defs) and sorted(defs["CslItem"]["required"])
    ['id', 'title', 'type']
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from recipekg.contracts.common import NoAdvice, Origin


class Value(TypedDict):
    """A value of a categorical dimension, with its spellings and the values broader and narrower."""

    id: str
    label: str
    aliases: list[str]
    definition: str | None
    broader: list[str]
    narrower: list[str]
    #: What the value implies of another dimension the query does not give ("data = text" for
    #: summarization: rkg:impliesValue), taken as given then, as "dimension = value".
    implies: NotRequired[list[str]]
    no_advice: NotRequired[NoAdvice]
    #: The extension that added the value (hostile round 8, 018: vocab listed it unmarked).
    origin: NotRequired[Origin]
    #: The broader and narrower values an extension added, by id, with where (hostile round 9,
    #: 027: a bundled family's line listed a new member unmarked).
    related_origins: NotRequired[dict[str, Origin]]


class Dimension(TypedDict):
    """A dimension of the query language: its spellings, kind, unit, meaning and an example."""

    name: str
    label: str
    aliases: list[str]
    kind: str
    unit: str | None
    definition: str | None
    example: str | None
    min: float | None
    max: float | None
    #: Only plan reads it.
    plan_only: bool
    derived_from: str | None
    values: NotRequired[list[Value]]
    #: The extension that added the dimension.
    origin: NotRequired[Origin]


class KindChoice(TypedDict):
    id: str
    label: str
    aliases: list[str]
    definition: str | None
    #: The extension that added the choice.
    origin: NotRequired[Origin]


class Kind(TypedDict):
    """A kind of choice (``recommend <kind>``) with its choices."""

    kind: str
    choices: list[KindChoice]


class Vocabulary(TypedDict):
    """The word list of the query language (reason/vocab.py)."""

    statements: list[str]
    keywords: list[str]
    operators: list[str]
    dimensions: list[Dimension]
    kinds: list[Kind]


class Name(TypedDict, total=False):
    family: str
    given: str
    literal: str



CslDate = TypedDict("CslDate", {"date-parts": list[list[int]]})
CslItem = TypedDict("CslItem", {
    "id": str, "type": str, "title": str,
    "author": NotRequired[list[Name]],
    "issued": NotRequired[CslDate],
    "container-title": NotRequired[str],
    "genre": NotRequired[str],
    "volume": NotRequired[str],
    "issue": NotRequired[str],
    "page": NotRequired[str],
    "version": NotRequired[str],
    "publisher": NotRequired[str],
    "number": NotRequired[str],
    "DOI": NotRequired[str],
    "URL": NotRequired[str],
    "accessed": NotRequired[CslDate],
    "note": NotRequired[str],
})
CslItem.__doc__ = ("A CSL-JSON item (a subset of the CSL project's csl-data.json): "
                   "what ``recipekg cite --format csl-json`` writes for each paper.")
