"""The OpenAPI 3.1 description of the HTTP interface, served at ``/api/openapi.json``.

Its schemas are the published JSON Schema (2020-12) of the answers, generated from the typed
definitions the answers are built with (``recipekg schema``, served whole at ``/api/schema``):
``Answer``, ``Answers`` (two or more), ``ErrorAnswer`` and every object they use. A test
validates real responses against them and checks its paths against the app's routes.

    >>> doc = openapi("0.1.0")
    >>> sorted(doc["paths"])
    ['/', '/api/openapi.json', '/api/query', '/api/schema', '/api/vocab', '/sparql']
    >>> doc["components"]["schemas"]["Answer"]["anyOf"][0]
    {'$ref': '#/components/schemas/RecommendAnswer'}
"""

from __future__ import annotations

from recipekg.limits import MAX_QUERY_CHARS, MAX_WEB_QUERY_CHARS, SPARQL_MAX_RESULTS, SPARQL_TIMEOUT_SECONDS


def components() -> dict:
    """The published JSON Schema's definitions (:mod:`recipekg.contracts.documents`, what
    ``recipekg schema`` and ``/api/schema`` print) as the document's component schemas:
    ``Answer``, ``Answers``, ``ErrorAnswer`` and every object they use."""
    if not _COMPONENTS:
        import json

        from recipekg.contracts.documents import schema

        text = json.dumps(schema()["$defs"]).replace('"#/$defs/', '"#/components/schemas/')
        _COMPONENTS.update(json.loads(text))
    return _COMPONENTS


_COMPONENTS: dict = {}
_ANSWERS = {"anyOf": [{"$ref": "#/components/schemas/Answer"}, {"$ref": "#/components/schemas/Answers"},
                      {"$ref": "#/components/schemas/Summary"}, {"$ref": "#/components/schemas/Summaries"}],
            "description": "the whole answer; with `detail=0`, the compact form (Summary, Summaries) instead"}
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
                        "400": _json("the user's error, with its line and column", "ErrorAnswer"),
                        "500": _json("an internal error (a bug)", "ErrorAnswer"),
                        "503": _json("`recipekg serve` stopped the query at its time limit (`--query-timeout`), "
                                     "or found every answer worker busy that long (kind `limit`)", "ErrorAnswer")}}
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
                          "404": _json("no such dimension", "ErrorAnswer")}}


def _schema_operation() -> dict:
    """``GET /api/schema``: the published JSON Schema, as ``recipekg schema [NAME]`` prints it."""
    from recipekg.contracts import DOCUMENTS

    return {"summary": "the JSON Schema (draft 2020-12) every answer validates against (recipekg schema)",
            "parameters": [{"name": "name", "in": "query", "required": False,
                            "schema": {"enum": list(DOCUMENTS)},
                            "description": "one document: a statement's answer, error, vocab or citations"}],
            "responses": {"200": {"description": "the JSON Schema document",
                                  "content": {"application/schema+json": {"schema": {"type": "object"}}}},
                          "404": _json("no such document", "ErrorAnswer")}}


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
            "/api/schema": {"get": _schema_operation()},
            "/sparql": {"get": _sparql_operation(False), "post": _sparql_operation(True)},
        },
        "components": {"schemas": components()},
    }
