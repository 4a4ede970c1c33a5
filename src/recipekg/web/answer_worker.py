"""The answer worker: ``python -m recipekg.web.answer_worker [EXTENSION...]`` loads the KB
and the app once, then answers one JSON request line at a time for the server's pool
(:mod:`recipekg.web.answering`) with a header line and the bytes of the response: the
answers' text for ``/api/query``, the whole page for the query box.

    >>> from recipekg.web.app import create_app
    >>> header, body = respond(create_app(kb), {"q": "recommend fix where symptom = loss-spik", "format": "json"})
    >>> header["status"], json.loads(body)["error"]["kind"]
    (400, 'unknown-name')
"""

from __future__ import annotations

import json
import sys

from recipekg.errors import InternalError, RecipeKGError
from recipekg.web.answering import STATUS, answer_bytes


def respond(app, request: dict) -> tuple[dict, bytes]:
    """One request of the worker's loop: ``{"q", "format"}`` → the answers' text, or
    ``{"page", "nonce", "root"}`` → the answer page; the header says ``status`` (200; 400 for
    the user's error, 500 for a bug, with the error's JSON) and, for a page, ``keep``."""
    from flask import g

    from recipekg.web.views import answer_page

    kb = app.extensions["recipekg"]["kb"]
    try:
        if "page" in request:
            with _context(app, request["root"]):
                body = answer_page(request["page"], request["nonce"])
                return {"status": 200, "keep": not getattr(g, "answer_limited", False)}, body.encode("utf-8")
        return {"status": 200}, answer_bytes(kb, None, request["q"], request["format"])
    except RecipeKGError as exc:
        error = exc
    except Exception as exc:  # a bug: the request fails, the worker lives
        error = InternalError(f"{type(exc).__name__}: {exc}")
    return {"status": STATUS.get(error.kind, 400)}, json.dumps({"error": error.transfer()}).encode("utf-8")


def frozen() -> None:
    """Move every object alive now (the KB, the app, the modules) out of the garbage collector's
    reach (``gc.freeze``), as the shell does: they live as long as the process, and a full
    collection scanning them and what the first answers decode (80,000 objects) paused a page
    for 30 ms about every 2,000 pages (2 ms once they are frozen)."""
    import gc

    gc.collect()
    gc.freeze()


#: How many script roots' request contexts a worker keeps (a server has one, or a few behind proxies).
CONTEXTS_KEPT = 16


def _context(app, root: str):
    """A request context for pages under ``root``, made once per root and pushed again for
    each page (making one costs about 80 microseconds; each push gets a fresh ``g``)."""
    contexts = app.extensions["recipekg"].setdefault("worker_contexts", {})
    context = contexts.get(root)
    if context is None:
        context = app.test_request_context("/", base_url="http://localhost" + root + "/")
        if len(contexts) < CONTEXTS_KEPT:
            contexts[root] = context
    return context


def serve(extensions: list[str], stdin=None, stdout=None) -> None:
    """The worker's loop: one JSON request line in, a header line (``status``, ``length``,
    ...: :func:`respond`) and the body out."""
    from recipekg.api import KnowledgeBase
    from recipekg.web.app import create_app

    stdin, stdout = stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
    app = create_app(KnowledgeBase.load(extensions))
    frozen()
    stdout.write(b"ready\n")
    stdout.flush()
    for line in stdin:
        header, body = respond(app, json.loads(line))
        header["length"] = len(body)
        stdout.write(json.dumps(header).encode() + b"\n" + body)
        stdout.flush()


if __name__ == "__main__":
    try:
        serve(sys.argv[1:])
    except (KeyboardInterrupt, BrokenPipeError):
        pass
