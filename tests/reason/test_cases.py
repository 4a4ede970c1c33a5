"""The JSON case files of the reasoner, each run by one test: tests/cases/recommend.json
(the top of a ranking, what is advised against) and tests/cases/explain.json (which rules
fire for and against a choice, its rank, what would rank it first). Every case names the
section of the reference it rests on."""

from __future__ import annotations

import json

import pytest

from support import CASES, entry_ids, ranked_ids, scores_of

RECOMMEND = json.loads((CASES / "recommend.json").read_text(encoding="utf-8"))
EXPLAIN = json.loads((CASES / "explain.json").read_text(encoding="utf-8"))


def test_every_case_names_its_section_of_the_reference(snap):
    sections = {s["path"] for s in snap["sections"].values()}
    for case in RECOMMEND + EXPLAIN:
        assert any(p.startswith(case["section"]) for p in sections), case


@pytest.mark.parametrize("case", RECOMMEND, ids=[c["query"] for c in RECOMMEND])
def test_recommend_case(kb, case):
    (answer,) = kb.query(case["query"])
    top = ranked_ids(answer["results"][:case["top"]])
    for choice in case.get("includes", []):
        assert choice in top, f"{choice} not in top {case['top']}: {top}"
    if "first" in case:
        assert case["first"] in entry_ids(answer["results"][0])
    scores = scores_of(answer)
    for choice in case.get("negative", []):
        assert scores.get(choice, 0) < 0, f"{choice} should be advised against: {scores.get(choice)}"


@pytest.mark.parametrize("case", EXPLAIN, ids=[c["query"] for c in EXPLAIN])
def test_explain_case(kb, case):
    (answer,) = kb.query(case["query"])
    assert answer["kind"] == case["kind"]
    if "rank" in case:
        assert answer["rank"] == case["rank"]
    if "rank_at_most" in case:
        assert answer["rank"] is not None and answer["rank"] <= case["rank_at_most"]
    if "rank_above" in case:
        assert answer["rank"] is None or answer["rank"] > case["rank_above"]
    if "ranks" in case:
        assert answer["ranks"] == case["ranks"]
    fired = {side: {r["id"] for r in answer["rules"] if r["fires"] and r["side"] == side} for side in ("for", "against")}
    assert set(case.get("fired_for", [])) <= fired["for"]
    if "fired_against" in case:
        assert fired["against"] == set(case["fired_against"])
    if not case.get("fired_for", True):
        assert fired["for"] == set()
    quiet = {r["id"]: r for r in answer["rules"] if not r["fires"]}
    assert set(case.get("not_fired", [])) <= set(quiet)
    for rid in case.get("not_given", []):
        assert rid in quiet and all(c["status"] == "not given" for c in quiet[rid]["conditions"])
    if "first_if_mentions" in case:
        assert any(case["first_if_mentions"] in w["query"] for w in answer["would_rank_first_if"])
    if answer["rank"] == 1:
        assert answer["would_rank_first_if"] == []
