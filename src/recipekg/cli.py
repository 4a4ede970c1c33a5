"""The ``recipekg`` command line: a thin click layer over the library.

    $ recipekg query "recommend architecture where data = tabular and rows = 30k"
    $ recipekg validate my-extension.ttl
    $ recipekg stats
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click

from . import __version__
from .errors import RecipeKGError

FORMATS = ("text", "json", "markdown")


def _fail(exc: RecipeKGError, fmt: str = "text") -> None:
    """Report a user error the way the spec says: exit 2, no traceback, nothing half-printed."""
    if fmt == "json":
        click.echo(json.dumps({"error": exc.to_dict()}, indent=2))
    else:
        click.echo(f"error: {exc}", err=True)
    sys.exit(2)


def user_errors(fn):
    """Turn RecipeKGError into the spec's error output."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RecipeKGError as exc:
            _fail(exc, kwargs.get("fmt", "text"))

    return wrapper


kb_option = click.option("--kb", "extensions", multiple=True, metavar="FILE.ttl",
                         type=click.Path(dir_okay=False),
                         help="Merge a Turtle extension file (validated first). Repeatable.")
format_option = click.option("--format", "fmt", type=click.Choice(FORMATS), default="text",
                             show_default=True, help="Output format.")
no_cache_option = click.option("--no-cache", is_flag=True, help="Rebuild the snapshot, do not use the cache.")


def _load(extensions, no_cache=False):
    from .kb import KnowledgeBase

    return KnowledgeBase.load(extensions, use_cache=not no_cache)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="recipekg")
def main():
    """recipekg: choose architectures, optimizers, model sizes and fixes, with the papers behind them."""


@main.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--no-shacl", is_flag=True, help="Skip the SHACL shapes (structural checks only).")
def validate(files, no_shacl):
    """Validate the bundled KB merged with FILES; print `file:line: message`, exit 2 on any."""
    from .files import bundled_files, shapes_file
    from .validate import validate as run

    paths = bundled_files() + [Path(f) for f in files]
    missing = [f for f in files if not Path(f).is_file()]
    if missing:
        click.echo(f"error: no such file: {missing[0]}", err=True)
        sys.exit(2)
    violations = run(paths, shapes=None if no_shacl else shapes_file())
    for v in violations:
        click.echo(str(v))
    checked = ", ".join(files) if files else "bundled KB"
    click.echo(f"{len(violations)} violation{'s' * (len(violations) != 1)} ({checked}, "
               f"{len(paths)} files)", err=bool(violations))
    sys.exit(2 if violations else 0)


@main.command()
@kb_option
@format_option
@no_cache_option
@user_errors
def stats(extensions, fmt, no_cache):
    """Counts per class, kind and section of the reference; sections with nothing encoded."""
    from .render import render_stats

    click.echo(render_stats(_load(extensions, no_cache).stats(), fmt))


@main.command()
@kb_option
@click.option("--format", "fmt", type=click.Choice(("turtle", "ntriples", "jsonld")),
              default="turtle", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to FILE (atomically).")
@user_errors
def export(extensions, fmt, output):
    """The merged ontology + KB (+ extensions) for any triple store."""
    from .export import export as run

    kb = _load(extensions)
    data = run(kb.files, fmt)
    if output:
        from .export import write_atomic

        write_atomic(Path(output), data)
    else:
        sys.stdout.buffer.write(data)


@main.command()
@click.argument("statement", required=False)
@click.option("-f", "--file", "path", type=click.Path(dir_okay=False, allow_dash=True),
              help="Read statements from FILE ('-' for stdin).")
@kb_option
@format_option
@no_cache_option
@click.option("--engine", type=click.Choice(("native", "rdflib", "oxigraph")), default="native",
              show_default=True, help="Answer with the exported SPARQL on this engine (recipekg sparql).")
@click.option("--endpoint", metavar="URL", help="Answer with the exported SPARQL on this SPARQL 1.1 endpoint.")
@user_errors
def query(statement, path, extensions, fmt, no_cache, engine="native", endpoint=None):
    """Answer STATEMENT(s): recommend, plan or explain. Without STATEMENT or -f, read stdin."""
    from .render import render_answers

    text, source = _statement_text(statement, path)
    kb = _load(extensions, no_cache)
    try:
        if engine != "native" or endpoint:
            from .cli_sparql import engine_answers

            answers = engine_answers(kb, text, engine, endpoint)
        else:
            answers = kb.query(text)
    except RecipeKGError as exc:
        raise exc.with_source(text, source)
    if not answers:
        raise RecipeKGError("nothing to answer: the input holds no statement",
                            expected=["recommend <kind> where ...", "plan where ...", "explain <choice> where ..."],
                            kind="syntax", file=source)
    click.echo(render_answers(answers, fmt))


@main.command()
@click.argument("choice")
@click.argument("constraints", nargs=-1)
@kb_option
@format_option
@no_cache_option
@user_errors
def explain(choice, constraints, extensions, fmt, no_cache):
    """Why CHOICE is or is not recommended: `recipekg explain vit where data = images and samples = 3000`."""
    from .render import render_answers

    text = " ".join(("explain", _quote_choice(choice)) + constraints)
    try:
        answers = _load(extensions, no_cache).query(text)
    except RecipeKGError as exc:
        raise exc.with_source(text)
    click.echo(render_answers(answers, fmt))


@main.command()
@click.argument("constraints", nargs=-1)
@kb_option
@format_option
@no_cache_option
@user_errors
def plan(constraints, extensions, fmt, no_cache):
    """Size a training run: `recipekg plan where params = 7B and hardware = h100 and gpus = 8`."""
    from .render import render_answers

    text = " ".join(("plan",) + constraints)
    try:
        answers = _load(extensions, no_cache).query(text)
    except RecipeKGError as exc:
        raise exc.with_source(text)
    click.echo(render_answers(answers, fmt))


def _quote_choice(choice: str) -> str:
    import re

    return choice if re.fullmatch(r"[A-Za-z][\w-]*", choice) else '"' + choice.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _statement_text(statement, path):
    if statement is not None and path is not None:
        raise RecipeKGError("give a statement or -f FILE, not both", kind="usage")
    if statement is not None:
        return statement, None
    if path in (None, "-"):
        if path is None and sys.stdin.isatty():
            raise RecipeKGError("no statement: pass one in quotes, use -f FILE, or pipe statements in",
                                kind="usage")
        return sys.stdin.read(), "<stdin>"
    try:
        return Path(path).read_text(encoding="utf-8"), path
    except (OSError, UnicodeDecodeError) as exc:
        raise RecipeKGError(f"cannot read {path}: {exc}", kind="usage", file=path) from None


# Commands defined in other modules register themselves on `main` when imported here.
# One line per module (keep the list sorted).
from . import cli_cite  # noqa: E402,F401
from . import cli_sparql  # noqa: E402,F401
