"""Answers in a notebook: dicts as before (README: ``answer["results"]``, ``json.dumps``),
shown as HTML by Jupyter (``_repr_html_``), and DataFrames with pandas."""

from __future__ import annotations

import builtins
import json
from html.parser import HTMLParser

import pytest

from recipekg.notebook import ROWS, Answer, Answers

STATEMENTS = {"recommend": "recommend architecture where data = tabular and rows = 30k",
              "plan": "plan where params = 7B and hardware = h100 and gpus = 8",
              "explain": "explain vit where data = images and samples = 3000"}


class _Cells(HTMLParser):
    """The text of each table row's cells, and every link."""

    def __init__(self):
        super().__init__()
        self.rows, self.links, self._cell = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "a":
            self.links.append(dict(attrs)["href"])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def _cells(html: str) -> _Cells:
    parser = _Cells()
    parser.feed(html)
    return parser


@pytest.mark.parametrize("statement", sorted(STATEMENTS))
def test_an_answer_is_the_json_dict_the_cli_prints(kb, statement):
    from recipekg.render.answers import render_answers

    answers = kb.query(STATEMENTS[statement])
    answer, = answers
    assert isinstance(answers, list) and isinstance(answer, dict) and isinstance(answer, Answer)
    assert json.loads(json.dumps(answer)) == json.loads(render_answers([dict(answer)], "json"))
    assert answer["statement"] == statement


@pytest.mark.parametrize("statement", sorted(STATEMENTS))
def test_the_html_has_a_row_per_row_of_the_answer(kb, statement):
    answer, = kb.query(STATEMENTS[statement])
    cells = _cells(answer._repr_html_())
    rows = answer[ROWS[statement]]
    assert len(cells.rows) == 1 + len(rows)  # a header, then one row each
    first = rows[0]
    label = {"recommend": "label", "plan": "label", "explain": "text"}[statement]
    assert any(cell.startswith(first[label]) for cell in cells.rows[1][:3])
    assert all(link.startswith(("https://", "http://")) for link in cells.links)


def test_the_html_of_recommend_names_the_pick_and_each_top_reason_with_its_papers(kb):
    answer, = kb.query(STATEMENTS["recommend"])
    html = answer._repr_html_()
    assert f"pick: <b>{answer['decision']['pick']}</b>" in html
    for row, result in zip(_cells(html).rows[1:], answer["results"]):
        reason = (result["because"] or [{}])[0]  # a choice may have reasons against only
        assert row[4] == reason.get("text", "")
        assert [s["id"] for s in reason.get("sources", [])] == [p.split(" (")[0] for p in row[5].split(", ") if p]


def test_kb_text_is_escaped_and_only_web_links_are_links(kb):
    import copy

    hostile = copy.deepcopy(kb.query(STATEMENTS["recommend"])[0])  # as an extension's text could make it
    hostile["query"] = "<script>x</script>"
    hostile["results"][0]["label"] = "<img src=x onerror=alert(1)>"
    hostile["results"][0]["because"][0]["sources"][0]["url"] = "javascript:alert(1)"
    html = hostile._repr_html_()
    assert "<script>" not in html and "<img" not in html and "javascript:" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_several_statements_display_one_after_the_other(kb):
    answers = kb.query("recommend fix where symptom = loss-spike top 1; plan where params = 7B")
    assert isinstance(answers, Answers)
    html = answers._repr_html_()
    assert html.count('<div class="recipekg-answer">') == 2
    assert html.index("recommend fix") < html.index("plan where params")


@pytest.mark.parametrize("statement", sorted(STATEMENTS))
def test_to_pandas_has_a_row_per_row_and_a_column_per_field(kb, statement):
    pandas = pytest.importorskip("pandas")  # a dev dependency: present wherever the suite runs
    answer, = kb.query(STATEMENTS[statement])
    frame = answer.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    rows = answer[ROWS[statement]]
    assert len(frame) == len(rows)
    assert set(rows[0]) <= set(frame.columns)
    key = "id" if statement != "plan" else "name"
    assert list(frame[key]) == [r[key] for r in rows]


def test_to_pandas_without_pandas_says_how_to_get_it(kb, monkeypatch):
    real_import = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    answer, = kb.query(STATEMENTS["recommend"])
    with pytest.raises(ImportError, match=r"recipekg\[notebook\]"):
        answer.to_pandas()
