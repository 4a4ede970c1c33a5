"""The knowledge base object behind the CLI, the web page and notebooks.

    >>> import recipekg
    >>> kb = recipekg.load()                                    # doctest: +SKIP
    >>> kb.query("recommend fix where symptom = loss-spike")[0].results[0].label   # doctest: +SKIP
    'Roll back to the last checkpoint'
"""

from __future__ import annotations

from pathlib import Path

from .errors import KBError
from .files import bundled_files, shapes_file
from .snapshot import _build, load_snapshot


class KnowledgeBase:
    """A compiled snapshot of the bundled files plus extensions, and the questions it answers."""

    def __init__(self, snap: dict, files: list[Path]):
        self.snap = snap
        self.files = files

    @classmethod
    def load(cls, extensions=(), *, use_cache: bool = True) -> "KnowledgeBase":
        extensions = [Path(e) for e in extensions]
        for ext in extensions:
            if not ext.is_file():
                raise KBError(f"no such file: {ext}", file=str(ext))
        files = bundled_files() + extensions
        build = _validated_build(extensions) if extensions else None
        return cls(load_snapshot(files, build=build, use_cache=use_cache), files)

    @property
    def extensions(self) -> list[Path]:
        return self.files[len(bundled_files()):]

    def query(self, text: str) -> list:
        """Answers to every statement of ``text``, in order (a list of answer objects)."""
        from .parser import parse
        from .reasoner import answer

        return [answer(statement, self.snap) for statement in parse(text)]

    def stats(self) -> dict:
        from .stats import stats

        return stats(self.snap, self.snap.get("triples"))


def _validated_build(extensions: list[Path]):
    """A snapshot builder that refuses extensions with violations (the verdict is cached)."""

    def build(paths: list[Path]) -> dict:
        from .validate import validate

        violations = validate(paths, shapes=shapes_file())
        if violations:
            first = violations[0]
            more = f" (and {len(violations) - 1} more; run `recipekg validate`)" if len(violations) > 1 else ""
            raise KBError(first.message + more, file=first.file, line=first.line)
        snap = _build(paths)
        snap["validated"] = [str(e) for e in extensions]
        return snap

    return build
