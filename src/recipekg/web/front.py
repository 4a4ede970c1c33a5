"""Answer pages before Flask: ``GET /?q=...`` asking for the HTML page, on an app that answers
in worker processes (``recipekg serve``), served from the page cache or a worker's bytes
without Flask's request machinery.

Such requests are most of what a busy server answers, and the process serving them only
reads the request, the cache and the worker's bytes; Flask's contexts, hooks and response
object cost about 0.2 ms of it each time, a fifth of that process's work for a page never
asked before (docs/performance.md). This layer (the app's ``wsgi_app``, Flask's own under it)
answers them with what the views would answer: the same cache (:mod:`recipekg.web.cache`),
the same worker call (:func:`recipekg.web.answering.page_text`), the same headers
(:func:`recipekg.web.headers.security_headers`, ``Vary: Accept`` as the index's negotiation adds
it). Anything else goes to Flask unchanged: another method or path, no ``q``, a query too
long, JSON asked for in ``Accept``, a Host the app does not serve, an app without workers; and
a query the worker could not answer (its error, the time limit), with the failure in
``environ[FAILURE]`` so that the view shows it without asking again. A test compares the
responses of both paths for the same requests::

    >>> from recipekg.web.app import create_app
    >>> app = create_app(kb)  # no answer workers here: every request goes to Flask's own path
    >>> app.wsgi_app.flask.__self__ is app, app.test_client().get("/?q=recommend fix where symptom = loss-spike").status_code
    (True, 200)
"""

from __future__ import annotations

from recipekg.errors import RecipeKGError
from recipekg.limits import MAX_WEB_QUERY_CHARS
from recipekg.web.answering import FAILURE
from recipekg.web.headers import host_name, new_nonce, security_headers

HTML = "text/html; charset=utf-8"


def answer_pages_first(app, flask_wsgi, trusted: set[str]):
    """The WSGI callable serving ``app``'s answer pages first, and every other request by
    ``flask_wsgi`` (``app``'s own); ``trusted``: the host names the app serves (empty: any)."""
    from werkzeug.wrappers import Request

    from recipekg.web.answering import page_text, pool_of
    from recipekg.web.api import wants_json

    state = app.extensions["recipekg"]
    pages = state["pages"]

    def wsgi(environ, start_response):
        if (environ.get("REQUEST_METHOD") != "GET" or environ.get("PATH_INFO") != "/"
                or state.get("answers_settings") is None):
            return flask_wsgi(environ, start_response)
        request = Request(environ)
        q = request.args.get("q", "").strip()
        if (not q or len(q) > MAX_WEB_QUERY_CHARS or wants_json(request)
                or trusted and host_name(request.headers.get("Host", "")) not in trusted):
            return flask_wsgi(environ, start_response)
        kept: list[bool] = []

        def render(placeholder: str) -> bytes:
            text, keep = page_text(pool_of(state), q, placeholder, request.script_root)
            kept.append(keep)
            return text

        nonce = new_nonce()
        try:
            body = pages.page((request.script_root, q), nonce, render, keep=lambda: kept[-1])
        except RecipeKGError as exc:
            environ[FAILURE] = exc
            return flask_wsgi(environ, start_response)
        except Exception:  # a bug here: Flask's own path answers (its error page, with the headers)
            return flask_wsgi(environ, start_response)
        if isinstance(body, str):  # (a page cached by the view, rendered in the server's process)
            body = body.encode("utf-8")
        start_response("200 OK", [("Content-Type", HTML), ("Content-Length", str(len(body))), ("Vary", "Accept"),
                                  *security_headers(nonce)])
        return [body]

    wsgi.flask = flask_wsgi  # type: ignore[attr-defined]  # (the path under it: what a test compares with)
    return wsgi
