"""Reading Turtle files into plain triples, with positions for messages.

pyoxigraph parses Turtle about 15x faster than rdflib and reports where a file is broken::

    >>> from recipekg.knowledge.resources import data_root
    >>> triples = read_turtle(data_root() / "kb" / "papers.ttl")
    >>> triples[0]
    Triple(s='https://w3id.org/recipekg/paper/kaplan2020', p='http://www.w3.org/1999/02/22-rdf-syntax-ns#type', o='https://w3id.org/recipekg/ns#Paper')

An object is an IRI (``str``), a blank node (``str`` starting ``_:``) or a :class:`Lit`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from recipekg.errors import KBError


class Lit(NamedTuple):
    """A literal: its lexical form, datatype IRI and language tag (or None)."""

    lexical: str
    datatype: str
    lang: str | None = None


class Triple(NamedTuple):
    s: str
    p: str
    o: "str | Lit"


def read_turtle(path: Path) -> list[Triple]:
    """All triples of one Turtle file; a broken file raises :class:`KBError` at its position
    (bytes that are not UTF-8, a quoted triple, a syntax error); a byte-order mark is fine."""
    return list(iter_turtle(path))


def iter_turtle(path: Path):
    """:func:`read_turtle` one triple at a time, as the parser reads them (the export
    streams them); the same errors, raised when reached."""
    import pyoxigraph as ox

    data = b""
    try:
        data = _utf8(path, read_regular(path))
        for t in ox.parse(input=data, format=ox.RdfFormat.TURTLE, base_iri=path.resolve().as_uri()):
            yield Triple(_term(t.subject, path, data), t.predicate.value, _term(t.object, path, data))
    except MemoryError:  # pyoxigraph's limit on one token (a literal, an IRI): 16 MiB
        line = _long_token_line(data)
        raise KBError(f"a literal or IRI longer than {TOKEN_LIMIT >> 20} MiB (the Turtle parser's limit)",
                      file=str(path), line=line, column=1, source_line=_line(data, line)[:200],
                      suggestions=["split the text into several statements, or keep it outside the KB"]) from None
    except SyntaxError as exc:
        message = re.sub(r"^Parser error (between|at) line \d+ column \d+( and line \d+ column \d+)?: ",
                         "", exc.msg or str(exc))
        raise KBError(f"not valid Turtle: {message}", file=str(path), line=exc.lineno or 1,
                      column=exc.offset or 1, source_line=_line(data, exc.lineno),
                      suggestions=["check the statement ends with '.', strings are closed and "
                                   "every prefix is declared"]) from None
    except (ValueError, OSError) as exc:
        raise KBError(f"cannot read: {exc}", file=str(path), line=1, column=1) from None


_BOM = b"\xef\xbb\xbf"
#: The longest token (literal, IRI) pyoxigraph's Turtle parser reads.
TOKEN_LIMIT = 16 << 20


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file (opened without blocking, so a FIFO or a
    device is said to be one, never read), at most ``limit`` bytes; else :class:`OSError`."""
    import os
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"not a regular file but {file_kind(info.st_mode)}")
        if limit is not None and info.st_size > limit:
            raise OSError(f"{info.st_size >> 20} MiB, more than {limit >> 20} MiB")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def file_kind(mode: int) -> str:
    import stat

    return ("a directory" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode)
            else "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a file")


def _long_token_line(data: bytes) -> int:
    """The line where a token longer than :data:`TOKEN_LIMIT` starts: the first line that long,
    else the one opening the longest stretch without a line break (a long multi-line string)."""
    start, best, best_line, number = 0, -1, 1, 1
    while start <= len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if end - start > best:
            best, best_line = end - start, number
        if end - start > TOKEN_LIMIT:
            return number
        start, number = end + 1, number + 1
    return best_line


def _utf8(path: Path, data: bytes) -> bytes:
    """The file's bytes without a leading byte-order mark; KBError at the first byte that is
    not UTF-8 (Turtle is UTF-8)."""
    data = data[len(_BOM):] if data.startswith(_BOM) else data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise KBError(f"not UTF-8: byte 0x{data[exc.start]:02x} (Turtle files are UTF-8)", file=str(path),
                      line=line, column=column, source_line=_line(data, line),
                      suggestions=["save the file as UTF-8"]) from None
    return data


def _term(term, path: Path, data: bytes) -> "str | Lit":
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    if isinstance(term, ox.Literal):
        return Lit(term.value, term.datatype.value, term.language)
    # a quoted triple, or an annotation ({| ... |}) that makes one (hostile round 8, 001: placed at line 1)
    line = next((n for n, text in enumerate(data.decode("utf-8").splitlines(), 1)
                 if "<<" in text.split("#", 1)[0] or "{|" in text.split("#", 1)[0]), 1)
    raise KBError("a quoted triple (RDF-star '<< ... >>' or an annotation '{| ... |}'): the KB is plain Turtle 1.1",
                  file=str(path),
                  line=line, column=1, source_line=_line(data, line),
                  suggestions=["state the triple itself, or describe it with a node of its own"])


def quiet_rdflib() -> None:
    """rdflib logs a traceback for an ill-typed literal it then keeps as a string; the KB
    checks literals itself (recipekg.knowledge.validate), so that log is noise on stderr."""
    import logging

    logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)


def _line(data: bytes, lineno: int | None) -> str:
    lines = data.decode("utf-8", "replace").splitlines()
    return lines[lineno - 1] if lineno and 0 < lineno <= len(lines) else ""


_PREFIX = re.compile(r"^\s*@?prefix\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>", re.I)
_BASE_LINE = re.compile(r"^\s*@?base\s+<([^>]*)>", re.I)
_SUBJECT = re.compile(r"^([A-Za-z][\w.-]*)?:((?:[\w.-]|%[0-9A-Fa-f]{2})*)\s|^<([^>]+)>\s")


def file_lines(path) -> list[str]:
    """The lines of a Turtle file (bad bytes replaced: read_turtle reports them), read once for
    as many look-ups as the file's messages make: thousands of violations in one file re-read it
    for each before (hostile round 8, 053: 117 s for 6,000). Callers do not change the list."""
    p = Path(path)
    st = p.stat()
    return _lines(str(p.resolve()), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _lines(path: str, mtime: int, size: int) -> list[str]:
    return Path(path).read_bytes().decode("utf-8-sig", "replace").splitlines()


def subject_lines(path: Path) -> dict[str, int]:
    """Where each subject starts in a Turtle file written one subject block at a time.

    Maps an IRI to the 1-based line where it first appears at the start of a line, which is
    how every file in this project is laid out; messages use it as ``file:line``. Read once per
    file (:func:`file_lines`); callers do not change the map.
    """
    p = Path(path)
    st = p.stat()
    return _subject_lines(str(p.resolve()), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _subject_lines(path: str, mtime: int, size: int) -> dict[str, int]:
    from urllib.parse import urljoin

    prefixes: dict[str, str] = {}
    found: dict[str, int] = {}
    base = Path(path).as_uri()
    for number, line in enumerate(_lines(path, mtime, size), 1):
        if m := _PREFIX.match(line):
            prefixes[m.group(1) or ""] = urljoin(base, m.group(2))
        elif m := _BASE_LINE.match(line):
            base = urljoin(base, m.group(1))
        elif m := _SUBJECT.match(line):
            iri = urljoin(base, m.group(3)) if m.group(3) else prefixes.get(m.group(1) or "", "\0") + m.group(2)
            found.setdefault(iri, number)
    return found


def locate_in(path, iris) -> dict[str, int]:
    """Line of each of ``iris`` in one Turtle file: where it starts a subject block
    (:func:`subject_lines`), else the first line naming it at all (a subject written after
    another on one line, or indented), else absent."""
    path = Path(path)
    found = {i: n for i, n in subject_lines(path).items() if i in iris}
    missing = set(iris) - set(found)
    if missing:
        for iri, number in _mentions(path, missing).items():
            found.setdefault(iri, number)
    return found


def _mentions(path: Path, iris: set[str]) -> dict[str, int]:
    """The first line mentioning each IRI, written in full or with a prefix of the file."""
    prefixes: dict[str, str] = {}
    found: dict[str, int] = {}
    for number, line in enumerate(file_lines(path), 1):
        if m := _PREFIX.match(line):
            prefixes[m.group(1) or ""] = m.group(2)
            continue
        for m in _NAME.finditer(line):
            iri = m.group(3) if m.group(3) else prefixes.get(m.group(1) or "", "\0") + m.group(2)
            if iri in iris:
                found.setdefault(iri, number)
        if len(found) == len(iris):
            break
    return found


_NAME = re.compile(r"(?<![\w.:-])([A-Za-z][\w.-]*)?:((?:[\w-]|%[0-9A-Fa-f]{2}|\.(?=[\w-]))*)|<([^>\s]+)>")


def read_all(paths: list[Path]) -> list[Triple]:
    """Every triple of every file (bundled files, then extensions); the first broken file
    raises KBError."""
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
