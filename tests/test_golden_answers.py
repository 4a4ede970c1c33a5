"""Every example in queries/ answers exactly as its golden files (read by a person) say: the
text answer (.expected.txt) and the JSON one (.expected.json), through the library and the CLI."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from support import REPO

QUERIES = REPO / "queries"
FILES = sorted(QUERIES.glob("*.rkg"))

sys.path.insert(0, str(QUERIES.parent / "tools"))
from gen_golden import FORMATS, golden  # noqa: E402


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_answers_match_the_golden_file(kb, path, fmt):
    expected = path.with_suffix(FORMATS[fmt]).read_text(encoding="utf-8")
    assert golden(kb, path, fmt) == expected, "regenerate with tools/gen_golden.py and read the diff"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_cli_answers_every_example_as_the_golden_json(path):
    result = CliRunner().invoke(main, ["query", "-f", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    answers = json.loads(result.stdout)
    assert answers == json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    answers = answers if isinstance(answers, list) else [answers]
    assert all(a["statement"] in ("recommend", "plan", "explain", "recipe") for a in answers)


def test_examples_cover_every_kind_statement_and_data_type(snap):
    from recipekg.query.parser import parse

    statements = [s for p in FILES for s in parse(p.read_text())]
    kinds = {type(s).__name__ for s in statements}
    assert kinds == {"Recommend", "Plan", "Explain", "Recipe"}
    text = " ".join(s.text for s in statements)
    for kind in snap["kinds"]:
        assert f"recommend {kind}" in text
    data = {snap["nodes"][v]["id"] for v in snap["dimensions"]["data"]["values"].values()} - {"visual"}
    for d in data:
        assert f"data = {d}" in text, d
