"""What naming a model gives (``rkg:GivenByNaming``): a named model whose makers released its
pretrained weights means a pretrained model to start from (pretrained = yes), said with the
property's sources; a model without such a property (GPT-3) leaves it open; a value given
otherwise is read as given and the answer says so; plan keeps sizing the model's own
pretraining unless pretrained or a method is given."""

from __future__ import annotations

from recipekg.api import KnowledgeBase
from support import TURTLE_PREFIXES, schema_errors

APPROACH = "recommend approach where model = {} and samples = 5k"


def _pretrained(answer) -> dict | None:
    return next((c for c in answer["constraints"] if c["dimension"] == "pretrained"), None)


def _giving(snap) -> dict[str, dict]:
    """Each model configuration → its given-by-naming property (as the snapshot holds it)."""
    props = snap["choice_properties"]   # (an approach's rkg:startsFrom gives too: recipe/premise.py reads those)
    approach = "https://w3id.org/recipekg/ns#Approach"
    return {snap["nodes"][p["of"]]["id"]: p for p in props.values()
            if p.get("gives") and approach not in snap["nodes"][p["of"]]["types"]}


def test_every_model_with_released_weights_gives_pretrained_with_its_sources(kb):
    giving = _giving(kb.snap)
    assert {"llama-2-7b", "llama-3-1-405b", "mistral-7b", "mixtral-8x7b", "whisper"} <= set(giving)
    for model, prop in giving.items():
        (a,) = kb.query(APPROACH.format(model))
        c = _pretrained(a)
        assert {k: v for k, v in c.items() if k != "sources"} == {
            "dimension": "pretrained", "op": "=", "value": "yes", "derived_from": "architecture", "note": prop["label"]}, model
        assert [(s["id"], s["role"], s.get("where")) for s in c["sources"]] == [
            (i, prop["citations"][i]["role"], prop["citations"][i]["where"]) for i in prop["sources"]], model
        assert prop["sources"] and all(s in kb.snap["papers"] for s in prop["sources"])
        assert not schema_errors(a)
        # the choices that need a pretrained model no longer wait for it
        assert not any(o["dimension"] == "pretrained" for r in a["results"] for o in r.get("applies_if", ())), model


def test_a_model_without_such_a_property_leaves_pretrained_open(kb):
    assert "gpt-3-175b" not in _giving(kb.snap)
    (a,) = kb.query(APPROACH.format("gpt-3-175b"))
    assert _pretrained(a) is None
    # every model named must give it: GPT-3 beside Llama 2 7B gives nothing
    (a,) = kb.query("recommend approach where model in (llama-2-7b, gpt-3-175b) and samples = 5k")
    assert _pretrained(a) is None


def test_a_value_given_otherwise_is_read_as_given_and_said(kb):
    from recipekg.render.answers import render_answers

    (a,) = kb.query(APPROACH.format("llama-2-7b") + " and pretrained = no")
    c = _pretrained(a)
    assert c["value"] == "no" and "derived_from" not in c
    (said,) = c["implied_otherwise"]
    assert {k: said[k] for k in ("dimension", "value", "implies")} == {
        "dimension": "architecture", "value": ["llama-2-7b"], "implies": ["yes"]}
    assert said["note"] == "Llama 2 7B's pretrained weights are released"
    assert [s["id"] for s in said["sources"]] == ["touvron2023llama2"]
    assert a["decision"]["pick"] == "train-from-scratch"
    assert ("architecture = llama-2-7b implies pretrained = yes (Llama 2 7B's pretrained weights are released "
            "[touvron2023llama2]), which pretrained = no does not agree with") in render_answers([a], "text")
    assert not schema_errors(a)


def test_the_text_names_the_property_and_its_sources(kb):
    from recipekg.render.answers import render_answers

    (a,) = kb.query(APPROACH.format("mistral-7b"))
    assert ("pretrained = yes (from architecture: Mistral 7B's pretrained weights are released [jiang2023])"
            in render_answers([a], "text"))


def test_plan_sizes_the_named_models_pretraining_unless_told_otherwise(kb):
    (named,) = kb.query("plan where model = llama-2-7b and gpus = 8 and hardware = a100")
    assert named["method"] == "pretrain" and any(q["name"] == "gpu_hours" for q in named["quantities"])
    assert not any(c["dimension"] == "pretrained" for c in named["constraints"])
    (given,) = kb.query("plan where model = llama-2-7b and gpus = 8 and hardware = a100 and pretrained = yes")
    assert given["method"] == "full-fine-tune"


def test_an_extensions_property_gives_its_value_marked_as_the_extensions(tmp_path):
    ext = tmp_path / "weights.ttl"
    ext.write_text(TURTLE_PREFIXES + "@prefix fact: <https://w3id.org/recipekg/fact/> .\n" + """
fact:gpt-3-weights-ours a rkg:ChoiceProperty ;
    rdfs:label "Our copy of GPT-3's weights" ;
    rkg:propertyOf kb:gpt-3-175b ; rkg:aspect rkg:publishedWeights ; rkg:value kb:available ;
    rkg:text "We hold GPT-3's weights." ;
    prov:wasDerivedFrom paper:brown2020 .
""", encoding="utf-8")
    merged = KnowledgeBase.load([ext], use_cache=False)
    (a,) = merged.query(APPROACH.format("gpt-3-175b"))
    c = _pretrained(a)
    assert c["value"] == "yes" and c["origin"]["file"] == str(ext) and [s["id"] for s in c["sources"]] == ["brown2020"]
    from recipekg.render.answers import render_answers

    assert f"[extension {ext}, line" in render_answers([a], "text")
    # given otherwise, what the extension's property implied is said, with its origin
    (a,) = merged.query(APPROACH.format("gpt-3-175b") + " and pretrained = no")
    (said,) = _pretrained(a)["implied_otherwise"]
    assert said["origin"]["file"] == str(ext)
    assert f"(Our copy of GPT-3's weights [brown2020]) [extension {ext}, line" in render_answers([a], "text")
