"""``recipekg shell``: statements typed at a prompt, answered one after the other.

    $ recipekg shell [--format json] [--kb FILE.ttl ...]
    rkg> recommend architecture where data = tabular
    ...> and rows = 30k;

Enter answers a statement that parses completely; one that is not finished (``plan where
params = 7B and``) goes on on the next line (``...>``), and ``;`` or a blank line end it as in
a file. From a pipe the input is read as a file is: statements end with ``;``, a blank line
or the end of the input.
Lines starting with ``.`` are the shell's own commands (``.help``, ``.format json``,
``.quit``). An error is shown with its line and column and the shell goes on. On a terminal
the prompt comes from prompt_toolkit (:mod:`recipekg.cli.prompt`: TAB completion from the
KB's vocabulary, history); from a pipe the same session reads lines without a prompt.

:class:`Session` is the shell without its terminal::

    >>> session = Session(kb, "text")
    >>> session.run(".format json")
    Reply(out='format: json', to_stderr=True, status=0)
    >>> session.run("recommend fix where symptom = loss-spik;").status
    2
    >>> ends_input("plan where gpus = 8"), ends_input("plan where gpus = 8;"), ends_input("plan\\n\\n")
    (False, True, True)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NamedTuple

import click

from recipekg.cli.completion import ends_input
from recipekg.cli.common import detail_option, echo, format_option, kb_option, load_kb, no_cache_option, user_errors, utf8_text
from recipekg.cli.lanes import FORMATS
from recipekg.cli.respond import answered
from recipekg.errors import RecipeKGError
from recipekg.render.answers import render_answers
from recipekg.render.errors import error_output

HELP = """\
Type a statement and press Enter: a complete statement is answered, an unfinished one
(ending in 'and', 'where', '=' ...) goes on on the next line; ';' or a blank line end it too,
and Alt-Enter (Esc, Enter) starts a new line without answering:
  recommend <kind> [where <constraints>] [top <n>]
  plan [where <constraints>]
  explain <choice> [where <constraints>]
  recipe [where <constraints>]
TAB completes keywords, kinds, choices, dimensions and their values; up and down recall
earlier statements (kept in {history}).
Commands:
  .format [{formats}]  show or set the output format
  .detail [on|off]                       show or set whether text answers are whole (every rule, source)
  .help                                  this text
  .quit or .exit (or Ctrl-D)             leave the shell; Ctrl-C drops the statement being typed"""

class Reply(NamedTuple):
    """What one input prints: ``out`` on stdout or, ``to_stderr``, on stderr; its ``status``
    as ``recipekg query`` would exit with it."""

    out: str
    to_stderr: bool = False
    status: int = 0


def history_path() -> Path:
    """Where the shell keeps its history: ``$XDG_STATE_HOME/recipekg/shell-history``, else
    ``~/.local/state/recipekg/shell-history``."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "recipekg" / "shell-history"


class Session:
    """The shell's state: the KB, the output format, whether text answers are whole
    (``detail``), whether the user asked to leave."""

    def __init__(self, kb, fmt: str = "text", detail: bool = False) -> None:
        self.kb, self.fmt, self.detail, self.done = kb, fmt, detail, False

    def run(self, text: str) -> Reply:
        """The reply to one input: a shell command or one or more statements."""
        stripped = text.strip()
        if not stripped:
            return Reply("")
        if stripped.startswith("."):
            return self.command(stripped)
        out, to_stderr, status = answered(lambda: render_answers(self.kb.query(text), self.fmt, self.detail), self.fmt)
        return Reply(out, to_stderr, status)

    def command(self, line: str) -> Reply:
        """``.help``, ``.format [FORMAT]``, ``.detail [on|off]``, ``.quit``/``.exit``; anything
        else is an error."""
        name, *args = line.rstrip(";").split()  # '.format json;' as statements end
        if name in (".quit", ".exit") and not args:
            self.done = True
            return Reply("")
        if name == ".help" and not args:
            return Reply(HELP.format(history=history_path(), formats="|".join(FORMATS)), True)
        if name == ".detail" and len(args) <= 1:
            if args and args[0] not in ("on", "off"):
                return Reply(f"error: .detail takes on or off, not '{args[0]}'", True, 2)
            self.detail = args[0] == "on" if args else self.detail
            return Reply(f"detail: {'on' if self.detail else 'off'}", True)
        if name == ".format" and len(args) <= 1:
            if args and args[0] not in FORMATS:
                return Reply(f"error: unknown format '{args[0]}': one of {', '.join(FORMATS)}", True, 2)
            self.fmt = args[0] if args else self.fmt
            return Reply(f"format: {self.fmt}", True)
        return Reply(f"error: unknown command '{line}': .help lists the commands", True, 2)


def show(reply: Reply) -> None:
    if reply.out:
        echo(reply.out, err=reply.to_stderr)


def run_lines(session: Session, lines) -> int:
    """The session fed from ``lines`` (a pipe; bytes are read as UTF-8): each input answered
    as it ends, the rest at the end. The exit status is the last failure's, 0 when every
    input was answered. Linear in the input: each line is looked at once
    (:func:`recipekg.cli.completion.line_ends_input`), and a statement longer than the query
    cap is not kept but reported when it ends."""
    from recipekg.cli.completion import line_ends_input
    from recipekg.limits import MAX_QUERY_CHARS

    status, pending, size, started = 0, [], 0, False
    for number, line in enumerate(lines, 1):
        if isinstance(line, bytes):
            try:
                line = utf8_text(line, "<stdin>")
            except RecipeKGError as exc:  # a byte that is not UTF-8: said, the line dropped
                exc.line = number
                show(Reply(error_output(exc, session.fmt)[0], True, 2))
                status = 2
                continue
        line = line if line.endswith("\n") else line + "\n"
        first = not started
        started = started or bool(line.strip())
        size += len(line)
        if size <= MAX_QUERY_CHARS:
            pending.append(line)
        if started and line_ends_input(line, first):
            reply = session.run("".join(pending)) if size <= MAX_QUERY_CHARS else _too_long(size, session)
            pending, size, started = [], 0, False
            show(reply)
            status = reply.status or status
            if session.done:
                return status
    if started:
        reply = session.run("".join(pending)) if size <= MAX_QUERY_CHARS else _too_long(size, session)
        show(reply)
        status = reply.status or status
    return status


def _too_long(size: int, session: Session) -> Reply:
    from recipekg.errors import UsageError
    from recipekg.limits import MAX_QUERY_CHARS

    exc = UsageError(f"the query is too long: {size:,} characters (at most {MAX_QUERY_CHARS:,}); "
                     f"split it into several statements")
    return Reply(error_output(exc, session.fmt)[0], True, 2)


def start(extensions=(), fmt: str = "text", no_cache: bool = False, detail: bool = False) -> int:
    """The shell on this terminal (or over stdin when it is not one); the exit status."""
    session = Session(load_kb(extensions, no_cache), fmt, detail)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return run_lines(session, sys.stdin.buffer)
    from recipekg.cli.prompt import interact

    echo("recipekg shell: Enter answers a complete statement; .help for help, .quit to leave",
               err=True)
    return interact(session, history_path(), show)


@click.command()
@kb_option
@format_option
@no_cache_option
@detail_option
@user_errors
def shell(extensions, fmt, no_cache, detail=False):
    """Type statements at a prompt: Enter answers a complete one and continues an unfinished
    one; TAB completes names from the KB, up/down recall earlier ones, .help lists the
    shell's commands. From a pipe: statements as in a file, without a prompt."""
    sys.exit(start(extensions, fmt, no_cache, detail))
