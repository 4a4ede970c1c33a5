"""A broader value given (``data = visual``, the alias ``vision``) leaves the rules written for
the values under it holding only partly: the answer asks for the narrower value that decides
(images or video), where it had asked for dimensions that could not give a pick, and the value
it names does decide."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("where", ["modality = vision and images = 20M and gpus = 64 and time = 3 weeks",
                                   "data = visual and images = 3000"])
def test_a_broader_value_is_asked_to_be_narrowed_to_the_values_that_decide(kb, where):
    (broad,) = kb.query(f"recommend architecture where {where}")
    asked = [q for q in broad["ask"] if q["dimension"] == "data"]
    assert asked, [q["text"] for q in broad["ask"]]
    assert "more precisely than visual: data = images or video" in asked[0]["text"]
    (narrowed,) = kb.query(f"recommend architecture where {where.replace('modality = vision', 'data = images').replace('data = visual', 'data = images')}")
    assert narrowed["decision"]["pick"] in asked[0]["would_change"]
    assert narrowed["decision"]["pick"] != broad["decision"]["pick"]


def test_a_value_already_as_narrow_as_the_rules_asks_nothing_of_its_dimension(kb):
    (answer,) = kb.query("recommend architecture where data = images and images = 3000")
    assert not [q for q in answer["ask"] if q["dimension"] == "data"]
