"""The merged graph as triples: bundled files plus a user's extensions.

    >>> triples, lines = read_all(bundled_files())                 # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from .rdfio import Triple, read_turtle, subject_lines


def read_all(paths: list[Path]) -> list[Triple]:
    """Every triple of every file; the first broken file raises KBError."""
    triples: list[Triple] = []
    for path in paths:
        triples.extend(read_turtle(path))
    return triples


def locate(paths: list[Path]) -> dict[str, tuple[str, int]]:
    """Subject IRI → (file, line) of its first block, for ``file:line`` messages."""
    where: dict[str, tuple[str, int]] = {}
    for path in paths:
        for iri, line in subject_lines(path).items():
            where.setdefault(iri, (str(path), line))
    return where
