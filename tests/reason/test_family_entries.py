"""A family is one entry when its members are placed as it is (recipekg.reason.families): a
rule near its threshold beside one that applies adds nothing to a member's place (the score
takes the strongest), so it does not split the member from its family; where no rule applies,
the near ones are what place it, and a member they place differently stays its own entry."""

from __future__ import annotations

from recipekg.reason.families import signature


def _answer(kb, text: str) -> dict:
    return kb.query(text)[0]


def test_a_member_with_only_a_near_rule_more_is_in_its_family_s_entry(kb):
    """BERT has the encoder rule and the "100-1K examples" rule near 2K examples; its score is
    the encoder's, so it is one of the encoder's entry (it was the second entry, with the same
    reason as the first), and the threshold is still named by the rule that makes BERT first below it."""
    a = _answer(kb, "recommend architecture where data = text and task = ner and examples = 2000")
    first = a["results"][0]
    assert first["id"] == "encoder" and "bert" in {m["id"] for m in first["members"]}
    assert "bert" not in {r["id"] for r in a["results"]}
    near = a["near_boundary"][0]
    assert near["rule"] == "threshold-nlp-100-1k" and near["other_side"]["pick"] == "bert"


def test_members_placed_by_near_rules_alone_stay_in_the_family(kb):
    """Below 32K examples per step LAMB and LARS are placed by the same two near rules as their
    family: one entry."""
    a = _answer(kb, "recommend optimizer where batch-size = 30k")
    family = next(r for r in a["results"] if r["id"] == "layerwise-adaptive-optimizers")
    assert {m["id"] for m in family["members"]} == {"lamb", "lars"}
    assert not {"lamb", "lars"} & {r["id"] for r in a["results"]}


def test_a_near_rule_that_changes_the_score_keeps_the_member_apart():
    base = {"group": "matches", "score": 0.6, "against": [], "because": [{"rule": "fam", "match": "full"}]}
    extra_near = dict(base, because=base["because"] + [{"rule": "own", "match": "near"}])
    assert signature(extra_near) == signature(base)
    assert signature(dict(extra_near, score=0.7)) != signature(base)
    only_near = dict(base, because=[{"rule": "a", "match": "near"}])
    assert signature(only_near) != signature(dict(only_near, because=[{"rule": "b", "match": "near"}]))
