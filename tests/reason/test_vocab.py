"""The word list (`recipekg vocab`, `KnowledgeBase.vocab`) and the forgiving language: every
dimension, value and choice of the snapshot is listed, each dimension with a definition and
an example that answers; words, several-word values and values without advice are read as a
person means them; a suggestion that only looks like a misspelt word is flagged."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.errors import RecipeKGError
from recipekg.names import is_misspelling


def run(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def doc(kb):
    return kb.vocab()


def _statement(dim: dict, example: str) -> str:
    """A statement using the example: plan's own dimensions size a 7B model."""
    return f"plan where params = 7B and {example}" if dim["plan_only"] else f"recommend architecture where {example}"


# ------------------------------------------------------------------ the document covers the snapshot

def test_every_dimension_is_listed_with_definition_and_example(doc, snap):
    listed = {d["name"]: d for d in doc["dimensions"]}
    assert set(listed) == set(snap["dimensions"])
    for name, dim in snap["dimensions"].items():
        d = listed[name]
        assert d["definition"], f"dimension {name} has no skos:definition"
        assert d["example"], f"dimension {name} has no skos:example"
        assert sorted(d["aliases"]) == sorted(dim["aliases"])


def test_every_example_answers_and_is_about_its_dimension(kb, doc):
    for d in doc["dimensions"]:
        answer, = kb.query(_statement(d, d["example"]))
        given = [c["dimension"] for c in answer["constraints"] if not c.get("derived_from")]
        assert d["name"] in given, (d["name"], d["example"], given)


def test_every_value_and_spelling_is_listed(doc, snap):
    listed = {d["name"]: d for d in doc["dimensions"]}
    for name, dim in snap["dimensions"].items():
        if dim["kind"] != "categorical":
            assert "values" not in listed[name]
            continue
        values = {v["id"]: v for v in listed[name]["values"]}
        assert set(values) == {snap["nodes"][iri]["id"] for iri in dim["values"].values()}
        for spelling, iri in dim["values"].items():
            v = values[snap["nodes"][iri]["id"]]
            assert spelling == v["id"] or spelling in v["aliases"], (name, spelling)
            assert v["label"] == snap["nodes"][iri]["label"]


def test_broader_and_narrower_are_inverse(doc):
    for d in doc["dimensions"]:
        values = {v["id"]: v for v in d.get("values", [])}
        for v in values.values():
            for b in v["broader"]:
                if b in values:
                    assert v["id"] in values[b]["narrower"], (d["name"], v["id"], b)
            for n in v["narrower"]:
                assert v["id"] in values[n]["broader"], (d["name"], v["id"], n)


def test_every_choice_of_every_kind_is_listed(doc, snap):
    listed = {(k["kind"], c["id"]) for k in doc["kinds"] for c in k["choices"]}
    expected = {(kind, snap["nodes"][iri]["id"]) for iri in snap["rule_index"]["choices"].values()
                for kind in snap["nodes"][iri]["kinds"]}
    assert listed == expected and {k for k, _ in listed} == set(snap["kinds"])


def test_one_dimension_by_any_spelling(kb):
    assert [d["name"] for d in kb.vocab("vram")["dimensions"]] == ["gpu-memory"]
    assert kb.vocab("symptom")["kinds"] == []


# ------------------------------------------------------------------ the command's three formats

def test_cli_json_is_the_document(doc):
    code, out = run("vocab", "--format", "json")
    assert code == 0 and json.loads(out) == doc


def test_cli_text_names_every_dimension_example_and_value(doc):
    code, out = run("vocab")
    assert code == 0
    for d in doc["dimensions"]:
        assert f"\n{d['name']}" in out and f"example: {d['example']}" in out
        for v in d.get("values", []):
            assert f"    {v['id']} — {v['label']}" in out


def test_cli_markdown_has_a_heading_and_table_per_dimension(doc):
    code, out = run("vocab", "--format", "markdown")
    assert code == 0 and out.startswith("# recipekg vocabulary")
    for d in doc["dimensions"]:
        assert f"### `{d['name']}`" in out and f"- example: `{d['example']}`" in out
    assert "| `slow-convergence` |" in out


def test_cli_unknown_dimension_is_exit_2_with_a_suggestion():
    result = CliRunner().invoke(main, ["vocab", "symptm"])
    assert result.exit_code == 2
    assert "unknown dimension 'symptm'" in result.output and "'symptom'" in result.output
    assert "Traceback" not in result.output


# ------------------------------------------------------------------ the forgiving language

@pytest.mark.parametrize("query,dimension,value,given_as", [
    ("recommend optimizer where prefer = low-memory", "prefer", "low-memory", None),
    ("recommend optimizer where prefer = low memory", "prefer", "low-memory", "low memory"),
    ("recommend optimizer where prefer = Low Memory", "prefer", "low-memory", "low memory"),
    ("recommend architecture where data = images and task = object detection", "task", "object-detection",
     "object detection"),
    ("recommend architecture where data = images and task = semantic segmentation", "task", "segmentation",
     "semantic segmentation"),
    ("recommend fix where symptom = slow convergence", "symptom", "slow-convergence", "slow convergence"),
    ("recommend fix where symptom = Slow-Convergence", "symptom", "slow-convergence", None),
    ("recommend fix where symptom = loss plateau", "symptom", "slow-convergence", "loss plateau"),
    ("recommend optimizer where prefer = memory", "prefer", "low-memory", "memory"),
])
def test_forgiving_names_say_what_was_understood(kb, query, dimension, value, given_as):
    answer, = kb.query(query)
    c, = [c for c in answer["constraints"] if c["dimension"] == dimension]
    assert c["value"] == value
    assert c.get("given_as") == given_as


@pytest.mark.parametrize("query,dimension,value", [
    ("plan where params = 7 billion", "params", 7e9),
    ("plan where params = 7B and tokens = 1.4 trillion", "tokens", 1.4e12),
    ("recommend architecture where data = tabular and rows = 2 thousand", "samples", 2e3),
    ("recommend architecture where data = text and samples = 70 million", "samples", 7e7),
])
def test_numbers_in_words(kb, query, dimension, value):
    answer, = kb.query(query)
    c, = [c for c in answer["constraints"] if c["dimension"] == dimension]
    assert c["value"] == value


def test_a_missing_comma_in_a_list_stays_an_error(kb):
    with pytest.raises(RecipeKGError):
        kb.query("recommend architecture where data in (images text)")


def _gaps(snap):
    for name, dim in snap["dimensions"].items():
        for iri in sorted(set(dim["values"].values())):
            if snap["nodes"][iri].get("no_advice"):
                yield name, snap["nodes"][iri]["id"]


def test_the_kb_has_values_without_advice(snap):
    gaps = set(_gaps(snap))
    assert {("task", "object-detection"), ("task", "segmentation"), ("symptom", "slow-convergence")} <= gaps


def test_each_value_without_advice_says_so_and_never_substitutes(kb, snap):
    for name, value in _gaps(snap):
        kind = "fix" if name == "symptom" else "architecture"
        text = f"recommend {kind} where {name} = {value}"
        answer, = kb.query(text)
        c, = [c for c in answer["constraints"] if c["dimension"] == name]
        gap, = c["no_advice"]
        assert gap["value"] == value and gap["message"] and gap["nearest_query"], gap
        code, out = run("query", text)
        assert code == 0 and f"no advice: {name} = {value}" in out
        assert "nearest advice it has (a different question, not this answer)" in out
        # the nearest advice is a statement that answers, and it is not what was answered
        nearest, = kb.query(gap["nearest_query"])
        assert not any(x.get("no_advice") for x in nearest["constraints"])
        assert answer["query"] == text and nearest["query"] != text
        assert gap["nearest_section"] in {s["path"] for s in snap["sections"].values()}


def test_no_rule_silently_answers_a_symptom_without_advice(kb):
    answer, = kb.query("recommend fix where symptom = slow convergence")
    assert answer["results"] == []


# ------------------------------------------------------------------ misspellings

def _error(kb, text):
    with pytest.raises(RecipeKGError) as info:
        kb.query(text)
    return info.value


@pytest.mark.parametrize("typed,suggested,different", [
    ("slow-divergance", "slow-divergence", "slow-convergence"),
    ("slow-convergance", "slow-convergence", "slow-divergence"),
    ("segmentatoin", "segmentation", "generation"),
])
def test_a_lookalike_of_a_different_concept_is_flagged(kb, typed, suggested, different):
    dim = "symptom" if "slow" in typed else "task"
    err = _error(kb, f"recommend fix where {dim} = {typed}")
    assert suggested in err.suggestions and different in err.suggestions
    assert any(f"'{different}' is a different {dim}" in n for n in err.notes)
    assert not any(f"'{suggested}' is a different" in n for n in err.notes)
    assert err.to_dict()["notes"] == err.notes and "note: " in str(err)


def test_a_plain_typo_has_no_note(kb):
    err = _error(kb, "recommend architecture where data = tabluar")
    assert err.suggestions == ["tabular"] and err.notes == [] and "notes" not in err.to_dict()


def test_every_suggestion_is_a_typo_or_flagged(kb, snap):
    """Over every value of every dimension, a one-letter slip and a swap of two letters: each
    suggestion of the error either is a spelling within a slip of what was typed, or has a note."""
    for name, dim in snap["dimensions"].items():
        for spelling in list(dim["values"])[:40]:
            for typed in {spelling + "x", spelling[:1] + spelling[2:1:-1] + spelling[1:2] + spelling[3:]}:
                if typed in dim["values"] or not typed[:1].isalpha():
                    continue
                try:
                    kb.query(f"recommend architecture where {name} = {typed}")
                    continue
                except RecipeKGError as exc:
                    err = exc
                for s in err.suggestions:
                    spellings = [k for k, iri in dim["values"].items() if snap["nodes"][iri]["id"] == s]
                    assert any(is_misspelling(typed, k) for k in spellings) or \
                        any(f"'{s}' is a different" in n for n in err.notes), (typed, s, err.notes)
