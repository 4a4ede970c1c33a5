"""Sources carry their role, and caveats are shown with their claim: in every JSON answer of
the examples in queries/, in text and Markdown, through the native reasoner (the SPARQL
backend's answers are compared with these, whole, in tests/sparql)."""

from __future__ import annotations

import pytest

from recipekg.render.answers import render_answers
from support import REPO

FILES = sorted((REPO / "queries").glob("*.rkg"))
ROLES = {"states", "supports", "method", "reference"}


def source_lists(obj, path=""):
    """Every ``sources`` and ``papers`` list in an answer, with where it sits."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("sources", "papers") and isinstance(value, list):
                yield f"{path}.{key}", value
            yield from source_lists(value, f"{path}.{key}")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from source_lists(value, f"{path}[{i}]")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_source_object_of_every_example_answer_has_a_role(kb, path):
    seen = 0
    for answer in kb.query(path.read_text(encoding="utf-8")):
        for where, sources in source_lists(answer):
            for s in sources:
                seen += 1
                assert s.get("role") in ROLES, (where, s)
                if s["role"] == "states":
                    assert s.get("where"), (where, s)
    assert seen


QLORA_80B = "explain qlora where hardware = dgx-spark and params = 80B"


def test_a_caveat_comes_with_its_rule_in_json_text_and_markdown(kb):
    answer, = kb.query(QLORA_80B)
    rule = next(x for x in answer["rules"] if x["id"] == "dgx-spark-params-gt-70b-not-recommended")
    assert "65B model on a single 48 GB GPU" in rule["caveat"]
    assert [s["role"] for s in rule["sources"]] == ["reference", "supports"]
    text = render_answers([answer], "text", detail=True)
    assert "caveat: The advice is the reference's judgement" in text
    assert "sources: reference (the reference's judgement); shazeer2019 (supports; arXiv:1911.02150)" in text
    assert "caveat: The advice is the reference's judgement" in render_answers([answer], "markdown")


def test_recommend_text_shows_roles_and_where(kb):
    answer, = kb.query("recommend approach where goal = research")
    text = render_answers([answer], "text", detail=True)
    assert "hoffmann2022 (method; arXiv:2203.15556)" in text
    md = render_answers([answer], "markdown")
    assert "hoffmann2022 (method)" in md


def test_plan_quantities_name_their_sources_roles(kb):
    answer, = kb.query("plan where params = 1B")
    flops = next(q for q in answer["quantities"] if q["name"] == "flops")
    assert {(s["id"], s["role"]) for s in flops["sources"]} >= {("kaplan2020", "states"), ("hoffmann2022", "states")}
    assert "kaplan2020 (states: Section 2.1, Table 1)" in render_answers([answer], "text", detail=True)


def test_an_entitys_original_paper_is_its_method(kb):
    answer, = kb.query("recommend architecture where data = tabular and rows = 5k top 1")
    assert all(p["role"] == "method" for r in answer["results"] for p in r["papers"])
