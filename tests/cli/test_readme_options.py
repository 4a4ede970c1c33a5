"""The README's table of options (between ``<!-- options-table -->`` markers) says, for every
command, whether it takes ``--format`` (and which formats), whether it takes ``--kb``, and its
other options. Each claim is checked against the command's ``--help``, every option of a command
is in its row, its formats are the registry's (:mod:`recipekg.render.formats`), and every
command of the command line must have a row."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from support import REPO


def _rows() -> dict[str, tuple[str, str, str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- options-table -->")[1].split("<!-- /options-table -->")[0]
    rows = {}
    for line in table.strip().splitlines()[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        for command in re.findall(r"`([a-z]+)`", cells[0]):
            rows[command] = (cells[1], cells[2], cells[3])
    return rows


ROWS = _rows()


def _help(command: str) -> str:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def _options(help_text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", help_text.split("Options:", 1)[1]))


def test_every_command_has_a_row():
    assert set(ROWS) == set(main.commands), "README options table and the commands differ"


@pytest.mark.parametrize("command", sorted(ROWS))
def test_format_claim(command):
    fmt, _, _ = ROWS[command]
    options = _options(_help(command))
    if fmt.startswith("no"):
        assert "--format" not in options
    else:
        claimed = fmt.strip("`").replace("\\|", "|")
        assert "--format" in options
        help_text = " ".join(_help(command).split())
        assert f"--format [{claimed}]" in help_text, f"{command}: --format is not [{claimed}]"


@pytest.mark.parametrize("command", sorted(ROWS))
def test_kb_claim(command):
    _, kb, _ = ROWS[command]
    assert ("--kb" in _options(_help(command))) == kb.startswith("yes"), command


@pytest.mark.parametrize("command", sorted(ROWS))
def test_other_options_exist(command):
    _, _, other = ROWS[command]
    options = _options(_help(command))
    for name in re.findall(r"`(--?[a-z][\w-]*)", other):
        assert name in options, f"{command} has no {name}"


@pytest.mark.parametrize("command", sorted(ROWS))
def test_every_option_is_in_the_row(command):
    fmt, kb, other = ROWS[command]
    named = set(re.findall(r"`(--?[a-z][\w-]*)", other))
    named |= (set() if fmt.startswith("no") else {"--format"}) | ({"--kb"} if kb.startswith("yes") else set())
    options = [p for p in main.commands[command].params if isinstance(p, click.Option)]
    spelled = {name for option in options for name in option.opts}
    missing = {option.opts[-1] for option in options if not named & set(option.opts)}
    assert not missing, f"{command}: the README's row misses {sorted(missing)}"
    assert named <= spelled | {"--help"}


@pytest.mark.parametrize("command", sorted(ROWS))
def test_the_formats_are_the_registry_s(command):
    from recipekg.render.formats import FAMILIES, names

    fmt, _, _ = ROWS[command]
    family = next((f for f, commands in FAMILIES.items() if command in commands), None)
    if family is None:
        assert fmt.startswith("no"), command
    else:
        assert fmt.strip("`").replace("\\|", "|").split("|") == list(names(family)), command
