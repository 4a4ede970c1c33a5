"""``recipekg query``, ``explain`` and ``plan``: answer statements.

    $ recipekg query "recommend architecture where data = tabular and rows = 30k"
    $ recipekg explain vit where data = images and samples = 3000
    $ recipekg plan where params = 7B and hardware = h100 and gpus = 8
"""

from __future__ import annotations

import sys

import click

from recipekg.cli.completion import complete_choice, complete_statement, complete_words
from recipekg.cli.common import echo, format_option, kb_option, no_cache_option, statement_text, user_errors
from recipekg.cli.respond import respond, statement_of


def _print(text: str, fmt: str, extensions, no_cache: bool, source: str | None = None,
           engine: str | None = None, endpoint: str | None = None) -> None:
    out, to_stderr, status = respond(text, fmt, extensions, no_cache=no_cache, source=source,
                                     engine=engine, endpoint=endpoint)
    echo(out, err=to_stderr)
    sys.exit(status)


def _terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


@click.command()
@click.argument("statement", required=False, shell_complete=complete_statement)
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
    """Answer STATEMENT(s): recommend, plan or explain. Without STATEMENT or -f, read stdin
    (on a terminal: start `recipekg shell`)."""
    if statement is None and path is None and engine == "native" and not endpoint and _terminal():
        from recipekg.cli.shell import start

        sys.exit(start(extensions, fmt, no_cache))
    text, source = statement_text(statement, path)
    _print(text, fmt, extensions, no_cache, source, engine, endpoint)


@click.command()
@click.argument("choice", shell_complete=complete_choice)
@click.argument("constraints", nargs=-1, shell_complete=complete_words("explain"))
@kb_option
@format_option
@no_cache_option
@user_errors
def explain(choice, constraints, extensions, fmt, no_cache):
    """Why CHOICE is or is not recommended: `recipekg explain vit where data = images and samples = 3000`."""
    _print(statement_of("explain", [choice, *constraints]), fmt, extensions, no_cache)


@click.command()
@click.argument("constraints", nargs=-1, shell_complete=complete_words("plan"))
@kb_option
@format_option
@no_cache_option
@user_errors
def plan(constraints, extensions, fmt, no_cache):
    """Size a training run: `recipekg plan where params = 7B and hardware = h100 and gpus = 8`."""
    _print(statement_of("plan", list(constraints)), fmt, extensions, no_cache)
