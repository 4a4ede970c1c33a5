"""recommend's compute check (recipekg/recipe/check.py): where the advice decides on a way to
train that plan sizes a run for and the statement gives a time budget, GPUs, their hardware and
a size, the answer carries plan's verdict for the same constraints and that method, the same as
the plan statement it names gives."""

from __future__ import annotations

import pytest

from recipekg.render.answers import render_text

SLOW = "recommend approach where params = 3B and gpus = 8 and hardware = a100 and time = 5 days"


def _one(kb, text: str) -> dict:
    (a,) = kb.query(text)
    return a


def test_a_tier_s_rule_of_thumb_is_checked_against_plan_s_time(kb):
    """The flowchart's tier says four to eight GPUs for a week pretrain up to 3B; plan says 3B on
    8 A100s takes 9.9-20 days: the answer that advises training from scratch says so, with plan's
    own verdict and the GPUs that would keep to the budget."""
    a = _one(kb, SLOW)
    assert "train-from-scratch" in [a["decision"].get("pick"), *(e["pick"] for e in a["decision"].get("alongside", ()))]
    check = a["compute_check"]
    assert check["approach"] == "train-from-scratch" and check["method"] == "pretrain"
    plan = _one(kb, check["query"])
    assert plan["statement"] == "plan" and check["query"].endswith("and method = pretrain")
    assert check["meets_time_budget"] is plan["feasibility"]["meets_time_budget"] is False
    assert check["gpus_for_time"] == plan["feasibility"]["gpus_for_time"] > 8
    assert check["text"].endswith(plan["feasibility"]["text"])
    text = render_text(a, detail=False)
    assert f"compute check: {check['text']} ({check['query']})" in text


def test_explaining_the_approach_carries_the_same_check(kb):
    """``explain train-from-scratch`` under the same constraints says what recommend's answer
    says of it (text and summary too)."""
    explained = _one(kb, SLOW.replace("recommend approach", "explain train-from-scratch"))
    check = explained["compute_check"]
    assert {k: v for k, v in check.items() if k != "query"} == \
        {k: v for k, v in _one(kb, SLOW)["compute_check"].items() if k != "query"}
    assert check["query"] == _one(kb, SLOW)["compute_check"]["query"]
    assert f"compute check: {check['text']}" in render_text(explained, detail=False)
    from recipekg.render.summary import summary

    assert summary(explained)["compute_check"] == check["text"]
    assert "compute_check" not in _one(kb, SLOW.replace("recommend approach", "explain ddp"))


def test_a_named_model_s_size_is_a_size_to_check(kb):
    """The advice is against pretraining a 7B model on 8 GPUs in 2 days; explaining it says
    plan's time beside (the model named gives the size, which no constraint states)."""
    a = _one(kb, "explain train-from-scratch where model = llama-2-7b and pretrained = no and gpus = 8 "
                 "and hardware = a100 and time = 2 days")
    check = a["compute_check"]
    assert check["approach"] == "train-from-scratch" and check["meets_time_budget"] is False
    assert check["query"].startswith("plan where model = llama-2-7b")


def test_a_run_within_the_budget_is_said_to_keep_to_it(kb):
    check = _one(kb, "recommend approach where params = 1B and gpus = 8 and hardware = h100 and time = 5 days top 3")
    check = check["compute_check"]
    assert check["meets_time_budget"] is True and check["gpus_for_time"] is None
    assert "keeps to the 5 days budget" in check["text"] and " top " not in check["query"]


@pytest.mark.parametrize("text", [
    "recommend approach where params = 3B and gpus = 8 and hardware = a100",     # no time budget
    "recommend approach where gpus = 8 and hardware = a100 and time = 5 days",   # nothing to size
    "recommend optimizer where params = 3B and gpus = 8 and hardware = a100 and time = 5 days",  # no approach decided
])
def test_no_check_without_a_budget_a_size_or_a_run_decided_on(kb, text):
    assert "compute_check" not in _one(kb, text)


def test_the_web_page_says_it_with_a_link_to_the_plan(kb):
    from recipekg.web.app import create_app

    page = create_app(kb).test_client().get("/", query_string={"q": SLOW}).get_data(as_text=True)
    assert "Compute check:" in page and "misses the 5 days budget" in page
    assert "method+%3D+pretrain" in page or "method%20%3D%20pretrain" in page


def test_a_method_given_is_checked_whatever_the_advice_and_its_constraints_are_used(kb):
    """With the method given, the check is of the user's own run (a LoRA fine-tune of a named
    model on a dataset of 100M tokens), whatever the kind asked about; the time, GPUs, hardware
    and tokens plan read for it are no longer said to be unused by the optimizer advice."""
    a = _one(kb, "recommend optimizer where model = llama-2-7b and method = lora and tokens = 100M "
                 "and gpus = 1 and hardware = a100 and time = 1 hour")
    check = a["compute_check"]
    assert check["approach"] is None and check["method"] == "lora"
    assert check["text"].startswith("the LoRA fine-tune given, as plan sizes it (100M tokens): ")
    plan = _one(kb, check["query"])
    assert check["meets_time_budget"] is plan["feasibility"]["meets_time_budget"] is False
    assert not {"time", "gpus", "hardware", "tokens"} & {u["dimension"] for u in a["unused"]}
    without = _one(kb, "recommend optimizer where model = llama-2-7b and method = lora and gpus = 1 "
                       "and hardware = a100 and time = 1 hour")  # no dataset size: plan cannot time it
    assert "compute_check" not in without and "time" in {u["dimension"] for u in without["unused"]}


@pytest.mark.parametrize("text, misses", [
    ("explain train-from-scratch where params = 1B and gpus = 1 and hardware = rtx-4090 and time = 7 days", True),
    ("explain train-from-scratch where params = 1B and gpus = 8 and hardware = h100 and time = 5 days", False),
])
def test_ranking_first_beside_a_run_that_misses_the_budget_says_both(kb, text, misses):
    """The flowchart's rule ranks pretraining 1B on one GPU for a week first; plan's arithmetic
    has the run take 17 days and more. explain's closing line says both (text and web page),
    and says nothing more where the run keeps to the budget."""
    from recipekg.web.app import create_app

    a = _one(kb, text)
    assert a["rank"] == 1 and a["compute_check"]["meets_time_budget"] is (not misses)
    said = "by plan's arithmetic, though, the run misses your time budget"
    assert (said in render_text(a, detail=False)) is misses
    page = create_app(kb).test_client().get("/", query_string={"q": text}).get_data(as_text=True)
    assert (said in page) is misses and "It already ranks first" in page
