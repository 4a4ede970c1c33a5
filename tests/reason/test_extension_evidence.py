"""An extension's rules count once per evidence (docs/scoring.md): sixty copies of one rule
weigh as one, two rules resting on different papers corroborate each other, and the answer
names the extension wherever its rules count."""

from __future__ import annotations

from pathlib import Path

from recipekg.api import KnowledgeBase
from support import TURTLE_PREFIXES

SIXTY = Path(__file__).parents[1] / "data" / "hostile" / "sixty-copies.ttl"
TABULAR = "recommend architecture where data = tabular and rows = 30k"
RULE = """
rule:{id} a rkg:Rule ; rdfs:label "{id}" ;
    rkg:text "Our team: use an MLP on tables." ;
    rkg:recommends kb:neural-tabular ; rkg:condition cond:data-tabular ;
    rkg:strength rkg:strong ; rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom paper:{paper} .
"""


def score(kb, choice="neural-tabular") -> float:
    a, = kb.query(TABULAR)
    return next(r["score"] for r in a["results"] if r["id"] == choice)


def test_sixty_copies_of_one_rule_weigh_as_one(tmp_path):
    one = tmp_path / "one.ttl"
    one.write_text(TURTLE_PREFIXES + RULE.format(id="copy-00", paper="grinsztajn2022"), encoding="utf-8")
    single, sixty = KnowledgeBase.load([one], use_cache=False), KnowledgeBase.load([SIXTY], use_cache=False)
    assert score(sixty) == score(single) != score(KnowledgeBase.load())
    a, = sixty.query(TABULAR)
    mlp = next(r for r in a["results"] if r["id"] == "neural-tabular")
    assert sum(1 for x in mlp["because"] if x.get("origin", {}).get("file") == str(SIXTY)) == 60


def test_rules_resting_on_different_papers_corroborate(tmp_path):
    one, two = tmp_path / "one.ttl", tmp_path / "two.ttl"
    one.write_text(TURTLE_PREFIXES + RULE.format(id="a", paper="grinsztajn2022"), encoding="utf-8")
    two.write_text(TURTLE_PREFIXES + RULE.format(id="a", paper="grinsztajn2022")
                   + RULE.format(id="b", paper="ke2017"), encoding="utf-8")
    assert score(KnowledgeBase.load([two], use_cache=False)) > score(KnowledgeBase.load([one], use_cache=False))
