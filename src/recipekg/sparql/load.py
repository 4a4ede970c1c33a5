r"""``recipekg load``: put the export into a SPARQL server, by SPARQL 1.1 Update
(``INSERT DATA`` in chunks) or one SPARQL 1.1 Graph Store request.

    >>> print(_ascii('<x> <y> "café" .'))
    <x> <y> "caf\u00E9" .
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

from recipekg.errors import UsageError
from recipekg.sparql.http import http_request
from recipekg.sparql.stores import export_ntriples


def load_endpoint(url: str, files: list[Path], *, graph: str | None = None, user: str | None = None,
                  password: str | None = None, protocol: str = "update", replace: bool = False,
                  chunk: int = 500, timeout: float = 300.0) -> int:
    """Put the export of ``files`` into a server; returns the number of triples sent.

    ``protocol="update"``: SPARQL 1.1 Update, ``INSERT DATA`` in chunks of ``chunk`` triples
    (``DROP SILENT GRAPH`` first with ``replace``), POSTed as ``application/sparql-update``.
    ``protocol="graph-store"``: SPARQL 1.1 Graph Store protocol, the whole export as
    N-Triples, ``PUT`` (replace) or ``POST`` (add) to ``url?graph=IRI`` (or ``?default``).
    """
    if graph is not None and not _graph_iri(graph):
        raise UsageError(f"not an absolute IRI for --graph: {graph!r}")
    lines = [line for line in export_ntriples(files).decode("utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    if protocol == "graph-store":
        sep = "&" if "?" in url else "?"
        target = url + sep + (urllib.parse.urlencode({"graph": graph}) if graph else "default")
        body = ("\n".join(lines) + "\n").encode("utf-8")
        http_request(target, body, content_type="application/n-triples", timeout=timeout,
                     user=user, password=password, method="PUT" if replace else "POST")
        return len(lines)
    if protocol != "update":
        raise UsageError(f"unknown protocol {protocol!r}", expected=["update", "graph-store"])
    if replace and graph is None:
        raise UsageError("--replace needs --graph: only a named graph can be dropped safely")

    def update(text: str) -> None:
        http_request(url, text.encode("utf-8"), content_type="application/sparql-update; charset=utf-8",
                     timeout=timeout, user=user, password=password)

    if replace:
        update(f"DROP SILENT GRAPH <{graph}>")
    for start in range(0, len(lines), chunk):
        data = "\n".join(_ascii(line) for line in lines[start:start + chunk])
        update(f"INSERT DATA {{ GRAPH <{graph}> {{\n{data}\n}} }}" if graph else f"INSERT DATA {{\n{data}\n}}")
    return len(lines)


def _graph_iri(iri: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|^`\\]+", iri))


def _ascii(line: str) -> str:
    """An N-Triples line with non-ASCII characters as \\u escapes (servers disagree on charsets)."""
    return re.sub(r"[^\x00-\x7f]", lambda m: (f"\\u{ord(m.group()):04X}" if ord(m.group()) < 0x10000
                                               else f"\\U{ord(m.group()):08X}"), line)
