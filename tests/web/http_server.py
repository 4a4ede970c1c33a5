"""``recipekg serve`` in a child process on a free port, and plain HTTP requests to it: the
way users reach the JSON API and the SPARQL endpoint."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest

from support import subprocess_env


@contextmanager
def served(*args):
    """The base URL (``http://127.0.0.1:PORT``) of ``recipekg serve --port 0 ARGS``."""
    proc = subprocess.Popen([sys.executable, "-m", "recipekg", "serve", "--port", "0", *args],
                            env=subprocess_env(PYTHONUNBUFFERED="1"), stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True)
    line = proc.stderr.readline()
    match = re.search(r"http://\S+?:\d+", line)
    if not match:
        proc.kill()
        pytest.fail(f"no URL in {line!r}")
    try:
        yield match.group(0)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def request(url, *, data: bytes | None = None, headers=None, method=None):
    """``(status, headers, body bytes)``, whatever the status; a JSON answer of an answer route
    validated against the published schema."""
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=120) as response:
            got = response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        got = exc.code, exc.headers, exc.read()
    _validated(url, *got)
    return got


def _validated(url: str, status: int, headers, body: bytes) -> None:
    """A JSON answer (or error) of an answer route validates against the published schema."""
    from urllib.parse import urlsplit

    from support import schema_errors

    if urlsplit(url).path in ("/api/query", "/") and (headers.get("Content-Type") or "").startswith("application/json"):
        assert schema_errors(json.loads(body)) == [], (url, status)


def cli_json(*args) -> tuple[int, object]:
    """``recipekg ARGS --format json``'s exit status and parsed stdout."""
    done = subprocess.run([sys.executable, "-m", "recipekg", *args, "--format", "json"], env=subprocess_env(),
                          capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout)
