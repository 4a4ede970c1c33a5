"""The provenance report: `recipekg audit` for the bundled KB and for an extension, and
docs/provenance.md, which is its Markdown and must stay current."""

from __future__ import annotations

import json

from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.knowledge.provenance import audit
from support import REPO, TURTLE_PREFIXES


def run(*args):
    result = CliRunner().invoke(main, ["audit", *args])
    return result.exit_code, result.output


def test_docs_provenance_is_the_audit_of_the_bundled_kb():
    code, out = run("--format", "markdown")
    assert code == 0, out
    assert (REPO / "docs" / "provenance.md").read_text(encoding="utf-8") == out, \
        "run: recipekg audit --format markdown > docs/provenance.md"


def test_the_bundled_kb_report_counts_every_link_by_role(snap):
    r = audit(snap)
    assert r["gaps"] == [] and r["untyped"] == 0
    assert sum(r["by_role"].values()) == r["links"] == r["typed"]
    assert all(r["by_role"][role] > 0 for role in ("states", "supports", "method", "reference"))
    alone = {c["claim"] for c in r["reference_only"]}
    assert {"rule:single-gpu-short-fine-tune", "rule:cluster-weeks-from-scratch",
            "rule:dgx-spark-params-30b-70b-no-training"} <= alone


def test_audit_text_and_json_exit_0():
    code, out = run()
    assert code == 0 and out.startswith("provenance of the bundled KB")
    code, out = run("--format", "json")
    assert code == 0 and json.loads(out)["scope"] == "bundled KB"


EXTENSION = TURTLE_PREFIXES + """
rule:ext-typed a rkg:Rule ;
    rdfs:label "Extension: typed" ;
    rkg:text "LightGBM for our tables." ;
    rkg:recommends kb:lightgbm ; rkg:condition cond:data-tabular ; rkg:strength rkg:weak ;
    rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom paper:ke2017, paper:grinsztajn2022 .

cite:ext-typed--ke2017 a cito:Citation ;
    rdfs:label "ext-typed cites ke2017" ;
    cito:hasCitingEntity rule:ext-typed ; cito:hasCitedEntity paper:ke2017 ;
    cito:hasCitationCharacterization cito:citesAsDataSource .

rule:ext-reference a rkg:Rule ;
    rdfs:label "Extension: the reference alone" ;
    rkg:text "XGBoost for our tables." ;
    rkg:recommends kb:xgboost ; rkg:condition cond:data-tabular ; rkg:strength rkg:weak ;
    rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom kb:reference .
"""


def test_audit_of_an_extension_lists_its_own_claims_and_gaps(tmp_path):
    path = tmp_path / "ext.ttl"
    path.write_text(EXTENSION, encoding="utf-8")
    code, out = run(str(path), "--format", "json")
    assert code == 0, out
    r = json.loads(out)
    assert r["scope"] == "extension" and r["claims"] == 2 and r["links"] == 3
    assert r["by_role"] == {"states": 1, "supports": 1, "method": 0, "reference": 1}
    gaps = {(g["claim"], g["gap"], g.get("source")) for g in r["gaps"]}
    assert gaps == {("rule:ext-typed", "untyped", "grinsztajn2022"),
                    ("rule:ext-typed", "states-without-where", "ke2017"),
                    ("rule:ext-reference", "rule-reference-only", None),
                    ("rule:ext-reference", "untyped", "reference")}
    code, out = run(str(path))
    assert code == 0 and "rule:ext-typed: ke2017 states the claim: say where" in out


def test_audit_of_a_missing_file_is_a_user_error(tmp_path):
    code, out = run(str(tmp_path / "missing.ttl"))
    assert code == 2 and "no such file" in out


def test_paper_and_papers_count_every_link_whatever_its_role(snap):
    from recipekg.knowledge.provenance import claims

    citing = {iri for kind, iri, c in claims(snap) if "kaplan2020" in c["sources"] and kind not in ("hardware", "entity")}
    result = CliRunner().invoke(main, ["paper", "kaplan2020", "--format", "json"])
    back = json.loads(result.output)
    assert {c["iri"] for c in back["claims"]} == citing
    assert {c["role"] for c in back["claims"]} == {"states", "supports"}
    rows = json.loads(CliRunner().invoke(main, ["papers", "--format", "json"]).output)
    kaplan = next(r for r in rows if r["id"] == "kaplan2020")
    assert kaplan["claims"] == len(citing) == sum(kaplan["roles"].values())
