"""The merged graph in a SPARQL store: ``recipekg export`` as N-Triples, built once per
process (and cached on disk next to the snapshot, keyed by the same hash of the input
files), loaded into rdflib or pyoxigraph for the embedded engines::

    >>> store = oxigraph_store(kb.files)
    >>> len(store) > 1000
    True
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from recipekg.knowledge.export import export, write_atomic
from recipekg.knowledge.snapshot import cache_dir, input_key

_EXPORTS: dict[str, bytes] = {}
_GRAPHS: dict = {}
_STORES: dict = {}


def export_key(files: list[Path]) -> str:
    """Hash of the input files (as the snapshot's key) and of the code that shapes the export."""
    from recipekg.knowledge import compiler
    from recipekg.knowledge import export as exporter

    h = hashlib.sha256(input_key([Path(f) for f in files]).encode())
    for module in (exporter, compiler):
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
    target = cache_dir() / f"export-{key[:32]}.nt"
    data = _read_cached_export(target, key) if use_cache else None
    if data is None:
        data = export([Path(f) for f in files], "ntriples")
        if use_cache:
            header = f"# recipekg export {key} sha256={hashlib.sha256(data).hexdigest()}\n".encode()
            try:
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
