"""SPARQL results as the SPARQL 1.1 Protocol serves them: solutions and booleans in the
SPARQL 1.1 Query Results JSON, XML, CSV and TSV formats, graphs in Turtle or N-Triples,
chosen by the request's ``Accept`` header.

Terms are pyoxigraph terms (``NamedNode``, ``BlankNode``, ``Literal``, RDF-star ``Triple``).
When the endpoint's result cap cut the answer short, ``note`` says so inside the document
wherever the format has room for it (a JSON member, an XML or Turtle comment).

    >>> import pyoxigraph as ox
    >>> rows = [{"s": ox.NamedNode("http://e/a"), "o": ox.Literal("x", language="en")}]
    >>> print(solutions(["s", "o"], rows, "text/csv").decode(), end="")
    s,o
    http://e/a,x
    >>> negotiate("text/csv;q=0.5, application/sparql-results+json", "select")
    'application/sparql-results+json'
    >>> negotiate("text/turtle", "select") is None
    True
"""

from __future__ import annotations

import csv
import io
import json
from xml.sax.saxutils import escape, quoteattr

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RESULTS_JSON, RESULTS_XML = "application/sparql-results+json", "application/sparql-results+xml"
TURTLE, NTRIPLES = "text/turtle", "application/n-triples"
#: Media types per kind of result, the first one the default (``Accept: */*`` or none).
OFFERED = {
    "select": [RESULTS_JSON, RESULTS_XML, "text/csv", "text/tab-separated-values", "application/json",
               "application/xml"],
    "graph": [TURTLE, NTRIPLES, "application/x-turtle", "text/plain"],
}
OFFERED["ask"] = [t for t in OFFERED["select"] if t not in ("text/csv", "text/tab-separated-values")]
#: The media type answered for each accepted one (aliases answer with the canonical type).
CANONICAL = {"application/json": RESULTS_JSON, "application/xml": RESULTS_XML,
             "application/x-turtle": TURTLE, "text/plain": NTRIPLES}


def negotiate(accept: str | None, kind: str) -> str | None:
    """The media type to answer a ``kind`` (``select``, ``ask``, ``graph``) result in for
    the ``Accept`` header ``accept`` (q-values honoured), or None when nothing offered fits."""
    from werkzeug.datastructures import MIMEAccept
    from werkzeug.http import parse_accept_header

    offered = OFFERED[kind]
    if not accept or not accept.strip():
        return offered[0]
    best = parse_accept_header(accept, MIMEAccept).best_match(offered)
    return CANONICAL.get(best, best) if best else None


def solutions(variables: list[str], rows: list[dict], media_type: str, note: str | None = None) -> bytes:
    """A SELECT result (``rows`` map variable names to terms, a missing name is unbound)."""
    if media_type == RESULTS_JSON:
        doc = {"head": {"vars": variables},
               "results": {"bindings": [{v: _json_term(t) for v, t in row.items() if t is not None} for row in rows]}}
        return _json_doc(doc, note)
    if media_type == RESULTS_XML:
        head = "".join(f"<variable name={quoteattr(v)}/>" for v in variables)
        body = "".join("<result>" + "".join(f"<binding name={quoteattr(v)}>{_xml_term(t)}</binding>"
                                            for v, t in row.items() if t is not None) + "</result>\n"
                       for row in rows)
        return _xml_doc(f"<head>{head}</head>\n<results>\n{body}</results>", note)
    if media_type == "text/csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(variables)
        for row in rows:
            writer.writerow([_csv_term(row.get(v)) for v in variables])
        return out.getvalue().encode("utf-8")
    lines = ["\t".join(f"?{v}" for v in variables)]
    lines += ["\t".join("" if row.get(v) is None else str(row[v]) for v in variables) for row in rows]
    return ("\n".join(lines) + "\n").encode("utf-8")


def boolean(value: bool, media_type: str) -> bytes:
    """An ASK result.

    >>> boolean(True, "application/sparql-results+json")
    b'{"head": {}, "boolean": true}'
    """
    if media_type == RESULTS_JSON:
        return _json_doc({"head": {}, "boolean": bool(value)}, None)
    return _xml_doc(f"<head/>\n<boolean>{'true' if value else 'false'}</boolean>", None)


def graph(triples: list, media_type: str, prefixes: dict | None = None, note: str | None = None) -> bytes:
    """A CONSTRUCT or DESCRIBE result in Turtle (with ``prefixes``) or N-Triples."""
    import pyoxigraph as ox

    if media_type == TURTLE:
        data = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=prefixes or {}) or b""
    else:
        data = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b""
    return data + (f"# {note}\n".encode("utf-8") if note else b"")


def _json_doc(doc: dict, note: str | None) -> bytes:
    if note:
        doc["recipekg"] = {"truncated": True, "message": note}
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


def _xml_doc(inner: str, note: str | None) -> bytes:
    comment = f"<!-- {note.replace('--', '- -')} -->\n" if note else ""
    return ('<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n'
            f"{comment}{inner}\n</sparql>\n").encode("utf-8")


def _kind(term) -> str:
    name = type(term).__name__
    return {"NamedNode": "uri", "BlankNode": "bnode", "Literal": "literal", "Triple": "triple"}[name]


def _json_term(term) -> dict:
    kind = _kind(term)
    if kind == "triple":
        return {"type": "triple", "value": {"subject": _json_term(term.subject),
                                            "predicate": _json_term(term.predicate),
                                            "object": _json_term(term.object)}}
    out = {"type": kind, "value": term.value}
    if kind == "literal":
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype.value != XSD_STRING:
            out["datatype"] = term.datatype.value
    return out


def _xml_term(term) -> str:
    kind = _kind(term)
    if kind == "triple":
        parts = "".join(f"<{k}>{_xml_term(getattr(term, k))}</{k}>" for k in ("subject", "predicate", "object"))
        return f"<triple>{parts}</triple>"
    if kind != "literal":
        return f"<{kind}>{escape(term.value)}</{kind}>"
    if term.language:
        return f"<literal xml:lang={quoteattr(term.language)}>{escape(term.value)}</literal>"
    if term.datatype.value != XSD_STRING:
        return f"<literal datatype={quoteattr(term.datatype.value)}>{escape(term.value)}</literal>"
    return f"<literal>{escape(term.value)}</literal>"


def _csv_term(term) -> str:
    if term is None:
        return ""
    kind = _kind(term)
    if kind == "bnode":
        return f"_:{term.value}"
    return str(term) if kind == "triple" else term.value
