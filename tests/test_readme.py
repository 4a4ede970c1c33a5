"""The README is true: every command of its shell blocks runs (in this test's environment,
against the bundled KB) and exits as the README says; every ``$ command`` example prints the
lines it shows; its Python runs.

Commands are run by ``bash`` in a scratch folder holding ``queries/`` and the README's
placeholder extensions (``my-rules.ttl``, ``team-rules.ttl``, valid one-rule files), with the
installed ``recipekg`` first on ``PATH``. ``recipekg serve`` is started, must answer its front
page, and is stopped. The few commands that cannot run here are listed in ``NOT_RUN`` with the
reason, and a test checks that each entry still names a README command.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from support import EXTENSION, REPO, subprocess_env

README = (REPO / "README.md").read_text(encoding="utf-8")

#: README commands this test does not run: a command starting with the key, and why.
NOT_RUN = {
    "python3 -m venv .venv": "creates a virtual environment and installs the package: what this test runs in",
    "bash tools/test.sh": "runs the whole test suite, this test included",
    "recipekg query --endpoint": "needs a SPARQL server (tests/sparql runs it against Virtuoso)",
    "recipekg load --endpoint": "needs a SPARQL server (tests/sparql runs it against Virtuoso)",
    ".venv/bin/python -m benchmarks": "takes minutes (tests/test_benchmarks.py covers the benchmark code)",
}


def shell_commands(text: str) -> list[str]:
    """The commands of the ```sh blocks, continuation lines joined, comments and blanks dropped."""
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S):
        for command in re.sub(r"\\\n\s*", " ", block).splitlines():
            if command.strip() and not command.lstrip().startswith("#"):
                commands.append(command.strip())
    return commands


def examples(text: str) -> list[tuple[str, list[str]]]:
    """The ``$ command`` examples of plain ``` blocks: the command and the lines it shows."""
    found = []
    for block in re.findall(r"^```\n(\$ .*?)^```", text, flags=re.M | re.S):
        first, *shown = block.splitlines()
        found.append((first[2:], [line for line in shown if line.strip() and line.strip() != "..."]))
    return found

#: ``$ command`` examples that show a terminal session rather than output, and what tests them.
SESSIONS = {"recipekg shell": "typed at the prompt: tests/cli/test_shell.py drives it in a pseudo-terminal"}


def _not_run(command: str) -> str | None:
    return next((why for start, why in NOT_RUN.items() if command.startswith(start)), None)


COMMANDS = shell_commands(README)
RUN = [c for c in COMMANDS if _not_run(c) is None]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A scratch folder as a user's: the repository's queries, two extension files and a
    PATH whose ``recipekg`` is the one under test."""
    work = tmp_path_factory.mktemp("readme")
    (work / "queries").symlink_to(REPO / "queries")
    for name in ("my-rules.ttl", "team-rules.ttl"):
        (work / name).write_text(EXTENSION.format(text="A rule of the README's example extension."))
    bin_dir = work / "bin"
    bin_dir.mkdir()
    script = Path(sys.executable).parent / "recipekg"
    if script.exists():
        (bin_dir / "recipekg").symlink_to(script)
    else:  # run from a checkout: the package on PYTHONPATH
        (bin_dir / "recipekg").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m recipekg "$@"\n')
        (bin_dir / "recipekg").chmod(0o755)
    return work


def _env(work: Path) -> dict:
    env = subprocess_env()
    env["PATH"] = os.pathsep.join([str(work / "bin"), env.get("PATH", "")])
    return env


def test_every_readme_command_is_run_or_said_why_not():
    assert len(RUN) >= 25, RUN  # the extraction found the blocks
    for start in NOT_RUN:
        assert any(c.startswith(start) for c in COMMANDS), f"NOT_RUN names no README command: {start}"
    assert set(SESSIONS) <= {command for command, _ in examples(README)}


@pytest.mark.parametrize("command", [c for c in RUN if not c.startswith("recipekg serve")])
def test_a_readme_command_exits_0(command, workdir):
    result = subprocess.run(["bash", "-c", command], cwd=workdir, env=_env(workdir), capture_output=True,
                            text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("command", [c for c in RUN if c.startswith("recipekg serve")])
def test_a_readme_serve_command_serves_the_page(command, workdir):
    port = _free_port()  # the README's port may be taken: a later --port wins in click
    server = subprocess.Popen(["bash", "-c", f"exec {command.split('#')[0]} --port {port}"], cwd=workdir,
                              env=_env(workdir), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline, status = time.monotonic() + 60, None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    status, page = response.status, response.read().decode()
                break
            except OSError:
                time.sleep(0.3)
        assert status == 200 and "recipekg" in page, server.stderr.read() if server.poll() is not None else ""
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("command, shown", [e for e in examples(README) if e[0] not in SESSIONS], ids=lambda v: v if isinstance(v, str) else "")
def test_a_readme_example_prints_what_it_shows(command, shown, workdir):
    result = subprocess.run(["bash", "-c", command], cwd=workdir, env=_env(workdir), capture_output=True,
                            text=True, timeout=120, stdin=subprocess.DEVNULL)
    output = (result.stdout + result.stderr).splitlines()
    assert result.returncode == (2 if any(line.startswith("error:") for line in shown) else 0), result.stderr
    at = 0
    for line in shown:  # each line shown, in order ('...' stands for lines left out)
        assert line in output[at:], f"{command}: {line!r} not printed after line {at}"
        at = output.index(line, at) + 1


def test_the_readme_python_runs(tmp_path):
    blocks = re.findall(r"^```python\n(.*?)^```", README, flags=re.M | re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_the_readme_shows_shell_completion_for_every_shell_it_names():
    for shell in ("bash", "zsh", "fish"):
        assert f"_RECIPEKG_COMPLETE={shell}_source" in README
