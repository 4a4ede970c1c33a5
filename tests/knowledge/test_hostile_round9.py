"""Hostile extensions round 9 that are accepted: each adds knowledge and changes no bundled
answer unmarked (the corpus files in tests/data/hostile; the corpus test checks "unchanged or
names the file", these check what exactly stays or is marked)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from recipekg.api import KnowledgeBase

HOSTILE = Path(__file__).parents[1] / "data" / "hostile"


@lru_cache(maxsize=None)
def _kb(name: str | None) -> KnowledgeBase:
    return KnowledgeBase.load([HOSTILE / f"{name}.ttl"], use_cache=False) if name else KnowledgeBase.load()


def _one(name: str | None, query: str) -> dict:
    (a,) = _kb(name).query(query)
    return a


def _weights(a: dict) -> dict:
    return next(q for q in a["quantities"] if q["name"] == "weights")


def test_a_constant_for_another_namespace_s_bf16_is_not_bf16_s():
    """001-003: rule:bf16, fact:bf16 and cond:fp8 share a precision's local name: plan reads
    precisions by IRI, so the inference plans are the bundled ones (001 exited 1)."""
    query = "plan where params = 70B and hardware = h100 and gpus = 1 and method = inference"
    bundled = _one(None, query)
    for name in ("precision-width-by-local-name", "precision-width-replaced-by-local-name",
                 "quantized-order-by-local-name"):
        a = _one(name, query)
        assert _weights(a)["value"] == _weights(bundled)["value"] and a["summary"] == bundled["summary"], name


def test_an_extension_trainer_takes_no_configuration_away():
    """004: a trainer named hf-peft that runs on XLA only leaves the bundled CUDA recipe its
    hf-peft configuration."""
    query = "recipe where model = llama-2-7b and method = lora and hardware = h100 and gpus = 1"
    assert "hf-peft" in _one("trainer-takes-a-format-name", query)["configs"]


def test_a_model_s_own_recipe_from_an_extension_is_marked_where_it_is_used():
    """018: the extension's published recipe for Mistral 7B is the recipe's learning rate, marked
    on the item, in the configuration's origins and on plan's line."""
    a = _one("own-recipe-for-a-bundled-model",
             "recipe where model = mistral-7b and method = pretrain and hardware = h100 and gpus = 64")
    items = {i.get("hyperparameter"): i for s in a["sections"] for i in s["items"]}
    assert items["learning-rate"]["value"] == 0.03 and items["learning-rate"]["origin"]["line"] > 0
    assert a["configs"]["deepspeed"]["origins"]
    assert any("Mistral 7B's own" in line and "[extension" in line for line in a["plan"]["summary"])


def test_a_superseded_extension_rule_is_marked_in_the_records():
    """020: the answer's superseded record and stats' name the extension's rule with its origin."""
    a = _one("superseded-by-a-bundled-rule", "recommend architecture where data = tabular and rows = 30k")
    (record,) = [s for s in a["superseded"] if s["claim"] == "team-old-view"]
    assert record["origin"]["file"].endswith("superseded-by-a-bundled-rule.ttl")
    from recipekg.knowledge.stats import superseded

    (row,) = [r for r in superseded(_kb("superseded-by-a-bundled-rule").snap) if r["claim"] == "team-old-view"]
    assert row["origin"] == record["origin"]


def test_a_twin_gpu_of_an_extension_leaves_the_bundled_wording():
    """009: an extension GPU stated to have L4's and T4's compute does not change L4's plan."""
    query = "plan where params = 1B and hardware = l4 and gpus = 4"
    assert [n["text"] for n in _one("same-compute-twin-of-two-gpus", query)["notes"]] == \
        [n["text"] for n in _one(None, query)["notes"]]
