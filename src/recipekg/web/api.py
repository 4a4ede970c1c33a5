"""The JSON interface: ``/api/query``, the answer pages by ``Accept``, ``/api/openapi.json``,
``/api/schema`` (the published JSON Schema of the answers) and CORS.

- ``GET /api/query?q=STATEMENTS`` and ``POST /api/query`` (a JSON body ``{"q": ...}``, a form
  field ``q`` or a ``text/plain`` body) answer with the document ``recipekg query --format
  json`` prints: one object for one statement, an array for several. An error is the same
  ``{"error": {...}}`` object with status 400 (500 for a bug; 503, kind ``limit``, for a
  query stopped at the server's time limit: :mod:`recipekg.web.answering`). ``detail=0``
  (``?detail=0``, or ``"detail": false`` in the JSON body) answers the compact form of
  ``--format summary`` instead (:mod:`recipekg.render.summary`: the decision, key quantities,
  source ids; at most 8 KB); ``detail=1``, the default, the whole answer.
- ``GET /?q=...`` with ``Accept: application/json`` preferred over HTML answers the same JSON.
- CORS is off: no ``Access-Control-Allow-Origin`` unless ``recipekg serve --cors ORIGIN``
  names the requesting origin (or ``*``), and then only on ``/api/...`` and ``/sparql``.

    >>> from recipekg.web.app import create_app
    >>> client = create_app(kb).test_client()
    >>> r = client.get("/api/query?q=recommend fix where symptom = loss-spike top 1")
    >>> r.status_code, r.json["statement"], r.json["results"][0]["because"][0]["sources"] != []
    (200, 'recommend', True)
    >>> r = client.get("/?q=plan where params = 7B", headers={"Accept": "application/json"})
    >>> r.status_code, r.json["statement"]
    (200, 'plan')
    >>> r = client.get("/api/query?q=plan where params = 7B&detail=0")
    >>> r.status_code, "verdict" in r.json, "quantities" in r.json, len(r.data) < 8192
    (200, True, True, True)
"""

from __future__ import annotations

from flask import Response, current_app, request

from recipekg.errors import RecipeKGError, UsageError
from recipekg.limits import MAX_QUERY_CHARS, MAX_WEB_QUERY_CHARS
from recipekg.render.errors import error_output
from recipekg.web.answering import STATUS, app_answer_bytes

JSON = "application/json; charset=utf-8"
CORS_PATHS = ("/api/", "/sparql")


def json_answer(text: str | None, cap: int, detail: bool = True) -> Response:
    """The JSON answer to ``text`` (``detail=False``: the compact one), or its JSON error
    (400; 500 for a bug)."""
    try:
        if text is None or not text.strip():
            raise UsageError("give a statement: /api/query?q=recommend ... (or POST {\"q\": \"...\"})",
                             expected=["recommend <kind> where ...", "plan where ...", "explain <choice> where ..."])
        if len(text) > cap:
            raise UsageError(f"the query is too long ({len(text)} characters; at most {cap})")
        body = app_answer_bytes(text, "json" if detail else "summary")
        return Response(body + b"\n", status=200, content_type=JSON)
    except RecipeKGError as exc:
        status = STATUS.get(exc.kind, 400)
        return Response(error_output(exc, "json")[0] + "\n", status=status, content_type=JSON,
                        headers={"Retry-After": "5"} if status == 503 else None)


def posted_text() -> str | None:
    """The statements of a POST: ``{"q": ...}`` in JSON, a form's ``q``, or a plain-text body."""
    if request.mimetype == "application/json":
        body = request.get_json(silent=True)
        return body.get("q") if isinstance(body, dict) and isinstance(body.get("q"), str) else None
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return request.form.get("q")
    return request.get_data(as_text=True)


def wants_detail() -> bool:
    """``detail``: ``?detail=0`` (``false``, ``no``), or ``"detail": false`` in a JSON body, asks
    for the compact answer; anything else, or nothing, for the whole one."""
    if request.method == "POST" and request.mimetype == "application/json":
        body = request.get_json(silent=True)
        if isinstance(body, dict) and body.get("detail") is False:
            return False
    return (request.values.get("detail") or "1").strip().lower() not in ("0", "false", "no")


def query():
    if request.method == "POST":
        return json_answer(posted_text(), MAX_QUERY_CHARS, wants_detail())
    return json_answer(request.args.get("q"), MAX_WEB_QUERY_CHARS, wants_detail())


def schema_json():
    """``/api/schema[?name=NAME]``: the published JSON Schema (``recipekg schema [NAME]``)."""
    import json

    from recipekg.contracts import DOCUMENTS
    from recipekg.contracts.documents import schema

    name = request.args.get("name") or None
    if name is not None and name not in DOCUMENTS:
        exc = UsageError(f"no schema named {name!r}", expected=list(DOCUMENTS))
        return Response(error_output(exc, "json")[0] + "\n", status=404, content_type=JSON)
    return Response(json.dumps(schema(name), indent=2, ensure_ascii=False) + "\n", status=200,
                    content_type="application/schema+json; charset=utf-8")


def openapi_json():
    from recipekg.version import __version__
    from recipekg.web.openapi import openapi

    return openapi(__version__)


def wants_json(req=None) -> bool:
    """Whether the request's ``Accept`` (``req``'s, default: this request's) prefers JSON to
    HTML (``*/*`` and browsers get HTML).

    >>> from flask import Flask
    >>> with Flask("t").test_request_context(headers={"Accept": "application/json"}):
    ...     wants_json()
    True
    """
    return (req or request).accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def register(app, *, cors_origins=()) -> None:
    """Add the JSON routes to ``app``, the answer pages' negotiation and CORS for ``cors_origins``."""
    origins = set(cors_origins)
    app.add_url_rule("/api/query", "api_query", query, methods=["GET", "POST"])
    app.add_url_rule("/api/openapi.json", "api_openapi", openapi_json)
    app.add_url_rule("/api/schema", "api_schema", schema_json)

    @app.before_request
    def negotiate():
        if request.endpoint == "index" and request.method == "GET" and wants_json():
            return json_answer(request.args.get("q"), MAX_WEB_QUERY_CHARS, wants_detail())

    @app.after_request
    def vary_and_cors(response):
        if request.endpoint == "index":
            response.vary.add("Accept")
        origin = request.headers.get("Origin")
        if origins and request.path.startswith(CORS_PATHS):
            response.vary.add("Origin")
            if origin and (origin in origins or "*" in origins):
                response.headers["Access-Control-Allow-Origin"] = "*" if "*" in origins else origin
                response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
                response.headers["Access-Control-Allow-Headers"] = "Content-Type, Accept"
                response.headers["Access-Control-Expose-Headers"] = "X-RecipeKG-Truncated, X-RecipeKG-Timeout"
                response.headers["Access-Control-Max-Age"] = "600"
        return response
