"""The practitioner regression table, tests/cases/practitioner.json, run by one test: each
case a recommend statement, the choices a practitioner who knows the reference accepts as the
pick, what must also appear, come later or be advised against, and the reference's words it
rests on (quoted exactly; checked against the reference here)."""

from __future__ import annotations

import json

import pytest

from support import CASES, SHARED, entry_ids, ranked_ids, scores_of

PRACTITIONER = json.loads((CASES / "practitioner.json").read_text(encoding="utf-8"))


def test_the_table_covers_every_kind_and_quotes_the_reference(snap):
    reference = (SHARED / "reference" / "scaling-and-selection.md").read_text(encoding="utf-8")
    assert len(PRACTITIONER) >= 60
    assert {c["kind"] for c in PRACTITIONER} == set(snap["kinds"])
    sections = {s["path"] for s in snap["sections"].values()}
    for case in PRACTITIONER:
        assert case["section"] in sections, case["section"]
        for phrase in case["reference"].split(" … "):
            assert phrase in reference, phrase


@pytest.mark.parametrize("case", PRACTITIONER, ids=[c["query"] for c in PRACTITIONER])
def test_practitioner_case(kb, case):
    (answer,) = kb.query(case["query"])
    ids = ranked_ids(answer["results"])
    assert ids, "no answer"
    first = entry_ids(answer["results"][0])  # the first entry: a choice, or a family and its members
    assert set(first) & set(case["pick"]), f"first is {first}, the reference says one of {case['pick']}: {case['reference']}"
    for choice in case.get("also", []):
        assert choice in ids, f"{choice} missing"
    for choice in case.get("not_pick", []):
        assert choice not in first
    scores = scores_of(answer)
    for choice in case.get("against", []):
        assert scores.get(choice, 0) < 0, f"{choice} should be advised against: {scores.get(choice)}"
    # a procedure's steps are in step order in the decision (the results are in score order)
    sequence = (answer["decision"].get("procedure") or {}).get("steps") or ids
    order = [i for i in sequence if i in case.get("order", [])]
    assert order == [i for i in case.get("order", []) if i in ids], f"order {order}"


def test_a_small_pretrained_model_on_a_node_for_days_is_fine_tuned(kb):
    """QA round 7, F5: "Or fine-tune up to 13B" was read as the band (3B, 13B], so a 1B model
    with pretrained weights on eight GPUs for five days was offered pretraining from scratch
    first. With a pretrained model at hand the fine-tune ranks above it; without one it is
    ruled out, and a plan's tier advice (which is not told about pretrained weights) is as before."""
    query = "recommend approach where params = 1B and gpus = 8 and hardware = a100 and time = 5 days and data = text"
    (a,) = kb.query(query + " and pretrained = yes")
    ids = ranked_ids(a["results"])
    assert ids.index("fine-tune-pretrained") < ids.index("train-from-scratch")
    assert any(e["pick"] == "fine-tune-pretrained" for e in a["decision"]["alongside"])
    (b,) = kb.query(query + " and pretrained = no")
    assert "fine-tune-pretrained" not in ranked_ids(b["results"])
    (p,) = kb.query("plan where params = 1B and gpus = 8 and hardware = a100 and time = 5 days")
    assert not any("pretrained model at hand" in r["text"] for r in p["tier"]["advice"])
