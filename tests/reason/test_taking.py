"""A choice that is one training method, read as taken when the query gives no method
(reason/taking.py): LoRA is method = lora, so the rule against LoRA's 16-bit base applies to
it where that base does not fit, without the user having to say "method = lora"."""

from __future__ import annotations

import pytest

from support import entry_ids, schema_errors

BASE = "model = llama-2-13b and gpu = rtx-4090 and gpus = 1 and examples = 500 and data = text"


def _by_id(answer: dict) -> dict:
    return {r["id"]: r for r in answer["results"]}


def _taken(result: dict) -> list[dict]:
    return [x for x in result["against"] if x.get("taken")]


@pytest.mark.parametrize("choice, method", [("lora", "method-lora"), ("qlora", "method-qlora"),
                                            ("full-fine-tune", "method-full-fine-tune"),
                                            ("train-from-scratch", "method-pretrain"),
                                            ("fine-tune-pretrained", None), ("gradient-checkpointing", None)])
def test_a_choice_s_own_method_is_its_own_less_its_kinds(snap, choice, method):
    """LoRA's property names lora and QLoRA's adapters (qlora); QLoRA, a kind of LoRA, is
    qlora, so LoRA taken is lora. A family (fine-tuning) or a technique for several methods
    is no one method."""
    from recipekg.reason.taking import own_method

    found = own_method(snap["rule_index"]["choices"][choice], snap)
    assert (found.rsplit("/", 1)[1] if found else None) == method


def test_lora_s_16_bit_base_counts_against_it_when_no_method_is_given(kb):
    (a,) = kb.query(f"recommend approach where {BASE}")
    results = _by_id(a)
    (reason,) = _taken(results["lora"])
    assert reason["id"] == "lora-base-over-gpus" and reason["match"] == "full"
    assert reason["taken"]["dimension"] == "method" and reason["taken"]["value"] == "lora"
    (load,) = reason["taken"]["derived"]
    assert load["dimension"] == "base-load" and load["value"] > 1.0  # 26 GB of base on 24 GB
    assert results["lora"]["score"] <= 0.0
    assert "lora" not in entry_ids(a["results"][0]) and a["decision"]["pick"] != "lora"
    # QLoRA, a kind of LoRA, does not inherit what LoRA's own method meets: its 4-bit base fits
    assert not results["qlora"]["against"] and results["qlora"]["score"] > 0
    assert "qlora" in a["decision"].get("narrower", []) + a["decision"]["runner_ups"] + [a["decision"]["pick"]]
    assert not schema_errors(a)


def test_nothing_is_taken_where_the_method_is_given_or_the_base_fits(kb):
    """With ``method = lora`` the rule applies as given (no ``taken``); a 7B base fits the same
    GPU, and nothing is taken against LoRA."""
    (given,) = kb.query("recommend approach where method = lora and params = 13B and gpu = rtx-4090 and gpus = 1")
    lora = _by_id(given).get("lora")
    assert lora is not None and any(x["id"] == "lora-base-over-gpus" and x["match"] == "full" for x in lora["against"])
    assert not _taken(lora)
    (small,) = kb.query("recommend approach where params = 7B and gpu = rtx-4090 and gpus = 1 and examples = 500 "
                        "and data = text")
    assert not [r["id"] for r in small["results"] if _taken(r)]


def test_explain_shows_the_rule_taken_and_ranks_as_recommend(kb):
    (e,) = kb.query(f"explain lora where {BASE}")
    (rec,) = kb.query(f"recommend approach where {BASE}")
    fired = [r for r in e["rules"] if r.get("taken")]
    assert [(r["id"], r["side"], r["fires"]) for r in fired] == [("lora-base-over-gpus", "against", True)]
    assert not [r for r in e["rules"] if r["id"] == "lora-base-over-gpus" and not r.get("taken")]
    assert e["rank"] == _by_id(rec)["lora"]["rank"]
    assert not schema_errors(e)


@pytest.mark.parametrize("statement", ["recommend approach", "explain lora"])
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_every_format_says_what_was_taken(kb, statement, fmt):
    """The text says the rule applies once LoRA is taken, with the share that taking it
    derives, and that the method is not a constraint the user gave."""
    from recipekg.render.answers import render_answers

    out = render_answers(kb.query(f"{statement} where {BASE}"), fmt, detail=True)
    assert "once taken: method = lora, so base-load = 108.5%; not a constraint you gave" in out
