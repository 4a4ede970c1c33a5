"""The caps that keep every request bounded, in one place (docs/security.md lists them).

They are not claims about training runs, so they live here rather than in the KB:

    >>> MAX_QUERY_CHARS, MAX_STATEMENTS, SPARQL_MAX_RESULTS
    (100000, 200, 10000)
    >>> extension_bytes_cap({"RECIPEKG_MAX_EXTENSION_MB": "64"}) == 64 << 20
    True
"""

from __future__ import annotations

#: A query text (CLI, file, stdin, Python API) holds at most this many characters...
MAX_QUERY_CHARS = 100_000
#: ...and at most this many statements.
MAX_STATEMENTS = 200
#: The web page's query box and /?q= take less: a URL is not a file.
MAX_WEB_QUERY_CHARS = 10_000
#: The /sparql endpoint (``recipekg serve``): a query runs at most this many seconds (then its
#: worker process is stopped and the response, 503, says so; ``serve --sparql-timeout``)...
SPARQL_TIMEOUT_SECONDS = 10.0
#: ...returns at most this many solutions or triples (the response says when it cut more)...
SPARQL_MAX_RESULTS = 10_000
#: ...and at most this many queries run at once, each in its own worker process (60-80 MB
#: resident for the bundled KB); further queries wait for one, up to the timeout.
SPARQL_WORKERS = 2
#: ``recipekg serve``'s /api/query and pages: a query (all its statements) runs at most this
#: many seconds, in one of this many worker processes, like /sparql's (recipekg/web/answering.py;
#: ``serve --query-timeout``): then the worker is stopped and the answer is 503.
ANSWER_TIMEOUT_SECONDS = 10.0
ANSWER_WORKERS = 2
#: An extension file is at most this many MiB (about 1.6M triples written like the bundled
#: KB; validating costs about 40 bytes of memory per byte of Turtle, so 2.5 GB at the cap).
#: RECIPEKG_MAX_EXTENSION_MB raises it for a machine with the memory to spare.
MAX_EXTENSION_MB = 64


def extension_bytes_cap(environ) -> int:
    """The extension size cap in bytes: ``RECIPEKG_MAX_EXTENSION_MB`` if it is a positive
    whole number, else :data:`MAX_EXTENSION_MB`."""
    value = environ.get("RECIPEKG_MAX_EXTENSION_MB", "").strip()
    megabytes = int(value) if value.isdigit() and int(value) > 0 else MAX_EXTENSION_MB
    return megabytes << 20
