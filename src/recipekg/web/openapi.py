"""The OpenAPI 3.1 description of the HTTP interface, served at ``/api/openapi.json``.

Its schemas are JSON Schema (2020-12): the answer documents of ``recipekg query --format
json`` (the spec's shapes, by their required members) and the spec's error object. A test
validates real responses against them and checks its paths against the app's routes.

    >>> doc = openapi("0.1.0")
    >>> sorted(doc["paths"])
    ['/', '/api/openapi.json', '/api/query', '/api/vocab', '/sparql']
"""

from __future__ import annotations

from recipekg.limits import MAX_QUERY_CHARS, MAX_WEB_QUERY_CHARS, SPARQL_MAX_RESULTS, SPARQL_TIMEOUT_SECONDS

_ANSWER = {
    "type": "object",
    "required": ["statement", "query", "constraints"],
    "properties": {
        "statement": {"enum": ["recommend", "explain", "plan", "recipe"]},
        "query": {"type": "string", "description": "the statement as written"},
        "constraints": {"type": "array"},
        "results": {"type": "array", "description": "recommend: the ranked choices, each with `because` "
                                                    "(the rules that fired and their sources)"},
        "rules": {"type": "array", "description": "explain: every rule naming the choice, with its sources"},
        "quantities": {"type": "array", "description": "plan: every quantity with its formula and sources"},
        "sections": {"type": "array", "description": "recipe: the recipe's sections, each item with its value, "
                                                     "why and sources (or unsourced)"},
    },
}
_ERROR = {
    "type": "object",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {"error": {
        "type": "object",
        "required": ["kind", "message", "line", "column", "expected", "suggestions"],
        "properties": {
            "kind": {"enum": ["syntax", "unknown-name", "value", "kb", "usage", "engine", "internal", "error"]},
            "message": {"type": "string"},
            "line": {"type": ["integer", "null"]},
            "column": {"type": ["integer", "null"]},
            "expected": {"type": "array", "items": {"type": "string"}},
            "suggestions": {"type": "array", "items": {"type": "string"}},
            "file": {"type": "string"},
            "notes": {"type": "array", "items": {"type": "string"},
                      "description": "warnings about a suggestion: one that is a different concept, not a spelling"},
        },
    }},
}
_SUMMARY = {
    "type": "object",
    "required": ["statement", "query", "constraints", "detail"],
    "description": "the compact answer (`detail=0`, `recipekg query --format summary`, MCP's default): the "
                   "decision, key quantities with their units and the ids of the sources; at most 8 KB",
    "properties": {
        "statement": {"enum": ["recommend", "explain", "plan", "recipe"]},
        "query": {"type": "string"},
        "constraints": {"type": "array", "items": {"type": "string"}},
        "decision": {"type": "object", "description": "recommend: pick, runner_ups, compare_with ({id, label})"},
        "results": {"type": "array", "description": "recommend: the first results, each with its deciding rules"},
        "verdict": {"type": "array", "items": {"type": "string"}, "description": "plan: the verdict lines"},
        "quantities": {"type": "object", "description": "plan: name -> {value, low, high, unit, sources}"},
        "sections": {"type": "object", "description": "recipe: section -> [{what, value, sources, unsourced}]"},
        "omitted": {"type": "object", "description": "what the compact answer left out, counted"},
        "detail": {"type": "string", "description": "how to ask for the whole answer"},
    },
}
_ANSWERS = {"oneOf": [{"$ref": "#/components/schemas/Answer"},
                      {"type": "array", "minItems": 2, "items": {"$ref": "#/components/schemas/Answer"}}],
            "description": "with `detail=0`, the compact form (schema Summary) instead"}
_DETAIL = {"name": "detail", "in": "query", "required": False, "schema": {"enum": ["0", "1", "false", "true"]},
           "description": "`0`: the compact answer (schema Summary, at most 8 KB); `1` (default): the whole answer"}


def _json(description: str, ref: str) -> dict:
    schema = _ANSWERS if ref == "Answers" else {"$ref": f"#/components/schemas/{ref}"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _q(where: str, cap: int) -> dict:
    return {"name": "q", "in": where, "required": True, "schema": {"type": "string", "maxLength": cap},
            "description": "one or more statements (`recommend ...`, `plan where ...`, `explain ...`), "
                           "separated by `;` or blank lines",
            "example": "recommend architecture where data = tabular and rows = 30k"}


def _query_operation(summary: str, *, post: bool) -> dict:
    op = {"summary": summary,
          "responses": {"200": _json("the answer (one statement) or the answers in order", "Answers"),
                        "400": _json("the user's error, with its line and column", "Error"),
                        "500": _json("an internal error (a bug)", "Error")}}
    if post:
        op["requestBody"] = {"required": True, "content": {
            "application/json": {"schema": {"type": "object", "required": ["q"],
                                            "properties": {"q": {"type": "string", "maxLength": MAX_QUERY_CHARS},
                                                           "detail": {"type": "boolean", "default": True}}}},
            "application/x-www-form-urlencoded": {"schema": {"type": "object", "required": ["q"],
                                                             "properties": {"q": {"type": "string"}}}},
            "text/plain": {"schema": {"type": "string"}}}}
        op["parameters"] = [_DETAIL]
    else:
        op["parameters"] = [_q("query", MAX_WEB_QUERY_CHARS), _DETAIL]
    return op


def _sparql_operation(post: bool) -> dict:
    results = {t: {"schema": {"type": "string" if "json" not in t else "object"}} for t in (
        "application/sparql-results+json", "application/sparql-results+xml", "text/csv",
        "text/tab-separated-values", "text/turtle", "application/n-triples")}
    op = {"summary": "SPARQL 1.1 Protocol query (SELECT, ASK, CONSTRUCT, DESCRIBE) over the merged graph",
          "description": f"At most {SPARQL_MAX_RESULTS} results (header `X-RecipeKG-Truncated` when cut); "
                         f"a query running over {SPARQL_TIMEOUT_SECONDS:g} s is stopped (503, header "
                         "`X-RecipeKG-Timeout`). Updates are refused (400).",
          "responses": {"200": {"description": "the result, in the media type `Accept` prefers",
                                "content": results},
                        "400": {"description": "a malformed query, or an update",
                                "content": {"text/plain": {"schema": {"type": "string"}}}},
                        "406": {"description": "no offered media type fits `Accept`"},
                        "503": {"description": "the query outlasted the time limit and was stopped"}}}
    if post:
        op["requestBody"] = {"required": True, "content": {
            "application/x-www-form-urlencoded": {"schema": {"type": "object", "required": ["query"],
                                                             "properties": {"query": {"type": "string"}}}},
            "application/sparql-query": {"schema": {"type": "string"}}}}
    else:
        op["parameters"] = [{"name": "query", "in": "query", "required": True, "schema": {"type": "string"}}]
    return op


def _vocab_operation() -> dict:
    """``GET /api/vocab``: the word list, as ``recipekg vocab --format json`` prints it."""
    return {"summary": "the word list: every dimension, value and choice (recipekg vocab --format json)",
            "parameters": [{"name": "dimension", "in": "query", "required": False, "schema": {"type": "string"},
                            "description": "one dimension, by any of its spellings"}],
            "responses": {"200": {"description": "the vocabulary document", "content": {"application/json": {}}},
                          "404": _json("no such dimension", "Error")}}


def openapi(version: str) -> dict:
    """The OpenAPI document of this recipekg ``version``."""
    page = _query_operation("the front page; with `Accept: application/json`, the JSON answer", post=False)
    page["responses"]["200"]["content"]["text/html"] = {"schema": {"type": "string"}}
    page["parameters"][0] = {**page["parameters"][0], "required": False}  # without q: the front page
    return {
        "openapi": "3.1.0",
        "info": {"title": "recipekg", "version": version,
                 "description": "Machine-learning training recipes, every answer with the rules that fired "
                                "and the papers behind them. The JSON is `recipekg query --format json`'s."},
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "paths": {
            "/": {"get": page},
            "/api/query": {"get": _query_operation("answer statements (JSON)", post=False),
                           "post": _query_operation("answer statements (JSON)", post=True)},
            "/api/openapi.json": {"get": {"summary": "this document",
                                          "responses": {"200": {"description": "OpenAPI 3.1",
                                                                "content": {"application/json": {}}}}}},
            "/api/vocab": {"get": _vocab_operation()},
            "/sparql": {"get": _sparql_operation(False), "post": _sparql_operation(True)},
        },
        "components": {"schemas": {"Answer": _ANSWER, "Summary": _SUMMARY, "Error": _ERROR}},
    }
