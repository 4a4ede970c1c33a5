"""Read-only SPARQL queries over the merged graph, each in a worker process that can be
stopped: the ``/sparql`` endpoint's evaluator.

A SPARQL query can run for hours (a cross product, an aggregate over one) and pyoxigraph
cannot be interrupted from Python, so queries run in worker processes
(``python -m recipekg.sparql.worker FILE...``), each holding the export
(:func:`recipekg.sparql.stores.oxigraph_store`) in memory. :class:`WorkerPool` hands a query
to an idle worker and waits at most its timeout; a worker that outlasts it is killed and a
fresh one takes its place. Only the SELECT, ASK, CONSTRUCT and DESCRIBE forms run: an update
does not parse as a query, and is refused.

    >>> import pyoxigraph as ox
    >>> store = ox.Store()
    >>> store.add(ox.Quad(ox.NamedNode("http://e/a"), ox.NamedNode("http://e/p"), ox.Literal("1")))
    >>> status, media_type, body, truncated = evaluate(store, "ASK { ?s ?p ?o }", "", 10)
    >>> status, media_type, body
    (200, 'application/sparql-results+json', b'{"head": {}, "boolean": true}')
    >>> evaluate(store, "DROP ALL", "", 10)[:3]  # doctest: +ELLIPSIS
    (400, 'text/plain; charset=utf-8', b'SPARQL Update is refused: this endpoint is read-only...')
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import threading
import time

from recipekg.sparql import results

TEXT = "text/plain; charset=utf-8"
_UPDATE = re.compile(r"(?is)^(?:\s|#[^\n]*\n)*(?:(?:PREFIX\s+[^\s:]*:\s*<[^>]*>|BASE\s*<[^>]*>)(?:\s|#[^\n]*\n)*)*"
                     r"(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b")


def is_update(text: str) -> bool:
    """Whether ``text`` reads as a SPARQL Update request (its first keyword after the prologue).

    >>> is_update("PREFIX ex: <http://e/> INSERT DATA { ex:a ex:b ex:c }"), is_update("SELECT * {}")
    (True, False)
    """
    return bool(_UPDATE.match(text))


_OPAQUE = re.compile("|".join([
    r'"""(?:[^"\\]|\\.|"(?!""))*"""', r"'''(?:[^'\\]|\\.|'(?!''))*'''",  # long strings
    r'"(?:[^"\\\n]|\\.)*"', r"'(?:[^'\\\n]|\\.)*'",  # strings
    r"<[^<>\"{}|^`\\\s]*>", r"#[^\n]*"]))  # IRIs, comments
_SERVICE = re.compile(r"(?<![\w:?$-])SERVICE(?![\w:.-])", re.IGNORECASE)


def is_federated(text: str) -> bool:
    """Whether ``text`` uses ``SERVICE`` (outside strings, IRIs and comments): pyoxigraph would
    fetch that URL, so a server would make requests for whoever sends the query.

    >>> is_federated("SELECT * { ?a ?b ?c .SERVICE <http://10.0.0.1/sparql> { ?s ?p ?o } }")
    True
    >>> is_federated('SELECT ?service { ?service <http://e/SERVICE> "SERVICE" } # SERVICE')
    False
    """
    return bool(_SERVICE.search(_OPAQUE.sub(" ", text)))


#: The deepest nesting of ``{ ( [`` a query may have: pyoxigraph's parser recurses on each
#: level and overflows the worker's stack (a segmentation fault) a few thousand levels down.
MAX_DEPTH = 100


def nesting(text: str) -> int:
    """How deeply ``{``, ``(`` and ``[`` nest in ``text`` (outside strings, IRIs and comments).

    >>> nesting("SELECT * { ?s ?p ?o FILTER((?o > 1)) }"), nesting('SELECT * { ?s ?p "{{{{" }')
    (3, 1)
    """
    depth = deepest = 0
    for c in _OPAQUE.sub(" ", text):
        if c in "{([":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "})]":
            depth = max(0, depth - 1)
    return deepest


def refusal(query: str) -> bytes | None:
    """Why the endpoint refuses ``query`` before any worker sees it (a 400), or None."""
    if is_federated(query):
        return b"SERVICE (a federated query) is refused: this endpoint queries its own graph only\n"
    if nesting(query) > MAX_DEPTH:
        return (f"the query nests braces, parentheses or brackets more than {MAX_DEPTH} levels deep: "
                f"this endpoint refuses it\n").encode()
    return None


def evaluate(store, query: str, accept: str, max_results: int, prefixes: dict | None = None):
    """``(status, media type, body, truncated)`` for ``query`` on ``store``: at most
    ``max_results`` solutions or triples (``truncated`` is True when more were cut), in the
    media type ``accept`` prefers; 400 for a malformed query, an update or a federated query
    (``SERVICE``), 406 for an ``Accept`` this result cannot meet."""
    refused = refusal(query)
    if refused is not None:
        return 400, TEXT, refused, False
    try:
        answer = store.query(query)
    except SyntaxError as exc:
        if is_update(query):
            return 400, TEXT, (b"SPARQL Update is refused: this endpoint is read-only "
                               b"(SELECT, ASK, CONSTRUCT and DESCRIBE queries only)\n"), False
        return 400, TEXT, f"malformed query: {exc}\n".encode("utf-8"), False
    kind = {"QueryBoolean": "ask", "QuerySolutions": "select", "QueryTriples": "graph"}[type(answer).__name__]
    media_type = results.negotiate(accept, kind)
    if media_type is None:
        offered = ", ".join(results.OFFERED[kind])
        return 406, TEXT, f"cannot answer this {kind.upper()} result in {accept}: one of {offered}\n".encode(), False
    if kind == "ask":
        return 200, media_type, results.boolean(bool(answer), media_type), False
    items = []
    for item in answer:
        if len(items) == max_results:
            break
        items.append(item)
    else:
        item = None
    truncated = len(items) == max_results and item is not None
    note = (f"truncated: this endpoint returns at most {max_results} "
            f"{'triples' if kind == 'graph' else 'results'} per query") if truncated else None
    if kind == "graph":
        return 200, media_type, results.graph(items, media_type, prefixes, note), truncated
    variables = [v.value for v in answer.variables]
    rows = [{v: solution[v] for v in variables} for solution in items]
    return 200, media_type, results.solutions(variables, rows, media_type, note), truncated


def serve(files: list[str], stdin=None, stdout=None) -> None:
    """The worker's loop: one JSON request line in (``query``, ``accept``, ``max_results``),
    one JSON header line out (``status``, ``type``, ``length``, ``truncated``) and the body."""
    from pathlib import Path

    from recipekg.knowledge.terms import PREFIXES
    from recipekg.sparql.stores import oxigraph_store

    stdin, stdout = stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
    store = oxigraph_store([Path(f) for f in files])
    stdout.write(b"ready\n")
    stdout.flush()
    for line in stdin:
        request = json.loads(line)
        try:
            status, media_type, body, truncated = evaluate(store, request["query"], request["accept"],
                                                           request["max_results"], PREFIXES)
        except Exception as exc:  # a bug or a store failure: the request fails, the worker lives
            status, media_type, body, truncated = 500, TEXT, f"query failed: {type(exc).__name__}: {exc}\n".encode(), False
        header = {"status": status, "type": media_type, "length": len(body), "truncated": truncated}
        stdout.write(json.dumps(header).encode() + b"\n" + body)
        stdout.flush()


class Timeout(Exception):
    """The worker did not answer in time (it has been stopped), or, ``busy``, no worker was
    free in that time."""

    def __init__(self, busy: bool = False) -> None:
        super().__init__("busy" if busy else "timeout")
        self.busy = busy


class Worker:
    """One worker process (``python -m MODULE FILE...``, answering one JSON request line with
    a JSON header line and a body, as :func:`serve` does) and the bytes it has written but
    nobody read yet."""

    def __init__(self, files, startup_seconds: float, module: str = "recipekg.sparql.worker") -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", module, *map(str, files)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._buffer = b""
        try:
            ready = self._line(time.monotonic() + startup_seconds) == b"ready"
        except BaseException:  # a start-up past its time (Timeout), or interrupted: no process is left
            self.stop()
            raise
        if not ready:
            self.stop()
            raise RuntimeError("the SPARQL worker did not start")

    def ask(self, request: dict, seconds: float) -> tuple[dict, bytes]:
        deadline = time.monotonic() + seconds
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        header = json.loads(self._line(deadline))
        return header, self._exactly(header["length"], deadline)

    def _fill(self, deadline: float) -> None:
        fd = self.proc.stdout.fileno()
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise Timeout
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise RuntimeError("the SPARQL worker stopped")
        self._buffer += chunk

    def _line(self, deadline: float) -> bytes:
        while b"\n" not in self._buffer:
            self._fill(deadline)
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _exactly(self, n: int, deadline: float) -> bytes:
        while len(self._buffer) < n:
            self._fill(deadline)
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            pipe.close()


class WorkerPool:
    """At most ``size`` workers (processes of ``module``) over ``files``; :meth:`run` answers
    one query in at most ``timeout`` seconds (plus a new worker's start) or raises
    :class:`Timeout` (the worker is stopped); :meth:`ask` sends any request."""

    def __init__(self, files, *, size: int, timeout: float, max_results: int = 0, startup_seconds: float = 120.0,
                 module: str = "recipekg.sparql.worker"):
        self.files, self.timeout, self.max_results = list(files), timeout, max_results
        self.startup_seconds, self.module = startup_seconds, module
        self.idle: list[Worker] = []
        self.size, self.slots = size, threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._busy = 0  # workers taken by a request

    def run(self, query: str, accept: str) -> tuple[dict, bytes]:
        return self.ask({"query": query, "accept": accept, "max_results": self.max_results})

    def ask(self, request: dict) -> tuple[dict, bytes]:
        if not self.slots.acquire(timeout=self.timeout):
            raise Timeout(busy=True)
        try:
            with self._lock:
                worker = self.idle.pop() if self.idle else None
                self._busy += 1
            if worker is not None and worker.proc.poll() is not None:  # died while idle
                worker.stop()
                worker = None
            worker = worker or Worker(self.files, self.startup_seconds, self.module)
            try:
                answer = worker.ask(request, self.timeout)
            except BaseException:
                worker.stop()
                raise
            with self._lock:
                self.idle.append(worker)
            return answer
        finally:
            with self._lock:
                self._busy -= 1
            self.slots.release()

    def warm(self) -> None:
        """Start the workers now, one after another in a thread of the pool's (a request
        meanwhile takes one that is ready, or starts its own), so that the first queries find
        them loaded; never more than ``size`` in all."""
        def start():
            while self.slots.acquire(timeout=self.startup_seconds):
                try:
                    with self._lock:
                        if len(self.idle) + self._busy >= self.size:
                            return
                    worker = Worker(self.files, self.startup_seconds, self.module)
                    with self._lock:
                        self.idle.append(worker)
                except (OSError, RuntimeError):
                    return  # a request will try again, and say why
                finally:
                    self.slots.release()

        threading.Thread(target=start, daemon=True).start()

    def close(self) -> None:
        with self._lock:
            idle, self.idle = self.idle, []
        for worker in idle:
            worker.stop()


if __name__ == "__main__":
    try:
        serve(sys.argv[1:])
    except (KeyboardInterrupt, BrokenPipeError):
        pass
