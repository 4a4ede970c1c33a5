"""What several test modules share: where the repository and ../shared are, a valid
extension file, and the environment for running the CLI in a subprocess."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CASES = REPO / "tests" / "cases"


def subprocess_env(**extra) -> dict:
    """The environment for ``python -m recipekg`` in a child process: the recipekg these
    tests import (the installed wheel, or ``src/`` when run from a checkout)."""
    import recipekg

    env = dict(os.environ, **extra)
    src = str(REPO / "src")
    if Path(recipekg.__file__).resolve().is_relative_to(Path(src).resolve()):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


# The prefixes every extension file written by a test declares (unused ones are harmless).
TURTLE_PREFIXES = "".join(f"@prefix {name}: <{iri}> .\n" for name, iri in (
    ("rkg", "https://w3id.org/recipekg/ns#"), ("kb", "https://w3id.org/recipekg/id/"),
    ("rule", "https://w3id.org/recipekg/rule/"), ("cond", "https://w3id.org/recipekg/cond/"),
    ("const", "https://w3id.org/recipekg/const/"), ("dim", "https://w3id.org/recipekg/dim/"),
    ("paper", "https://w3id.org/recipekg/paper/"), ("sec", "https://w3id.org/recipekg/section/"),
    ("cite", "https://w3id.org/recipekg/citation/"), ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"), ("prov", "http://www.w3.org/ns/prov#"),
    ("cito", "http://purl.org/spar/cito/")))

# A valid one-rule extension file; fill "{text}" with the rule text (str.format).
EXTENSION = """\
@prefix rkg:  <https://w3id.org/recipekg/ns#> .
@prefix kb:   <https://w3id.org/recipekg/id/> .
@prefix rule: <https://w3id.org/recipekg/rule/> .
@prefix cond: <https://w3id.org/recipekg/cond/> .
@prefix sec:  <https://w3id.org/recipekg/section/> .
@prefix paper: <https://w3id.org/recipekg/paper/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix prov: <http://www.w3.org/ns/prov#> .

rule:ext-tabular-choice a rkg:Rule ;
    rdfs:label "Extension: tabular data -> LightGBM" ;
    rkg:text "{text}" ;
    rkg:recommends kb:lightgbm ;
    rkg:condition cond:data-tabular ;
    rkg:strength rkg:strong ;
    rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom paper:grinsztajn2022 .
"""


def spec_hardware_names(shared: Path) -> list[str]:
    """The hardware names of the spec's "`plan`, grown" section, in its order, read from the
    spec itself ("a100 (80GB SXM), a100-40gb, h100 (SXM), ... and dgx-spark")."""
    import re

    text = (shared / "spec" / "query-language.md").read_text(encoding="utf-8")
    sentence = text.split("`hardware` names include", 1)[1].split(", each with sourced figures", 1)[0]
    sentence = re.sub(r"\s*\([^)]*\)", "", " ".join(sentence.split())).replace(" and ", ", ")
    return [n.strip() for n in sentence.split(",") if n.strip()]


def ranked_ids(results: list[dict]) -> list[str]:
    """The ids of ranked results in order, each family entry followed by its members (a family
    shown once stands for the members the same rules rank: reason/families.py)."""
    return [i for r in results for i in (r["id"], *(m["id"] for m in r.get("members", ())))]


def entry_ids(result: dict) -> list[str]:
    """A result's id and its members' ids."""
    return [result["id"], *(m["id"] for m in result.get("members", ()))]


def scores_of(answer: dict) -> dict[str, float]:
    """Every ranked choice's score, members scored as their entry, and a choice a property
    rules out (``excluded``) as below every advised one (-inf)."""
    out = {i: r["score"] for r in answer["results"] for i in entry_ids(r)}
    out.update({e["id"]: float("-inf") for e in answer.get("excluded", ())})
    return out


def schema_errors(doc, name: str | None = None) -> list[str]:
    """Where ``doc`` breaks the published JSON Schema (``recipekg schema [name]``), as
    ``path: message`` lines (empty when it validates), the innermost reason of each breach.
    Without a name, a compact answer (``--format summary``, ``?detail=0``, MCP's default: it says
    how to get the ``detail``) is checked against the ``summary`` document, any other against
    the answers' (the two are disjoint: tests/contracts/test_schema.py)."""
    from jsonschema.exceptions import best_match

    if name is None and _compact(doc):
        name = "summary"
    out = []
    for error in _validator(name).iter_errors(doc):
        error = best_match([error])
        while error.context:
            error = best_match(error.context)
        out.append(f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message[:300]}")
    return out


def _compact(doc) -> bool:
    docs = doc if isinstance(doc, list) else [doc]
    return bool(docs) and all(isinstance(d, dict) and isinstance(d.get("detail"), str) for d in docs)


_VALIDATORS: dict = {}


def _validator(name: str | None):
    if name not in _VALIDATORS:
        from jsonschema import Draft202012Validator

        from recipekg.contracts.documents import schema

        _VALIDATORS[name] = Draft202012Validator(schema(name))
    return _VALIDATORS[name]
