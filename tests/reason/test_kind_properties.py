"""A property of every choice of a kind (``rkg:propertyOfKind``): every optimizer is for a
run that trains weights, every fix for a failure seen in training. At ``method = inference``
each is ruled out with that reason, the method is used (not said unused), and the answer says
so once for all of them; an extension's new optimizer has the property too."""

from __future__ import annotations

from support import TURTLE_PREFIXES, schema_errors

NEW_OPTIMIZER = TURTLE_PREFIXES + """@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
kb:team-adam a rkg:Optimizer ; rdfs:label "Team Adam" ;
    skos:definition "Our team's Adam variant." ; prov:wasDerivedFrom paper:kingma2014 .
rule:team-adam-always a rkg:Rule ; rdfs:label "Team: always Team Adam" ;
    rkg:text "Our team trains everything with Team Adam." ;
    rkg:recommends kb:team-adam ; rkg:strength rkg:strong ;
    rkg:section sec:optimizer-selection-guide--when-to-use-what ; prov:wasDerivedFrom paper:kingma2014 .
"""


def test_every_optimizer_has_the_kind_s_property_once(snap):
    """Read with each optimizer's own (and never copied to each: a KB of many choices stores
    it once); a technique does not have it, and QK-norm, a technique and a fix, has the fix's
    only where it ranks as a fix."""
    from recipekg.reason.properties import properties_of

    kind = [p for p, prop in snap["choice_properties"].items() if prop.get("of_kind") == "optimizer"]
    assert kind and snap["properties_by_kind"]["optimizer"] == kind
    optimizers = [i for i, n in snap["nodes"].items() if "optimizer" in n.get("kinds", ())]
    assert len(optimizers) >= 10
    for i in optimizers:
        found = [p for p, _ in properties_of(i, snap)]
        assert set(kind) <= set(found) and len(found) == len(set(found)), i
        assert not set(kind) & set(snap["properties_by_choice"].get(i, ()))
    techniques = [i for i, n in snap["nodes"].items() if n.get("kinds") == ["technique"]]
    assert not any(set(kind) & {p for p, _ in properties_of(i, snap)} for i in techniques)
    qk = snap["rule_index"]["choices"]["qk-norm"]
    fix = set(snap["properties_by_kind"]["fix"])
    assert fix & {p for p, _ in properties_of(qk, snap, "fix")} and not fix & {p for p, _ in properties_of(qk, snap, "technique")}


def test_no_optimizer_and_no_fix_at_inference(kb):
    for text, kind, some in (("recommend optimizer where method = inference and model = llama-3-8b", "optimizer",
                              "adamw"),
                             ("recommend fix where symptom = loss-spike and method = inference", "fix",
                              "rollback-checkpoint")):
        (a,) = kb.query(text)
        assert a["decision"]["pick"] is None and not a["results"], text
        excluded = {e["id"]: e for e in a["excluded"]}
        assert some in excluded and excluded[some]["property"]["aspect"] == "training methods it is for"
        assert all(e["because_of"][0]["dimension"] == "method" for e in a["excluded"])
        assert "method" not in {u["dimension"] for u in a["unused"]}
        assert not schema_errors(a)
    (lora,) = kb.query("recommend optimizer where method = lora and model = llama-3-8b")
    assert lora["decision"]["pick"] == "adamw" and not lora["excluded"]


def test_the_text_says_it_once_for_every_choice_it_rules_out(kb):
    from recipekg.render.answers import render_answers

    text = render_answers(kb.query("recommend optimizer where method = inference"), "text")
    lines = [line for line in text.splitlines() if line.startswith("ruled out:")]
    assert len(lines) == 1 and "AdamW (adamw)" in lines[0] and "a property each has" in lines[0]
    assert "No pick: every choice the advice reaches is ruled out" in text


def test_explain_lists_the_kind_s_property_once(kb):
    (e,) = kb.query("explain adamw where method = inference")
    ids = [p["id"] for p in e["properties"]] if "properties" in e else []
    assert ids.count("optimizer-trains-weights") <= 1
    assert e["excluded"] and e["excluded"]["property"]["id"] == "optimizer-trains-weights"


def test_an_extension_optimizer_has_the_kind_s_property(tmp_path, kb):
    import recipekg

    ext = tmp_path / "team.ttl"
    ext.write_text(NEW_OPTIMIZER, encoding="utf-8")
    merged = recipekg.load([ext])
    (served,) = merged.query("recommend optimizer where method = inference")
    assert "team-adam" in {e["id"] for e in served["excluded"]} and not served["results"]
    (trained,) = merged.query("recommend optimizer where method = pretrain")
    assert "team-adam" in {r["id"] for r in trained["results"]} and not trained["excluded"]


TEAM_PROPERTY = TURTLE_PREFIXES + """@prefix fact: <https://w3id.org/recipekg/fact/> .
fact:team-pretrain-only a rkg:ChoiceProperty ; rdfs:label "Team: optimizers for pretraining only" ;
    rkg:propertyOfKind rkg:Optimizer ; rkg:aspect rkg:methodFor ; rkg:value kb:method-pretrain ;
    rkg:text "Our team pretrains only." ; prov:wasDerivedFrom paper:kingma2014 .
"""


def test_an_extension_s_property_that_rules_bundled_choices_out_says_so(tmp_path):
    """An extension may give every optimizer a property (knowledge it adds); the choices it rules
    out name the extension's file and line in the JSON, the text and the page's data, so the
    answer never changes silently."""
    import recipekg
    from recipekg.render.answers import render_answers

    ext = tmp_path / "team.ttl"
    ext.write_text(TEAM_PROPERTY, encoding="utf-8")
    (a,) = recipekg.load([ext]).query("recommend optimizer where method = lora")
    ruled = {e["id"]: e for e in a["excluded"]}
    assert "adamw" in ruled and ruled["adamw"]["origin"]["file"] == str(ext) and ruled["adamw"]["origin"]["line"] > 1
    assert f"[extension {ext}, line" in render_answers([a], "text")
    assert not schema_errors(a)


def test_a_model_not_fitted_by_gradient_descent_has_no_optimizer_nor_approach(kb, snap):
    """``rkg:regimeFor`` (QA round 4, Q08): an optimizer, and an approach (parallelism, adapters,
    training strategies), are for a model fitted by gradient descent; a gradient-boosted model
    inherits its family's regime (boosting) through skos:broader, so XGBoost and LightGBM rule
    every one of them out with that reason (and a statistical model, ARIMA), where a CNN or a
    named transformer keeps them."""
    for kind, architecture in (("approach", "xgboost"), ("optimizer", "lightgbm"), ("optimizer", "arima")):
        (a,) = kb.query(f"recommend {kind} where architecture = {architecture} and gpus = 8")
        assert a["decision"]["pick"] is None and a["excluded"], (kind, architecture)
        assert all(e["property"]["aspect"].startswith("how the models it is for are fitted") for e in a["excluded"])
    for kind, architecture in (("optimizer", "resnet"), ("approach", "llama-3-8b")):
        (a,) = kb.query(f"recommend {kind} where architecture = {architecture} and gpus = 8")
        assert not any("fitted" in e["property"]["aspect"] for e in a["excluded"])


def test_a_property_every_choice_of_the_kind_has_separates_none(kb):
    """What the kind's properties fit is not what puts one choice ahead of another (nor an
    "applies only if" line beside each): every optimizer is for gradient descent alike."""
    (a,) = kb.query("recommend optimizer where data = images and samples = 3000 and architecture = cnn "
                    "and method = full-fine-tune")
    assert not a["decision"].get("ahead_by")
    assert not any("fitted by gradient descent" in c["property"]["label"] for r in a["results"]
                   for c in r.get("applies_if", ()))
