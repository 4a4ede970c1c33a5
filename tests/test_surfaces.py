"""Every statement of every example file in queries/, in every format, on every surface: the
Python API, the click command, the executable's fast lane, the web page, its JSON API and the
agent tools of ``recipekg mcp``. Each answers (exit 0), and the surfaces agree with each other."""

from __future__ import annotations

import sys
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main as click_main
from recipekg.query.parser import parse
from recipekg.render.answers import render_answers
from support import REPO

FORMATS = ("text", "json", "markdown")
STATEMENTS = [s.text for path in sorted((REPO / "queries").glob("*.rkg"))
              for s in parse(path.read_text(encoding="utf-8"))]


def test_the_examples_hold_every_kind_of_statement():
    assert {s.split()[0] for s in STATEMENTS} == {"recommend", "plan", "explain", "recipe"}


def fast_lane(args: list[str], capsys, monkeypatch) -> tuple[int, str]:
    from recipekg.cli import fast

    assert fast.fast_request(args) is not None, "the fast lane should answer this itself"
    monkeypatch.setattr(sys, "argv", ["recipekg", *args])
    with pytest.raises(SystemExit) as done:
        fast.main()
    return done.value.code, capsys.readouterr().out


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("statement", STATEMENTS)
def test_every_surface_answers_alike(kb, statement, fmt, capsys, monkeypatch):
    api = render_answers(kb.query(statement), fmt)
    clicked = CliRunner().invoke(click_main, ["query", statement, "--format", fmt])
    assert clicked.exit_code == 0, clicked.output
    assert clicked.stdout == api + "\n"
    code, out = fast_lane(["query", statement, "--format", fmt], capsys, monkeypatch)
    assert (code, out) == (0, api + "\n")


@pytest.fixture(scope="module")
def web(kb):
    from recipekg.web.app import create_app

    return create_app(kb).test_client()


@pytest.mark.parametrize("statement", STATEMENTS)
def test_the_web_page_shows_every_statement(kb, web, statement):
    from html import escape

    response = web.get("/?q=" + quote(statement, safe=""))
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and 'class="error"' not in page
    for answer in kb.query(statement):
        for result in answer.get("results", [])[:3]:
            assert escape(result["label"], quote=False) in page or escape(result["label"]) in page, result["label"]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_the_json_api_and_the_agent_tools_answer_every_statement_as_the_cli(kb, web, statement):
    from recipekg.agent import AgentTools

    expected = render_answers(kb.query(statement), "json")
    for response in (web.get("/api/query", query_string={"q": statement}),
                     web.post("/api/query", json={"q": statement}),
                     web.get("/", query_string={"q": statement}, headers={"Accept": "application/json"})):
        assert response.status_code == 200
        assert response.get_data(as_text=True) == expected + "\n"
    assert AgentTools(kb).query(statement, detail=True) == expected
    compact = render_answers(kb.query(statement), "summary")  # an agent's default, and ?detail=0
    assert AgentTools(kb).query(statement) == compact and len(compact.encode()) <= 8192
    assert web.get("/api/query", query_string={"q": statement, "detail": "0"}).get_data(as_text=True) == compact + "\n"
    assert web.post("/api/query", json={"q": statement, "detail": False}).get_data(as_text=True) == compact + "\n"
