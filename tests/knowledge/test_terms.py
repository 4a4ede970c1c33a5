"""Every term the code names exists in the ontology; misspelled terms fail loudly."""

import pytest

from recipekg.knowledge.resources import data_root
from recipekg.knowledge.rdfio import read_all
from recipekg.knowledge.terms import RKG


def test_every_rkg_term_is_declared_in_the_ontology():
    triples = read_all(sorted((data_root() / "ontology").glob("*.ttl")))
    declared = {s for s, _, _ in triples}
    missing = [t for t in sorted(RKG._terms) if getattr(RKG, t) not in declared]
    assert missing == []


def test_misspelled_term_fails():
    with pytest.raises(AttributeError):
        RKG.recomends
