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
KB's vocabulary, history); from a pipe the same session (:mod:`recipekg.cli.session`, without
click: the fast lane answers a piped shell there) reads lines without a prompt.

    >>> ends_input("plan where gpus = 8"), ends_input("plan where gpus = 8;"), ends_input("plan\\n\\n")
    (False, True, True)
"""

from __future__ import annotations

import sys

import click

from recipekg.cli.common import detail_option, echo, format_option, kb_option, load_kb, no_cache_option, user_errors
from recipekg.cli.completion import ends_input  # noqa: F401  (the doctest's)
from recipekg.cli.session import Reply, Session, history_path, run_lines, show  # noqa: F401  (the shell's parts)
from recipekg.cli.session import start as session_start


def start(extensions=(), fmt: str = "text", no_cache: bool = False, detail: bool = False) -> int:
    """The shell on this terminal (or over stdin when it is not one), printing with click;
    the exit status (:func:`recipekg.cli.session.start`)."""
    return session_start(load_kb(extensions, no_cache), fmt, detail, echo)


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
