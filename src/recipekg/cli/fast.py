"""The ``recipekg`` executable: a fast lane for ``query "STATEMENT"``, ``explain CHOICE [where ...]``
and ``plan [where ...]``, click for the rest.

Importing click costs more than answering a query (it pulls in ``inspect``, ``typing``,
``datetime``, ``uuid``, ... : about a third of a cold ``recipekg query``). The commonest call
of all, a statement on the command line, answered with the native reasoner::

    recipekg query "recommend architecture where data = tabular and rows = 30k" [--format json]
                   [--kb FILE.ttl ...] [--no-cache]

is therefore recognised here (and likewise ``explain`` and ``plan``, whose words make a
statement as the click commands make it: :func:`recipekg.cli.respond.statement_of`), with its
options in any order, and answered by the function
the click command :func:`recipekg.cli.query.query` calls (:func:`recipekg.cli.respond.respond`):
same output, same errors, same exit codes (a test runs both on the same arguments and
compares the bytes).
Anything else (another command, ``-f``, stdin, ``--engine``, ``--help``, an unknown or
repeated option, a value click would reject, a non-UTF-8 terminal, shell completion) goes
to the click command line unchanged: click remains the one definition of the interface.
"""

from __future__ import annotations

import os
import sys

_FORMATS = ("text", "json", "markdown")
_COMMANDS = ("query", "explain", "plan")  # the commands whose words make one statement


def main(prog_name: str | None = None):
    """Console-script entry point (``[project.scripts]``) and ``python -m recipekg``.

    A failure that is not the user's (a bug) ends with exit status 1 and one line asking for
    a report, never a traceback; user errors exit 2 with their message (recipekg.errors)."""
    try:
        request = query_request(sys.argv[1:])
        if request is None or not _plain_streams():
            from recipekg.cli.main import main as click_main

            return click_main() if prog_name is None else click_main(prog_name=prog_name)
        sys.exit(run_query(**request))
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as exc:  # the catch-all: a bug must still reach the user as one line
        from recipekg.errors import INTERNAL_ERROR

        _echo(f"recipekg: {INTERNAL_ERROR}: {type(exc).__name__}: {exc}", sys.stderr)
        sys.exit(1)


def query_request(args: list[str]) -> dict | None:
    """The arguments of a ``query``, ``explain`` or ``plan`` call the fast lane answers, or
    None (click decides)."""
    if not args or args[0] not in _COMMANDS:
        return None  # checked before importing anything: other commands go to click at once
    from recipekg.cli.respond import statement_of

    words, fmt, extensions, no_cache = [], None, [], False
    rest = iter(args[1:])
    for arg in rest:
        if arg.startswith("-") and arg != "-":
            name, eq, value = arg.partition("=")
            if name == "--no-cache" and not eq and not no_cache:
                no_cache = True
                continue
            if name not in ("--format", "--kb"):
                return None  # -f, --engine, --endpoint, --help, -- ... : click's job
            if not eq:
                value = next(rest, None)
                if value is None or value.startswith("-"):
                    return None  # click reports the missing value
            if name == "--format":
                if fmt is not None or value not in _FORMATS:
                    return None
                fmt = value
            else:
                if not value or os.path.isdir(value):
                    return None  # click.Path(dir_okay=False) rejects it
                extensions.append(value)
        elif arg != "-":
            words.append(arg)
        else:
            return None
    statement = statement_of(args[0], words)
    if statement is None:
        return None  # stdin or -f (query), no choice (explain): click's job
    return {"statement": statement, "fmt": fmt or "text", "extensions": extensions, "no_cache": no_cache}


def _plain_streams() -> bool:
    """UTF-8 standard streams and no shell-completion request: what click would not alter."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        if encoding not in ("utf-8", "utf8"):
            return False
    return not any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ)


def run_query(statement: str, fmt: str, extensions: list[str], no_cache: bool) -> int:
    """:func:`recipekg.cli.query.query` for a statement given as an argument; the exit status."""
    from recipekg.cli.respond import respond

    try:
        out, to_stderr, status = respond(statement, fmt, extensions, no_cache=no_cache)
        _echo(out, sys.stderr if to_stderr else sys.stdout)
        return status
    except (EOFError, KeyboardInterrupt):  # as click's main
        _echo("", sys.stderr)
        _echo("Aborted!", sys.stderr)
        return 1
    except BrokenPipeError:
        sys.stdout = _Pacified(sys.stdout)
        sys.stderr = _Pacified(sys.stderr)
        return 1


def _echo(text: str, stream) -> None:
    """``click.echo``: the text and a newline in one write, then flush. Click removes ANSI
    escape sequences from output that is not a terminal; text holding one goes through it."""
    if "\x1b" in text:
        import click

        click.echo(text, err=stream is sys.stderr)
        return
    stream.write(text + "\n")
    stream.flush()


class _Pacified:
    """click's ``_PacifyFlushWrapper``: a closed pipe is not an error at interpreter exit."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as e:
            import errno

            if e.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr):
        return getattr(self.wrapped, attr)
