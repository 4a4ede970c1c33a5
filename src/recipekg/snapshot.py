"""The compiled snapshot, cached in the user's cache directory.

The cache file is keyed by a hash of every input file and the package version, so any
change of an input rebuilds it. Its first line is a header naming that key and the SHA-256
of the payload that follows; a truncated, tampered, foreign or stale file fails the check
and is rebuilt, never trusted. It is plain JSON: loading it runs nothing.

    >>> snap = load_snapshot(bundled_files())       # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from . import __version__
from .compiler import SNAPSHOT_FORMAT, compile_graph
from .graph import read_all


def cache_dir() -> Path:
    """``$RECIPEKG_CACHE_DIR``, else ``$XDG_CACHE_HOME/recipekg``, else ``~/.cache/recipekg``."""
    if env := os.environ.get("RECIPEKG_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "recipekg"


def input_key(paths: list[Path]) -> str:
    """Hash of the snapshot format, package version and every input file's name and bytes."""
    h = hashlib.sha256(f"recipekg {__version__} format {SNAPSHOT_FORMAT}\n".encode())
    for path in paths:
        data = path.read_bytes()
        h.update(f"{path.name} {len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def load_snapshot(paths: list[Path], *, build=None, use_cache: bool = True) -> dict:
    """The snapshot of ``paths``: from the cache when valid, else built and cached.

    ``build(paths) -> dict`` makes a snapshot (default: parse and compile); extensions pass
    one that validates first, so the verdict is part of what is cached.
    """
    key = input_key(paths)
    target = cache_dir() / f"snapshot-{key[:32]}.json"
    if use_cache and (snap := _read(target, key)) is not None:
        return snap
    snap = (build or _build)(paths)
    if use_cache:
        _write(target, key, snap)
    return snap


def _build(paths: list[Path]) -> dict:
    triples = read_all(paths)
    snap = compile_graph(triples)
    snap["triples"] = len(triples)
    return snap


def _read(target: Path, key: str) -> dict | None:
    try:
        with open(target, "rb") as f:
            header = json.loads(f.readline())
            payload = f.read()
        if (header.get("key") != key or header.get("format") != SNAPSHOT_FORMAT
                or hashlib.sha256(payload).hexdigest() != header.get("sha256")):
            return None
        snap = json.loads(payload)
        return snap if isinstance(snap, dict) else None
    except (OSError, ValueError, AttributeError):
        return None


def _write(target: Path, key: str, snap: dict) -> None:
    """Write atomically: a temporary file in the same folder, then rename over the target."""
    import tempfile

    payload = json.dumps(snap, separators=(",", ":"), sort_keys=True).encode()
    header = json.dumps({"key": key, "format": SNAPSHOT_FORMAT,
                         "sha256": hashlib.sha256(payload).hexdigest()}).encode()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".snapshot-", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(header + b"\n" + payload)
        os.replace(tmp, target)
        _prune(target.parent, keep=8)
    except OSError:
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass  # a read-only cache only costs a rebuild next time


def _prune(folder: Path, keep: int) -> None:
    """Remove all but the ``keep`` most recently used snapshots (other KBs, old versions)."""
    snaps = sorted(folder.glob("snapshot-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in snaps[keep:]:
        try:
            old.unlink()
        except OSError:
            pass  # another process may have removed it first
