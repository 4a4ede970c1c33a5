"""A failure mode given whose entry is about other runs (``out_of_scope``): the reference's
NaN entry is fp16's, its loss spikes are large-scale pretraining's (audit 5/12, 5/13)."""

from __future__ import annotations

import pytest


def _fix(kb, text: str) -> dict:
    (a,) = kb.query(f"recommend fix where {text}")
    return a


@pytest.mark.parametrize("situation, dimension, value", [
    ("symptom = nan and precision = bf16 and hardware = h100", "precision", "bf16"),
    ("symptom = loss-spike and method = lora and model = llama-3-8b", "method", "lora"),
    ("symptom = attention-collapse and method = full-fine-tune", "method", "full-fine-tune"),
])
def test_a_symptom_outside_its_entry_is_said(kb, situation, dimension, value):
    a = _fix(kb, situation)
    (s,) = a["out_of_scope"]
    assert s["dimension"] == "symptom" and s["because_of"] == [{"dimension": dimension, "op": "=", "value": value}]


@pytest.mark.parametrize("situation", [
    "symptom = nan and precision = fp16",
    "symptom = nan",  # no precision given: the entry may be the user's
    "symptom = loss-spike and method = pretrain and params = 70B",
    "symptom = out-of-memory and method = lora",  # (an entry with no condition)
])
def test_within_its_entry_nothing_is_said(kb, situation):
    assert "out_of_scope" not in _fix(kb, situation)


def test_the_text_says_it_under_the_constraints(kb):
    from recipekg.render.answers import render_answers

    text = render_answers(kb.query("recommend fix where symptom = loss-spike and method = lora"), "text", detail=False)
    assert ("outside its entry: symptom = loss-spike is the reference's 'Loss spike', an entry about runs with "
            "method = pretrain; method = lora is not one") in text


EXTENSION = """@prefix rkg: <https://w3id.org/recipekg/ns#> .
@prefix kb: <https://w3id.org/recipekg/id/> .
@prefix cond: <https://w3id.org/recipekg/cond/> .
@prefix paper: <https://w3id.org/recipekg/paper/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

kb:ext-grad-explosion a rkg:FailureMode ;
    rdfs:label "Gradient explosion in RNNs" ;
    skos:notation "rnn-grad-explosion" ;
    rkg:symptom "Gradients blow up." ;
    rkg:condition cond:recipe-method-pretrain ;
    rkg:fixedBy kb:gradient-clipping ;
    prov:wasDerivedFrom paper:expaper2020 .

paper:expaper2020 a rkg:Paper ; rdfs:label "A paper" ; dcterms:title "A paper" ; rkg:key "expaper2020" ;
    dcterms:issued "2020"^^xsd:gYear ; rkg:url "https://example.org/p"^^xsd:anyURI .
"""


def test_an_extensions_entry_is_marked_as_its_own(tmp_path):
    """An extension's failure mode outside its condition is the extension's entry, with its
    file and line, never "the reference's"."""
    import recipekg
    from recipekg.render.answers import render_answers

    path = tmp_path / "team.ttl"
    path.write_text(EXTENSION, encoding="utf-8")
    answers = recipekg.load(extensions=[path]).query("recommend fix where symptom = rnn-grad-explosion and method = lora")
    (s,) = answers[0]["out_of_scope"]
    assert s["origin"]["file"].endswith("team.ttl") and s["origin"]["line"] == 11
    text = render_answers(answers, "text", detail=False)
    assert "is 'Gradient explosion in RNNs' [extension" in text and "the reference's 'Gradient" not in text


def _supported(snap, hw: str) -> set[str]:
    """The precisions the KB says the hardware's tensor cores run (rkg:supportsPrecision), by id."""
    via = snap["dimensions"][snap["dimensions"]["precision"]["runs_on"]]["derived_via"]
    nodes = snap["nodes"]
    return {nodes[p]["id"] for p in snap["hardware"][next(i for i, n in nodes.items() if n.get("id") == hw)].get(via, ())}


@pytest.mark.parametrize("hardware, precision, picks", [
    ("a100", "fp8", "bf16-training"),           # no FP8 tensor cores: the advice is the hardware's bf16
    ("v100", "bf16", "fp16-mixed-precision"),   # fp16 tensor cores only: mixed precision with loss scaling
    ("t4", "fp8", "fp16-mixed-precision"),
])
def test_a_precision_the_hardware_does_not_run_is_left_aside_and_said(kb, snap, hardware, precision, picks):
    """A precision given that the hardware's tensor cores do not run (``rkg:runsOn``, QA round 4
    F3): the answer says so among what it did not use, reads the hardware instead, and never
    rules a choice out for a run the hardware cannot do (bf16 "already chosen" against fp8 on an
    A100); the constraint is still shown as given, and explain reads it alike."""
    assert precision not in _supported(snap, hardware)
    (a,) = kb.query(f"recommend technique where hardware = {hardware} and precision = {precision}")
    (u,) = [u for u in a["unused"] if u["dimension"] == "precision"]
    assert u["value"] == precision and f"{hardware} gives tensor-precision all of" in u["why"]
    assert a["decision"]["pick"] == picks
    assert {"dimension": "precision", "op": "=", "value": precision} in a["constraints"]
    assert not any("precision =" in e["because"][0]["text"] for e in a["excluded"] if e.get("because"))
    (e,) = kb.query(f"explain {picks} where hardware = {hardware} and precision = {precision}")
    assert any(u["dimension"] == "precision" for u in e["unused"]) and e["rank"] == 1


@pytest.mark.parametrize("hardware, precision", [("h100", "fp8"), ("a100", "bf16"), ("a100", "fp16"),
                                                 ("a100", "fp32"), ("v100", "fp16"),
                                                 ("in (a100, h100)", "fp8")])  # (one part given runs it)
def test_a_precision_the_hardware_runs_or_no_hardware_states_is_read(kb, snap, hardware, precision):
    """fp32 is no tensor-core precision any hardware states: never checked; a precision the
    hardware runs, or one of the parts given runs, is read as given."""
    op = "" if hardware.startswith("in ") else "= "
    (a,) = kb.query(f"recommend technique where hardware {op}{hardware} and precision = {precision}")
    assert not any(u["dimension"] == "precision" and "tensor-precision" in u["why"] for u in a["unused"])


def test_every_peak_the_kb_gives_is_a_precision_the_hardware_runs(snap):
    """A dense fp16 or fp8 peak stated for a part is a precision its tensor cores run
    (rkg:supportsPrecision): the A100 and H100 run fp16 as the A100 40GB and H100 PCIe do."""
    from recipekg.knowledge.terms import RKG

    via = snap["dimensions"]["tensor-precision"]["derived_via"]
    for iri, h in snap["hardware"].items():
        states = {snap["nodes"][p]["id"] for p in h.get(via, ())}
        for precision in ("bf16", "fp16", "fp8"):
            if h.get(str(getattr(RKG, f"{precision}PeakFlopsPerSecond"))):
                assert precision in states, (snap["nodes"][iri]["id"], precision)
