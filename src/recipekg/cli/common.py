"""What every click command shares: options, loading the KB, reading statements, and the
spec's error output (exit 2, no traceback, nothing half-printed).

    >>> FORMATS, REPORT_FORMATS
    (('text', 'json', 'markdown', 'summary'), ('text', 'json', 'markdown'))
"""

from __future__ import annotations

import functools
import sys

import click

from recipekg.cli.lanes import FORMATS, REPORT_FORMATS
from recipekg.cli.respond import file_text, utf8_text
from recipekg.errors import RecipeKGError, UsageError
from recipekg.render.errors import error_output

kb_option = click.option("--kb", "extensions", multiple=True, metavar="FILE.ttl",
                         type=click.Path(readable=False),
                         help="Merge a Turtle extension file (validated first). Repeatable.")
format_option = click.option("--format", "fmt", type=click.Choice(FORMATS), default="text",
                             show_default=True, help="Output format (summary: compact JSON for agents).")
report_format_option = click.option("--format", "fmt", type=click.Choice(REPORT_FORMATS), default="text",
                                    show_default=True, help="Output format.")
detail_option = click.option("--detail", is_flag=True,
                             help="Text: the whole answer, every derivation, rule and source (default: the "
                                  "verdict and the lines that decide it).")
no_cache_option = click.option("--no-cache", is_flag=True, help="Rebuild the snapshot, do not use the cache.")


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` of ``text`` with every control character written out
    (:func:`recipekg.errors.printable`): what every command prints goes through it."""
    from recipekg.errors import printable

    click.echo(printable(text), err=err, nl=nl)


def fail(exc: RecipeKGError, fmt: str = "text") -> None:
    """Report an error the way the spec says and exit with status 2 (1 for a bug)."""
    text, to_stderr = error_output(exc, fmt)
    echo(text, err=to_stderr)
    sys.exit(1 if exc.kind == "internal" else 2)


def user_errors(fn):
    """Turn RecipeKGError into the spec's error output."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RecipeKGError as exc:
            fail(exc, kwargs.get("fmt", "text"))

    return wrapper


def load_kb(extensions, no_cache: bool = False):
    from recipekg.api import KnowledgeBase

    return KnowledgeBase.load(extensions, use_cache=not no_cache)


def statement_text(statement: str | None, path: str | None) -> tuple[str, str | None]:
    """The statements to answer and where they came from: the argument, -f FILE or stdin."""
    if statement is not None and path is not None:
        raise UsageError("give a statement or -f FILE, not both")
    if statement is not None:
        return statement, None
    if path in (None, "-"):
        if path is None and sys.stdin.isatty():
            raise UsageError("no statement: pass one in quotes, use -f FILE, pipe statements in, "
                             "or type them at the prompt of `recipekg shell`")
        return utf8_text(sys.stdin.buffer.read(), "<stdin>"), "<stdin>"
    return file_text(path), path
