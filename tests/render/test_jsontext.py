"""The JSON writer of answers (recipekg.render.jsontext) writes what ``json.dumps(...,
indent=2)`` writes, byte for byte: on every answer of the query files and on generated values
(odd strings, big and special numbers, nesting, non-string keys, tuples)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recipekg.render.jsontext import dumps
from support import REPO

SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-2**70, max_value=2**70)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text() | st.sampled_from(["", "\x00", "\u2028", "é\"\\"]))
KEYS = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(KEYS, inner, max_size=4), max_leaves=30)


@given(VALUES, st.booleans())
def test_as_json_dumps_indented(value, ascii_only):
    assert dumps(value, ensure_ascii=ascii_only) == json.dumps(value, indent=2, ensure_ascii=ascii_only)


@pytest.mark.parametrize("path", sorted((REPO / "queries").glob("*.rkg")), ids=lambda p: p.name)
def test_every_answer_of_the_query_files(kb, path):
    answers = kb.query(path.read_text(encoding="utf-8"), source=str(path))
    value = answers[0] if len(answers) == 1 else list(answers)
    assert dumps(value, ensure_ascii=False) == json.dumps(value, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("value, message", [({1j: 1}, "keys must be str"), ([object()], "not JSON serializable"),
                                            ({"a": {1, 2}}, "not JSON serializable")])
def test_what_json_refuses_it_refuses(value, message):
    with pytest.raises(TypeError, match=message):
        json.dumps(value, indent=2)
    with pytest.raises(TypeError, match=message):
        dumps(value)


def test_special_floats_as_json():
    assert dumps([math.nan, -math.inf, 1e300, -0.0]) == json.dumps([math.nan, -math.inf, 1e300, -0.0], indent=2)
