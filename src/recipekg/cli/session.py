"""``recipekg shell`` without its terminal: the session (the KB, the output format, the shell's
own commands), its replies, and the piped mode, where the input is read as a file is
(statements end with ``;``, a blank line or the end of the input).

This module imports neither click nor prompt_toolkit nor :mod:`re`: with stdin (or stdout) not
a terminal, the fast lane (:mod:`recipekg.cli.fast`) answers ``recipekg shell`` with
:func:`respond_shell`, and the click command (:mod:`recipekg.cli.shell`) runs the same
:func:`run_lines`, so the two print the same bytes.

    >>> session = Session(kb, "text")
    >>> session.run(".format json")
    Reply(out='format: json', to_stderr=True, status=0)
    >>> session.run("recommend fix where symptom = loss-spik;").status
    2
"""

from __future__ import annotations

import os
import sys

from recipekg.cli.ends import line_ends_input
from recipekg.cli.lanes import FORMATS, echo
from recipekg.cli.respond import answered, failed, utf8_text
from recipekg.errors import RecipeKGError
from recipekg.record import Record
from recipekg.render.answers import render_answers

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


class Reply(Record):
    """What one input prints: ``out`` on stdout or, ``to_stderr``, on stderr; its ``status``
    as ``recipekg query`` would exit with it."""

    out: str
    to_stderr: bool = False
    status: int = 0


def history_path():
    """Where the shell keeps its history (a :class:`pathlib.Path`):
    ``$XDG_STATE_HOME/recipekg/shell-history``, else ``~/.local/state/recipekg/shell-history``."""
    from pathlib import Path

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


def show(reply: Reply, write=None) -> None:
    """Print ``reply`` (nothing for an empty one) with ``write(text, err=...)``, by default
    :func:`recipekg.cli.lanes.echo` on the standard streams."""
    if reply.out:
        if write is None:
            echo(reply.out, sys.stderr if reply.to_stderr else sys.stdout)
        else:
            write(reply.out, err=reply.to_stderr)


def run_lines(session: Session, lines, write=None) -> int:
    """The session fed from ``lines`` (a pipe; bytes are read as UTF-8): each input answered
    as it ends, the rest at the end, each reply shown (:func:`show` with ``write``). The exit
    status is the last failure's, 0 when every input was answered. Linear in the input: each
    line is looked at once (:func:`line_ends_input`), and a statement longer than the query
    cap is not kept but reported when it ends."""
    from recipekg.limits import MAX_QUERY_CHARS

    status, pending, size, started = 0, [], 0, False
    for number, line in enumerate(lines, 1):
        if isinstance(line, bytes):
            try:
                line = utf8_text(line, "<stdin>")
            except RecipeKGError as exc:  # a byte that is not UTF-8: said, the line dropped
                exc.line = number
                show(Reply(failed(exc, session.fmt)[0], True, 2), write)
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
            show(reply, write)
            status = reply.status or status
            if session.done:
                return status
    if started:
        reply = session.run("".join(pending)) if size <= MAX_QUERY_CHARS else _too_long(size, session)
        show(reply, write)
        status = reply.status or status
    return status


def _too_long(size: int, session: Session) -> Reply:
    from recipekg.errors import UsageError
    from recipekg.limits import MAX_QUERY_CHARS

    exc = UsageError(f"the query is too long: {size:,} characters (at most {MAX_QUERY_CHARS:,}); "
                     f"split it into several statements")
    return Reply(failed(exc, session.fmt)[0], True, 2)


BANNER = "recipekg shell: Enter answers a complete statement; .help for help, .quit to leave"


def start(kb, fmt: str = "text", detail: bool = False, write=None) -> int:
    """The shell over ``kb``: the prompt (:mod:`recipekg.cli.prompt`, prompt_toolkit) on a
    terminal, else the lines of stdin (:func:`run_lines`); each reply shown with ``write``
    (:func:`show`); the exit status. Garbage collection is on (a session can last): the KB's
    objects are frozen first, so collections never scan them."""
    import gc

    gc.freeze()
    gc.enable()
    session = Session(kb, fmt, detail)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return run_lines(session, sys.stdin.buffer, write)
    from recipekg.cli.prompt import interact

    show(Reply(BANNER, True), write)
    return interact(session, history_path(), lambda reply: show(reply, write))


def respond_shell(fmt: str, extensions=(), *, no_cache: bool = False, detail: bool = False) -> tuple[None, bool, int]:
    """``recipekg shell`` as the click command runs it, without click (the fast lane's): the
    KB loaded (an error printed as the click command prints it), then :func:`start`, each
    reply printed as it comes. The output is None (it is printed already), with the exit
    status."""
    from recipekg.api import KnowledgeBase

    try:
        kb = KnowledgeBase.load(extensions, use_cache=not no_cache)
    except RecipeKGError as exc:
        out, to_stderr, status = failed(exc, fmt)
        echo(out, sys.stderr if to_stderr else sys.stdout)
        return None, False, status
    return None, False, start(kb, fmt, detail)
