"""`recipekg query` and `explain` as a user runs them (CliRunner)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main

TABULAR = "recommend architecture where data = tabular and rows = 30k"


def run(*args, input=None):
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def test_text_answer_shows_ranked_choices_reasons_and_papers():
    code, out, _ = run("query", TABULAR)
    assert code == 0
    # the family once, with its members: "Gradient-boosted trees (LightGBM, XGBoost)"
    assert "Gradient-boosted trees (LightGBM, XGBoost) (gradient-boosted-trees)" in out and "grinsztajn2022" in out
    assert out.index("LightGBM") < out.index("Neural tabular")
    assert "section:" not in out and "--detail" in out  # short: the rule that decides, its sources' ids
    code, whole, _ = run("query", TABULAR, "--detail")
    assert code == 0 and "section: Data Scale Thresholds > Tabular: the tree boundary" in whole
    assert "grinsztajn2022 (supports; arXiv:2207.08815)" in whole and len(whole) > len(out)


def test_json_answer_has_the_spec_shape():
    code, out, _ = run("query", TABULAR, "--format", "json")
    a = json.loads(out)
    assert a["statement"] == "recommend" and a["kind"] == "architecture"
    assert {"dimension": "data", "op": "=", "value": "tabular"} in a["constraints"]
    top = a["results"][0]
    assert {"rank", "id", "label", "iri", "score", "because", "against"} <= set(top)
    reason = top["because"][0]
    assert {"rule", "text", "strength", "match", "section", "sources"} <= set(reason)
    assert {"id", "title", "year", "arxiv", "url"} <= set(reason["sources"][0])


def test_markdown_answer_is_a_table():
    code, out, _ = run("query", TABULAR, "--format", "markdown")
    assert code == 0 and "| # | choice | score |" in out


def test_statements_from_a_file_and_stdin_answer_in_order(tmp_path):
    path = tmp_path / "q.rkg"
    path.write_text("# two statements\nrecommend optimizer where prefer = low-memory;\n"
                    "recommend fix where symptom = loss-spike\n")
    code, out, _ = run("query", "-f", str(path), "--format", "json")
    answers = json.loads(out)
    assert [a["kind"] for a in answers] == ["optimizer", "fix"]
    code, out2, _ = run("query", "--format", "json", input=path.read_text())
    assert json.loads(out2) == answers


def test_explain_command():
    code, out, _ = run("explain", "vit", "where", "data", "=", "images", "and", "samples", "=", "3000", "--detail")
    assert code == 0
    assert "AGAINST" in out and "held: samples < 5K" in out
    assert "It would rank first with:" in out


def test_explain_reads_a_choice_and_its_constraints_quoted_as_one_word():
    """``explain "vit where ..."`` as ``plan "where ..."``: the same answer as the words given apart."""
    apart = run("explain", "vit", "where", "data", "=", "images", "and", "samples", "=", "3000")
    together = run("explain", "vit where data = images and samples = 3000")
    assert apart[0] == 0 and together == apart


@pytest.mark.parametrize("query,needle", [
    ("recommend architecture where data = tabluar", "did you mean: 'tabular'"),
    ("recomend architecture", "did you mean: 'recommend'"),
    ("recommendarchitecture where data = tabular", "column 1"),
    ("recommend architecture where rows between 50k and 10k", "between"),
])
def test_errors_exit_2_with_position_and_no_traceback(query, needle):
    code, out, err = run("query", query)
    assert code == 2
    assert out == ""
    assert needle in err and "^" in err and "Traceback" not in err


def test_json_errors_go_to_stdout_and_nothing_is_half_printed():
    code, out, err = run("query", "recommend optimizer;\nrecommend fix where symptom = los-spike", "--format", "json")
    assert code == 2
    e = json.loads(out)["error"]
    assert (e["kind"], e["line"], e["column"]) == ("unknown-name", 2, 31)
    assert "loss-spike" in e["suggestions"]


def test_no_statement_is_an_error(tmp_path):
    path = tmp_path / "empty.rkg"
    path.write_text("# nothing here\n")
    code, _, err = run("query", "-f", str(path))
    assert code == 2 and "no statement" in err


def test_the_python_api_gives_the_cli_answer():
    import recipekg

    code, out, _ = run("query", TABULAR, "--format", "json")
    assert recipekg.load().query(TABULAR)[0] == json.loads(out)


def test_a_bug_ends_with_one_line_and_exit_1_not_a_traceback(monkeypatch, capsys):
    """The catch-all at the executable's entry point (recipekg.cli.fast.main)."""
    import sys

    from recipekg.cli import fast, respond

    def broken(*args, **kwargs):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(respond, "respond", broken)
    monkeypatch.setattr(sys, "argv", ["recipekg", "query", "recommend fix where symptom = nan"])
    with pytest.raises(SystemExit) as exit_info:
        fast.main()
    err = capsys.readouterr().err
    assert exit_info.value.code == 1
    assert err.strip() == "recipekg: internal error, please report it: ZeroDivisionError: float division by zero"
    assert "Traceback" not in err
