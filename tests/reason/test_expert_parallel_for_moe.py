"""Expert parallelism is for mixtures of experts (``fact:expert-parallel-for-moe``, an
``rkg:architectureFor`` property with value ``kb:mixture-of-experts``): a dense named model
rules it out with the property's reason and sources, Mixtral (a member of the family) keeps
it, a broader class that may be a mixture of experts (a decoder-only LLM) leaves it, and so
does a question that names no model."""

from __future__ import annotations

import pytest

from support import schema_errors

TIER = "tier = massive-cluster-months"


def ranked(a) -> set[str]:
    return {r["id"] for r in a["results"]} | {r["id"] for r in a.get("partial", ())}


@pytest.mark.parametrize("model", ["llama-3-70b", "llama-2-7b", "gpt-3-175b"])
def test_a_dense_named_model_rules_it_out_with_the_property_s_sources(kb, model):
    (a,) = kb.query(f"recommend approach where model = {model} and {TIER}")
    excluded = {e["id"]: e for e in a["excluded"]}
    ep = excluded["expert-parallelism"]
    assert ep["property"]["id"] == "expert-parallel-for-moe"
    assert ep["property"]["value"] == ["mixture-of-experts"]
    assert [s["id"] for s in ep["sources"]] == ["fedus2022"]
    assert ep["because_of"][0]["dimension"] == "architecture"
    assert "expert-parallelism" not in ranked(a)
    assert not schema_errors(a)
    (e,) = kb.query(f"explain expert-parallelism where model = {model} and {TIER}")
    assert "fedus2022" in str(e)


@pytest.mark.parametrize("where", ["model = mixtral-8x7b and ", "model = llm and ", ""])
def test_a_mixture_of_experts_or_no_model_keeps_it(kb, where):
    (a,) = kb.query(f"recommend approach where {where}{TIER}")
    assert "expert-parallelism" not in {e["id"] for e in a["excluded"]}
    assert "expert-parallelism" in ranked(a)
