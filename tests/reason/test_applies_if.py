"""What a ranked choice is for that the constraints leave open (``applies_if``): expert
parallelism, for a model of unnamed architecture, applies only to mixtures of experts (audit
4/09: the answer offered it for a 176B model plan treats as dense, with no word of it)."""

from __future__ import annotations

MASSIVE = "params = 176B and method = pretrain and hardware = a100 and gpus = 384 and time = 4 months"


def _entry(answer: dict, choice: str) -> dict:
    return next(r for r in answer["results"] if r["id"] == choice)


def test_a_part_of_a_combination_says_what_it_needs(kb):
    (a,) = kb.query(f"recommend approach where {MASSIVE} top 10")
    (ep,) = _entry(a, "expert-parallelism")["applies_if"]
    assert (ep["property"]["id"], ep["dimension"], ep["given"]) == ("expert-parallel-for-moe", "architecture", False)
    assert ep["property"]["sources"], "the condition carries its source"
    (via_part,) = _entry(a, "five-way-parallelism")["applies_if"]
    assert via_part["part"]["id"] == "expert-parallelism"
    assert not _entry(a, "tensor-parallelism").get("applies_if"), "tensor parallelism applies to any model"


def test_a_value_that_does_not_say_is_named_as_given(kb):
    (a,) = kb.query(f"recommend approach where {MASSIVE} and architecture = decoder top 10")
    (ep,) = _entry(a, "expert-parallelism")["applies_if"]
    assert ep["given"], "a decoder may be a mixture of experts (Mixtral): the value given does not say"


def test_a_named_dense_model_settles_it(kb):
    (a,) = kb.query(f"recommend approach where {MASSIVE} and model = llama-3-70b top 10")
    assert all(not r.get("applies_if") for r in a["results"])
    assert "expert-parallelism" in {e["id"] for e in a["excluded"]}


def test_the_users_own_choice_and_what_is_advised_against_carry_none(kb):
    (a,) = kb.query("recommend approach where method = qlora and params = 7B and hardware = a100 and gpus = 1")
    assert not _entry(a, "qlora").get("applies_if"), "QLoRA is the user's method: what it needs is theirs to know"
    for r in a["results"]:
        if r.get("applies_if"):
            assert r["group"] == "matches" and r["score"] > 0


def test_the_text_says_it_beside_the_entry(kb):
    from recipekg.render.answers import render_answers

    text = render_answers(kb.query(f"recommend approach where {MASSIVE}"), "text", detail=False)
    five_way = text.split("(five-way-parallelism)  score")[1].split("\n 5.")[0]
    assert "its part Expert parallelism applies only if: Expert parallelism is for mixture-of-experts models " \
           "(architecture: not given) [fedus2022" in five_way


EXTENSION = """@prefix rkg: <https://w3id.org/recipekg/ns#> .
@prefix kb: <https://w3id.org/recipekg/id/> .
@prefix fact: <https://w3id.org/recipekg/fact/> .
@prefix paper: <https://w3id.org/recipekg/paper/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

fact:ext-lion-for-transformers a rkg:ChoiceProperty ;
    rdfs:label "Our team runs Lion on transformers only" ;
    rkg:propertyOf kb:lion ; rkg:aspect rkg:architectureFor ; rkg:value kb:transformer ;
    rkg:text "We have only tried Lion on transformers." ;
    prov:wasDerivedFrom paper:teamnote2024 .

paper:teamnote2024 a rkg:Paper ; rdfs:label "Team note" ; dcterms:title "Team note" ; rkg:key "teamnote2024" ;
    dcterms:issued "2024"^^xsd:gYear ; rkg:url "https://example.org/note"^^xsd:anyURI .
"""


def test_an_extensions_condition_is_marked_as_its_own(kb, tmp_path):
    """An extension's property that a shown choice applies only if: marked with its file and line
    in JSON and text; the bundled answer has no such line."""
    import recipekg
    from recipekg.render.answers import render_answers

    path = tmp_path / "team.ttl"
    path.write_text(EXTENSION, encoding="utf-8")
    answers = recipekg.load(extensions=[path]).query("recommend optimizer where prefer = low-memory")
    (c,) = _entry(answers[0], "lion")["applies_if"]
    assert c["property"]["origin"]["line"] == 10 and c["dimension"] == "architecture"
    assert "applies only if: Our team runs Lion on transformers only [extension" in render_answers(answers, "text")
    (bundled,) = kb.query("recommend optimizer where prefer = low-memory")
    assert not _entry(bundled, "lion").get("applies_if")
