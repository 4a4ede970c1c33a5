"""Run the exported SPARQL on a real engine and rebuild the reasoner's answer from the rows.

Three engines answer :func:`recipekg.sparql.to_sparql`'s queries over ``recipekg export``:

- ``rdflib``: an in-memory rdflib Graph of the export;
- ``oxigraph``: an in-memory pyoxigraph Store of the export;
- an endpoint URL: any SPARQL 1.1 protocol server (Virtuoso, Fuseki, GraphDB, Oxigraph
  server), queried with an HTTP POST (``urllib`` only).

The export is built once per process (and its N-Triples cached on disk next to the
snapshot, keyed by the same hash of the input files), so a query costs a query, not a load::

    >>> eng = get_engine("oxigraph", bundled_files())                        # doctest: +SKIP
    >>> answer(parse("recommend fix where symptom = loss-spike")[0], snap, eng)["results"][0]["id"]
    'rollback-checkpoint'

:func:`rank_from_rows` rebuilds the ranking with the reasoner's own JSON helpers and the
same noisy-or and sort, so an engine's answer equals the native one, dict for dict.
:func:`load_endpoint` puts the export into a server (``recipekg load``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import socket
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from .ast import Explain, Plan, Recommend
from .conditions import FAILED, HELD, NOT_GIVEN, PARTLY, coverage, engaged, match_level
from .derive import derive
from .errors import RecipeKGError
from .sparql import UnsupportedStatement, explain_query, recommend_query
from .terms import local_name
from .vocabulary import Facts, resolve_constraints

ENGINES = ("native", "rdflib", "oxigraph")
DEFAULT_TIMEOUT = 60.0
_INTEGER = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
            "unsignedInt", "unsignedLong", "nonPositiveInteger", "negativeInteger"}
_DECIMAL = {"double", "float", "decimal"}
_XSD = "http://www.w3.org/2001/XMLSchema#"


class EngineError(RecipeKGError):
    """A SPARQL engine or endpoint failed, or answered something unusable (kind ``"engine"``)."""

    kind = "engine"


# ----------------------------------------------------------------------------- the export

_EXPORTS: dict[str, bytes] = {}
_GRAPHS: dict = {}
_STORES: dict = {}


def export_key(files: list[Path]) -> str:
    """Hash of the input files (as the snapshot's key) and of the code that shapes the export."""
    from . import compiler, export
    from .snapshot import input_key

    h = hashlib.sha256(input_key([Path(f) for f in files]).encode())
    for module in (export, compiler):
        h.update(Path(module.__file__).read_bytes())
    return h.hexdigest()


def export_ntriples(files: list[Path], *, use_cache: bool = True) -> bytes:
    """``recipekg export --format ntriples`` of ``files``: once per process, cached on disk.

    The cache file starts with a comment naming the input key and the SHA-256 of the rest;
    a stale or damaged file is rebuilt, never trusted.
    """
    key = export_key(files)
    if key in _EXPORTS:
        return _EXPORTS[key]
    from .snapshot import cache_dir

    target = cache_dir() / f"export-{key[:32]}.nt"
    data = _read_cached_export(target, key) if use_cache else None
    if data is None:
        from .export import export

        data = export([Path(f) for f in files], "ntriples")
        if use_cache:
            header = f"# recipekg export {key} sha256={hashlib.sha256(data).hexdigest()}\n".encode()
            try:
                from .export import write_atomic

                target.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(target, header + data)
            except OSError:
                pass  # a read-only cache only costs a rebuild next time
    _EXPORTS[key] = data
    return data


def _read_cached_export(target: Path, key: str) -> bytes | None:
    try:
        raw = target.read_bytes()
    except OSError:
        return None
    header, _, data = raw.partition(b"\n")
    m = re.fullmatch(rb"# recipekg export ([0-9a-f]{64}) sha256=([0-9a-f]{64})", header)
    if not m or m.group(1).decode() != key or hashlib.sha256(data).hexdigest() != m.group(2).decode():
        return None
    return data


def rdflib_graph(files: list[Path]):
    """The export as an rdflib Graph (built once per process and input)."""
    key = export_key(files)
    if key not in _GRAPHS:
        from rdflib import Graph

        _GRAPHS[key] = Graph().parse(data=export_ntriples(files), format="nt")
    return _GRAPHS[key]


def oxigraph_store(files: list[Path]):
    """The export in an in-memory pyoxigraph Store (built once per process and input)."""
    key = export_key(files)
    if key not in _STORES:
        import pyoxigraph as ox

        store = ox.Store()
        store.bulk_load(export_ntriples(files), ox.RdfFormat.N_TRIPLES)
        _STORES[key] = store
    return _STORES[key]


# ----------------------------------------------------------------------------- engines

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
            raise RecipeKGError("give --engine or --endpoint, not both", kind="usage")
        return EndpointEngine(endpoint, **options)
    if name in (None, "native"):
        return None
    if name == "rdflib":
        return RdflibEngine(files)
    if name == "oxigraph":
        return OxigraphEngine(files)
    raise RecipeKGError(f"unknown engine {name!r}", kind="usage", expected=list(ENGINES))


# ----------------------------------------------------------------------------- HTTP

def check_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RecipeKGError(f"not an http(s) endpoint URL: {url!r}", kind="usage",
                            expected=["http://host:port/sparql"])
    return url


def http_request(url: str, body: bytes | None, *, content_type: str | None, accept: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, user: str | None = None, password: str | None = None,
                 method: str = "POST") -> bytes:
    """One HTTP request with clear errors. With ``user``, the credentials go with the request
    itself (Digest or Basic, as a HEAD probe's challenge asks): a server that answers 401
    before reading a large body would otherwise break the pipe (Virtuoso does)."""
    check_url(url)
    headers = {"User-Agent": "recipekg"}
    if content_type:
        headers["Content-Type"] = content_type
    if accept:
        headers["Accept"] = accept
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    if user is not None:  # unredirected: never sent on to another URL
        request.add_unredirected_header("Authorization",
                                        _authorization(url, method, user, password or "", timeout))
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:500].decode("utf-8", "replace").strip()
        hint = " (check --user/--password)" if exc.code in (401, 403) else ""
        raise EngineError(f"{url} answered HTTP {exc.code} {exc.reason}{hint}"
                          + (f": {_one_line(detail)}" if detail else "")) from None
    except (socket.timeout, TimeoutError):
        raise EngineError(f"no answer from {url} within {timeout:g} s") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (socket.timeout, TimeoutError)):
            raise EngineError(f"no answer from {url} within {timeout:g} s") from None
        raise EngineError(f"cannot reach {url}: {reason}") from None
    except (OSError, ValueError) as exc:
        raise EngineError(f"cannot reach {url}: {exc}") from None


_DIGESTS = {"MD5": hashlib.md5, "MD5-SESS": hashlib.md5, "SHA": hashlib.sha1,
            "SHA-256": hashlib.sha256, "SHA-256-SESS": hashlib.sha256}


def _authorization(url: str, method: str, user: str, password: str, timeout: float) -> str:
    """The Authorization header for ``method url``: Digest when a HEAD probe is challenged
    with Digest, else Basic."""
    challenges: list[str] = []
    probe = urllib.request.Request(url, method="HEAD", headers={"User-Agent": "recipekg"})
    try:
        with urllib.request.urlopen(probe, timeout=timeout):
            pass
    except urllib.error.HTTPError as exc:
        if exc.code == 401:
            challenges = exc.headers.get_all("WWW-Authenticate") or []
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise EngineError(f"cannot reach {url}: {getattr(exc, 'reason', exc)}") from None
    for challenge in challenges:
        scheme, _, rest = challenge.strip().partition(" ")
        if scheme.lower() == "digest":
            params = urllib.request.parse_keqv_list(urllib.request.parse_http_list(rest))
            return _digest(url, method, user, password, params)
    token = base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")
    return f"Basic {token}"


def _digest(url: str, method: str, user: str, password: str, params: dict) -> str:
    """RFC 7616 Digest response (qop=auth or none; MD5, SHA, SHA-256 and their -sess forms)."""
    algorithm = params.get("algorithm", "MD5").upper()
    if algorithm not in _DIGESTS:
        raise EngineError(f"{url} asks for Digest {algorithm}, which recipekg does not speak")
    h = lambda text: _DIGESTS[algorithm](text.encode("utf-8")).hexdigest()  # noqa: E731
    parts = urllib.parse.urlsplit(url)
    uri = parts.path or "/"
    if parts.query:
        uri += "?" + parts.query
    realm, nonce = params.get("realm", ""), params.get("nonce", "")
    cnonce, nc = secrets.token_hex(8), "00000001"
    ha1 = h(f"{user}:{realm}:{password}")
    if algorithm.endswith("-SESS"):
        ha1 = h(f"{ha1}:{nonce}:{cnonce}")
    ha2 = h(f"{method}:{uri}")
    qops = [q.strip() for q in params.get("qop", "").split(",") if q.strip()]
    fields = {"username": user, "realm": realm, "nonce": nonce, "uri": uri}
    if "auth" in qops:
        fields["response"] = h(f"{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}")
    else:
        fields["response"] = h(f"{ha1}:{nonce}:{ha2}")
    if "opaque" in params:
        fields["opaque"] = params["opaque"]
    quoted = ", ".join(f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
                       for k, v in fields.items())
    extra = f", qop=auth, nc={nc}, cnonce=\"{cnonce}\"" if "auth" in qops else ""
    return f"Digest {quoted}, algorithm={params.get('algorithm', 'MD5')}{extra}"


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)).strip()[:300]


# ----------------------------------------------------------------------------- answers

def _evaluation(row: dict, snap: dict) -> tuple[dict, dict]:
    """The reasoner's rule view and evaluation of one row (statuses rebuilt from its lists)."""
    iri = row["rule"]
    rule = snap["rules"].get(iri)
    if rule is None:
        raise EngineError(f"the engine's KB has rule {iri} that the local KB does not: "
                          f"load the same export into the server (recipekg load)")
    conds = sorted(row.get("conditionList", "").split())
    held = set(row.get("heldList", "").split())
    partly = set(row.get("partlyList", "").split())
    failed = set(row.get("failedList", "").split())
    missing = [c for c in conds if c not in snap["conditions"]]
    counts = (row.get("conditions"), row.get("held"), row.get("partly"), row.get("failed"))
    if missing or counts != (len(conds), len(held), len(partly), len(failed)) or not (
            held | partly | failed) <= set(conds):
        raise EngineError(f"the engine's rows for rule {iri} do not match the local KB")
    statuses = [HELD if c in held else PARTLY if c in partly else FAILED if c in failed else NOT_GIVEN
                for c in conds]
    fires = engaged(statuses)
    f, pc, weight = row["unconstrainedFactor"], row["partlyCredit"], row["weight"]
    contribution = weight * (f + (1 - f) * coverage(statuses, pc)) if fires else 0.0
    sources = [local_name(p) for p in sorted(row.get("sources", "").split())]
    unknown = [s for s in sources if s not in snap["papers"]]
    if unknown or row["section"] not in snap["sections"] or row["strength"] not in snap["strengths"]:
        raise EngineError(f"the engine's KB describes rule {iri} differently from the local KB")
    view = {**rule, "conditions": conds, "strength": row["strength"], "section": row["section"],
            "sources": sources}
    ev = {"fires": fires, "statuses": statuses, "conditions": [snap["conditions"][c] for c in conds],
          "contribution": contribution, "match": match_level(statuses)}
    return view, ev


def rank_from_rows(rows: list[dict], kind: str, snap: dict) -> list[dict]:
    """The ranked choices of ``kind`` from the rows of :func:`sparql.recommend_query`,
    identical to :func:`recipekg.reasoner.rank`."""
    from .reasoner import order_results, reason_json

    nodes = snap["nodes"]
    choices: dict[str, dict] = {}
    for row in rows:
        choice = row["choice"]
        if kind not in nodes.get(choice, {}).get("kinds", ()):
            raise EngineError(f"the engine named {choice}, which is not a {kind} of the local KB")
        view, ev = _evaluation(row, snap)
        if not ev["fires"]:
            continue
        entry = choices.setdefault(choice, {"because": [], "against": []})
        entry["because" if row["side"] == "for" else "against"].append(reason_json(row["rule"], view, ev, snap))
    return order_results(choices, snap)


def rank_with(engine: Engine, kind: str, facts: dict[str, Facts], snap: dict) -> list[dict]:
    """:func:`recipekg.reasoner.rank`, computed by ``engine`` from the exported SPARQL."""
    return rank_from_rows(engine.select(recommend_query(kind, facts, snap)), kind, snap)


def answer(statement, snap: dict, engine: Engine) -> dict:
    """:func:`recipekg.reasoner.answer` through a SPARQL engine (recommend and explain)."""
    if isinstance(statement, Recommend):
        from .reasoner import constraints_json, resolve_kind

        kind = resolve_kind(statement.kind, snap)
        facts = derive(resolve_constraints(statement.constraints, snap), snap)
        results = rank_with(engine, kind, facts, snap)
        if statement.top is not None:
            results = results[:statement.top]
        return {"statement": "recommend", "kind": kind, "query": statement.text.strip(),
                "constraints": constraints_json(facts), "results": results}
    if isinstance(statement, Explain):
        return _explain(statement, snap, engine)
    if isinstance(statement, Plan):
        raise UnsupportedStatement(
            "plan has no SPARQL form: it evaluates formulas, not rules; run it without "
            "--engine/--endpoint", expected=["recommend <kind> where ...", "explain <choice> where ..."])
    raise TypeError(f"not a statement: {statement!r}")


def query(text: str, snap: dict, engine: Engine) -> list[dict]:
    """Answers to every statement of ``text`` through ``engine`` (all parsed first)."""
    from .parser import parse

    return [answer(statement, snap, engine) for statement in parse(text)]


def _explain(stmt: Explain, snap: dict, engine: Engine) -> dict:
    """:func:`recipekg.explain.explain` with every ranking and rule status from ``engine``."""
    from .explain import explain_answer, resolve_choice
    from .reasoner import reason_json

    iri = resolve_choice(stmt.choice, snap)
    facts = derive(resolve_constraints(stmt.constraints, snap), snap)

    ranked: dict[str, int | None] = {}  # query text → rank: trials often repeat a query

    def rank_of(kind: str, trial: dict) -> int | None:
        text = recommend_query(kind, trial, snap)
        if text not in ranked:
            rows = engine.select(text)
            ranked[text] = next((r["rank"] for r in rank_from_rows(rows, kind, snap) if r["iri"] == iri), None)
        return ranked[text]

    rules, seen_for = [], set()
    rows = sorted(engine.select(explain_query(iri, facts, snap)),
                  key=lambda r: (r["rule"], r["side"] != "for"))
    for row in rows:
        if row["choice"] != iri:
            raise EngineError(f"the engine answered about {row['choice']}, not {iri}")
        if row["side"] == "against" and row["rule"] in seen_for:
            continue  # the native explain names a rule once, as "for" when it recommends the choice
        seen_for.add(row["rule"])
        view, ev = _evaluation(row, snap)
        rules.append({"side": row["side"], "fires": ev["fires"], **reason_json(row["rule"], view, ev, snap)})
    return explain_answer(stmt, iri, facts, rules, snap, rank_of)


# ----------------------------------------------------------------------------- loading

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
        raise RecipeKGError(f"not an absolute IRI for --graph: {graph!r}", kind="usage")
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
        raise RecipeKGError(f"unknown protocol {protocol!r}", kind="usage", expected=["update", "graph-store"])
    if replace and graph is None:
        raise RecipeKGError("--replace needs --graph: only a named graph can be dropped safely", kind="usage")

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


__all__ = ["Engine", "EngineError", "EndpointEngine", "OxigraphEngine", "RdflibEngine", "answer",
           "export_ntriples", "get_engine", "load_endpoint", "query", "rank_from_rows", "rank_with",
           "oxigraph_store", "rdflib_graph"]
