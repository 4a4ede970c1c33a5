"""The public API: a knowledge base and the questions it answers, for the CLI, the web page
and notebooks alike.

    >>> import recipekg
    >>> kb = recipekg.load()
    >>> kb.query("recommend fix where symptom = loss-spike")[0]["results"][0]["label"]
    'Roll back to an earlier checkpoint'

:func:`answer` is the one place that dispatches on the kind of statement; a backend
(:mod:`recipekg.reason.backend`) says where rule evaluations come from: the snapshot's rule
index by default, a SPARQL engine with ``--engine``/``--endpoint``.
"""

from __future__ import annotations

from recipekg.commands import Commands
from recipekg.errors import (INTERNAL_ERROR, InternalError, KBError, QuerySyntaxError, RecipeKGError,
                             UnsupportedStatement, UsageError)
from recipekg.knowledge.loader import load_files
from recipekg.notebook import Answer, Answers, Report
from recipekg.query.ast import Explain, Plan, Recipe, Recommend
from recipekg.query.parser import parse
from recipekg.reason.backend import Backend

#: What a statement looks like, for "nothing to answer".
STATEMENT_FORMS = ["recommend <kind> where ...", "plan where ...", "explain <choice> where ..."]
SPARQL_FORMS = ["recommend <kind> where ...", "explain <choice> where ..."]


class KnowledgeBase(Commands):
    """A compiled snapshot of the bundled files plus extensions, and the questions it answers:
    :meth:`query`, and every other command of the CLI as a method (:mod:`recipekg.commands`:
    ``recommend``, ``explain``, ``plan``, ``recipe``, ``papers``, ``paper``, ``cite``,
    ``validate``, ``audit``, ``export``, ``load_into``; ``stats`` and ``vocab`` here)."""

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
        try:
            return cls(*load_files(extensions, use_cache=use_cache, shacl=shacl))
        except RecipeKGError:
            raise
        except OSError as exc:
            raise KBError(f"cannot read: {exc}", file=getattr(exc, "filename", None)) from None
        except Exception as exc:
            raise InternalError(f"{INTERNAL_ERROR}: {type(exc).__name__}: {exc}") from exc

    @property
    def extensions(self) -> list:
        from recipekg.knowledge.resources import bundled_paths

        return self.files[len(bundled_paths()):]

    def query(self, text: str, *, backend: Backend | None = None, source: str | None = None) -> "Answers":
        """Answers to every statement of ``text``, in order, all parsed first: a list of
        :class:`recipekg.notebook.Answer` (dicts that a notebook shows as HTML).

        An error carries its position in ``text`` (and ``source``, the file it came from);
        a text without any statement is an error too ("nothing to answer").
        """
        return self._about(text, source, lambda statements: Answers(Answer(answer(s, self.snap, backend))
                                                                    for s in statements))

    def to_sparql(self, text: str, *, source: str | None = None) -> str:
        """The SPARQL 1.1 query of the one ``recommend`` or ``explain`` statement in ``text``.

        >>> kb.to_sparql("recommend fix where symptom = loss-spike").startswith("PREFIX")
        True
        """
        from recipekg.sparql.generate import to_sparql

        def one(statements):
            if len(statements) != 1:
                raise UsageError(f"recipekg sparql takes one statement, not {len(statements)}: a SPARQL "
                                 f"request holds one query", expected=SPARQL_FORMS)
            return to_sparql(statements[0], self.snap)

        return self._about(text, source, one)

    @staticmethod
    def _about(text: str, source: str | None, work):
        """``work(statements)`` on the statements of ``text``, with every error located in
        ``text`` (and ``source``): the one place that attaches the source to an error."""
        try:
            statements = parse(text)
            if not statements:
                raise QuerySyntaxError("nothing to answer: the input holds no statement",
                                       expected=STATEMENT_FORMS)
            return work(statements)
        except RecipeKGError as exc:
            raise exc.with_source(text, source) from None
        except Exception as exc:  # a bug: still one of the project's errors, with its cause chained
            raise InternalError(f"{INTERNAL_ERROR}: {type(exc).__name__}: {exc}") from exc

    def vocab(self, dimension: str | None = None) -> dict:
        """The word list of the query language (:func:`recipekg.reason.vocab.vocabulary`):
        every dimension, value and choice, or one dimension's.

        >>> [d["name"] for d in kb.vocab("vram")["dimensions"]]
        ['gpu-memory']
        """
        from recipekg.reason.vocab import vocabulary

        return Report(vocabulary(self.snap, dimension), "vocab")

    def stats(self) -> dict:
        """``recipekg stats --format json``: what the KB holds, per class, kind and section."""
        from recipekg.knowledge.stats import stats

        return Report(stats(self.snap, self.snap.get("triples")), "stats")


def answer(statement, snap: dict, backend: Backend | None = None) -> dict:
    """The answer to one parsed statement, as the JSON the spec describes, with its ``as_of``
    and what newer sources revise in it (:mod:`recipekg.reason.recency`)."""
    from recipekg.reason.recency import stamp

    return stamp(_answer(statement, snap, backend), snap)


def _answer(statement, snap: dict, backend: Backend | None = None) -> dict:
    if isinstance(statement, Recommend):
        from recipekg.recipe.check import add_compute_check
        from recipekg.reason.recommend import recommend

        out = recommend(statement, snap, backend)
        add_compute_check(statement, out, snap)  # plan's time for the run it decides on
        return out
    if isinstance(statement, Explain):
        from recipekg.recipe.check import add_compute_check
        from recipekg.reason.explain import explain

        out = explain(statement, snap, backend)
        add_compute_check(statement, out, snap)  # plan's time for the run it explains
        return out
    if isinstance(statement, Recipe):
        if backend is not None and not backend.plans:
            raise UnsupportedStatement.recipe()
        from recipekg.recipe.assemble import recipe

        return recipe(statement, snap)
    if isinstance(statement, Plan):
        if backend is not None and not backend.plans:
            raise UnsupportedStatement.plan()
        from recipekg.plan.planner import plan

        return plan(statement, snap)
    raise TypeError(f"not a statement: {statement!r}")


def load(extensions=(), *, use_cache: bool = True, shacl: bool | None = None) -> KnowledgeBase:
    """The bundled knowledge base, merged with the user's extension Turtle files."""
    return KnowledgeBase.load(extensions, use_cache=use_cache, shacl=shacl)
