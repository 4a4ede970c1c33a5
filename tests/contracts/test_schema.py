"""The published JSON Schema (``recipekg schema``) is valid draft 2020-12, generated from the
typed definitions, strict (an untyped field fails), and every answer the project knows of
validates against it: each golden answer, each answer to the case files, each error of the
error cases, lists of answers, and answers of a KB with an extension."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from recipekg.contracts.documents import NAMES_OF_DOCUMENTS, error_kinds, schema
from recipekg.errors import RecipeKGError
from recipekg.render.summary import summary, summary_answers
from support import CASES, EXTENSION, REPO, schema_errors


def _strict_errors(doc, name):
    """Errors against exactly document ``name`` (None: the whole answers'), never the other."""
    return list(Draft202012Validator(schema(name)).iter_errors(doc))

GOLDEN = sorted(REPO.glob("queries/*.expected.json"))
CASE_FILES = ("recommend", "explain", "plan", "practitioner", "situation", "parse")


def _answers(doc) -> list[dict]:
    return doc if isinstance(doc, list) else [doc]


@pytest.mark.parametrize("name", [None, *NAMES_OF_DOCUMENTS])
def test_every_document_is_a_valid_draft_2020_12_schema(name):
    doc = schema(name)
    Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads(json.dumps(doc)) == doc, "plain JSON"


def test_the_objects_are_closed_and_described():
    """Every object of the answers lists its keys (a field added without a type fails the
    validation tests) and says what it is."""
    defs = schema()["$defs"]
    objects = {k: v for k, v in defs.items() if v.get("type") == "object"}
    assert len(objects) > 40
    assert all(v["additionalProperties"] is False for v in objects.values())
    undescribed = sorted(k for k, v in objects.items() if not v.get("description"))
    assert len(undescribed) <= len(objects) // 4, undescribed


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_every_golden_answer_validates(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert schema_errors(doc) == []
    for answer in _answers(doc):
        assert schema_errors(answer, answer["statement"]) == []


@pytest.mark.parametrize("name", CASE_FILES)
def test_every_answer_of_the_cases_validates(kb, name):
    for case in json.loads((CASES / f"{name}.json").read_text(encoding="utf-8")):
        try:
            answers = kb.query(case["query"])
        except RecipeKGError as exc:  # a case may expect an error (the parse cases hold a few)
            assert schema_errors({"error": exc.to_dict()}, "error") == [], case["query"]
            continue
        doc = json.loads(json.dumps(answers[0] if len(answers) == 1 else list(answers)))
        assert schema_errors(doc) == [], case["query"]
        compact = json.loads(summary_answers(answers))
        assert schema_errors(compact, "summary") == [], case["query"]


def test_the_compact_and_the_whole_answers_are_told_apart():
    """A compact answer (``--format summary``) is not a whole one and the other way round: the
    two documents are disjoint, so neither validates by accident; a compact answer with a field
    its shape does not name, or a wrong type, fails."""
    import recipekg

    kb = recipekg.load()
    for text in ("recommend architecture where data = tabular and rows = 30k",
                 "plan where params = 7B and hardware = h100 and gpus = 8",
                 "explain vit where data = images and samples = 3000",
                 "recipe where model = llama-2-7b and method = qlora and hardware = rtx-4090 and gpus = 1"):
        (answer,) = kb.query(text)
        whole, compact = json.loads(json.dumps(answer)), summary(answer)
        assert schema_errors(compact, "summary") == [] and schema_errors(whole) == []
        assert _strict_errors(compact, None) and _strict_errors(whole, "summary")
        assert schema_errors(dict(compact, surprise=1), "summary")
        assert schema_errors(dict(compact, constraints="data = tabular"), "summary")


def test_every_error_of_the_error_cases_validates(kb):
    for case in json.loads((CASES / "parse_errors.json").read_text(encoding="utf-8")):
        with pytest.raises(RecipeKGError) as caught:
            kb.query(case["query"])
        assert schema_errors({"error": caught.value.to_dict()}) == [], case["query"]


def test_the_error_kinds_are_the_error_classes():
    from recipekg import errors

    kinds = {cls.kind for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, RecipeKGError)}
    assert set(error_kinds()) == kinds and {"syntax", "unknown-name", "internal"} <= kinds
    enum = schema("error")["$defs"]["ErrorDetail"]["properties"]["kind"]["enum"]
    assert enum == sorted(kinds)


def test_an_extensions_answers_validate(tmp_path):
    import recipekg

    ext = tmp_path / "ext.ttl"
    ext.write_text(EXTENSION.format(text="Extension rule."), encoding="utf-8")
    kb = recipekg.load([ext])
    for text in ("recommend architecture where data = tabular and rows = 30k", "explain lightgbm where data = tabular",
                 "recipe where data = tabular and rows = 30k"):
        (answer,) = kb.query(text)
        assert schema_errors(json.loads(json.dumps(answer))) == [], text


def test_wrong_documents_fail():
    """The schema is not vacuous: a field it does not know, a missing one, a wrong type, a name
    outside a registry and a lone answer in a list all fail."""
    (path,) = [p for p in GOLDEN if p.name == "plan.expected.json"]
    plan = _answers(json.loads(path.read_text(encoding="utf-8")))[0]
    assert schema_errors(plan) == []
    cases = [dict(plan, surprise=1), {k: v for k, v in plan.items() if k != "quantities"},
             dict(plan, quantities=[dict(plan["quantities"][0], value="7B")]),
             dict(plan, quantities=[dict(plan["quantities"][0], name="no_such_quantity")]),
             dict(plan, statement="predict"), [plan], {"error": {"kind": "syntax", "message": "m"}},
             {"error": dict(kind="no-such-kind", message="m", line=None, column=None, expected=[], suggestions=[])}]
    for wrong in cases:
        assert schema_errors(wrong), wrong if not isinstance(wrong, dict) else sorted(wrong)


def test_the_word_list_and_the_citations_validate(kb):
    """``recipekg vocab --format json`` (whole and per dimension) and ``recipekg cite --format
    csl-json`` (every paper of the KB) validate against their documents."""
    from recipekg.cite.csl import csl_item

    assert schema_errors(kb.vocab(), "vocab") == []
    for name in kb.snap["dimensions"]:
        assert schema_errors(kb.vocab(name), "vocab") == [], name
    items = [csl_item(p) for p in kb.snap["papers"].values()]
    assert len(items) > 50 and schema_errors(items, "citations") == []


def test_the_command_prints_each_document(tmp_path):
    from click.testing import CliRunner

    from recipekg.cli.main import main

    runner = CliRunner()
    every = runner.invoke(main, ["schema"])
    assert every.exit_code == 0 and json.loads(every.output) == schema()
    plan = runner.invoke(main, ["schema", "plan", "-o", str(tmp_path / "plan.json")])
    assert plan.exit_code == 0 and plan.output == ""
    assert json.loads((tmp_path / "plan.json").read_text(encoding="utf-8")) == schema("plan")
    wrong = runner.invoke(main, ["schema", "predict"])
    assert wrong.exit_code == 2 and "predict" in wrong.output
