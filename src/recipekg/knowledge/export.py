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
    """Write ``data`` to ``path`` so that a reader never sees half a file. The file gets the
    mode a plain ``open`` would give it (0666 less the umask), or keeps the mode of the file
    it replaces: the temporary file's 0600 would hide an export from the triple store that
    bulk-loads it. A path that cannot be written is :class:`recipekg.errors.UsageError`."""
    from recipekg.errors import UsageError

    tmp = None
    try:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}", file=str(path)) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _umask() -> int:
    """The process's umask (set and restored: there is no call that only reads it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
