"""``/sparql``: a read-only SPARQL 1.1 Protocol endpoint over the merged graph (the export of
``recipekg export``, with ``--kb`` extensions), evaluated by pyoxigraph in worker processes
(:mod:`recipekg.sparql.worker`).

- a query by ``GET /sparql?query=...``, ``POST`` of an URL-encoded form (``query=...``) or
  ``POST`` of an ``application/sparql-query`` body; SELECT, ASK, CONSTRUCT and DESCRIBE;
- results by ``Accept`` (:mod:`recipekg.sparql.results`): SPARQL JSON (the default), XML,
  CSV and TSV for solutions and booleans, Turtle (the default) or N-Triples for graphs;
- an update (``update=``, ``application/sparql-update``, or an update sent as a query) is
  refused with 400, as is a malformed query or ``default-graph-uri``/``named-graph-uri``
  (the dataset is fixed: one default graph);
- the limits of :mod:`recipekg.limits`: a query stopped after ``SPARQL_TIMEOUT_SECONDS`` is
  a 503 whose body and ``X-RecipeKG-Timeout`` header say so; a result cut at
  ``SPARQL_MAX_RESULTS`` carries ``X-RecipeKG-Truncated`` (and a note inside JSON, XML and
  Turtle documents).

    >>> from recipekg.web.app import create_app
    >>> client = create_app(kb).test_client()
    >>> client.post("/sparql", data={"update": "DROP ALL"}).status_code
    400
"""

from __future__ import annotations

import atexit
import threading

from flask import Response, current_app, request

from recipekg.limits import MAX_QUERY_CHARS, SPARQL_MAX_RESULTS, SPARQL_TIMEOUT_SECONDS, SPARQL_WORKERS

TEXT = "text/plain; charset=utf-8"
_LOCK = threading.Lock()


def _text(message: str, status: int, **headers) -> Response:
    return Response(message + "\n", status=status, content_type=TEXT, headers=headers)


def query_text() -> str | Response:
    """The query of this request per the protocol, or the 400/415 response refusing it."""
    if request.method == "GET":
        params = request.args
    elif request.mimetype == "application/x-www-form-urlencoded":
        params = request.form
    elif request.mimetype == "application/sparql-query":
        params = request.args.copy()
        params["query"] = request.get_data(as_text=True)
    elif request.mimetype == "application/sparql-update":
        params = {"update": ""}
    else:
        return _text("POST a query as application/x-www-form-urlencoded (query=...) "
                     "or as an application/sparql-query body", 415)
    if "update" in params:
        return _text("SPARQL Update is refused: this endpoint is read-only "
                     "(SELECT, ASK, CONSTRUCT and DESCRIBE queries only)", 400)
    if "default-graph-uri" in params or "named-graph-uri" in params:
        return _text("this endpoint has one dataset, the merged knowledge base in its default graph: "
                     "default-graph-uri and named-graph-uri are not supported", 400)
    queries = params.getlist("query") if hasattr(params, "getlist") else [params.get("query")]
    if len(queries) != 1 or not (queries[0] or "").strip():
        return _text("give exactly one SPARQL query: /sparql?query=SELECT...", 400)
    if len(queries[0]) > MAX_QUERY_CHARS:
        return _text(f"the query is too long ({len(queries[0])} characters; at most {MAX_QUERY_CHARS})", 400)
    return queries[0]


def pool():
    """This app's worker pool, started on the first query."""
    from recipekg.sparql.worker import WorkerPool

    state = current_app.extensions["recipekg"]
    with _LOCK:
        if state.get("sparql") is None:
            settings = state["sparql_settings"]
            state["sparql"] = WorkerPool(state["kb"].files, **settings)
            atexit.register(state["sparql"].close)
        return state["sparql"]


def sparql():
    """The endpoint."""
    from recipekg.sparql.worker import Timeout

    from recipekg.sparql.worker import refusal

    query = query_text()
    if isinstance(query, Response):
        return query
    refused = refusal(query)  # before a worker: a query too deep to parse would kill it
    if refused is not None:
        return _text(refused.decode().rstrip("\n"), 400)
    workers = pool()
    try:
        header, body = workers.run(query, request.headers.get("Accept", ""))
    except Timeout as exc:
        if exc.busy:
            return _text(f"every SPARQL worker stayed busy for {workers.timeout:g} seconds: try again later", 503,
                         **{"Retry-After": "5"})
        return _text(f"the query was stopped after {workers.timeout:g} seconds, this endpoint's time limit",
                     503, **{"X-RecipeKG-Timeout": f"{workers.timeout:g}"})
    except (OSError, RuntimeError, ValueError) as exc:  # a worker that failed to start or died
        return _text(f"recipekg: the SPARQL evaluator failed ({exc}); please report it", 500)
    response = Response(body, status=header["status"], content_type=header["type"])
    response.vary.add("Accept")
    if header["truncated"]:
        response.headers["X-RecipeKG-Truncated"] = (f"results cut at {workers.max_results}, "
                                                    f"this endpoint's limit")
    return response


def register(app, *, timeout: float | None = None, max_results: int | None = None,
             workers: int | None = None) -> None:
    """Add ``/sparql`` to ``app``, with its limits (default: :mod:`recipekg.limits`)."""
    app.extensions["recipekg"]["sparql_settings"] = {
        "timeout": timeout or SPARQL_TIMEOUT_SECONDS, "max_results": max_results or SPARQL_MAX_RESULTS,
        "size": workers or SPARQL_WORKERS}
    app.add_url_rule("/sparql", "sparql", sparql, methods=["GET", "POST"])
