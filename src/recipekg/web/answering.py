"""Answers for ``/api/query`` and the pages, with a time limit: each query runs in a worker
process that is stopped when it outlasts the limit, as ``/sparql``'s do.

A plan of 200 statements takes seconds of CPU, and a Python thread cannot be interrupted: on a
server with two threads, two such requests would hold every thread and every other page
would wait. ``recipekg serve`` therefore hands each query to a pool of worker processes (:func:`pool_for`) of
``python -m recipekg.web.answering [EXTENSION...]`` that hold the same KB (the bundled one
merged with the same extensions, from the snapshot cache) and answer one JSON line at a time;
a worker that outlasts the limit is killed and replaced, and the request gets
:class:`recipekg.errors.LimitError` (503). Without a pool (``create_app`` in tests and
notebooks) the app answers in its own thread, as before.

    >>> from recipekg.web.answering import answers_of
    >>> answers_of(kb, None, "recommend fix where symptom = loss-spike top 1")[0]["statement"]
    'recommend'
"""

from __future__ import annotations

import json
import sys

from recipekg.errors import InternalError, LimitError, error_of

MODULE = "recipekg.web.answering"


def answers_of(kb, pool, text: str):
    """The answers to ``text``: from ``pool`` (:func:`pool_for`) when there is one, else
    from ``kb`` in this thread. Raises the project's errors, :class:`LimitError` for the limit."""
    if pool is None:
        return kb.query(text)
    from recipekg.notebook import Answer, Answers
    from recipekg.sparql.worker import Timeout

    try:
        header, body = pool.ask({"q": text})
    except Timeout as exc:
        if exc.busy:
            raise LimitError(f"every answer worker stayed busy for {pool.timeout:g} seconds: try again later",
                             expected=["fewer or smaller statements at once"]) from None
        raise LimitError(f"the query was stopped after {pool.timeout:g} seconds, this server's time limit",
                         expected=["fewer statements at once, or the command line (recipekg query)"]) from None
    except (OSError, RuntimeError, ValueError) as exc:  # a worker that failed to start or died
        raise InternalError(f"the answer worker failed ({exc})") from None
    document = json.loads(body)
    if header["status"] != 200:
        raise error_of(document)
    return Answers(Answer(a) for a in document)


def pool_for(kb, *, size: int, timeout: float):
    """An :class:`AnswerPool` whose workers load the same KB as ``kb`` (its extension files)."""
    import os

    from recipekg.knowledge.resources import bundled_paths
    from recipekg.sparql.worker import WorkerPool

    bundled = {os.path.abspath(p) for p in bundled_paths()}
    extensions = [f for f in kb.files if os.path.abspath(f) not in bundled]
    return WorkerPool(extensions, size=size, timeout=timeout, module=MODULE)


def app_answers(text: str):
    """:func:`answers_of` for the app of this request: its KB, and its pool once started (the
    first query starts it, when ``create_app`` was given ``answers`` settings)."""
    import atexit
    import threading

    from flask import current_app

    state = current_app.extensions["recipekg"]
    settings = state.get("answers_settings")
    if settings is None:
        return answers_of(state["kb"], None, text)
    with state.setdefault("answers_lock", threading.Lock()):
        if state.get("answers") is None:
            state["answers"] = pool_for(state["kb"], **settings)
            atexit.register(state["answers"].close)
    return answers_of(state["kb"], state["answers"], text)


def serve(extensions: list[str], stdin=None, stdout=None) -> None:
    """The worker's loop: ``{"q": text}`` in, a header (``status``: 200, 400 for the user's
    error, 500 for a bug; ``length``) and the body out: the answers' JSON, or the error's."""
    from recipekg.api import KnowledgeBase
    from recipekg.errors import RecipeKGError

    stdin, stdout = stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
    kb = KnowledgeBase.load(extensions)
    stdout.write(b"ready\n")
    stdout.flush()
    for line in stdin:
        try:
            status, body = 200, json.dumps(list(kb.query(json.loads(line)["q"])))
        except RecipeKGError as exc:
            status, body = (500 if exc.kind == "internal" else 400), json.dumps(exc.transfer())
        except Exception as exc:  # a bug: the request fails, the worker lives
            status, body = 500, json.dumps(InternalError(f"{type(exc).__name__}: {exc}").transfer())
        data = body.encode("utf-8")
        stdout.write(json.dumps({"status": status, "length": len(data)}).encode() + b"\n" + data)
        stdout.flush()


if __name__ == "__main__":
    try:
        serve(sys.argv[1:])
    except (KeyboardInterrupt, BrokenPipeError):
        pass
