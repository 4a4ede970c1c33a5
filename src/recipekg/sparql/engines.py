"""SPARQL engines: something that runs a SELECT and answers rows of plain values.

- ``rdflib``: an in-memory rdflib Graph of the export;
- ``oxigraph``: an in-memory pyoxigraph Store of the export;
- an endpoint URL: any SPARQL 1.1 protocol server (Virtuoso, Fuseki, GraphDB, Oxigraph
  server), queried with an HTTP POST (``urllib`` only).

    >>> rows = get_engine("oxigraph", kb.files).select("SELECT (1 AS ?one) {}")
    >>> rows
    [{'one': 1}]
"""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path

from recipekg.errors import EngineError, UsageError
from recipekg.sparql.http import DEFAULT_TIMEOUT, check_url, http_request
from recipekg.sparql.stores import oxigraph_store, rdflib_graph

ENGINES = ("native", "rdflib", "oxigraph")
_INTEGER = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
            "unsignedInt", "unsignedLong", "nonPositiveInteger", "negativeInteger"}
_DECIMAL = {"double", "float", "decimal"}
_XSD = "http://www.w3.org/2001/XMLSchema#"


def _value(kind: str, value: str, datatype: str | None = None):
    """A result term as plain data: IRIs and strings as str, numbers as int/float."""
    if kind in ("uri", "bnode"):
        return value
    if datatype and datatype.startswith(_XSD):
        name = datatype[len(_XSD):]
        try:
            if name in _INTEGER:
                return int(value)
            if name in _DECIMAL:
                return float(value)
        except ValueError:
            raise EngineError(f"the engine returned {value!r} as an xsd:{name}") from None
        if name == "boolean":
            return value in ("true", "1")
    return value


class Engine:
    """Something that answers a SPARQL SELECT with rows of plain values."""

    name = "engine"

    def select(self, query: str) -> list[dict]:
        raise NotImplementedError


class RdflibEngine(Engine):
    name = "rdflib"

    def __init__(self, files: list[Path]):
        self.graph = rdflib_graph(files)

    def select(self, query: str) -> list[dict]:
        from rdflib import BNode, Literal

        try:
            result = self.graph.query(query)
        except Exception as exc:  # rdflib raises pyparsing and plain exceptions alike
            raise EngineError(f"rdflib could not run the query: {exc}") from None
        rows = []
        for row in result:
            out = {}
            for var, term in row.asdict().items():
                if isinstance(term, Literal):
                    out[var] = _value("literal", str(term), str(term.datatype) if term.datatype else None)
                else:
                    out[var] = _value("bnode" if isinstance(term, BNode) else "uri", str(term))
            rows.append(out)
        return rows


class OxigraphEngine(Engine):
    name = "oxigraph"

    def __init__(self, files: list[Path]):
        self.store = oxigraph_store(files)

    def select(self, query: str) -> list[dict]:
        import pyoxigraph as ox

        try:
            solutions = self.store.query(query)
        except SyntaxError as exc:
            raise EngineError(f"oxigraph could not parse the query: {exc}") from None
        except (OSError, ValueError) as exc:
            raise EngineError(f"oxigraph could not run the query: {exc}") from None
        names = [v.value for v in solutions.variables]
        rows = []
        for solution in solutions:
            out = {}
            for name in names:
                term = solution[name]
                if term is None:
                    continue
                if isinstance(term, ox.Literal):
                    out[name] = _value("literal", term.value, term.datatype.value)
                else:
                    out[name] = _value("bnode" if isinstance(term, ox.BlankNode) else "uri", term.value)
            rows.append(out)
        return rows


class EndpointEngine(Engine):
    """A SPARQL 1.1 protocol endpoint.

    ``method="form"`` (default) sends the query URL-encoded in a POST body (``query=...``),
    which every server supports; ``method="direct"`` sends it as ``application/sparql-query``
    (Virtuoso 7.2 never answers that one, see openlink/virtuoso-opensource#842).
    Results are read as ``application/sparql-results+json``.
    """

    name = "endpoint"

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT, user: str | None = None,
                 password: str | None = None, method: str = "form"):
        self.url = check_url(url)
        self.timeout = timeout
        self.user, self.password = user, password
        if method not in ("form", "direct"):
            raise ValueError(method)
        self.method = method

    def select(self, query: str) -> list[dict]:
        if self.method == "direct":
            body, content_type = query.encode("utf-8"), "application/sparql-query; charset=utf-8"
        else:
            body = urllib.parse.urlencode({"query": query}).encode("ascii")
            content_type = "application/x-www-form-urlencoded"
        raw = http_request(self.url, body, content_type=content_type,
                           accept="application/sparql-results+json", timeout=self.timeout,
                           user=self.user, password=self.password)
        try:
            data = json.loads(raw.decode("utf-8"))
            names = data["head"]["vars"]
            bindings = data["results"]["bindings"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise EngineError(f"{self.url} did not answer with SPARQL JSON results: "
                              f"{raw[:200].decode('utf-8', 'replace')!r}") from None
        rows = []
        for binding in bindings:
            out = {}
            for name in names:
                term = binding.get(name)
                if term is None:
                    continue
                out[name] = _value(term.get("type", "literal"), term.get("value", ""), term.get("datatype"))
            rows.append(out)
        return rows


def get_engine(name: str | None, files: list[Path], endpoint: str | None = None, **options) -> Engine | None:
    """The engine for ``--engine``/``--endpoint`` (None means native)."""
    if endpoint:
        if name not in (None, "native", "endpoint"):
            raise UsageError("give --engine or --endpoint, not both")
        return EndpointEngine(endpoint, **options)
    if name in (None, "native"):
        return None
    if name == "rdflib":
        return RdflibEngine(files)
    if name == "oxigraph":
        return OxigraphEngine(files)
    raise UsageError(f"unknown engine {name!r}", expected=list(ENGINES))


def endpoint_options() -> dict:
    """Options for :class:`EndpointEngine` from the environment: ``RECIPEKG_SPARQL_USER``,
    ``RECIPEKG_SPARQL_PASSWORD``, ``RECIPEKG_SPARQL_TIMEOUT`` and ``RECIPEKG_SPARQL_POST``."""
    options: dict = {}
    if user := os.environ.get("RECIPEKG_SPARQL_USER"):
        options["user"] = user
        options["password"] = os.environ.get("RECIPEKG_SPARQL_PASSWORD", "")
    if timeout := os.environ.get("RECIPEKG_SPARQL_TIMEOUT"):
        try:
            options["timeout"] = float(timeout)
        except ValueError:
            raise UsageError(f"RECIPEKG_SPARQL_TIMEOUT is not a number of seconds: {timeout!r}") from None
        if not options["timeout"] > 0:
            raise UsageError("RECIPEKG_SPARQL_TIMEOUT must be positive")
    if method := os.environ.get("RECIPEKG_SPARQL_POST"):
        if method not in ("form", "direct"):
            raise UsageError(f"RECIPEKG_SPARQL_POST is 'form' or 'direct', not {method!r}")
        options["method"] = method
    return options
