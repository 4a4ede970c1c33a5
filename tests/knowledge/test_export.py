"""The streaming export writes the graph the rdflib export wrote: the N-Triples lines rdflib
writes for the same graph, Turtle and JSON-LD the same triples; a file is whole or not
written at all."""

from __future__ import annotations

import pytest

from recipekg.knowledge import export as exporter
from recipekg.knowledge.resources import bundled_files

from support import EXTENSION

#: An extension whose rule text holds quotes, a line break and non-ASCII letters.
# an extension's text holds no control characters (docs/security.md): quotes, a backslash and non-ASCII letters
EXTRA = EXTENSION.format(text='Extension: a \\"quoted\\" rule for tabular data, a \\\\ backslash, ünïcode')


def _reference(paths):
    """The export as it was: an rdflib Graph of every triple and the closure (compiled)."""
    from rdflib import Graph, Literal, URIRef

    from recipekg.knowledge.compiler import compile_graph
    from recipekg.knowledge.rdfio import Lit, read_all
    from recipekg.knowledge.terms import PREFIXES, RKG

    triples = read_all(paths)
    g = Graph()
    for prefix, base in PREFIXES.items():
        g.bind(prefix, base)
    for s, p, o in triples:
        obj = (Literal(o.lexical, lang=o.lang) if o.lang else Literal(o.lexical, datatype=URIRef(o.datatype))
               ) if isinstance(o, Lit) else URIRef(o)
        g.add((URIRef(s), URIRef(p), obj))
    for iri, node in compile_graph(triples)["nodes"].items():
        for ancestor in node["ancestors"]:
            g.add((URIRef(iri), URIRef(RKG.broaderTransitive), URIRef(ancestor)))
    return g


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    extra = tmp_path_factory.mktemp("ext") / "extra.ttl"
    extra.write_text(EXTRA, encoding="utf-8")
    return [*bundled_files(), extra]


@pytest.fixture(scope="module")
def reference(paths):
    return _reference(paths)


def test_ntriples_are_rdflib_s_lines(paths, reference):
    """The lines rdflib writes for the graph (in its own order, which follows the process's
    string hashes), each once; the streaming export's order is the files' (deterministic)."""
    lines = exporter.export(paths, "ntriples").splitlines()
    assert sorted(lines) == sorted(reference.serialize(format="nt", encoding="utf-8").splitlines())
    assert len(set(lines)) == len(lines)


@pytest.mark.parametrize("fmt, parse_as", [("turtle", "turtle"), ("jsonld", "json-ld"), ("ntriples", "nt")])
def test_every_format_holds_the_same_graph(paths, reference, fmt, parse_as):
    from rdflib import Graph

    g = Graph().parse(data=exporter.export(paths, fmt), format=parse_as)
    assert len(g) == len(reference) > 2000
    assert set(g) == set(reference)


def test_the_closure_from_the_snapshot_is_the_compiled_one(paths):
    from recipekg.api import KnowledgeBase

    kb = KnowledgeBase.load([str(paths[-1])])
    assert exporter.export(paths, "ntriples", kb.snap["nodes"]) == exporter.export(paths, "ntriples")


def test_a_failed_export_leaves_no_file(paths, tmp_path, monkeypatch):
    target = tmp_path / "kb.nt"
    target.write_bytes(b"before\n")

    def broken(triple, row):
        raise OSError("disk full")

    monkeypatch.setattr(exporter.NTriplesWriter, "write", lambda self, triple, row: broken(triple, row))
    from recipekg.errors import UsageError

    with pytest.raises(UsageError, match="cannot write .*kb.nt: disk full"):  # a clear error (exit 2), no traceback
        exporter.export_file(paths, "ntriples", target)
    assert target.read_bytes() == b"before\n"
    assert [p.name for p in tmp_path.iterdir()] == ["kb.nt"]  # no temporary file left


def test_an_export_file_is_written_whole(paths, tmp_path):
    target = tmp_path / "kb.ttl"
    count = exporter.export_file(paths, "turtle", target)
    from rdflib import Graph

    assert len(Graph().parse(target, format="turtle")) == count
