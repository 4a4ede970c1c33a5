"""Every command of the command line has a method on the loaded knowledge base that returns
the data its ``--format json`` prints (:mod:`recipekg.commands`), shown in a notebook as HTML."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main

PLAN = "params = 7B and hardware = h100 and gpus = 8"


def cli_json(*args):
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("call, args", [
    (lambda kb: kb.plan(PLAN), ["plan", *f"where {PLAN}".split()]),
    (lambda kb: kb.explain("vit", "data = images and samples = 3000"), ["explain", "vit", *"where data = images and samples = 3000".split()]),
    (lambda kb: kb.recipe("data = tabular and rows = 30k"), ["recipe", *"where data = tabular and rows = 30k".split()]),
    (lambda kb: kb.recommend("fix", "symptom = loss-spike", top=2), ["query", "recommend fix where symptom = loss-spike top 2"]),
    (lambda kb: kb.stats(), ["stats"]),
    (lambda kb: kb.vocab("symptom"), ["vocab", "symptom"]),
    (lambda kb: kb.papers(), ["papers"]),
    (lambda kb: kb.paper("hoffmann2022"), ["paper", "hoffmann2022"]),
    (lambda kb: kb.audit(), ["audit"]),
])
def test_a_method_returns_what_the_command_prints_as_json(kb, call, args):
    got = call(kb)
    assert json.loads(json.dumps(got)) == cli_json(*args)
    assert "<table" in got._repr_html_() or "<pre>" in got._repr_html_()


def test_cite_export_and_validate_return_what_the_commands_print(kb, tmp_path):
    csl = CliRunner().invoke(main, ["cite", "--choice", "lightgbm", "--format", "csl-json"])
    assert kb.cite(choice="lightgbm") == json.loads(csl.stdout)
    assert "<table" in kb.cite(choice="lightgbm")._repr_html_()
    bib = CliRunner().invoke(main, ["cite", "--paper", "hoffmann2022", "--format", "bibtex"])
    assert kb.cite(paper="hoffmann2022", format="bibtex").strip() == bib.stdout.strip()
    out = tmp_path / "kb.nt"
    assert CliRunner().invoke(main, ["export", "--format", "ntriples", "-o", str(out)]).exit_code == 0
    assert kb.export("ntriples") == out.read_bytes()
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix rkg: <https://w3id.org/recipekg/ontology#> .\n<x> rkg:strength \n", encoding="utf-8")
    violations = kb.validate([str(bad)], shacl=False)
    printed = CliRunner().invoke(main, ["validate", "--no-shacl", str(bad)])
    assert printed.exit_code == 2 and violations
    assert [f"{v['file']}:{v['line']}: {v['message']}" for v in violations] == printed.stdout.splitlines()
    assert kb.validate(shacl=False) == []


def test_recipe_emit_is_the_configuration_the_cli_writes(kb, tmp_path):
    out = tmp_path / "ds.json"
    where = "data = text and task = generation and method = pretrain and params = 7B and hardware = h100 and gpus = 64"
    done = CliRunner().invoke(main, ["recipe", *f"where {where}".split(), "--emit", "deepspeed", "-o", str(out)])
    assert done.exit_code == 0 and kb.recipe(where, emit="deepspeed") == json.loads(out.read_text())
