"""The knowledge base as a whole: sources, coverage of the reference, shapes."""

from __future__ import annotations

import csv
import json
import re

import pytest

from recipekg.cite.entries import author_list
from recipekg.knowledge.resources import bundled_files, shapes_file
from recipekg.knowledge.terms import KB, RKG
from recipekg.knowledge.validate import validate
from support import REPO


def test_bundled_kb_has_no_violations():
    violations = validate(bundled_files(), shapes=shapes_file())
    assert [str(v) for v in violations] == []


def test_every_section_of_the_reference_is_covered(kb):
    s = kb.stats()
    assert s["uncovered_sections"] == []
    assert sum(x["of_reference"] for x in s["sections"]) == 38, "the reference's 38 headings"
    beyond = [x["section"] for x in s["sections"] if not x["of_reference"]]
    assert beyond and all(x.startswith("Beyond the reference") for x in beyond)


def test_papers_match_the_verified_bibliography(snap, shared):
    """Every paper of papers.tsv is in the KB with the TSV's title and arXiv id, its surnames
    opening the full author list, and the TSV's year and URL unless kb/bibliography.json
    records the TSV's value and says why the published version differs."""
    rows = list(csv.DictReader(open(shared / "reference" / "papers.tsv", encoding="utf-8"), delimiter="\t"))
    bib = {e["key"]: e for e in json.loads((REPO / "kb" / "bibliography.json").read_text(encoding="utf-8"))["entries"]}
    for row in rows:
        paper, entry = snap["papers"][row["key"]], bib[row["key"]]
        assert paper["title"] == row["title"]
        assert (paper["arxiv"] or "") == row["arxiv"]
        surnames = re.sub(r",?\s*et al\.?$", "", re.sub(r"\s*\([^)]*\)", "", row["authors"])).split(", ")
        listed = author_list(paper)
        assert [a["family"] for a in listed][:len(surnames)] == surnames, row["key"]
        assert len(listed) == len(surnames) or "et al" in row["authors"], row["key"]
        for field, mine, theirs in (("year", paper["year"], int(row["year"])), ("url", paper["url"], row["url"])):
            if mine != theirs:
                assert entry["tsv"][field] == theirs, f"{row['key']}: {field} differs from the TSV without a record"
                assert any(field in note.lower() for note in entry["disagrees_with_tsv"]), row["key"]
    bibliography = {r["key"] for r in rows}
    elsewhere = {k for k, e in bib.items() if e.get("defined_in")}  # vendor pages, papers added beyond the TSV
    assert set(snap["papers"]) == bibliography | elsewhere | {"reference"}
    for key in elsewhere:  # a paper the project added is verified like the TSV's: its checks recorded
        assert "WebPage" in snap["papers"][key]["types"] or bib[key]["checks"], key
    assert snap["papers"]["reference"]["types"] == ["Reference"]


def test_every_claim_cites_a_known_paper(snap):
    for kind in ("rules", "formulas", "constants", "facts"):
        for iri, item in snap[kind].items():
            assert item["sources"], iri
            assert all(s in snap["papers"] for s in item["sources"]), iri
            assert item["section"] in snap["sections"], iri
            if not set(item["sources"]) - {"reference"}:  # the reference's own judgement, typed so
                assert item["citations"]["reference"]["role"] == "reference", iri


def test_hardware_figures_match_hardware_tsv(snap, shared):
    rows = {r["id"]: r for r in csv.DictReader(open(shared / "reference" / "hardware.tsv", encoding="utf-8"),
                                                delimiter="\t")}
    ids = {"a100": "a100-80gb-sxm", "h100": "h100-sxm", "h200": "h200-sxm", "dgx-spark": "dgx-spark"}
    for name, row_id in ids.items():
        figures, row = snap["hardware"][KB.term(name)], rows[row_id]
        assert figures[RKG.memoryBytes] == float(row["memory_GB"]) * 1e9
        assert figures[RKG.bandwidthBytesPerSecond] == float(row["bandwidth_GBps"]) * 1e9
        if row["bf16_dense_TFLOPS"]:
            assert figures[RKG.bf16PeakFlopsPerSecond] == pytest.approx(float(row["bf16_dense_TFLOPS"]) * 1e12)
        else:
            assert RKG.bf16PeakFlopsPerSecond not in figures


def _in_section(snap, kind, suffix):
    return [x for x in snap[kind].values() if x["section"].endswith(suffix)]


@pytest.mark.parametrize("suffix,at_least", [
    ("data-scale-thresholds--vision", 5), ("data-scale-thresholds--nlp", 5),
    ("data-scale-thresholds--tabular", 4), ("data-scale-thresholds--time-series", 3),
    ("optimizer-selection-guide--when-to-use-what", 5),
    ("training-instability-at-scale--palm-loss-spike-strategy", 4),
    ("training-instability-at-scale--stability-techniques", 6),
    ("dgx-spark--dgx-spark-checklist", 8),
    ("dgx-spark--strategies--model-selection-for-dgx-spark", 6),
    ("architecture-decision-tree--master-flowchart-by-data-type", 19),
    ("architecture-decision-tree--compute-budget-flowchart", 5),
])
def test_every_row_and_leaf_is_a_rule(snap, suffix, at_least):
    assert len(_in_section(snap, "rules", suffix)) >= at_least


def test_flops_table_has_six_rows_consistent_with_6nd(snap):
    rows = [f for f in snap["facts"].values() if "ComputeEstimate" in f["types"]]
    assert len(rows) == 6
    for row in rows:
        assert row["flops"] == pytest.approx(6 * row["params"] * row["tokens"], rel=0.05)
        assert row["tokens"] == pytest.approx(20 * row["params"], rel=0.01)


def test_kinds_cover_the_reference(snap):
    kinds = {}
    for node in snap["nodes"].values():
        for k in node["kinds"]:
            kinds.setdefault(k, set()).add(node["id"])
    assert {"adamw", "adam-8bit", "adafactor", "sgd-momentum", "muon", "lamb", "lars", "lion",
            "schedule-free-adam", "soap"} <= kinds["optimizer"]
    assert {"qk-norm", "z-loss", "embedding-layernorm"} <= kinds["fix"] & kinds["technique"]
    # the reference's failure table has five rows; other symptoms people report are values
    # the reference gives no advice for, and say so
    failures = [n for n in snap["nodes"].values() if RKG.FailureMode in n["types"]]
    assert len([n for n in failures if not n.get("no_advice")]) == 5
    assert len(snap["tiers"]) == 5


def test_the_reference_disagreements_are_kept(snap):
    pairs = [(r, c) for r, rule in snap["rules"].items() for c in rule["contradicts"]]
    assert pairs, "the reference contradicts itself; both sides must be encoded"
    for r, c in pairs:
        assert snap["rules"][r]["section"] != snap["rules"][c]["section"] or r != c


def test_entity_ids_are_query_names(snap):
    for node in snap["nodes"].values():
        if node["kinds"]:
            assert re.fullmatch(r"[a-z][a-z0-9_-]*", node["id"]), node["id"]


def test_no_caveat_is_an_internal_note(snap):
    """A claim's rdfs:comment is shown to users as its caveat: an audit trail ("QA round 6, F6:
    ...", "Audit 11/02: ...") belongs in a Turtle comment beside it, not in the answer."""
    import re

    internal = re.compile(r"^(QA round \d|Audit \d+/\d+|audit \d+/\d+)")
    claims = [*snap["rules"].values(), *(snap.get("choice_properties") or {}).values(), *snap["nodes"].values()]
    notes = [c.get("caveat") for c in claims if c.get("caveat") and internal.match(c["caveat"])]
    assert not notes, notes[:3]


def test_the_widths_of_weights_agree_with_the_byte_constants_training_reads(kb):
    """Hostile round 7, 057: bf16's width at inference was a code default, so an extension's
    "bf16 is 1 bit" stood in for nothing bundled. The KB states every width plan serves weights
    in (rkg:quantity "weight-bits", each rkg:appliesTo its precision); those of the 16- and
    32-bit formats are the widths training's byte constants use, eight bits to the byte."""
    snap = kb.snap
    widths = {snap["nodes"][e]["id"]: c["value"] for c in snap["constants"].values()
              if c.get("quantity") == "weight-bits" for e in c.get("applies_to") or ()}
    assert {"bf16", "fp16", "fp32", "fp8", "int8", "int4"} <= set(widths)
    byte = {c["symbol"]: c["value"] for c in snap["constants"].values() if c.get("symbol")}
    assert widths["bf16"] / 8 == widths["fp16"] / 8 == byte["c_weight_bytes_per_param_bf16"]
    assert widths["fp32"] / 8 == byte["c_fp32_bytes_per_value"]
