"""Export the merged graph for any triple store, streaming.

The export adds what portable SPARQL needs and the reasoner computes itself: the transitive
closure of ``skos:broader`` as ``rkg:broaderTransitive`` and each node's kinds, so queries
need no property paths.

    >>> from recipekg.knowledge.resources import bundled_files
    >>> b"broaderTransitive" in export(bundled_files(), "ntriples")
    True

The export writes as it reads (:func:`write_export`): each file's triples are parsed one at a
time (pyoxigraph's parser is an iterator), written at once, and forgotten; the closure comes
from the compiled snapshot's nodes (read a shard at a time), not from compiling the graph
again. What it keeps is 16 bytes per distinct triple, to write each once as a graph holds it.
Each triple is written as rdflib writes it (its terms are rdflib's, so literals are normalised
as before): N-Triples the lines rdflib's serializer writes for the same graph, in the
files' order (rdflib's follows the process's string hashes; tests/knowledge/test_export.py); Turtle as the prefixes and the triples one statement per
subject run, with full IRIs; JSON-LD as expanded JSON-LD, one node object per subject run.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from recipekg.knowledge.terms import PREFIXES, RKG



def write_export(paths: list[Path], fmt: str, out, nodes=None) -> int:
    """Write the export of ``paths`` in ``fmt`` to the binary stream ``out`` as it reads;
    ``nodes``: the compiled nodes (IRI → node with ``ancestors``; compiled from ``paths``
    when not given). Returns the number of triples written."""
    from hashlib import blake2b

    from rdflib.plugins.serializers.nt import _nt_row

    from recipekg.knowledge.rdfio import quiet_rdflib

    quiet_rdflib()
    from recipekg.render.formats import writer as format_writer

    writer = format_writer("graph", fmt)(out)  # the registry's streaming writer of fmt
    seen: set[bytes] = set()
    for triple in _triples(paths, nodes):
        row = _nt_row(triple)
        digest = blake2b(row.encode("utf-8"), digest_size=16).digest()
        if digest not in seen:
            seen.add(digest)
            writer.write(triple, row)
    writer.close()
    return len(seen)


def _triples(paths: list[Path], nodes):
    """rdflib triples of every file, then the taxonomy closure."""
    from rdflib import BNode, Literal, URIRef

    from recipekg.knowledge.rdfio import Lit, iter_turtle

    def term(x):
        if isinstance(x, Lit):
            return Literal(x.lexical, lang=x.lang) if x.lang else Literal(x.lexical, datatype=URIRef(x.datatype))
        return BNode(x[2:]) if x.startswith("_:") else URIRef(x)

    for path in paths:
        for s, p, o in iter_turtle(path):
            yield term(s), URIRef(p), term(o)
    if nodes is None:
        from recipekg.knowledge.compiler import compile_graph
        from recipekg.knowledge.rdfio import read_all

        nodes = compile_graph(read_all(paths))["nodes"]
    closure = URIRef(RKG.broaderTransitive)
    for iri, node in (nodes.passing_items() if hasattr(nodes, "passing_items") else nodes.items()):
        for ancestor in node["ancestors"]:
            yield URIRef(iri), closure, URIRef(ancestor)


class NTriplesWriter:
    def __init__(self, out) -> None:
        self.out = out

    def write(self, triple, row: str) -> None:
        self.out.write(row.encode("utf-8"))

    def close(self) -> None:
        pass


class TurtleWriter(NTriplesWriter):
    """The prefixes, then a statement per run of triples about one subject (``;`` between
    its predicates): valid Turtle, written as it comes."""

    def __init__(self, out) -> None:
        super().__init__(out)
        self.subject = None
        out.write("".join(f"@prefix {p}: <{base}> .\n" for p, base in PREFIXES.items()).encode("utf-8") + b"\n")

    def write(self, triple, row: str) -> None:
        subject, rest = row[:-3].split(" ", 1)
        if subject == self.subject:
            self.out.write(f" ;\n    {rest}".encode("utf-8"))
            return
        self.out.write(f"{' .' + chr(10) if self.subject else ''}{subject} {rest}".encode("utf-8"))
        self.subject = subject

    def close(self) -> None:
        if self.subject:
            self.out.write(b" .\n")


class JsonLdWriter(NTriplesWriter):
    """Expanded JSON-LD: an array of node objects, one per run of triples about one subject."""

    def __init__(self, out) -> None:
        super().__init__(out)
        self.subject, self.node, self.count = None, {}, 0
        out.write(b"[")

    def write(self, triple, row: str) -> None:
        from rdflib import BNode, Literal

        s, p, o = triple
        if s != self.subject:
            self._flush()
            self.subject, self.node = s, {"@id": ("_:" + s) if isinstance(s, BNode) else str(s)}
        if isinstance(o, Literal):
            value = {"@value": str(o)}
            if o.language:
                value["@language"] = o.language
            elif o.datatype:
                value["@type"] = str(o.datatype)
        else:
            value = {"@id": ("_:" + o) if isinstance(o, BNode) else str(o)}
        self.node.setdefault(str(p), []).append(value)

    def _flush(self) -> None:
        import json

        if self.subject is not None:
            self.out.write((",\n" if self.count else "\n").encode("utf-8") +
                           json.dumps(self.node, ensure_ascii=False).encode("utf-8"))
            self.count += 1

    def close(self) -> None:
        self._flush()
        self.out.write(b"\n]\n")


def export(paths: list[Path], fmt: str = "turtle", nodes=None) -> bytes:
    """:func:`write_export` into bytes."""
    from io import BytesIO

    buffer = BytesIO()
    write_export(paths, fmt, buffer, nodes)
    return buffer.getvalue()


def export_file(paths: list[Path], fmt: str, path: Path, nodes=None) -> int:
    """:func:`write_export` to the file ``path``, as :func:`write_atomic` writes (a temporary
    file beside it, then a rename; on any error the temporary file is removed and ``path`` is
    left as it was); the number of triples written."""
    return _atomically(Path(path), lambda f: write_export(paths, fmt, f, nodes), buffering=1 << 20)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader never sees half a file. The file gets the
    mode a plain ``open`` would give it (0666 less the umask), or keeps the mode of the file
    it replaces: the temporary file's 0600 would hide an export from the triple store that
    bulk-loads it. A path that cannot be written is :class:`recipekg.errors.UsageError`."""
    _atomically(Path(path), lambda f: f.write(data))


def _atomically(path: Path, write, buffering: int = -1):
    """``write(f)`` into a temporary file beside ``path`` with the mode ``path`` should have,
    then renamed to ``path``; its result. Any failure removes the temporary file."""
    from recipekg.errors import UsageError

    tmp = None
    try:
        mode = _mode_for(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb", buffering=buffering) as f:
            os.fchmod(f.fileno(), mode)
            result = write(f)
        os.replace(tmp, path)
        tmp = None
        return result
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}", file=str(path)) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _mode_for(path: Path) -> int:
    """The mode a plain ``open`` would give a new ``path`` (0666 less the umask), or that of
    the file it replaces."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask (set and restored: there is no call that only reads it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
