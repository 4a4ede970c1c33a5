"""Export the merged graph for any triple store.

The export adds what portable SPARQL needs and the reasoner computes itself: the transitive
closure of ``skos:broader`` as ``rkg:broaderTransitive`` and each node's kinds, so queries
need no property paths.

    >>> from recipekg.knowledge.resources import bundled_files
    >>> b"broaderTransitive" in export(bundled_files(), "ntriples")
    True
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from recipekg.knowledge.rdfio import read_all
from recipekg.knowledge.rdfio import Lit, quiet_rdflib
from recipekg.knowledge.terms import PREFIXES, RKG



def graph(paths: list[Path]):
    """An rdflib Graph of the merged files plus the materialised taxonomy closure."""
    from rdflib import Graph, Literal, URIRef

    from recipekg.knowledge.compiler import compile_graph

    triples = read_all(paths)
    quiet_rdflib()
    g = Graph()
    for prefix, base in PREFIXES.items():
        g.bind(prefix, base)
    for s, p, o in triples:
        obj = (Literal(o.lexical, lang=o.lang) if o.lang else Literal(o.lexical, datatype=URIRef(o.datatype))
               ) if isinstance(o, Lit) else URIRef(o)
        g.add((URIRef(s), URIRef(p), obj))
    closure = URIRef(RKG.broaderTransitive)
    for iri, node in compile_graph(triples)["nodes"].items():
        for ancestor in node["ancestors"]:
            g.add((URIRef(iri), closure, URIRef(ancestor)))
    return g


def export(paths: list[Path], fmt: str = "turtle") -> bytes:
    """The merged graph in the graph format ``fmt`` (:mod:`recipekg.render.formats`: its
    writer is rdflib's serializer of that name)."""
    from recipekg.render.formats import get

    return graph(paths).serialize(format=get("graph", fmt).writer, encoding="utf-8")


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
