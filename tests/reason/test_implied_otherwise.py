"""A given constraint that another given one says otherwise about (``rkg:impliesValue``):
``task = forecasting`` is done on time series, ``data = tabular`` disagrees. The answer reads
the value as given and says so once, in the JSON and in every text format."""

from __future__ import annotations

from support import schema_errors


def test_a_disagreeing_value_is_marked_once_and_read_as_given(kb):
    from recipekg.render.answers import render_answers

    (a,) = kb.query("recommend architecture where task = forecasting and data = tabular")
    (data,) = [c for c in a["constraints"] if c["dimension"] == "data"]
    assert data["value"] == "tabular" and "derived_from" not in data
    assert data["implied_otherwise"] == [{"dimension": "task", "value": ["forecasting"], "implies": ["time-series"]}]
    assert not schema_errors(a)
    for fmt in ("text", "markdown"):
        out = render_answers([a], fmt)
        assert out.count("task = forecasting implies data = time-series, which data = tabular does not agree") == 1


def test_an_agreeing_broader_or_narrower_value_is_no_disagreement(kb):
    for text in ("recommend architecture where task = forecasting and data = time-series",
                 "recommend architecture where task = segmentation and data = visual",
                 "recommend architecture where task = ner and data = text"):
        (a,) = kb.query(text)
        assert not any(c.get("implied_otherwise") for c in a["constraints"]), text
