"""``/sparql`` with a real SPARQL client (SPARQLWrapper) against ``recipekg serve``: the four
query forms in every result format, an update refused, the result cap and the timeout."""

from __future__ import annotations

import csv
import io
import json
import time
import urllib.error
from urllib.parse import quote, urlencode

import pytest
from rdflib import Graph, URIRef
from SPARQLWrapper import CSV, JSON, POST, TSV, TURTLE, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

from http_server import request, served
from recipekg.limits import SPARQL_MAX_RESULTS

TIMEOUT = 5  # seconds: short for the test, long enough for a loaded machine's honest queries
PREFIXES = "PREFIX rkg: <https://w3id.org/recipekg/ns#>\nPREFIX dcterms: <http://purl.org/dc/terms/>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
PAPER = "https://w3id.org/recipekg/paper/hoffmann2022"
IN_PAPERS = 'FILTER(?paper IN (PAPERS))'
TITLES = PREFIXES + f"SELECT ?paper ?title WHERE {{ ?paper rdfs:label ?title {IN_PAPERS} }} ORDER BY ?paper"


def with_papers(query: str, snap) -> str:
    """``query`` restricted to the snapshot's papers (the reference among them: ``kb:reference``)."""
    return query.replace("PAPERS", ", ".join(f"<{p['iri']}>" for p in snap["papers"].values()))


@pytest.fixture(scope="module")
def endpoint():
    with served("--sparql-timeout", str(TIMEOUT)) as url:
        yield url + "/sparql"


def client(endpoint, query, fmt=JSON, method=None):
    sparql = SPARQLWrapper(endpoint)
    sparql.setQuery(query)
    sparql.setReturnFormat(fmt)
    if method:
        sparql.setMethod(method)
    return sparql


def test_select_gives_every_paper_title_the_snapshot_holds_in_every_format(endpoint, snap):
    expected = {p["iri"]: p["title"] for p in snap["papers"].values()}
    titles = with_papers(TITLES, snap)
    rows = client(endpoint, titles).queryAndConvert()
    assert rows["head"]["vars"] == ["paper", "title"]
    got = {b["paper"]["value"]: b["title"]["value"] for b in rows["results"]["bindings"]}
    assert got == expected
    assert {b["paper"]["type"] for b in rows["results"]["bindings"]} == {"uri"}
    posted = client(endpoint, titles, method=POST).queryAndConvert()
    assert posted == rows
    xml = client(endpoint, titles, XML).queryAndConvert()  # a DOM document
    uris = [n.firstChild.data for n in xml.getElementsByTagName("uri")]
    assert sorted(uris) == sorted(expected)
    table = list(csv.reader(io.StringIO(client(endpoint, titles, CSV).queryAndConvert().decode())))
    assert table[0] == ["paper", "title"] and {r[0]: r[1] for r in table[1:]} == expected
    tsv = client(endpoint, titles, TSV).queryAndConvert().decode().splitlines()
    assert tsv[0] == "?paper\t?title" and len(tsv) == len(expected) + 1
    assert f"<{PAPER}>\t\"{expected[PAPER]}\"" in tsv


def test_ask_answers_true_and_false(endpoint):
    yes = client(endpoint, PREFIXES + f"ASK {{ <{PAPER}> a rkg:Paper }}").queryAndConvert()
    no = client(endpoint, PREFIXES + "ASK { <https://w3id.org/recipekg/paper/nobody1999> ?p ?o }").queryAndConvert()
    assert (yes["boolean"], no["boolean"]) == (True, False)
    xml = client(endpoint, PREFIXES + f"ASK {{ <{PAPER}> a rkg:Paper }}", XML).queryAndConvert()
    assert xml.getElementsByTagName("boolean")[0].firstChild.data == "true"


def test_construct_and_describe_give_graphs_in_turtle_and_ntriples(endpoint, snap):
    construct = with_papers(PREFIXES + f"CONSTRUCT {{ ?paper rdfs:label ?t }} WHERE {{ ?paper rdfs:label ?t {IN_PAPERS} }}",
                            snap)
    graph = Graph().parse(data=client(endpoint, construct, TURTLE).queryAndConvert(), format="turtle")
    assert len(graph) == len(snap["papers"])
    status, headers, body = request(f"{endpoint}?query={quote(construct)}", headers={"Accept": "application/n-triples"})
    assert status == 200 and headers["Content-Type"].startswith("application/n-triples")
    assert set(Graph().parse(data=body, format="nt")) == set(graph)
    described = Graph().parse(data=client(endpoint, f"DESCRIBE <{PAPER}>", TURTLE).queryAndConvert(), format="turtle")
    titles = list(described.objects(URIRef(PAPER), URIRef("http://www.w3.org/2000/01/rdf-schema#label")))
    assert [str(t) for t in titles] == [snap["papers"]["hoffmann2022"]["title"]]


def test_a_query_in_the_body_and_an_unmet_accept(endpoint, snap):
    status, headers, body = request(endpoint, data=(PREFIXES + "SELECT (COUNT(*) AS ?n) { ?p a rkg:Paper }").encode(),
                                    headers={"Content-Type": "application/sparql-query"})
    assert status == 200 and headers["Content-Type"] == "application/sparql-results+json"
    count = int(json.loads(body)["results"]["bindings"][0]["n"]["value"])
    assert count == len(snap["papers"]) - 1  # all but the reference, a rkg:Reference
    status, _, body = request(f"{endpoint}?query={quote('SELECT * { ?s ?p ?o }')}", headers={"Accept": "text/turtle"})
    assert status == 406 and b"application/sparql-results+json" in body


def test_updates_are_refused_and_change_nothing(endpoint):
    insert = PREFIXES + f"INSERT DATA {{ <{PAPER}> dcterms:title \"changed\" }}"
    with pytest.raises(QueryBadFormed):  # SPARQLWrapper sends it as update=... : 400
        client(endpoint, insert, method=POST).query()
    for data, media_type in ((urlencode({"update": insert}).encode(), "application/x-www-form-urlencoded"),
                             (insert.encode(), "application/sparql-update"),
                             (urlencode({"query": insert}).encode(), "application/x-www-form-urlencoded")):
        status, _, body = request(endpoint, data=data, headers={"Content-Type": media_type})
        assert status == 400 and b"read-only" in body, media_type
    ask = client(endpoint, PREFIXES + f"ASK {{ <{PAPER}> dcterms:title \"changed\" }}").queryAndConvert()
    assert ask["boolean"] is False


def test_a_federated_query_is_refused_before_any_request_leaves(endpoint):
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(3)
    contacted = []
    threading.Thread(target=lambda: contacted.append(_accept(listener)), daemon=True).start()
    port = listener.getsockname()[1]
    for keyword in ("SERVICE", "service silent"):
        query = f"SELECT * WHERE {{ ?s ?p ?o . {keyword} <http://127.0.0.1:{port}/sparql> {{ ?a ?b ?c }} }}"
        status, _, body = request(f"{endpoint}?query={quote(query)}")
        assert status == 400 and b"SERVICE" in body
    time.sleep(0.5)
    listener.close()
    assert contacted in ([], [False])


def _accept(listener) -> bool:
    try:
        listener.accept()
        return True
    except OSError:
        return False


def test_a_malformed_query_is_400_with_the_parser_message(endpoint):
    status, _, body = request(f"{endpoint}?query={quote('SELECT ?x WHERE { ?x ')}")
    assert status == 400 and body.startswith(b"malformed query: ")


def test_a_result_over_the_cap_is_cut_and_says_so(endpoint, kb):
    query = "SELECT * WHERE { ?s ?p ?o }"
    rows = client(endpoint, query).queryAndConvert()
    assert len(rows["results"]["bindings"]) == SPARQL_MAX_RESULTS
    assert rows["recipekg"]["truncated"] is True and str(SPARQL_MAX_RESULTS) in rows["recipekg"]["message"]
    _, headers, body = request(f"{endpoint}?query={quote(query)}", headers={"Accept": "text/csv"})
    assert str(SPARQL_MAX_RESULTS) in headers["X-RecipeKG-Truncated"]
    assert len(body.decode().splitlines()) == SPARQL_MAX_RESULTS + 1
    _, headers, body = request(f"{endpoint}?query={quote('CONSTRUCT WHERE { ?s ?p ?o }')}")
    assert "X-RecipeKG-Truncated" in headers and body.rstrip().endswith(b"per query")
    assert len(Graph().parse(data=body, format="turtle")) == SPARQL_MAX_RESULTS
    small = client(endpoint, PREFIXES + "SELECT ?p WHERE { ?p a rkg:Paper }").queryAndConvert()
    assert "recipekg" not in small


def test_a_query_over_the_time_limit_is_stopped_and_says_so(endpoint):
    endless = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
    client(endpoint, "ASK {}").query()  # a worker is up: its start does not count
    started = time.monotonic()
    with pytest.raises(urllib.error.HTTPError) as caught:
        client(endpoint, endless).query()
    assert TIMEOUT <= time.monotonic() - started < TIMEOUT + 30
    assert caught.value.code == 503 and caught.value.headers["X-RecipeKG-Timeout"] == str(TIMEOUT)
    assert b"time limit" in caught.value.read()
    assert client(endpoint, PREFIXES + f"ASK {{ <{PAPER}> a rkg:Paper }}").queryAndConvert()["boolean"] is True


@pytest.mark.parametrize("query", ["SELECT * WHERE " + "{" * 3000 + " ?s ?p ?o " + "}" * 3000,
                                   "SELECT * WHERE { FILTER(" + "(" * 3000 + "1" + ")" * 3000 + ") }",
                                   "SELECT * WHERE { ?s ?p " + "[ ?p " * 3000 + "?o" + " ]" * 3000 + " }"])
def test_a_query_nested_thousands_deep_is_a_400_and_the_endpoint_lives(endpoint, query):
    """pyoxigraph's parser recurses per level and overflows its stack (a segmentation fault
    of the worker, a 500 before): the nesting is refused before a worker parses it."""
    status, _, body = request(endpoint, data=urlencode({"query": query}).encode(),
                              headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 400 and b"100 levels" in body
    ask = client(endpoint, "ASK { ?s ?p ?o }").queryAndConvert()
    assert ask["boolean"] is True
