"""The knowledge base object behind the CLI, the web page and notebooks.

    >>> import recipekg
    >>> kb = recipekg.load()                                    # doctest: +SKIP
    >>> kb.query("recommend fix where symptom = loss-spike")[0].results[0].label   # doctest: +SKIP
    'Roll back to the last checkpoint'
"""

from __future__ import annotations

import os

from .errors import KBError
from .files import bundled_paths, shapes_file
from .snapshot import _build, load_snapshot


class KnowledgeBase:
    """A compiled snapshot of the bundled files plus extensions, and the questions it answers."""

    def __init__(self, snap: dict, files: list):
        self.snap = snap
        self.files = files

    @property
    def files(self) -> list:
        """The input files (``Path`` objects): bundled ontology and KB, then extensions."""
        from pathlib import Path

        if not all(isinstance(f, Path) for f in self._files):
            self._files = [Path(f) for f in self._files]
        return self._files

    @files.setter
    def files(self, files: list) -> None:
        self._files = list(files)

    @classmethod
    def load(cls, extensions=(), *, use_cache: bool = True, shacl: bool | None = None) -> "KnowledgeBase":
        """The bundled KB merged with ``extensions``, which are validated first.

        Validation is ``recipekg validate``: the structural checks and the SHACL shapes.
        ``shacl=False`` (or ``RECIPEKG_SHACL=0`` in the environment) keeps the structural
        checks and skips the shapes, for extensions so large that pyshacl would take
        minutes (about 20 s per 100K triples); the snapshot records it (``"shacl": false``
        next to ``"validated"``) and is cached apart from a fully validated one.
        """
        extensions = [os.fspath(e) for e in extensions]
        for ext in extensions:
            if not os.path.isfile(ext):
                from pathlib import Path

                raise KBError(f"no such file: {Path(ext)}", file=str(Path(ext)))
        files = bundled_paths() + extensions
        if not extensions:
            return cls(load_snapshot(files, use_cache=use_cache), files)
        if shacl is None:
            shacl = os.environ.get("RECIPEKG_SHACL", "1").strip().lower() not in ("0", "off", "no", "false")
        build = _validated_build(extensions, shacl=shacl)
        return cls(load_snapshot(files, build=build, use_cache=use_cache,
                                 variant="" if shacl else "no-shacl"), files)

    @property
    def extensions(self) -> list:
        return self.files[len(bundled_paths()):]

    def query(self, text: str) -> list:
        """Answers to every statement of ``text``, in order (a list of answer objects)."""
        from .parser import parse
        from .reasoner import answer

        return [answer(statement, self.snap) for statement in parse(text)]

    def stats(self) -> dict:
        from .stats import stats

        return stats(self.snap, self.snap.get("triples"))


def _validated_build(extensions: list, shacl: bool = True):
    """A snapshot builder that refuses extensions with violations (the verdict is cached)."""

    def build(paths: list) -> dict:
        from .validate import validate

        if not shacl:
            import sys

            print("recipekg: validating the extensions without the SHACL shapes (RECIPEKG_SHACL=0); "
                  "`recipekg validate FILE` runs them", file=sys.stderr)
        violations = validate(paths, shapes=shapes_file() if shacl else None)
        if violations:
            first = violations[0]
            more = f" (and {len(violations) - 1} more; run `recipekg validate`)" if len(violations) > 1 else ""
            raise KBError(first.message + more, file=first.file, line=first.line)
        snap = _build(paths)
        from pathlib import Path

        snap["validated"] = [str(Path(e)) for e in extensions]
        if not shacl:
            snap["shacl"] = False
        return snap

    return build
