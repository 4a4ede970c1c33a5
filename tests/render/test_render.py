"""Rendering: one constraint formatter for every output, one table writer, errors written
the same way by the CLI and the web page."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.errors import QuerySyntaxError
from recipekg.render.constraints import constraint_line, format_constraint
from recipekg.render.errors import error_output
from recipekg.render.tables import table
from recipekg.web.app import create_app

WHERE = "params = 7B and mfu = 40% and gpu-memory = 80GB and time = 3 days and gpus = 8"


@pytest.mark.parametrize("constraint,text", [
    ({"dimension": "mfu", "op": "=", "value": 0.4, "unit": "fraction"}, "mfu = 40%"),
    ({"dimension": "gpu-memory", "op": "<=", "value": 8e10, "unit": "bytes"}, "gpu-memory <= 80GB"),
    ({"dimension": "time", "op": "=", "value": 72.0, "unit": "hours"}, "time = 3 days"),
    ({"dimension": "bandwidth", "op": "=", "value": 2.73e11, "unit": "bytes/s"}, "bandwidth = 273GB/s"),
    ({"dimension": "samples", "op": "in", "value": [3000.0, 30000.0], "unit": "count"}, "samples in (3k, 30k)"),
    ({"dimension": "data", "op": "=", "value": "tabular"}, "data = tabular"),
])
def test_a_constraint_is_written_in_the_query_language(constraint, text):
    assert format_constraint(constraint) == text


def test_every_numeric_constraint_of_an_answer_names_its_unit(kb):
    (answer,) = kb.query(f"plan where {WHERE} and hardware = h100")
    units = {c["dimension"]: c.get("unit") for c in answer["constraints"]}
    assert units["mfu"] == "fraction" and units["gpu-memory"] == "bytes" and units["time"] == "hours"
    assert units["params"] == units["gpus"] == "count" and units["hardware"] is None


def test_the_cli_and_the_web_page_write_constraints_alike(kb):
    """The mfu bug: the CLI printed `mfu = 0.4` where the web page printed `mfu = 40%`."""
    result = CliRunner().invoke(main, ["query", f"plan where {WHERE}"])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("constraints: "))
    (answer,) = kb.query(f"plan where {WHERE}")
    assert line == "constraints: " + constraint_line(answer["constraints"])
    assert "mfu = 40%" in line and "gpu-memory = 80GB" in line and "time = 3 days" in line
    html = create_app(kb).test_client().get("/", query_string={"q": f"plan where {WHERE}"}).get_data(as_text=True)
    for c in answer["constraints"]:
        assert f'<span class="constraint">{format_constraint(c)}</span>' in html


def test_markdown_tables_escape_pipes_and_text_tables_align():
    assert table(["a", "b"], [("x|y", "z\nw")], md=True)[2] == "| x\\|y | z w |"
    lines = table(["name", "n"], [("lightgbm", 3), ("vit", 12)], md=False, right={1})
    assert lines == ["name       n", "--------  --", "lightgbm   3", "vit       12"]


def test_errors_are_written_once_for_every_front_end(kb):
    with pytest.raises(QuerySyntaxError) as info:
        kb.query("recommend architecture where data =")
    text, to_stderr = error_output(info.value, "text")
    assert to_stderr and text.startswith("error: line 1, column 36: ") and "^" in text
    result = CliRunner().invoke(main, ["query", "recommend architecture where data ="])
    assert result.exit_code == 2 and result.output.strip() == text
    out, to_stderr = error_output(info.value, "json")
    assert not to_stderr and json.loads(out)["error"]["kind"] == "syntax"


NAMED = "model = llama-2-7b and method = qlora and gpus = 1 and hardware = a100-80gb"


def test_a_configurations_exact_count_reads_rounded_with_every_digit_beside_it(kb):
    """'params: 6.738415616B parameters' (plan and recipe alike): a named configuration's count
    reads '6.74B parameters (6,738,415,616)' in text, Markdown, the recipe and the web page; its
    other figures keep every digit (11,008, not 11,010); the JSON keeps the exact number."""
    from recipekg.render.answers import render_markdown, render_text

    (plan,) = kb.query(f"plan where {NAMED}")
    params = next(q for q in plan["quantities"] if q["name"] == "params")
    assert params["value"] == 6738415616 and params["given"]
    want = "6.74B parameters (6,738,415,616)"
    text, md = render_text(plan), render_markdown(plan)
    assert want in text and f"**{want}**" in md and "6.738415616B" not in text + md
    assert "11,008 hidden units" in text and "11,010" not in text
    (recipe,) = kb.query(f"recipe where {NAMED}")
    size = next(s for s in recipe["sections"] if s["name"] == "size")
    item = next(i for i in size["items"] if i.get("quantity") == "params")
    assert item["text"] == want and item["value"] == 6738415616
    assert f"params: {want}" in render_text(recipe)
    html = create_app(kb).test_client().get("/", query_string={"q": f"plan where {NAMED}"}).get_data(as_text=True)
    assert "6,738,415,616" in html and "6.738415616B" not in html
    (given,) = kb.query("plan where params = 6.7B and tokens = 1.234T")
    shown = render_text(given)
    assert "6.7B parameters" in shown and "1.234T tokens" in shown and "(" not in shown.split("6.7B parameters")[1][:2]


def test_a_fine_tune_plan_names_no_scaling_law_as_its_strategy():
    """A plan for fine-tuning or serving a given model said "strategy: Chinchilla-optimal
    training (20 tokens/param) — no goal given" though nothing in it is sized by a ratio; it says
    the model's own size, as the recipe does. A pretraining plan keeps its strategy."""
    runner = CliRunner()
    tune = runner.invoke(main, ["plan", "where", "model", "=", "llama-2-7b", "and", "method", "=", "qlora",
                                "and", "gpus", "=", "1", "and", "hardware", "=", "a100-80gb"])
    assert tune.exit_code == 0 and "strategy: the model's own size — method = qlora" in tune.output
    assert "Chinchilla-optimal" not in tune.output.split("strategy:", 1)[1].splitlines()[0]
    pre = runner.invoke(main, ["plan", "where", "params", "=", "7B", "and", "gpus", "=", "8"])
    assert "strategy: Chinchilla-optimal training" in pre.output


def test_explain_does_not_call_a_choice_first_when_nothing_is_decided(kb):
    """QLoRA ranks first for a 7B model with nothing else given only because every rule waits
    (audit 9/17: "It already ranks first" beside "every rule waits"): the text says so."""
    from recipekg.render.answers import render_answers

    (a,) = kb.query("explain qlora where params = 7B")
    assert a["rank"] == 1 and a["group"] == "would apply"
    text = render_answers([a], "text")
    assert "already ranks first" not in text
    assert "first of the ranking only because no choice is decided here: give gpus, hardware or time" in text


def test_a_choice_only_a_missed_threshold_ranks_is_shown_apart_from_the_matches(kb):
    """QA7 F10: Informer and PatchTST for 500 sequences were listed under "matches your
    constraints" though the one rule for them misses at 1K. A result whose best reason is a rule
    near its threshold ("match": "near") is shown under its own heading in text, Markdown and the
    web page; at an equal score a choice a rule applies to ranks before it (scoring.rank_key), and
    its line names the rule that holds (a small LSTM under 1K), not the near one."""
    from recipekg.render.answers import render_answers
    from recipekg.render.recommend import NEAR_HEAD, shown_group

    (a,) = kb.query("recommend architecture where data = time-series and task = forecasting and sequences = 500")
    groups = [shown_group(r) for r in a["results"]]
    assert groups == sorted(groups, key=["matches", "near", "against", "would apply"].index)  # ranks stay in order
    near = [r["id"] for r in a["results"] if shown_group(r) == "near"]
    assert {"informer", "patchtst"} <= set(near) and "lstm" not in near and "classical-statistics" not in near
    assert all(r["match"] == "near" for r in a["results"] if r["id"] in near)
    text = render_answers([a], "text")
    matches, rest = text.split(NEAR_HEAD)
    assert "Informer" not in matches.split("matches your constraints")[1] and "Informer (informer)" in rest
    assert "a small LSTM is the most" in matches
    assert NEAR_HEAD[0].upper() + NEAR_HEAD[1:] in render_answers([a], "markdown")
    page = create_app().test_client().get("/", query_string={"q": a["query"]}).get_data(as_text=True)
    matched = page.split('<h3 class="group">Matches your constraints</h3>')[1].split('<h3 class="group">')[0]
    near_part = page.split('<h3 class="group">Near a threshold</h3>')[1].split('<h3 class="group">')[0]
    assert 'class="result" data-id="lstm"' in matched and 'class="result" data-id="informer"' not in matched
    assert 'class="result" data-id="informer"' in near_part and 'class="result" data-id="lstm"' not in near_part
