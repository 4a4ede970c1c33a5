"""Answers for ``/api/query`` and the pages, with a time limit: each query runs in a worker
process that is stopped when it outlasts the limit, as ``/sparql``'s do.

A plan of 200 statements takes seconds of CPU, and a Python thread cannot be interrupted: on a
server with two threads, two such requests would hold every thread and every other page
would wait. ``recipekg serve`` therefore hands each query to a warm pool of worker processes
(:func:`pool_for`, started with the server) of ``python -m recipekg.web.answer_worker
[EXTENSION...]`` (:mod:`recipekg.web.answer_worker`) that hold the same KB (the bundled one merged with the same extensions, from
the snapshot cache) and the same app; a worker that outlasts the limit is killed and replaced,
and the request gets :class:`recipekg.errors.LimitError` (503). Without a pool (``create_app``
in tests and notebooks) the app answers in its own thread, by the same functions.

A worker sends back what the response carries, never Python objects to rebuild: the JSON text
of ``/api/query`` (:func:`answer_text`) and the whole HTML of an answer page
(:func:`recipekg.web.views.answer_page`, its nonce a placeholder the page cache fills in). The
server's own process only reads the request, the page cache and the bytes of the worker.

    >>> text = answer_text(kb, None, "recommend fix where symptom = loss-spike top 1", "json")
    >>> json.loads(text)["statement"], json.loads(text)["results"][0]["id"]
    ('recommend', 'rollback-checkpoint')
"""

from __future__ import annotations

import json
import sys

from recipekg.errors import InternalError, LimitError, error_of

MODULE = "recipekg.web.answer_worker"
#: Where a worker's failure met before Flask (:mod:`recipekg.web.front`) waits for the view in
#: the request's WSGI environment (:func:`recipekg.web.views.page_of`).
FAILURE = "recipekg.failure"
#: The HTTP status of an error by its kind (every other kind is the user's: 400).
STATUS = {"internal": 500, "limit": 503}


def answer_text(kb, pool, text: str, fmt: str) -> str:
    """The answers to ``text`` in the answer format ``fmt`` (``json``, ``summary``): written
    by a worker of ``pool`` (:func:`pool_for`) when there is one, else from ``kb`` in this
    thread. Raises the project's errors, :class:`LimitError` for the limit."""
    return _rendered(kb, text, fmt) if pool is None else answer_bytes(kb, pool, text, fmt).decode("utf-8")


def answer_bytes(kb, pool, text: str, fmt: str) -> bytes:
    """:func:`answer_text` as the UTF-8 bytes a response carries (a worker's, as it wrote them)."""
    if pool is None:
        return _rendered(kb, text, fmt).encode("utf-8")
    header, body = _ask(pool, {"q": text, "format": fmt})
    if header["status"] != 200:
        raise error_of(json.loads(body)["error"])
    return body


def _rendered(kb, text: str, fmt: str) -> str:
    from recipekg.render.answers import render_answers

    return render_answers(kb.query(text), fmt)


def page_text(pool, q: str, nonce: str, root: str) -> tuple[bytes, bool]:
    """The answer page of ``q`` rendered by a worker of ``pool`` (its script carrying
    ``nonce``, its links under ``root``), as the UTF-8 bytes the response carries, and whether
    the page cache may keep it."""
    header, body = _ask(pool, {"page": q, "nonce": nonce, "root": root})
    if header["status"] != 200:
        raise error_of(json.loads(body)["error"])
    return body, header["keep"]


def _ask(pool, request: dict) -> tuple[dict, bytes]:
    from recipekg.sparql.worker import Timeout

    try:
        return pool.ask(request)
    except Timeout as exc:
        if exc.busy:
            raise LimitError(f"every answer worker stayed busy for {pool.timeout:g} seconds: try again later",
                             expected=["fewer or smaller statements at once"]) from None
        raise LimitError(f"the query was stopped after {pool.timeout:g} seconds, this server's time limit",
                         expected=["fewer statements at once, or the command line (recipekg query)"]) from None
    except (OSError, RuntimeError, ValueError) as exc:  # a worker that failed to start or died
        raise InternalError(f"the answer worker failed ({exc})") from None


def pool_for(kb, *, size: int, timeout: float):
    """An :class:`~recipekg.sparql.worker.WorkerPool` whose workers load the same KB as ``kb``
    (its extension files)."""
    import os

    from recipekg.knowledge.resources import bundled_paths
    from recipekg.sparql.worker import WorkerPool

    bundled = {os.path.abspath(p) for p in bundled_paths()}
    extensions = [f for f in kb.files if os.path.abspath(f) not in bundled]
    return WorkerPool(extensions, size=size, timeout=timeout, module=MODULE)


def app_pool():
    """The answer pool of this request's app, made on first use (None when ``create_app`` had
    no ``answers`` settings: answer in this thread)."""
    from flask import current_app

    return pool_of(current_app.extensions["recipekg"])


def pool_of(state: dict):
    """:func:`app_pool` of the app whose state (``app.extensions["recipekg"]``) is ``state``."""
    import atexit
    import threading

    settings = state.get("answers_settings")
    if settings is None:
        return None
    with state.setdefault("answers_lock", threading.Lock()):
        if state.get("answers") is None:
            state["answers"] = pool_for(state["kb"], **settings)
            atexit.register(state["answers"].close)
    return state.get("answers")


def warm(app) -> None:
    """Start ``app``'s answer workers now (``recipekg serve`` does, before it listens), so that
    no request waits for one to load the KB."""
    with app.app_context():
        pool = app_pool()
    if pool is not None:
        pool.warm()


def app_answer_bytes(text: str, fmt: str) -> bytes:
    """:func:`answer_bytes` for the app of this request: its KB, and its pool."""
    from flask import current_app

    return answer_bytes(current_app.extensions["recipekg"]["kb"], app_pool(), text, fmt)
