"""``recipekg query``, ``explain``, ``plan`` and ``recipe``: answer statements.

    $ recipekg query "recommend architecture where data = tabular and rows = 30k"
    $ recipekg explain vit where data = images and samples = 3000
    $ recipekg plan where params = 7B and hardware = h100 and gpus = 8
    $ recipekg recipe where params = 7B and hardware = h100 and gpus = 64 --emit deepspeed -o ds.json
"""

from __future__ import annotations

import sys

import click

from recipekg.cli.completion import complete_choice, complete_statement, complete_words
from recipekg.cli.common import detail_option, echo, format_option, kb_option, no_cache_option, statement_text, user_errors
from recipekg.cli.lanes import EMIT_FORMATS
from recipekg.cli.respond import respond, respond_emit, statement_of
from recipekg.errors import UsageError


def _print(text: str, fmt: str, extensions, no_cache: bool, source: str | None = None,
           engine: str | None = None, endpoint: str | None = None, emit: str | None = None,
           output: str | None = None, detail: bool = False) -> None:
    if emit is None and output is not None:
        raise UsageError("-o FILE goes with --emit FORMAT (the configuration to write)")
    if emit is not None:
        out, to_stderr, status = respond_emit(text, emit, extensions, no_cache=no_cache, source=source,
                                              output=output, fmt=fmt)
    else:
        out, to_stderr, status = respond(text, fmt, extensions, no_cache=no_cache, source=source,
                                         engine=engine, endpoint=endpoint, detail=detail)
    if out is not None:
        echo(out, err=to_stderr)
    sys.exit(status)


emit_option = click.option("--emit", type=click.Choice(EMIT_FORMATS), metavar="FORMAT",
                           help="Write the recipe's configuration for a trainer: " + ", ".join(EMIT_FORMATS) + ".")
output_option = click.option("-o", "--output", type=click.Path(readable=False), metavar="FILE",
                             help="With --emit: the file to write the configuration to (default: stdout).")


def _terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


@click.command()
@click.argument("statement", required=False, shell_complete=complete_statement)
@click.option("-f", "--file", "path", type=click.Path(readable=False, allow_dash=True),
              help="Read statements from FILE ('-' for stdin).")
@kb_option
@format_option
@no_cache_option
@click.option("--engine", type=click.Choice(("native", "rdflib", "oxigraph")), default="native",
              show_default=True, help="Answer with the exported SPARQL on this engine (recipekg sparql).")
@click.option("--endpoint", metavar="URL", help="Answer with the exported SPARQL on this SPARQL 1.1 endpoint.")
@emit_option
@output_option
@detail_option
@user_errors
def query(statement, path, extensions, fmt, no_cache, engine="native", endpoint=None, emit=None, output=None,
          detail=False):
    """Answer STATEMENT(s): recommend, plan, explain or recipe. Without STATEMENT or -f, read
    stdin (on a terminal: start `recipekg shell`)."""
    if statement is None and path is None and engine == "native" and not endpoint and emit is None and _terminal():
        from recipekg.cli.shell import start

        sys.exit(start(extensions, fmt, no_cache, detail))
    text, source = statement_text(statement, path)
    _print(text, fmt, extensions, no_cache, source, engine, endpoint, emit, output, detail)


@click.command()
@click.argument("choice", shell_complete=complete_choice)
@click.argument("constraints", nargs=-1, shell_complete=complete_words("explain"))
@kb_option
@format_option
@no_cache_option
@detail_option
@user_errors
def explain(choice, constraints, extensions, fmt, no_cache, detail=False):
    """Why CHOICE is or is not recommended: `recipekg explain vit where data = images and samples = 3000`."""
    _print(statement_of("explain", [choice, *constraints]), fmt, extensions, no_cache, detail=detail)


@click.command()
@click.argument("constraints", nargs=-1, shell_complete=complete_words("plan"))
@kb_option
@format_option
@no_cache_option
@detail_option
@user_errors
def plan(constraints, extensions, fmt, no_cache, detail=False):
    """Size a training run: `recipekg plan where params = 7B and hardware = h100 and gpus = 8`."""
    _print(statement_of("plan", list(constraints)), fmt, extensions, no_cache, detail=detail)


@click.command()
@click.argument("constraints", nargs=-1, shell_complete=complete_words("recipe"))
@kb_option
@format_option
@no_cache_option
@emit_option
@output_option
@detail_option
@user_errors
def recipe(constraints, extensions, fmt, no_cache, emit=None, output=None, detail=False):
    """The whole training recipe: `recipekg recipe where params = 7B and hardware = h100 and gpus = 64`."""
    _print(statement_of("recipe", list(constraints)), fmt, extensions, no_cache, emit=emit, output=output,
           detail=detail)
