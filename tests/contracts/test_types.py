"""mypy checks the typed contracts and the modules that build the answers with them (the
files listed in pyproject.toml's ``[tool.mypy]``): every key an annotated builder writes is one
its TypedDict declares, with the declared type, and each annotated function returns the type
it says. The runtime half of the contract is tests/contracts/test_schema.py (every answer
validated against the JSON Schema generated from the same types)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support import REPO

pytest.importorskip("mypy")


def _mypy(*args: str, cwd=REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_contracts_and_their_builders_type_check(tmp_path):
    done = _mypy("--cache-dir", str(tmp_path / "mypy"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_key_a_builder_does_not_declare_fails_the_check(tmp_path):
    """The check is not vacuous: a builder writing an undeclared key, or a wrong type, fails."""
    bad = tmp_path / "bad_builder.py"
    bad.write_text("from __future__ import annotations\n"
                   "from recipekg.contracts.recommend import Decision\n\n"
                   "def decision() -> Decision:\n"
                   "    return {'pick': None, 'runner_ups': [], 'compare_with': [], 'surprise': 1}\n\n"
                   "def wrong() -> Decision:\n"
                   "    return {'pick': 3, 'runner_ups': [], 'compare_with': []}\n", encoding="utf-8")
    done = _mypy("--cache-dir", str(tmp_path / "mypy"), "--config-file", str(REPO / "pyproject.toml"),
                 str(bad))
    assert done.returncode == 1
    assert '"surprise"' in done.stdout and "typeddict-unknown-key" in done.stdout
    assert "pick" in done.stdout and "typeddict-item" in done.stdout
