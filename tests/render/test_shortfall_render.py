"""Every format says a memory saving's check and the shortfall (reason/shortfall.py): the text
answer (short and detailed), Markdown, the compact answer for agents and the web page, for
recommend and explain alike; an answer without a shortfall says nothing of it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.render.summary import summary_answers
from recipekg.web.app import create_app
from support import schema_errors

OVER = "params = 70B and gpus = 1 and hardware = a100-80gb"
RECOMMEND, EXPLAIN = f"recommend technique where {OVER}", f"explain adam-8bit where {OVER}"


def _cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("detail", [[], ["--detail"]])
def test_the_text_answer_says_the_shortfall_under_the_pick_and_each_savings_check(kb, detail):
    (a,) = kb.query(RECOMMEND)
    lines = _cli("query", RECOMMEND, *detail).splitlines()
    pick = next(i for i, line in enumerate(lines) if line.startswith("pick: "))
    shortfall = next(i for i, line in enumerate(lines) if line.startswith("memory shortfall: "))
    assert pick < shortfall < pick + 3                                  # with the decision, before the results
    assert lines[shortfall] == f"memory shortfall: {a['shortfall']['text']}"
    notes = [line.strip() for line in lines if line.strip().startswith("memory: ")]
    assert [n.split(" [")[0] for n in notes] == [f"memory: {r['memory_saving']['text']}"
                                                  for r in a["results"] if "memory_saving" in r]


def test_markdown_and_the_compact_answer_say_it_too(kb):
    (a,) = kb.query(RECOMMEND)
    md = _cli("query", RECOMMEND, "--format", "markdown")
    assert f"memory shortfall: {a['shortfall']['text']}" in md
    assert md.count("*memory: saves") == 2                              # in the two savings' rows
    compact = json.loads(_cli("query", RECOMMEND, "--format", "summary"))
    assert schema_errors(compact, "summary") == []
    assert compact["shortfall"] == a["shortfall"]["text"]
    assert [r.get("memory_saving") for r in compact["results"][:2]] == \
        [r["memory_saving"]["text"] for r in a["results"][:2]]


def test_explain_says_it_in_every_format(kb):
    (e,) = kb.query(EXPLAIN)
    text = _cli("explain", "adam-8bit", "where", OVER)
    assert f"memory: {e['memory_saving']['text']}" in text and f"memory shortfall: {e['shortfall']['text']}" in text
    compact = json.loads(summary_answers([e]))
    assert schema_errors(compact, "summary") == [] and compact["memory_saving"] == e["memory_saving"]["text"]
    assert schema_errors(json.loads(json.dumps(e)), "explain") == []


def test_the_web_page_says_it(kb):
    client = create_app(kb).test_client()
    page = client.get("/", query_string={"q": RECOMMEND}).get_data(as_text=True)
    assert page.count('<p class="shortfall"><strong>Memory shortfall:</strong> The run needs about 1575–1750%') == 1
    assert page.count('class="note memory-saving"') == 2
    page = client.get("/", query_string={"q": EXPLAIN}).get_data(as_text=True)
    assert '<p class="shortfall">' in page and 'class="note memory-saving"' in page


def test_no_shortfall_no_line(kb):
    query = "recommend technique where prefer = low-memory"
    assert "memory shortfall" not in _cli("query", query, "--detail")
    page = create_app(kb).test_client().get("/", query_string={"q": query}).get_data(as_text=True)
    assert '<p class="shortfall">' not in page and 'class="note memory-saving"' not in page


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_shortfall_of_an_answer_that_saves_no_memory_is_said_with_or_without_a_pick(fmt):
    """An approach answer over all its GPUs' memory (no memory saving among its results) says the
    shortfall: under the pick, and under "no pick" when every choice decided is advised against;
    explain of a choice that saves nothing says it too."""
    run = "model = llama-3-70b and method = full-fine-tune and hardware = a100"
    for where, pick in ((f"{run} and gpus = 8", False), (f"{run} and gpus = 16 and seq-length = 16k", True)):
        out = _cli("query", f"recommend approach where {where}", "--format", fmt)
        assert ("no pick" not in out) is pick
        line = next(x for x in out.splitlines() if "memory shortfall" in x.lower())
        assert "nothing advised here saves memory" in line and "What would: shard the training state (FSDP)" in line
    out = _cli("query", f"explain tensor-parallelism where {run} and gpus = 8", "--format", fmt)
    assert "does not fit all 8 GPUs even sharded evenly over them" in out
