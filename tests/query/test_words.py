"""Values of several words after a comparison (``prefer = low memory``): one name, its words
joined by a space, read the same by the lean and the generated parser; elsewhere a second
word stays an error."""

from __future__ import annotations

import pytest

from recipekg.errors import RecipeKGError
from recipekg.query import lean, parser
from recipekg.query.ast import Name


@pytest.mark.parametrize("query,texts", [
    ("recommend optimizer where prefer = low memory", ["low memory"]),
    ("recommend architecture where task = Object Detection and data = images", ["object detection", "images"]),
    ("recommend fix where symptom != slow convergence top 2", ["slow convergence"]),
    ("explain vit where task = semantic   segmentation", ["semantic segmentation"]),
    ("recommend x where a = b c d; plan where e = f g", ["b c d", "f g"]),
])
def test_several_words_are_one_name(query, texts):
    statements = parser.parse(query)
    assert lean.lean_parse(query) == parser.full_parse(query) == statements
    values = [c.values[0] for s in statements for c in s.constraints]
    assert all(isinstance(v, Name) for v in values) and [v.text for v in values] == texts


def test_the_name_spans_all_its_words():
    query = "recommend optimizer where prefer = low memory"
    (stmt,) = parser.parse(query)
    pos = stmt.constraints[0].values[0].pos
    assert query[pos.start:pos.end] == "low memory" and pos.column == query.index("low") + 1


@pytest.mark.parametrize("query", [
    "recommend x where a in (b c)",           # a missing comma, not one value
    "recommend x where a between b c and d",  # between takes numbers
    "recommend x where a = b and",            # 'and' is never a word of a value
    "recommend x y where a = b",              # a kind is one word
])
def test_a_second_word_elsewhere_is_an_error(query):
    assert lean.lean_parse(query) is None
    with pytest.raises(RecipeKGError) as info:
        parser.parse(query)
    assert info.value.line == 1 and info.value.column is not None
