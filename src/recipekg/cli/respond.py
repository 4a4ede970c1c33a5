"""What ``recipekg query``, ``explain``, ``plan``, ``recipe``, ``cite`` and ``vocab`` print, without click: shared by
the click commands and the fast lane (:mod:`recipekg.cli.fast`), so the two cannot answer
differently.

    >>> out, to_stderr, status = respond("recommend fix where symptom = loss-spike top 1", "json")
    >>> status, to_stderr, out.lstrip().startswith("{")
    (0, False, True)
    >>> respond("recommend fix where symptom = loss-spik", "text")[1:]
    (True, 2)
    >>> print(respond_cite("text", statement="recommend fix where symptom = loss-spike", top=1)[0])
    ... # doctest: +ELLIPSIS
    papers behind: recommend fix where symptom = loss-spike — ... paper...
"""

from __future__ import annotations


from recipekg.api import KnowledgeBase
from recipekg.errors import RecipeKGError, UsageError
from recipekg.names import quote_choice
from recipekg.render.answers import render_answers


def respond(text: str, fmt: str, extensions=(), *, no_cache: bool = False, source: str | None = None,
            engine: str | None = None, endpoint: str | None = None, detail: bool = False) -> tuple[str, bool, int]:
    """The answers to ``text`` as ``(output, to_stderr, exit status)``: 0 with the answers,
    2 with the error, 1 for a bug (JSON on stdout with ``--format json``, else text on stderr).
    ``detail``: the whole text answer (``--detail``)."""

    def work():
        kb = KnowledgeBase.load(extensions, use_cache=not no_cache)
        backend = sparql_backend(kb, engine, endpoint)
        return render_answers(kb.query(text, backend=backend, source=source), fmt, detail)

    return answered(work, fmt)


def respond_file(path: str, fmt: str, extensions=(), *, no_cache: bool = False,
                 detail: bool = False) -> tuple[str, bool, int]:
    """``recipekg query -f FILE``: the statements of ``path`` answered as :func:`respond`
    answers them (its errors located in the file)."""
    try:
        text = file_text(path)
    except RecipeKGError as exc:
        return failed(exc, fmt)
    return respond(text, fmt, extensions, no_cache=no_cache, source=path, detail=detail)


def respond_vocab(fmt: str, extensions=(), *, dimension: str | None = None,
                  no_cache: bool = False) -> tuple[str, bool, int]:
    """What ``recipekg vocab [DIMENSION]`` prints, as :func:`respond`."""

    def work():
        from recipekg.render.vocab import render_vocab

        return render_vocab(KnowledgeBase.load(extensions, use_cache=not no_cache).vocab(dimension), fmt)

    return answered(work, fmt)


def file_text(path: str) -> str:
    """The statements of the file ``path`` (``-f FILE``), as UTF-8 text (:func:`utf8_text`)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}", file=path) from None
    return utf8_text(data, path)


def utf8_text(data: bytes, source: str) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped); a byte that is not
    UTF-8 is a syntax error at its line and column.

    >>> utf8_text(b"plan where gpus = 8", "q.rkg")
    'plan where gpus = 8'
    >>> utf8_text(b"plan where data = caf\\xe9", "q.rkg")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    recipekg.errors.QuerySyntaxError: q.rkg: line 1, column 22: byte 0xe9 is not UTF-8 (statements are UTF-8 text)
    ...
    """
    from recipekg.errors import QuerySyntaxError

    try:  # as the utf-8-sig codec decodes (its positions after the mark), without loading it
        return (data[3:] if data[:3] == b"\xef\xbb\xbf" else data).decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        text = data.decode("utf-8", "replace")
        raise QuerySyntaxError(f"byte 0x{data[exc.start]:02x} is not UTF-8 (statements are UTF-8 text)",
                               line=line, column=column, source_line=text.splitlines()[line - 1],
                               file=source) from None


def respond_emit(text: str, emit: str, extensions=(), *, no_cache: bool = False, source: str | None = None,
                 output: str | None = None, fmt: str = "text") -> tuple[str | None, bool, int]:
    """The configuration ``emit`` of the one recipe ``text`` states, as :func:`respond`:
    JSON on stdout, or written to ``output`` (whole or not at all; then nothing is printed)."""

    def work():
        from recipekg.recipe.emit import emitted

        answers = KnowledgeBase.load(extensions, use_cache=not no_cache).query(text, source=source)
        if len(answers) != 1:
            raise UsageError(f"--emit writes the configuration of one recipe statement, not of {len(answers)} statements")
        from recipekg.render.jsontext import dumps

        data = dumps(emitted(answers[0], emit)) + "\n"
        if output is None:
            return data.rstrip("\n")
        from pathlib import Path

        from recipekg.knowledge.export import write_atomic

        write_atomic(Path(output), data.encode("utf-8"))
        return None

    return answered(work, fmt)


def respond_cite(fmt: str, extensions=(), *, statement: str | None = None, choice: str | None = None,
                 rule: str | None = None, paper: str | None = None, top: int | None = None,
                 output: str | None = None) -> tuple[str | None, bool, int]:
    """What ``recipekg cite`` prints, as :func:`respond`: the papers behind exactly one of a
    statement's answers, a choice, a rule or a paper, in the citation format ``fmt``; with
    ``output``, written to that file instead (the output is then None)."""

    def work():
        text = _citations(fmt, extensions, statement, choice, rule, paper, top)
        if output is None:
            return text.rstrip("\n")
        from pathlib import Path

        from recipekg.knowledge.export import write_atomic

        write_atomic(Path(output), text.encode("utf-8"))
        return None

    return answered(work, fmt)


def _citations(fmt, extensions, statement, choice, rule, paper, top) -> str:
    from recipekg.cite import bundles
    from recipekg.cite.formats import render

    named = {"query": ("--query", statement), "choice": ("--choice", choice), "rule": ("--rule", rule),
             "paper": ("--paper", paper)}
    what, value = bundles.the_one(named)
    if top is not None and what != "query":
        raise UsageError("--top goes with --query")
    return render(bundles.bundle_of(KnowledgeBase.load(extensions), what, value, top), fmt)


def answered(work, fmt: str) -> tuple[str | None, bool, int]:
    """``(work(), False, 0)``, or a project error's output as the spec says and its exit status."""
    try:
        return work(), False, 0
    except RecipeKGError as exc:
        return failed(exc, fmt)


def failed(exc: RecipeKGError, fmt: str) -> tuple[str, bool, int]:
    """A project error's output as the spec says, and its exit status."""
    from recipekg.render.errors import error_output

    out, to_stderr = error_output(exc, fmt)
    return out, to_stderr, exit_status(exc)


def exit_status(exc: RecipeKGError) -> int:
    """2 for the user's errors, 1 for a bug (``InternalError``): the spec's exit statuses."""
    return 1 if exc.kind == "internal" else 2


def sparql_backend(kb, engine: str | None, endpoint: str | None):
    """The backend for ``--engine``/``--endpoint`` (None: the native rule index)."""
    if engine in (None, "native") and not endpoint:
        return None
    from recipekg.sparql.backend import SparqlBackend
    from recipekg.sparql.engines import endpoint_options, get_engine

    options = endpoint_options() if endpoint else {}
    return SparqlBackend(get_engine(engine, kb.files, endpoint, **options), kb.snap)


def statement_of(command: str, words: list[str]) -> str | None:
    """The statement a command line asks for (None when its words do not make one):
    ``query TEXT``, ``explain CHOICE [where ...]``, ``plan [where ...]``.

    >>> statement_of("explain", ["8-bit Adam", "where", "prefer", "=", "low-memory"])
    'explain "8-bit Adam" where prefer = low-memory'
    >>> statement_of("plan", ["where", "params", "=", "7B"]), statement_of("query", [])
    ('plan where params = 7B', None)

    A choice and its constraints quoted as one word, as ``plan "where ..."`` is written, are
    the same statement (no choice's name holds the word ``where`` between spaces):

    >>> statement_of("explain", ["8-bit Adam where prefer = low-memory"])
    'explain "8-bit Adam" where prefer = low-memory'
    """
    if command == "query":
        return words[0] if len(words) == 1 else None
    if command == "explain":
        if len(words) == 1 and " where " in words[0]:
            choice, constraints = words[0].split(" where ", 1)
            words = [choice.strip(), "where", constraints]
        return " ".join(["explain", quote_choice(words[0]), *words[1:]]) if words else None
    return " ".join([command, *words])
