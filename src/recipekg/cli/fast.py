"""The ``recipekg`` executable: a fast lane for ``query "STATEMENT"`` (or ``-f FILE``), ``explain CHOICE
[where ...]``, ``plan [where ...]``, ``recipe [where ...]``, ``cite --query "STATEMENT"``, ``vocab
[DIMENSION]`` and ``shell``, click for the rest.

Importing click costs more than answering a query (it pulls in ``inspect``, ``typing``,
``datetime``, ``uuid``, ... : about a third of a cold ``recipekg query``). The commonest calls
of all, a statement on the command line answered with the native reasoner, or the papers
behind its answer::

    recipekg query "recommend architecture where data = tabular and rows = 30k" [--format json]
                   [--kb FILE.ttl ...] [--no-cache]
    recipekg cite --query "recommend architecture where data = tabular" [--top N] [--format ris]

are therefore recognised here, with their options in any order, as the table of
:mod:`recipekg.cli.lanes` describes them (the words of ``explain`` and ``plan`` make a
statement as the click commands make it: :func:`recipekg.cli.respond.statement_of`), and
answered by the function the click command calls (:func:`recipekg.cli.respond.respond`,
:func:`recipekg.cli.respond.respond_cite`): same output, same errors, same exit codes (a
test runs both on the same arguments and compares the bytes).
Anything else (another command, stdin, ``--engine``, ``--choice``, ``-o``, ``--help``,
an unknown or repeated option, a value click would reject, a non-UTF-8 terminal, shell
completion) goes to the click command line unchanged: click remains the one definition of
the interface, and a test checks the table against it.
"""

from __future__ import annotations

import gc
import os
import sys

from recipekg.cli.importer import installed

_COMMANDS = ("query", "explain", "plan", "recipe", "cite", "vocab", "shell")  # recipekg.cli.lanes.COMMANDS' keys
_answered: list[bool] = []  # set when the fast lane has answered (what script() reads)


def script(prog_name: str | None = None):
    """The executable (scripts/recipekg, ``python -m recipekg``): :func:`main`; when the fast
    lane answered, the process then ends at once, its output flushed. Tearing the interpreter
    down (collecting and freeing every object, every module) would cost a tenth of a cold
    answer and does nothing for it: nothing is left to write, no file open, no handler
    registered. Click's commands (a server, the shell) exit as Python does."""
    try:
        main(prog_name)
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code
        if _answered and type(code) is int:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass  # a closed pipe, as _Pacified: not an error at exit
            os._exit(code)
        raise


def main(prog_name: str | None = None):
    """Console-script entry point (``[project.scripts]``) and ``python -m recipekg``.

    A failure that is not the user's (a bug) ends with exit status 1 and one line asking for
    a report, never a traceback; user errors exit 2 with their message (recipekg.errors)."""
    gc.disable()  # one short answer: collecting cycles would cost it about a twentieth of its time
    try:
        with installed():  # the package's modules without importlib's machinery (recipekg.cli.importer)
            request = fast_request(sys.argv[1:])
            lane = request is not None and _plain_streams()
            if lane and not _at_prompt(request):
                _answer(request)
        if lane:  # the shell at a terminal: its prompt's threads import as Python does, with its locks
            _answer(request)
        gc.enable()  # click's commands include the long-running ones (serve, shell, mcp)
        from recipekg.cli.main import main as click_main

        return click_main() if prog_name is None else click_main(prog_name=prog_name)
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as exc:  # the catch-all: a bug must still reach the user as one line
        from recipekg.errors import INTERNAL_ERROR

        _echo(f"recipekg: {INTERNAL_ERROR}: {type(exc).__name__}: {exc}", sys.stderr)
        sys.exit(1)


def fast_request(args: list[str]) -> dict | None:
    """The call the fast lane answers for ``args`` — ``answer``, the name of the function of
    :mod:`recipekg.cli.respond`, and its keyword arguments — or None (click decides)."""
    if not args or args[0] not in _COMMANDS:
        return None  # checked before importing anything: other commands go to click at once
    from recipekg.cli.lanes import COMMANDS, read

    command = COMMANDS[args[0]]
    given = read(command, args[1:])
    if given is None:
        return None
    words = given.pop("words")
    if args[0] == "shell":  # from a pipe or at the prompt: recipekg.cli.session.respond_shell
        return {"answer": command.answer, **given}
    if args[0] == "vocab":
        return {"answer": command.answer, "dimension": words[0] if words else None, **given}
    if args[0] == "query":
        path = given.pop("path")
        if (path is None) == (not words):
            return None  # neither a statement nor -f (stdin, the shell), or both: click's
        if path is not None:
            return {"answer": "respond_file", "path": path, **given}
    if args[0] != "cite":
        from recipekg.cli.respond import statement_of

        given["text"] = statement_of(args[0], words)
    return {"answer": command.answer, **given}


def _answer(request: dict):
    """Answer ``request`` (:func:`run_request`) and exit with its status."""
    status = run_request(**request)
    _answered.append(True)
    sys.exit(status)


def _at_prompt(request: dict) -> bool:
    """Whether ``request`` is the shell at a terminal (prompt_toolkit's prompt), as
    :func:`recipekg.cli.session.respond_shell` decides it."""
    return request["answer"] == "respond_shell" and sys.stdin.isatty() and sys.stdout.isatty()


def _plain_streams() -> bool:
    """UTF-8 standard streams and no shell-completion request: what click would not alter."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        if encoding not in ("utf-8", "utf8"):
            return False
    return not any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ)


def run_request(answer: str, **kwargs) -> int:
    """The click command's answer, ``recipekg.cli.respond.<answer>(**kwargs)``, printed; the
    exit status."""
    if answer == "respond_shell":
        from recipekg.cli.session import respond_shell as respond_with
    else:
        from recipekg.cli import respond

        respond_with = getattr(respond, answer)
    try:
        out, to_stderr, status = respond_with(**kwargs)
        if out is not None:  # None: printed already (the shell, as it answers)
            _echo(out, sys.stderr if to_stderr else sys.stdout)
        return status
    except (EOFError, KeyboardInterrupt):  # as click's main
        _echo("", sys.stderr)
        _echo("Aborted!", sys.stderr)
        return 1
    except BrokenPipeError:
        from recipekg.cli.lanes import Pacified

        sys.stdout = Pacified(sys.stdout)
        sys.stderr = Pacified(sys.stderr)
        return 1


def _echo(text: str, stream) -> None:
    from recipekg.cli.lanes import echo

    echo(text, stream)
