"""Markdown output writes KB and query text literally: its own markup only (docs/security.md,
"Clean bytes"). The extension of tests/data/hostile/markdown-in-text.ttl puts a table cell,
a javascript: link, a script tag, bold and a code span in a rule's text."""

from __future__ import annotations

from pathlib import Path

from recipekg.api import KnowledgeBase
from recipekg.render.answers import render_answers
from recipekg.render.reports import render_papers
from recipekg.render.tables import markdown_safe, md_code, md_text

HOSTILE = Path(__file__).parents[1] / "data" / "hostile" / "markdown-in-text.ttl"
EXPLAIN = "explain lightgbm where data = tabular and rows = 30k"


def test_a_rule_text_with_markup_is_escaped_in_the_markdown_answer():
    kb = KnowledgeBase.load([HOSTILE], use_cache=False)
    text = render_answers(kb.query(EXPLAIN), "markdown")
    line = next(row for row in text.splitlines() if "javascript" in row)
    assert "\\[click\\](javascript:alert(1))" in line and "\\<script\\>" in line and "\\*\\*bold\\*\\*" in line
    assert "<script>" not in text and "](javascript:" not in text.replace("\\](javascript:", "")
    assert "\\`code\\`" in line
    assert f"from: extension {HOSTILE}" in text.replace("\\", "")


def test_every_text_field_is_escaped_but_code_and_links():
    doc = markdown_safe({"title": "a *b* <i>", "url": "https://x.org/a_b", "expression": "m = a * b",
                         "rows": [{"label": "[x](y)"}]})
    assert doc == {"title": "a \\*b\\* \\<i\\>", "url": "https://x.org/a_b", "expression": "m = a * b",
                   "rows": [{"label": "\\[x\\](y)"}]}
    assert md_text("line\nbreak") == "line break"
    assert md_code("a``b") == "``` a``b ```"


def test_a_report_escapes_titles():
    out = render_papers([{"id": "x", "claims": 1, "roles": {}, "entities": 0, "year": 2020,
                          "title": "<img src=x onerror=alert(1)> | *t*", "url": ""}], "markdown")
    assert "\\<img src=x onerror=alert(1)\\> \\| \\*t\\*" in out
