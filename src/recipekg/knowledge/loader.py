"""From Turtle files to a snapshot: the bundled KB, merged with validated extensions.

    >>> snap, files = load_files()
    >>> snap["format"] > 0, any(f.endswith("dimensions.ttl") for f in files)
    (True, True)
"""

from __future__ import annotations

import os
import sys

from recipekg.errors import KBError
from recipekg.limits import extension_bytes_cap
from recipekg.knowledge.resources import bundled_paths, shapes_file
from recipekg.knowledge.snapshot import load_snapshot


def compile_files(paths: list) -> dict:
    """Parse and compile ``paths`` into a snapshot (no validation, no cache); what the files
    that are not bundled add is marked with its origin (:mod:`recipekg.knowledge.origin`)."""
    from pathlib import Path

    from recipekg.knowledge.rdfio import read_turtle

    from recipekg.knowledge.compiler import compile_read

    return compile_read([(Path(p), read_turtle(Path(p))) for p in paths])


def load_files(extensions=(), *, use_cache: bool = True, shacl: bool | None = None) -> tuple[dict, list[str]]:
    """The snapshot of the bundled KB merged with ``extensions`` (validated first; see
    :meth:`recipekg.api.KnowledgeBase.load`), and the list of input files (``str`` paths:
    the query path does not import pathlib)."""
    extensions = [os.fspath(e) for e in extensions]
    for ext in extensions:
        check_extension_file(ext)
    files = bundled_paths() + extensions
    if not extensions:
        return load_snapshot(files, build=compile_files, use_cache=use_cache), files
    if shacl is None:
        shacl = os.environ.get("RECIPEKG_SHACL", "1").strip().lower() not in ("0", "off", "no", "false")
    snap = load_snapshot(files, build=validated_build(extensions, shacl=shacl), use_cache=use_cache,
                         variant="" if shacl else "no-shacl")
    return snap, files


def check_extension_file(path: str) -> None:
    """KBError unless ``path`` is a readable regular file within the size cap
    (:func:`recipekg.limits.extension_bytes_cap`)."""
    import stat

    shown = os.path.normpath(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise KBError("no such file" if not os.path.lexists(path) else
                      f"cannot read it: {exc.strerror or exc}", file=shown) from None
    if not stat.S_ISREG(mode):
        from recipekg.knowledge.rdfio import file_kind

        raise KBError(f"not a regular file but {file_kind(mode)}: an extension is a Turtle file", file=shown)
    if not os.access(path, os.R_OK):
        raise KBError("cannot read it: permission denied", file=shown)
    size, cap = os.path.getsize(path), extension_bytes_cap(os.environ)
    if size > cap:
        raise KBError(f"it is {size / 2**20:.0f} MiB; an extension is at most {cap >> 20} MiB "
                      f"(split it, or raise RECIPEKG_MAX_EXTENSION_MB)", file=shown)


def validated_build(extensions: list, shacl: bool = True):
    """A snapshot builder that refuses extensions with violations (the verdict is cached)."""

    def build(paths: list) -> dict:
        from pathlib import Path

        from recipekg.knowledge.validate import validate

        if not shacl:
            print("recipekg: validating the extensions without the SHACL shapes (RECIPEKG_SHACL=0); "
                  "`recipekg validate FILE` runs them", file=sys.stderr)
        violations = validate(paths, shapes=shapes_file() if shacl else None)
        if violations:
            first = violations[0]
            more = f" (and {len(violations) - 1} more; run `recipekg validate`)" if len(violations) > 1 else ""
            raise KBError(first.message + more, file=first.file, line=first.line)
        snap = compile_files(paths)
        snap["validated"] = [str(Path(e)) for e in extensions]
        if not shacl:
            snap["shacl"] = False
        return snap

    return build
