"""A guard in front of an MCP server on stdio: every line that is not a JSON-RPC 2.0 message
gets the error JSON-RPC prescribes, which the SDK's transport does not send (it drops the line).

- a line that is not JSON: ``-32700`` (Parse error), id null;
- JSON that is not a request, notification or response (no ``"jsonrpc": "2.0"``, a method
  that is not a string, an id that is not a string or integer, params that are neither an
  object nor an array, a batch, which MCP does not have): ``-32600`` (Invalid Request), with
  the message's id when it has a usable one;
- a line longer than :data:`MAX_LINE` bytes: ``-32600``, the line skipped.

    >>> reply(b'{"jsonrpc": "2.0", "id": 7, "method": "ping"}') is None
    True
    >>> reply(b'{"jsonrpc": "2.0", "id": 7, "method": 5}')["error"]["code"], reply(b"{oops")["error"]["code"]
    (-32600, -32700)
    >>> reply(b'[]')["error"]["message"]
    'Invalid Request: a batch (MCP sends one message per line)'

:func:`guarded_stdio` runs the server with its stdin and stdout on pipes: a reader thread
passes the good lines on and queues the errors, and one writer thread writes the server's
lines and the errors to the real stdout, so they never interleave.
"""

from __future__ import annotations

import json
import os
import queue
import threading

#: The longest message line read (bytes); longer ones are refused and skipped.
MAX_LINE = 16 << 20


def reply(line: bytes) -> dict | None:
    """The JSON-RPC error for ``line``, or None when it is a well-formed message."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, -32700, "Parse error: not JSON")
    if isinstance(message, list):
        return _error(None, -32600, "Invalid Request: a batch (MCP sends one message per line)")
    if not isinstance(message, dict):
        return _error(None, -32600, "Invalid Request: not a JSON object")
    ident = message.get("id")
    usable = ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None
    problem = _problem(message)
    return _error(usable, -32600, f"Invalid Request: {problem}") if problem else None


def _problem(message: dict) -> str | None:
    if message.get("jsonrpc") != "2.0":
        return 'no "jsonrpc": "2.0"'
    if "id" in message and (not isinstance(message["id"], (str, int)) or isinstance(message["id"], bool)):
        return "the id is neither a string nor an integer"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "the method is not a string"
        if "params" in message and not isinstance(message["params"], (dict, list)):
            return "params are neither an object nor an array"
        return None
    if "id" not in message or ("result" in message) == ("error" in message):
        return "neither a request (method), a notification nor a response (id with result or error)"
    return None


def _error(ident, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def guarded_stdio(run) -> None:
    """Call ``run()`` (a server serving the process's stdin and stdout) behind the guard."""
    real_in, real_out, saved_in = os.dup(0), os.dup(1), os.dup(0)  # the reader closes real_in
    server_in, feed = os.pipe()
    drain, server_out = os.pipe()
    os.dup2(server_in, 0)
    os.dup2(server_out, 1)
    os.close(server_in)
    os.close(server_out)
    lines: queue.Queue = queue.Queue()
    threads = [threading.Thread(target=_read, args=(real_in, feed, lines), daemon=True),
               threading.Thread(target=_pump, args=(drain, lines), daemon=True)]
    writer = threading.Thread(target=_write, args=(real_out, lines), daemon=True)
    for t in threads + [writer]:
        t.start()
    try:
        run()
    finally:
        os.dup2(saved_in, 0)
        os.dup2(real_out, 1)  # the server's end of its stdout pipe closes: the pump sees its end
        os.close(saved_in)
        threads[1].join(timeout=5)
        lines.put(None)
        writer.join(timeout=5)
        os.close(real_out)


def _read(fd: int, feed: int, lines: queue.Queue) -> None:
    """Lines of the client: good ones to the server, an error for the others."""
    with os.fdopen(fd, "rb", buffering=1 << 16) as source:
        while True:
            line = source.readline(MAX_LINE + 1)
            if not line:
                break
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while (rest := source.readline(MAX_LINE + 1)) and not rest.endswith(b"\n"):
                    pass  # skip the rest of the line, a bounded piece at a time
                lines.put(_error(None, -32600, f"Invalid Request: a message longer than {MAX_LINE >> 20} MiB"))
                continue
            if not line.strip():
                continue
            error = reply(line)
            if error is not None:
                lines.put(error)
                continue
            try:
                _write_all(feed, line if line.endswith(b"\n") else line + b"\n")
            except OSError:  # the server has stopped reading
                break
    os.close(feed)


def _pump(fd: int, lines: queue.Queue) -> None:
    """The server's lines, to the writer."""
    with os.fdopen(fd, "rb") as source:
        for line in source:
            lines.put(line)


def _write(fd: int, lines: queue.Queue) -> None:
    """The only writer of the real stdout: the server's lines and the guard's errors."""
    while (item := lines.get()) is not None:
        data = item if isinstance(item, bytes) else json.dumps(item).encode() + b"\n"
        try:
            _write_all(fd, data)
        except OSError:
            return


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
