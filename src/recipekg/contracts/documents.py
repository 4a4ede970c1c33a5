"""The published JSON Schema (draft 2020-12) of every answer: ``recipekg schema [NAME]``,
``GET /api/schema`` and the OpenAPI document's components, all from the typed definitions
the answer builders are annotated with.

    >>> doc = schema()
    >>> doc["$schema"], sorted(doc["$defs"])[:3]
    ('https://json-schema.org/draft/2020-12/schema', ['AddedChoice', 'AheadBy', 'Alongside'])
    >>> schema("plan")["properties"]["statement"]
    {'enum': ['plan']}

With no name, the schema every ``--format json`` answer, every ``/api/query`` answer and the
answer tools of MCP (``query``, ``plan``, ``explain``, ``recipe``) validate against: one answer,
an array of two or more, or the error object. A name gives one document: a statement's
answer, ``error``, the other tools' documents (``vocab``, ``citations``: CSL-JSON), or
``summary``: the compact answer (``--format summary``, MCP's answering tools without
``detail``, ``/api/query?detail=0``), one or an array of two or more; its definitions are in
the schema without a name too (``Summary``, ``Summaries``), for the OpenAPI document.
The enums of registry names (quantities, recipe sections, configuration formats, error
kinds) are read from the registries when the schema is made.
"""

from __future__ import annotations

from typing import Any

from recipekg.contracts import DOCUMENTS
from recipekg.contracts.errors import ErrorAnswer
from recipekg.contracts.explain import ExplainAnswer
from recipekg.contracts.plan import PlanAnswer
from recipekg.contracts.recipe import RecipeAnswer
from recipekg.contracts.recommend import RecommendAnswer
from recipekg.contracts.schema import NAMES, document, schema_of
from recipekg.contracts.summary import SUMMARIES
from recipekg.contracts.tools import CslItem, Vocabulary

#: Each statement's answer.
ANSWERS: dict[str, Any] = {"recommend": RecommendAnswer, "explain": ExplainAnswer, "plan": PlanAnswer,
                           "recipe": RecipeAnswer}
#: The documents beside the answers, by name.
OTHERS: dict[str, Any] = {"error": ErrorAnswer, "vocab": Vocabulary, "citations": list[CslItem], "summary": None}
TITLES = {"recommend": "recipekg recommend answer", "explain": "recipekg explain answer",
          "plan": "recipekg plan answer", "recipe": "recipekg recipe answer", "error": "recipekg error",
          "vocab": "recipekg vocabulary", "citations": "recipekg citations (CSL-JSON)",
          "summary": "recipekg compact answers"}
#: What ``recipekg schema NAME`` takes (:data:`recipekg.contracts.DOCUMENTS`, which the command
#: line reads without loading the definitions).
NAMES_OF_DOCUMENTS = tuple(ANSWERS) + tuple(OTHERS)
assert NAMES_OF_DOCUMENTS == DOCUMENTS, "recipekg/contracts/__init__.py's DOCUMENTS lists every document"
SCHEMA_ID = "https://w3id.org/recipekg/schema/answers.json"


def _quantities() -> list[str]:
    from recipekg.plan.quantities import QUANTITIES

    return list(QUANTITIES)


def _sections() -> list[str]:
    from recipekg.recipe.sections import SECTIONS

    return list(SECTIONS)


def _emit_formats() -> list[str]:
    from recipekg.recipe.emit import FORMATS

    return list(FORMATS)


def error_kinds() -> list[str]:
    """The ``kind`` of every error class of recipekg (errors.py)."""
    from recipekg.errors import RecipeKGError

    kinds, todo = set(), [RecipeKGError]
    while todo:
        cls = todo.pop()
        kinds.add(cls.kind)
        todo.extend(cls.__subclasses__())
    return sorted(kinds)


NAMES.update({"quantity": _quantities, "recipe-section": _sections, "emit-format": _emit_formats,
              "error-kind": error_kinds})


def schema(name: str | None = None) -> dict:
    """The schema document of ``name`` (one of :data:`NAMES_OF_DOCUMENTS`), or of every answer."""
    if name == "summary":
        return _summary_document()
    if name is not None:
        root = ANSWERS.get(name) or OTHERS[name]
        return document(root, TITLES[name])
    defs: dict[str, Any] = {}
    _summary_defs(defs)
    answer: dict[str, Any] = {"anyOf": [schema_of(t, defs) for t in ANSWERS.values()],
              "description": "The answer to one statement: recommend, explain, plan or recipe."}
    defs["Answer"] = answer
    defs["Answers"] = {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/Answer"},
                       "description": "The answers to two or more statements, in order."}
    schema_of(ErrorAnswer, defs)
    out: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
           "title": "recipekg answers",
           "description": "What recipekg answers: one answer, the answers to several statements, or the error.",
           "anyOf": [{"$ref": "#/$defs/Answer"}, {"$ref": "#/$defs/Answers"}, {"$ref": "#/$defs/ErrorAnswer"}]}
    out["$defs"] = {k: {f: x for f, x in v.items() if f != "x-python"} for k, v in sorted(defs.items())}
    return out


def _summary_defs(defs: dict) -> None:
    """``Summary`` (one compact answer, by statement) and ``Summaries`` (two or more) in ``defs``."""
    defs["Summary"] = {"anyOf": [schema_of(t, defs) for t in SUMMARIES.values()],
                       "description": "The compact answer to one statement (at most 8 KB): the decision, key "
                                      "quantities with units, source ids."}
    defs["Summaries"] = {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/Summary"},
                         "description": "The compact answers to two or more statements, in order."}


def _summary_document() -> dict:
    defs: dict[str, Any] = {}
    _summary_defs(defs)
    schema_of(ErrorAnswer, defs)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID.replace("answers", "summary"),
            "title": TITLES["summary"],
            "description": "What recipekg answers compactly: one answer, the answers to several statements, or the error.",
            "anyOf": [{"$ref": "#/$defs/Summary"}, {"$ref": "#/$defs/Summaries"}, {"$ref": "#/$defs/ErrorAnswer"}],
            "$defs": {k: {f: x for f, x in v.items() if f != "x-python"} for k, v in sorted(defs.items())}}
