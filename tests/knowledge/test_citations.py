"""Typed citations: every link from a claim to a source says what the source does for it
(states / supports / method / reference), the table is reviewed and generated, the wrong
links found by the citation audit are gone, and the validator catches a broken citation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from recipekg.knowledge.provenance import claims
from recipekg.knowledge.resources import bundled_files
from recipekg.knowledge.terms import CONST, FACT, FORMULA, KB, RULE
from recipekg.knowledge.validate import validate
from support import REPO, TURTLE_PREFIXES

ROLES = {"states", "supports", "method", "reference"}


def test_committed_citations_ttl_is_what_the_table_generates():
    out = subprocess.run([sys.executable, str(REPO / "tools" / "gen_citations.py")], capture_output=True,
                         text=True, check=True).stdout
    assert (REPO / "kb" / "citations.ttl").read_text(encoding="utf-8") == out, \
        "run: python tools/gen_citations.py > kb/citations.ttl"


def test_every_source_link_has_a_typed_citation(snap):
    """Every prov:wasDerivedFrom link of every claim and described node is typed."""
    n = 0
    for kind, iri, c in claims(snap):
        assert c["sources"], iri
        assert set(c["citations"]) == set(c["sources"]), iri
        for pid, cite in c["citations"].items():
            n += 1
            assert cite["typed"], f"{iri} -> {pid} has no typed citation"
            assert cite["role"] in ROLES, (iri, pid)
            assert (cite["role"] == "reference") == (pid == "reference"), (iri, pid)
            if cite["role"] == "states":
                assert cite["where"], f"{iri} -> {pid}: states without where"
    assert n >= 500


# The links the citation audit found wrong (a paper cited for something it does not say).
NO_LIST = [
    (FORMULA.term("chinchilla-optimal-params-from-flops"), "kaplan2020"),
    # (the 8-bit optimizer's -30% was cited to Dettmers et al., who state 75%: the constant is now
    # the range, the paper cited for its -75% end: test_the_caveats_say_what_the_papers_state)
    (RULE.term("dgx-spark-params-30b-70b-no-training"), "frantar2022"),
    (RULE.term("dgx-spark-params-30b-70b-no-training"), "lin2023awq"),
    (RULE.term("single-gpu-short-fine-tune"), "bekman2023"),
    (RULE.term("single-gpu-week-from-scratch"), "bekman2023"),
    (RULE.term("multi-gpu-week-from-scratch"), "bekman2023"),
    (RULE.term("multi-gpu-week-fine-tune"), "bekman2023"),
    (RULE.term("cluster-weeks-from-scratch"), "bekman2023"),
    (FACT.term("dgx-spark-vs-h100-power"), "nvidia-dgx-spark"),
]


@pytest.mark.parametrize("iri,pid", NO_LIST, ids=[f"{i.rsplit('/', 1)[1]}--{p}" for i, p in NO_LIST])
def test_the_wrong_links_are_gone(snap, iri, pid):
    claim = next(c for _, i, c in claims(snap) if i == iri)
    assert pid not in claim["sources"]
    assert pid not in claim["citations"]


def test_the_reference_judgements_of_the_no_list_cite_the_reference(snap):
    for iri in {i for i, _ in NO_LIST} - {FORMULA.term("chinchilla-optimal-params-from-flops")}:
        claim = next(c for _, i, c in claims(snap) if i == iri)
        assert claim["citations"]["reference"]["role"] == "reference", iri


def test_shazeer_backs_only_bandwidth_bound_decoding_and_qlora_is_a_caveat(snap):
    rule = snap["rules"][RULE.term("dgx-spark-params-gt-70b-not-recommended")]
    assert rule["citations"]["shazeer2019"]["role"] == "supports"
    assert rule["citations"]["reference"]["role"] == "reference"
    assert "65B" in rule["caveat"] and "48 GB" in rule["caveat"]
    assert RULE.term("dgx-spark-params-ge-70b-not-recommended") not in snap["rules"]


def test_the_caveats_say_what_the_papers_state(snap):
    params = snap["formulas"][FORMULA.term("chinchilla-optimal-params-from-flops")]
    assert "0.73" in params["caveat"] and params["citations"]["hoffmann2022"]["role"] == "states"
    quantized = snap["constants"][CONST.term("quantized-optimizer-state-memory")]
    assert (quantized["low"], quantized["high"]) == (-0.75, -0.3) and "75%" in quantized["caveat"]
    assert quantized["citations"]["reference"]["role"] == "reference"  # the -30% end
    assert quantized["citations"]["dettmers2021"]["role"] == "states"  # the -75% end, with its locator
    assert "Section 1.1" in quantized["citations"]["dettmers2021"]["where"]
    assert "GPTQ" in snap["rules"][RULE.term("dgx-spark-params-30b-70b-no-training")]["caveat"]


def test_gptq_and_awq_stay_for_quantized_inference(snap):
    rule = snap["rules"][RULE.term("dgx-spark-params-30b-70b-quantized-inference")]
    assert {rule["citations"][p]["role"] for p in ("frantar2022", "lin2023awq")} == {"method"}


def test_hardware_cites_the_reference_for_its_own_figures(snap):
    h100 = snap["nodes"][KB.term("h100")]
    assert h100["citations"]["nvidia-h100"]["role"] == "states"
    assert h100["citations"]["reference"]["role"] == "reference"


CITATION = TURTLE_PREFIXES + """
rule:ext-rule a rkg:Rule ;
    rdfs:label "Extension rule" ;
    rkg:text "LightGBM for our tables." ;
    rkg:recommends kb:lightgbm ;
    rkg:condition cond:data-tabular ;
    rkg:strength rkg:weak ;
    rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom paper:ke2017 .

cite:ext-rule--ke2017 a cito:Citation ;
    rdfs:label "ext-rule cites ke2017" ;
    cito:hasCitingEntity rule:ext-rule ;
    cito:hasCitedEntity {cited} ;
    cito:hasCitationCharacterization {role} {where}.
"""


@pytest.mark.parametrize("cited,role,where,message", [
    ("paper:ke2017", "cito:usesMethodIn", "", None),
    ("paper:ke2017", "cito:citesAsDataSource", '; rkg:where "Section 3" ', None),
    ("paper:ke2017", "cito:citesAsDataSource", "", "give rkg:where"),
    ("paper:ke2017", "cito:citesAsAuthority", "", "is for kb:reference"),
    ("paper:chen2016xgboost", "cito:usesMethodIn", "", "types a link that is not there"),
    ("paper:ke2017", "cito:citesAsEvidence", "", "cito:hasCitationCharacterization"),
])
def test_the_validator_checks_typed_citations(tmp_path, cited, role, where, message):
    path = tmp_path / "ext.ttl"
    path.write_text(CITATION.format(cited=cited, role=role, where=where), encoding="utf-8")
    found = [str(v) for v in validate(bundled_files() + [path])]
    if message is None:
        assert found == []
    else:
        assert any(message in v and v.startswith(str(path)) for v in found), found


def test_an_extension_may_leave_its_links_untyped(snap, tmp_path):
    path = tmp_path / "ext.ttl"
    path.write_text(CITATION.split("cite:ext-rule")[0], encoding="utf-8")
    assert [str(v) for v in validate(bundled_files() + [path])] == []
