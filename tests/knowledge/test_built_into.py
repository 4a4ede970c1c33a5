"""A named model's published configuration settles some design choices (audit 10/11: grouped-query
attention was advised for serving Llama 3 8B, which has it). Each such property (aspect "model
whose published architecture settles it") matches the model's shape in kb/models.ttl, and every
configuration whose shape has the design carries it; answers rule the choice out for that model."""

from __future__ import annotations

import pytest

KB = "https://w3id.org/recipekg/id/"
SETTLES = "model whose published architecture settles it"


def settled(snap, choice: str) -> set[str]:
    """The model configurations (IRIs) whose properties rule ``choice`` out by their architecture."""
    props = snap["choice_properties"]
    out = set()
    for piri in snap["properties_by_choice"].get(KB + choice, ()):
        prop = props[piri]
        if prop["aspect"]["label"] == SETTLES:
            assert prop["test"] == "none-of" and prop["strict"] and prop["dimension"] == "architecture"
            out |= set(prop["check"]["values"])
    return out


def grouped(snap) -> set[str]:
    return {m for m, f in snap["models"].items() if f["kv_heads"] is not None and f["kv_heads"] < f["heads"]}


def test_every_model_with_fewer_key_value_heads_has_gqa_settled(snap):
    assert grouped(snap)  # Llama 3 and Mistral are in the KB
    assert settled(snap, "gqa") == grouped(snap)
    assert settled(snap, "mqa") == grouped(snap)  # none of them has a single key-value head


def test_every_model_with_a_sliding_window_has_it_settled(snap):
    windowed = {m for m, f in snap["models"].items() if f["attention_window"]}
    assert windowed and settled(snap, "sliding-window-attention") == windowed


def test_each_property_cites_its_model_s_own_configuration(snap):
    props = snap["choice_properties"]
    for choice in ("gqa", "mqa", "sliding-window-attention"):
        for piri in snap["properties_by_choice"].get(KB + choice, ()):
            prop = props[piri]
            if prop["aspect"]["label"] != SETTLES:
                continue
            (model,) = prop["check"]["values"]
            assert set(snap["models"][model]["sources"]) & set(prop["sources"]), (piri, model)


@pytest.mark.parametrize("model, out", [
    ("llama-3-8b", {"gqa", "mqa"}),
    ("mistral-7b", {"gqa", "mqa", "sliding-window-attention"}),
    ("llama-2-7b", set()),  # multi-head attention: GQA stays advice (by uptraining, its own caveat)
])
def test_serving_a_named_model_rules_out_what_it_has(kb, model, out):
    (a,) = kb.query(f"recommend technique where model = {model} and method = inference and hardware = dgx-spark")
    ruled = {e["id"] for e in a["excluded"] if (e.get("property") or {}).get("aspect") == SETTLES}
    assert ruled == out
    assert not out & {r["id"] for r in a["results"]}
