"""Newer evidence beside the reference's judgement, each from its own section beyond the reference.

A tabular foundation model beside boosted trees on small tables (kb/data-thresholds.ttl,
docs/research/architecture-by-data-size.md): TabPFN's paper (Hollmann et al., Nature 2025) reports
its untuned default beating tuned tree ensembles on tables of up to 10,000 samples; the
reference's strong judgement for trees stays the pick and TabPFN comes next, from its own
section beyond the reference; above its evaluated size it is not advised. Its regime (in-context
learning) has no learning rate, optimizer or trainer config."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("query", [
    "recommend architecture where data = tabular and task = classification and rows = 1500 and hardware = t4",
    "recommend architecture where data = tabular and task = regression and rows = 400",
    "recommend architecture where data = tabular and rows = 10k",
])
def test_small_tables_get_trees_then_tabpfn_from_its_paper(kb, query):
    (a,) = kb.query(query)
    assert a["decision"]["pick"] == "gradient-boosted-trees"
    assert a["decision"]["runner_ups"][:1] == ["tabpfn"]
    tabpfn = next(r for r in a["results"] if r["id"] == "tabpfn")
    assert tabpfn["group"] == "matches" and tabpfn["score"] < a["results"][0]["score"]
    (why,) = tabpfn["because"]
    assert [s["id"] for s in why["sources"]] == ["hollmann2025"]
    assert why["section"].startswith("Beyond the reference")


@pytest.mark.parametrize("rows", ["100k", "1M"])
def test_large_tables_do_not_get_tabpfn(kb, rows):
    (a,) = kb.query(f"recommend architecture where data = tabular and rows = {rows}")
    assert "tabpfn" not in [r["id"] for r in a["results"] if r["group"] == "matches"]


def test_its_evaluated_size_is_a_property_with_its_source(kb):
    (e,) = kb.query("explain tabpfn where data = tabular and rows = 50k")
    prop = next(p for p in e["properties"] if p["id"] == "tabpfn-up-to-10k-samples")
    assert prop["value"] == 10000 and prop["unit"] == "samples" and prop["verdict"] == "note"
    assert prop["sources"][0]["id"] == "hollmann2025" and prop["sources"][0]["role"] == "states"


@pytest.mark.parametrize("architecture, regime", [("tabpfn", "in-context-learning"), ("arima", "statistical-fitting")])
def test_a_recipe_outside_gradient_descent_and_boosting_has_no_learning_rate(kb, architecture, regime):
    (r,) = kb.query(f"recipe where architecture = {architecture} and rows = 5k")
    assert r["context"]["regimes"] == [regime]
    shown = [i["what"] for s in r["sections"] for i in s["items"]]
    assert "peak learning rate" not in shown and "optimizer" in shown
    assert not r["configs"]


SERIES = "recommend architecture where data = time-series and task = forecasting and variables = univariate and horizon = short"


@pytest.mark.parametrize("samples", ["30k", "150k"])
def test_thousands_of_univariate_series_get_n_beats_beside_the_classical_models(kb, samples):
    """The flowchart's classical models for a univariate short-horizon series name no number of
    series; with thousands of them N-BEATS, trained across the series (M3, M4's 100,000 and
    TOURISM in its paper), is advised at the same strength (audit 15/03). Its rule reads the
    number of series the flowchart's does not (the flowchart's data condition says no more than
    its horizon): N-BEATS first, the classical models fitted to each series its baseline beside it."""
    (a,) = kb.query(f"{SERIES} and samples = {samples}")
    by_id = {r["id"]: r for r in a["results"]}
    nbeats, classical = by_id["n-beats"], by_id["classical-statistics"]
    assert nbeats["group"] == classical["group"] == "matches"
    assert nbeats["because"][0]["strength"] == classical["because"][0]["strength"] == "strong"
    assert a["decision"]["pick"] == "n-beats" and "classical-statistics" in a["decision"]["runner_ups"]
    (why,) = [b for b in nbeats["because"] if b["id"] == "many-univariate-series-n-beats"]
    assert [s["id"] for s in why["sources"]] == ["oreshkin2019"] and why["section"].startswith("Beyond the reference")
    assert "single series" not in classical["because"][0]["text"]


def test_a_few_univariate_series_keep_the_classical_models_first(kb):
    (a,) = kb.query(f"{SERIES} and samples = 200")
    assert a["decision"]["pick"] == "classical-statistics"
    nbeats = next((r for r in a["results"] if r["id"] == "n-beats"), None)
    assert nbeats is None or nbeats["score"] < a["results"][0]["score"]


def test_a_tight_inference_budget_weighs_against_few_shot_prompting(kb):
    """QA round 6, F5: NER on 60 examples under a tight inference budget picked few-shot prompting
    of a large model, the costliest to serve, with nothing against it. GPT-3's paper says its scale
    is 'expensive and inconvenient to perform inference on' and names distillation (Section 5)."""
    tight = "recommend approach where data = text and task = ner and examples = 60 and inference-budget = tight"
    (a,), (b,) = kb.query(tight), kb.query(tight.replace(" and inference-budget = tight", ""))
    assert b["decision"]["pick"] == "few-shot-prompting" and a["decision"]["pick"] == "distillation"
    few = next(r for r in a["results"] if r["id"] == "few-shot-prompting")
    (against,) = [r for r in few["against"] if r["id"] == "tight-inference-against-few-shot"]
    assert [(s["id"], s["role"], s["where"]) for s in against["sources"]] == [("brown2020", "states", "Section 5")]


def test_a_resnet_fine_tune_keeps_the_sgd_it_was_pretrained_with(kb):
    """QA round 6, F6/P03: a ResNet (or CNN) fine-tune took AdamW from "most open models were
    pretrained with Adam or AdamW"; ResNet was pretrained with SGD and momentum 0.9 (He et al.,
    Section 3.4). The keep-the-optimizer rule is for transformers; a Llama fine-tune keeps AdamW."""
    for arch in ("resnet", "cnn"):
        (a,) = kb.query(f"recommend optimizer where architecture = {arch} and method = full-fine-tune and data = images")
        assert a["decision"]["pick"] == "sgd-momentum", arch
    (r,) = kb.query("recommend optimizer where architecture = resnet and method = full-fine-tune")
    why = r["results"][0]["because"][0]
    assert why["id"] == "resnet-sgd" and [(s["id"], s["where"]) for s in why["sources"]] == [("he2015", "Section 3.4")]
    (llama,) = kb.query("recommend optimizer where model = llama-2-7b and method = full-fine-tune")
    assert llama["decision"]["pick"] == "adamw"
    (rec,) = kb.query("recipe where architecture = resnet and method = full-fine-tune and data = images and samples = 3k")
    (opt,) = [i for s in rec["sections"] if s["name"] == "optimizer" for i in s["items"] if i["what"] == "optimizer"]
    assert opt["value"] == "sgd-momentum" and [s["id"] for s in opt["sources"]] == ["he2015"]
