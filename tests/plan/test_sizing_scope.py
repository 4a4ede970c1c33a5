"""plan's sizing laws are for text (audit 9/25: a ViT recipe on 1.2M images was planned as a
14.9B-parameter language model on 298B tokens). The tokens-per-parameter strategies say what
data they were fitted on (``rkg:dataFor kb:text``); a run on other data is not sized by them."""

from __future__ import annotations

import pytest

from recipekg.errors import NothingToPlan


def q(answer: dict, name: str) -> dict | None:
    return next((x for x in answer["quantities"] if x["name"] == name), None)


def test_no_size_and_no_law_for_the_data_is_nothing_to_plan(kb):
    for text in ("plan where architecture = vit and data = images and hardware = v100 and gpus = 8",
                 "plan where data = audio and gpus = 8 and time = 3 days and hardware = a100",
                 "plan where data = images and tokens = 70B"):
        with pytest.raises(NothingToPlan, match="fitted on text data, not on"):
            kb.query(text)


def test_a_size_alone_is_counted_and_the_tokens_are_asked_for(run_plan):
    a = run_plan("plan where params = 86M and data = images and hardware = v100 and gpus = 8")
    assert q(a, "tokens")["value"] is None and q(a, "memory")["value"]
    (ask,) = a["ask"]
    assert ask["dimension"] == "tokens" and "fitted on text data, not on images" in ask["text"]
    assert a["strategy"]["tokens_per_param"]["value"] is None
    assert a["fit"]["fits"]


def test_a_size_and_tokens_are_planned_without_a_regime(run_plan):
    a = run_plan("plan where params = 86M and tokens = 70B and data = images and hardware = v100 and gpus = 8")
    assert q(a, "flops")["value"] == pytest.approx(6 * 86e6 * 70e9)
    assert "regime" not in a["strategy"] and "no sizing law" in a["strategy"]["label"]
    assert q(a, "gpu_hours")["value"]


@pytest.mark.parametrize("text", ["plan where params = 1B and data = text and hardware = a100",
                                  "plan where params = 1B and hardware = a100"])
def test_text_and_unsaid_data_keep_the_laws(run_plan, text):
    a = run_plan(text)
    assert q(a, "tokens")["value"] == pytest.approx(20e9) and a["strategy"]["id"] == "chinchilla-optimal-training"


def test_a_classifier_is_not_sized_by_the_laws_and_says_what_they_do_not_do(run_plan, kb):
    """QA round 5 (Q11): the laws size a language model by its pretraining tokens; a text
    classifier's labelled examples are not those tokens. The answer says the laws are not for
    the task (a none-of property), not that they were "fitted on" classification."""
    a = run_plan("plan where params = 100M and data = text and task = classification and hardware = a100")
    (ask,) = a["ask"]
    assert "are not for task = classification: Chinchilla-optimal training does not size a classifier" in ask["text"]
    assert "fitted on" not in ask["text"] and q(a, "tokens")["value"] is None
    with pytest.raises(NothingToPlan, match="are not for task = classification"):
        kb.query("plan where data = text and task = classification and gpus = 8 and time = 3 days and hardware = a100")
    b = run_plan("plan where params = 100M and data = text and task = generation and hardware = a100")
    assert q(b, "tokens")["value"] == pytest.approx(2e9)
