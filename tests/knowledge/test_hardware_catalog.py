"""The hardware catalog (issue 12): every accelerator the spec names is in the KB with its
figures sourced, the figures are the vendors' (tests/data/hardware-datasheets.tsv, each row
with where it was read), and plan answers on each with that device's figures."""

from __future__ import annotations

import csv

import pytest

from recipekg.knowledge.terms import KB, RKG
from support import REPO, spec_hardware_names

TABLE = REPO / "tests" / "data" / "hardware-datasheets.tsv"
UNITS = {"GB": 1e9, "GiB": 2 ** 30, "GB/s": 1e9, "TB/s": 1e12, "TFLOPS": 1e12, "PFLOPS": 1e15}
PROPERTY = {"memory": RKG.memoryBytes, "bandwidth": RKG.bandwidthBytesPerSecond, "bf16": RKG.bf16PeakFlopsPerSecond,
            "fp16": RKG.fp16PeakFlopsPerSecond, "fp8": RKG.fp8PeakFlopsPerSecond,
            "interconnect": RKG.interconnectBytesPerSecond}
#: Nodes without a dense 16-bit peak: no vendor figure could be verified (their notes say so).
NO_PEAK = {"a10g", "rtx-3090", "dgx-spark"}


def rows() -> list[dict]:
    with open(TABLE, encoding="utf-8") as f:
        return list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"))


def resolve(snap, name: str) -> str:
    return snap["dimensions"]["hardware"]["values"][name]


def test_the_spec_lists_the_names_this_test_reads(shared):
    names = spec_hardware_names(shared)
    assert len(names) == 19 and names[0] == "a100" and names[-1] == "dgx-spark", names
    assert {"a100-40gb", "h100-pcie", "tpu-v5e", "rtx-4090", "mi300x"} <= set(names)


def test_every_spec_name_is_a_hardware_node_and_old_aliases_still_resolve(snap, shared):
    for name in spec_hardware_names(shared):
        iri = resolve(snap, name)
        assert iri == KB.term(name), name
        assert iri in snap["hardware"], name
    for alias, node in (("a100-80gb", "a100"), ("h100-sxm", "h100"), ("h200-141gb", "h200"), ("spark", "dgx-spark"),
                        ("gb10", "dgx-spark"), ("a100-sxm", "a100")):
        assert resolve(snap, alias) == KB.term(node), alias


def test_every_hardware_node_has_memory_bandwidth_and_a_16_bit_peak_with_a_typed_vendor_source(snap):
    missing_peak = set()
    for iri, figures in snap["hardware"].items():
        node = snap["nodes"][iri]
        assert figures.get(RKG.memoryBytes, 0) > 0, node["id"]
        assert figures.get(RKG.bandwidthBytesPerSecond, 0) > 0, node["id"]
        stating = [p for p, c in node["citations"].items() if c["typed"] and c["role"] == "states"]
        assert stating, f"{node['id']}: no source states its figures"
        assert all("WebPage" in snap["papers"][p]["types"] and c["where"] for p in stating
                   for c in [node["citations"][p]]), node["id"]
        if not (figures.get(RKG.bf16PeakFlopsPerSecond) or figures.get(RKG.fp16PeakFlopsPerSecond)):
            missing_peak.add(node["id"])
    assert missing_peak == NO_PEAK


@pytest.mark.parametrize("name", sorted(NO_PEAK - {"dgx-spark"}))
def test_a_node_without_a_peak_says_which_figure_is_missing(snap, name):
    notes = snap["nodes"][KB.term(name)]["notes"]
    assert notes.startswith("Missing: the dense bf16/fp16 peak"), notes


@pytest.mark.parametrize("row", rows(), ids=lambda r: f"{r['hardware']}-{r['figure']}")
def test_kb_figures_equal_the_published_ones(snap, row):
    value = float(row["value"]) * UNITS[row["unit"]] / int(row["per"])
    if row["sparse"] == "yes":
        value /= 2
    figures = snap["hardware"][KB.term(row["hardware"])]
    assert figures.get(PROPERTY[row["figure"]]) == pytest.approx(value, rel=1e-6), row
    node = snap["nodes"][KB.term(row["hardware"])]
    assert row["source"] in node["sources"], row


def test_the_table_covers_memory_and_bandwidth_of_every_node(snap):
    covered = {(r["hardware"], r["figure"]) for r in rows()}
    for iri in snap["hardware"]:
        name = snap["nodes"][iri]["id"]
        assert {(name, "memory"), (name, "bandwidth")} <= covered, name


def test_figures_no_check_confirmed_stay_out(snap):
    h = {snap["nodes"][i]["id"]: f for i, f in snap["hardware"].items()}
    for name in ("a10g", "rtx-3090", "dgx-spark"):
        assert not {RKG.bf16PeakFlopsPerSecond, RKG.fp16PeakFlopsPerSecond, RKG.fp8PeakFlopsPerSecond} & set(h[name])
    for name in ("a100", "a100-40gb", "v100", "t4", "mi250x", "tpu-v4", "tpu-v5e"):   # no fp8 tensor cores or no figure
        assert RKG.fp8PeakFlopsPerSecond not in h[name], name
    assert RKG.bf16PeakFlopsPerSecond not in h["v100"] and RKG.bf16PeakFlopsPerSecond not in h["t4"]
    for name in ("mi300x", "tpu-v4", "tpu-v5p", "mi250x", "h100-pcie"):   # sources disagree or give no per-device figure
        assert RKG.interconnectBytesPerSecond not in h[name], name
