"""The compiled snapshot, cached in the user's cache directory.

The RDF files stay the source of truth. What the query path needs is compiled once (the
caller's ``build``, normally :func:`recipekg.knowledge.loader.compile_files`) and cached as
one file per set of input files::

    {"magic": "recipekg-snapshot", "format": 12, "codec": "marshal-shards", "key": "<sha256>",
     "stamp_ns": t, "inputs": [[path, size, mtime_ns, ctime_ns, inode], ...], "code": [path, ...], "length": n,
     "core": c, "crc32": x}
    <core: marshal of (paths, data): builtin types (dict, list, str, int, float, bool,
     None, and tuples that mark the large containers) and where those tuples are>
    <shards: the large containers' entries, a marshal blob of at most 32 entries each>

The header and core are read; the shards are read from the open file when first needed
(``pread``, never a memory map, so a file truncated under a running process is damage, not
SIGBUS): a query decodes the core (the small parts and one table per large container) and
then only the shards holding the entries it reads (:mod:`recipekg.knowledge.shards`), so its
cost does not grow with the KB.

``key`` is the SHA-256 of the package version, the snapshot format and every input file's
name and bytes (:func:`input_key`): the content is the key. The inputs are the Turtle files
and the code that compiled them (:func:`code_files`: every recipekg module loaded when the
snapshot was built), so a changed compiler rebuilds the snapshot even without a format bump. Reading the bytes of every
input file on every call would cost more than the rest of a query, so the header also keeps
each input's ``os.stat`` fingerprint; when every fingerprint is unchanged the content cannot
have changed and the key is trusted without hashing. When any differs the files are hashed
and compared with ``key``: equal (a ``touch``) refreshes the fingerprints, different rebuilds.
A fingerprint taken within :data:`RACY_NS` of the file's own modification time is not
trusted (a second edit in the same clock tick would keep size and times), as git does.

A truncated, corrupt, foreign or stale file fails the checks (magic, format, length, a
CRC-32 over the header's fields (marshal's version 2 of them) and the core, the core's own
format field, the fingerprints or the key) and is rebuilt, never trusted. Each shard has its own CRC-32 in the core's
tables, checked when the shard is first read: a damaged shard makes the snapshot rebuild
itself from the Turtle files (and the cache file be rewritten), and the answer comes from
the rebuilt data. The CRCs detect damage, not forgery: whoever can write the user's cache
folder can write a file that passes. The data is plain: loading it executes nothing
(marshal of builtin types, no pickle, and each part is checked before it is decoded). Writes
go to a temporary file in the same folder that is renamed over the target, so two processes
at once each read a whole old file or a whole new one (an open file keeps the old one).

    >>> from recipekg.knowledge.loader import compile_files
    >>> from recipekg.knowledge.resources import bundled_paths
    >>> load_snapshot(bundled_paths(), build=compile_files)["format"] == SNAPSHOT_FORMAT
    True
"""

from __future__ import annotations

import marshal
import os
import sys
import time
from itertools import chain

from recipekg.version import __version__

#: The shape of the compiled data (knowledge/compiler.py); a change rebuilds every cached snapshot.
SNAPSHOT_FORMAT = 23
MAGIC = "recipekg-snapshot"
CODEC = "marshal-shards"
#: A file modified this close to (or after) the moment its fingerprint was taken is hashed.
RACY_NS = 2_000_000_000
_NAME = "snapshot-"


def cache_dir():
    """``$RECIPEKG_CACHE_DIR``, else ``$XDG_CACHE_HOME/recipekg``, else ``~/.cache/recipekg``."""
    from pathlib import Path

    return Path(_cache_dir())


def _cache_dir() -> str:
    if env := os.environ.get("RECIPEKG_CACHE_DIR"):
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "recipekg")


def input_key(paths) -> str:
    """Hash of the snapshot format, package version and every input file's name and bytes."""
    import hashlib

    h = hashlib.sha256(f"recipekg {__version__} format {SNAPSHOT_FORMAT}\n".encode())
    for path in paths:
        path = os.fspath(path)
        with open(path, "rb") as f:
            data = f.read()
        h.update(f"{os.path.basename(path)} {len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def snapshot_path(paths, variant: str = "") -> str:
    """The cache file of this list of input files (one file per list, whatever the content)."""
    from binascii import crc32

    names = "\n".join([__version__, str(SNAPSHOT_FORMAT), sys.implementation.cache_tag or "", variant,
                       *(os.path.abspath(os.fspath(p)) for p in paths)])
    data = names.encode("utf-8", "surrogateescape")
    return os.path.join(_cache_dir(), f"{_NAME}{crc32(data):08x}{crc32(data[::-1]):08x}.bin")


def load_snapshot(paths, *, build, use_cache: bool = True, variant: str = "") -> dict:
    """The snapshot of ``paths``: from the cache when valid, else built and cached.

    ``build(paths) -> dict`` makes a snapshot (parse and compile, and for extensions
    validate first, so the verdict is part of what is cached). ``variant`` names a different
    way of building the same files (validation without SHACL), cached apart.
    """
    paths = [os.fspath(p) for p in paths]
    if not use_cache:
        return _built(build, paths)
    target = snapshot_path(paths, variant)
    stamp = time.time_ns()
    cached = _read(target)
    watched = paths + (_code_of(cached[0], paths) if cached is not None else [])
    inputs = _fingerprints(watched)
    key = None

    def rebuild() -> dict:  # a damaged shard, found while answering: build afresh, once
        return _build_and_cache(build, paths, target, variant, stamp)

    if cached is not None and cached[0].get("variant", "") == variant:  # else a clash of names
        header, core, shards = cached
        if inputs is not None and header.get("inputs") == inputs and _trusted(header):
            snap = _decode(core, shards, rebuild)
            if snap is not None:
                return snap
        try:
            key = input_key(watched)
        except OSError:  # a module that built it is gone (moved, or removed by an upgrade): rebuild
            key = None
        if key is not None and header.get("key") == key and (snap := _decode(core, shards, rebuild)) is not None:
            fresh = {"stamp_ns": stamp, "inputs": inputs}
            if inputs is not None and _trusted(fresh):  # same content, new fingerprints (touch)
                _write(target, dict(header, **fresh), bytes(core), bytes(shards))
            return snap
    return _build_and_cache(build, paths, target, variant, stamp)


def _code_of(header: dict, paths: list[str]) -> list[str]:
    """The code files a cached snapshot was built by (its header's ``code``), or none when its
    inputs are not ``paths`` and those files (a snapshot of other files: rebuilt)."""
    code, entries = header.get("code"), header.get("inputs") or []
    if (not isinstance(code, list) or len(entries) != len(paths) + len(code)
            or [e[0] for e in entries] != paths + code):
        return []
    return code


def code_files() -> list[str]:
    """The source files of every recipekg module loaded: after a build, the compiler's code
    (and whatever else ran), so that a changed compiler can never serve a stale snapshot
    without a format bump. Their fingerprints and bytes are part of the cache key."""
    found = set()
    for name, module in list(sys.modules.items()):
        if name == "recipekg" or name.startswith("recipekg."):
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and file.endswith(".py"):
                found.add(os.path.abspath(file))
    return sorted(found)


def _build_and_cache(build, paths: list[str], target: str, variant: str, stamp: int) -> dict:
    from recipekg.knowledge.shards import split

    inputs = _fingerprints(paths)
    snap = _built(build, paths)
    if inputs is not None and _fingerprints(paths) == inputs:  # unchanged while building
        code = code_files()
        inputs = _fingerprints(paths + code)
        if inputs is not None:
            core, shards = split(snap)
            _write(target, {"magic": MAGIC, "format": SNAPSHOT_FORMAT, "codec": CODEC, "variant": variant,
                            "key": input_key(paths + code), "stamp_ns": stamp, "inputs": inputs, "code": code},
                   marshal.dumps(core), shards)
    return snap


def _built(build, paths: list[str]) -> dict:
    from pathlib import Path

    snap = build([Path(p) for p in paths])
    snap["format"] = SNAPSHOT_FORMAT
    return snap


def _fingerprints(paths: list[str]) -> list | None:
    try:
        return [[p, s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino] for p, s in zip(paths, map(os.stat, paths))]
    except OSError:
        return None


def _trusted(header: dict) -> bool:
    """Fingerprints taken long enough after every file's last change to tell any later one."""
    stamp = header.get("stamp_ns")
    if not isinstance(stamp, int):
        return False
    limit = stamp - RACY_NS
    columns = list(zip(*header["inputs"]))
    return not columns or max(chain(columns[2], columns[3])) < limit  # the latest change, found in C


#: The longest header read; a real one is a few kilobytes (one fingerprint per input).
HEADER_LIMIT = 1 << 20
#: How a cache file starts (then the header's length in 4 bytes, the header, the payload).
FILE_PREFIX = b"recipekg-snapshot\n"
#: A cache file larger than this is not read but rebuilt (a 1M-triple KB compiles to far less).
MAX_SNAPSHOT_BYTES = 1 << 30


def _read(target: str):
    """``(header, core, shards)`` of a cache file whose header and core are whole and its own
    (each shard carries its own CRC, checked when it is read), or None. Only a regular file
    is opened (no symlink, FIFO or device: opened without following links and without
    blocking), and a header nested too deep to parse is damage like any other. The header
    and core are read; the shards stay in the file, read with ``pread`` when first needed
    (:class:`FileBytes`), never mapped: a file truncated under a running process gives a short
    read, which is damage (rebuilt), where a memory map would kill the process with SIGBUS."""
    try:
        data = _open_regular_file(target)
        if data is None:
            return None
        header, end = read_header(data)
        if (isinstance(header, dict) and header.get("magic") == MAGIC
                and header.get("format") == SNAPSHOT_FORMAT and header.get("codec") == CODEC
                and header.get("length") == len(data) - end and isinstance(header.get("core"), int)
                and 0 < header["core"] <= header["length"] and isinstance(header.get("key"), str)
                and _fingerprint_list(header.get("inputs")) and isinstance(header.get("stamp_ns"), int)):
            core = data[end:end + header["core"]]
            if len(core) == header["core"] and header.pop("crc32", None) == _checksum(header, core):
                return header, core, data.tail(end + header["core"])
    except (OSError, ValueError, EOFError, UnicodeDecodeError, TypeError, RecursionError):
        pass
    return None


def _open_regular_file(target: str):
    """The bytes of ``target`` (:class:`FileBytes`) if it is a non-empty regular file (not
    through a symlink) of at most MAX_SNAPSHOT_BYTES, else None."""
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(target, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not 0 < info.st_size <= MAX_SNAPSHOT_BYTES:
            os.close(fd)
            return None
        return FileBytes(fd, info.st_size)
    except BaseException:
        os.close(fd)
        raise


class FileBytes:
    """An open file read as bytes: ``len()`` is its size when opened, a slice is a ``pread``
    (short, never an error, if the file has since been truncated or cannot be read), so only
    what is sliced is read. The file descriptor closes with the last reference.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     _ = f.write(b"0123456789"); f.flush()
    ...     data = FileBytes(os.open(f.name, os.O_RDONLY), 10)
    ...     _ = os.truncate(f.name, 4)
    ...     data[2:8], data.tail(3)[0:2], len(data)
    (b'23', b'3', 10)
    """

    def __init__(self, fd: int, size: int, base: int = 0, owner=None) -> None:
        self.fd, self.size, self.base = fd, size, base
        self._owner = owner  # the object that closes fd (a tail keeps it alive)

    def __len__(self) -> int:
        return max(0, self.size - self.base)

    def __getitem__(self, index) -> bytes:
        if not isinstance(index, slice):
            raise TypeError("FileBytes is read by slices")
        start, stop, _ = index.indices(len(self))
        if stop <= start:
            return b""
        try:
            return os.pread(self.fd, stop - start, self.base + start)
        except OSError:
            return b""

    def __bytes__(self) -> bytes:
        return self[0:len(self)]

    def tail(self, offset: int) -> "FileBytes":
        """The bytes from ``offset`` on, read from the same file."""
        return FileBytes(self.fd, self.size, self.base + offset, owner=self._owner or self)

    def __del__(self, _close=os.close) -> None:  # (bound now: at interpreter exit the module's os may be gone)
        if self._owner is None:
            try:
                _close(self.fd)
            except OSError:
                pass


def _fingerprint_list(inputs) -> bool:
    """``[[path, size, mtime_ns, ctime_ns, inode], ...]`` as :func:`_fingerprints` writes it
    (tested a column at a time, in C: a header holds one fingerprint per input and code file;
    what marshal gives back is of its exact types, ``bool`` the only ``int`` subclass).

    >>> _fingerprint_list([["a", 1, 2, 3, 4]]), _fingerprint_list([["a", 1, 2, 3]]), _fingerprint_list([[1, 1, 2, 3, 4]])
    (True, False, False)
    """
    if type(inputs) is not list or not {list}.issuperset(map(type, inputs)) or not {5}.issuperset(map(len, inputs)):
        return False
    columns = list(zip(*inputs)) or [(), (), (), (), ()]
    return {str}.issuperset(map(type, columns[0])) and {int, bool}.issuperset(map(type, chain(*columns[1:])))


def read_header(data) -> tuple[object, int]:
    """The header of a cache file's bytes and where its payload starts; ``(None, 0)`` when
    the bytes do not start as a snapshot does (``FILE_PREFIX``, a 4-byte length, at most
    HEADER_LIMIT bytes of marshalled header). marshal rather than JSON: importing :mod:`json`
    (and :mod:`re` with it) costs a cold plan a quarter of its time.

    >>> read_header(header_bytes({"magic": MAGIC}) + b"payload")
    ({'magic': 'recipekg-snapshot'}, 50)
    """
    start = len(FILE_PREFIX)
    if bytes(data[:start]) != FILE_PREFIX or len(data) < start + 4:
        return None, 0
    size = int.from_bytes(data[start:start + 4], "big")
    if size > HEADER_LIMIT or len(data) < start + 4 + size:
        return None, 0
    return marshal.loads(data[start + 4:start + 4 + size]), start + 4 + size


def header_bytes(header: dict) -> bytes:
    """A cache file's first bytes: ``FILE_PREFIX``, the header's length, the header."""
    blob = marshal.dumps(header)
    return FILE_PREFIX + len(blob).to_bytes(4, "big") + blob


def _checksum(header: dict, payload: bytes) -> int:
    """CRC-32 of the header's fields and the payload: any changed byte of either shows. The
    fields are marshal's version 2 of the header (no references, so the same bytes for the
    same fields in the same order, which marshal keeps: the writer's before it adds
    ``crc32``, the reader's once it has taken it out).

    >>> _checksum({"a": [1, "b"]}, b"core") == _checksum(marshal.loads(marshal.dumps({"a": [1, "b"]})), b"core")
    True
    """
    from binascii import crc32

    return crc32(payload, crc32(marshal.dumps(header, 2)))


def _decode(core, shards, rebuild) -> dict | None:
    """The snapshot: the core decoded (builtin data only, checked for its own format field)
    and its large containers as views that decode a shard when first read
    (:mod:`recipekg.knowledge.shards`)."""
    from recipekg.knowledge.shards import Source, join

    try:
        paths, snap = marshal.loads(core)
    except (ValueError, EOFError, TypeError):
        return None
    if (type(snap) is not dict or snap.get("format") != SNAPSHOT_FORMAT or type(snap.get("rule_index")) is not dict
            or type(paths) is not list):
        return None
    try:
        return join((paths, snap), Source(shards, rebuild))
    except (KeyError, IndexError, TypeError):  # a path that leads nowhere: damage
        return None


def _write(target: str, header: dict, core: bytes, shards: bytes) -> None:
    """Write atomically: a temporary file in the same folder, then rename over the target."""
    import tempfile

    header = {k: v for k, v in header.items() if k != "crc32"}
    header["length"] = len(core) + len(shards)
    header["core"] = len(core)
    header["crc32"] = _checksum(header, core)
    data = b"".join([header_bytes(header), core, shards])
    folder = os.path.dirname(target)
    tmp = None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)  # the user's own: see docs/security.md
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".snapshot-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
        tmp = None
        _prune(folder, keep=8)
    except OSError:
        pass  # a read-only cache only costs a rebuild next time
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _prune(folder: str, keep: int) -> None:
    """Remove all but the ``keep`` most recently written snapshots (other KBs, old versions)."""
    snaps = []
    with os.scandir(folder) as entries:
        for e in entries:
            if e.name.startswith(_NAME) and (e.name.endswith(".bin") or e.name.endswith(".json")):
                try:
                    snaps.append((e.stat().st_mtime_ns, e.path))
                except OSError:
                    pass
    for _, old in sorted(snaps, reverse=True)[keep:]:
        try:
            os.unlink(old)
        except OSError:
            pass  # another process may have removed it first
