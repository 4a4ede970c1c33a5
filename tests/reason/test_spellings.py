"""The spellings people use (issue 28): lowercase suffixes on counts, thousands separators
said plainly, suggestions by substring and by model number, an alias suggested as its choice."""

from __future__ import annotations

import pytest

from recipekg.errors import RecipeKGError


def error(kb, text) -> RecipeKGError:
    with pytest.raises(RecipeKGError) as caught:
        kb.query(text)
    return caught.value


@pytest.mark.parametrize("typed, upper", [("7b", "7B"), ("1.5m", "1.5M"), ("1.4t", "1.4T"), ("30k", "30K")])
def test_lowercase_suffixes_mean_what_the_capital_ones_mean(kb, typed, upper):
    (low,) = kb.query(f"plan where params = {typed} and hardware = h100 and gpus = 8")
    (high,) = kb.query(f"plan where params = {upper} and hardware = h100 and gpus = 8")
    assert [q["value"] for q in low["quantities"]] == [q["value"] for q in high["quantities"]]


def test_units_still_win_over_suffixes(kb):
    (a,) = kb.query("plan where params = 7B and gpu-memory = 80gb and time = 30min")
    given = {c["dimension"]: c["value"] for c in a["constraints"]}
    assert given["gpu-memory"] == 8e10 and given["time"] == 0.5
    assert "30min" in error(kb, "plan where params = 7B and time = 30m").suggestions


@pytest.mark.parametrize("text, proposed", [
    ("recommend architecture where data = tabular and rows = 30,000", ["30000", "30k"]),
    ("plan where params = 1,500,000,000 and gpus = 8", ["1500000000", "1.5B"]),
])
def test_a_thousands_separator_is_an_error_that_proposes_the_number(kb, text, proposed):
    e = error(kb, text)
    assert e.suggestions == proposed and "thousands separators" in e.message
    written = next(word for word in text.split() if "," in word)
    assert e.column == text.index(written) + 1 and e.length == len(written)


def test_in_a_list_a_comma_separates_values_and_1000_written_with_one_is_an_error(kb):
    e = error(kb, "recommend architecture where data = tabular and rows in (1,000, 20k)")
    assert "reads as two values" in e.message and e.suggestions[0] == "1000"
    (a,) = kb.query("recommend architecture where data = tabular and rows in (1, 20k)")
    assert a["constraints"][1]["value"] == [1.0, 20000.0]


@pytest.mark.parametrize("text, suggested", [
    ("plan where hardware = 4090", ["rtx-4090"]),
    ("plan where model = 70b", ["llama-2-70b", "llama-3-70b"]),
    ("plan where hardware = rtx4090", ["rtx-4090"]),
    ("explain boost", ["xgboost"]),
])
def test_suggestions_by_substring_and_model_number(kb, text, suggested):
    found = error(kb, text).suggestions
    assert all(s in found for s in suggested), found


def test_an_alias_is_suggested_as_its_choice_once(kb, snap):
    e = error(kb, "explain lightgmb")
    assert e.suggestions[0] == "lightgbm" and "light-gbm" not in e.suggestions
    assert snap["rule_index"]["choices"]["light-gbm"] == snap["rule_index"]["choices"]["lightgbm"]
