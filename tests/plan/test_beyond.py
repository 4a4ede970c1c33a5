"""Issue 25: the data-constrained law, inference-aware sizing, the learning-rate and batch laws
and the recency stamp, checked against the published points they can be checked against
(docs/research/scaling-beyond-reference.md and docs/research/hyperparameters.md hold the quotes)."""

import json
import math

import pytest

from recipekg.api import KnowledgeBase


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load()


def run(kb, text):
    return kb.query(text)[0]


def q(a, name):
    return next(x for x in a["quantities"] if x["name"] == name)


def test_the_issues_example_50b_unique_for_200b_tokens(kb):
    # Muennighoff et al., Section 3: D' = U_D + U_D R*_D (1 - e^(-R_D/R*_D)), R_D = epochs - 1,
    # R*_D = 15.387756 (the authors' released fit): 50B unique tokens repeated to 200B are worth
    # 50B + 50B x 15.39 x (1 - e^(-3/15.39)) = 186.3B tokens of fresh data.
    a = run(kb, "plan where tokens = 200B and unique-tokens = 50B")
    expected = 50e9 + 50e9 * 15.387756 * (1 - math.exp(-3 / 15.387756))
    assert q(a, "effective_tokens")["value"] == pytest.approx(expected, rel=1e-6)
    assert q(a, "effective_tokens")["value"] == pytest.approx(186.3e9, rel=1e-3)
    # the reference's two statements stay, each shown as the reference's, and both superseded
    assert q(a, "effective_tokens_reference")["value"] == pytest.approx(50e9 * (1 - math.exp(-4)), rel=1e-6)
    assert q(a, "effective_tokens_guidance")["value"] == pytest.approx(0.85 * 200e9, rel=1e-9)
    assert {s["claim"] for s in a["superseded"]} >= {"effective-data", "repeated-data-guidance"}
    assert q(a, "effective_tokens_reference")["superseded_by"][0]["id"] == "data-constrained-effective-data"
    assert {"reference", "muennighoff2023"} <= {s["id"] for s in q(a, "effective_tokens_reference")["sources"]}


def test_one_epoch_is_worth_itself_and_repetition_has_a_ceiling(kb):
    one = run(kb, "plan where tokens = 100B and unique-tokens = 100B")
    assert not any(x["name"] == "effective_tokens" for x in one["quantities"])   # no repetition, said so
    assert any("no token is repeated" in n["text"] for n in one["notes"])
    many = run(kb, "plan where params = 1B and unique-tokens = 1B and epochs = 100")
    eff = q(many, "effective_tokens")["value"]
    assert 1e9 * 15 < eff < 1e9 * (1 + 15.387756)                              # at most U(1 + R*_D)
    assert any("worthless" in w["text"] for w in many["warnings"])             # the paper's ~40 epochs


def test_unique_tokens_above_tokens_is_said(kb):
    a = run(kb, "plan where tokens = 100B and unique-tokens = 500B")
    assert any("extra data is not used" in w["text"] for w in a["warnings"])


def test_sardana_figure_1(kb):
    # Figure 1: a 13B Chinchilla-optimal model with 2T tokens of inference demand costs about
    # 17% (1.7e22 FLOPs) more over its life than a 7B model trained longer to the same quality.
    # The 13B model here is the fit's own compute-optimal one (76.3 tokens/param under the
    # printed constants). With the printed, rounded exponents (0.34, 0.28) the law lands at 8.0B
    # and 10%; with the unrounded 0.3392 and 0.2849 it gives 7.1B and 16% (the difference is the
    # rounding; docs/research/scaling-beyond-reference.md).
    a = run(kb, "plan where params = 13B and tokens = 992B and inference-tokens = 2T")
    n, d = q(a, "inference_optimal_params")["value"], q(a, "inference_optimal_tokens")["value"]
    saved = q(a, "total_flops_saved")["value"]
    assert 7e9 <= n <= 8.5e9 and d > 992e9
    assert 0.08 <= saved <= 0.2
    assert "same pretraining loss" in q(a, "total_flops_saved")["assumption"]
    assert {"sardana2024", "hoffmann2022"} <= {s["id"] for s in q(a, "inference_optimal_params")["sources"]}


def test_more_demand_means_a_smaller_model_and_none_keeps_the_fit_optimum(kb):
    sizes = [q(run(kb, f"plan where params = 13B and tokens = 992B and inference-tokens = {d}"),
               "inference_optimal_params")["value"] for d in ("1B", "2T", "20T", "200T")]
    assert sizes[0] == pytest.approx(13e9, rel=0.02)          # negligible demand: the fit-optimal model stays
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] < sizes[1] / 2


def test_a_plan_at_20_tokens_per_param_says_the_fit_disagrees(kb):
    a = run(kb, "plan where params = 7B and inference-tokens = 1T")
    assert any("20 tokens/param the paper itself uses" in w["text"] for w in a["warnings"])


def test_bad_inference_demand_is_an_error_with_its_position():
    from recipekg.cli.respond import respond

    out, to_stderr, status = respond("plan where params = 7B and inference-tokens = -2T", "text")
    assert status == 2 and to_stderr and "inference-tokens" in out and "column" in out


def test_learning_rate_and_batch_for_pretraining_with_the_range_said(kb):
    a = run(kb, "plan where params = 7B")
    lr, batch = q(a, "learning_rate"), q(a, "batch_tokens")
    flops = q(a, "flops")["value"]
    assert lr["value"] == pytest.approx(0.3118 * flops ** -0.125, rel=1e-9)      # Equation 1
    assert batch["value"] == pytest.approx(0.2920 * flops ** 0.3271, rel=1e-9)
    assert any("fitted on" in n["text"] for n in a["notes"] + a["warnings"])
    small = run(kb, "plan where flops = 1e18")
    assert not any("learning-rate and batch laws were fitted" in n["text"] for n in small["notes"] + small["warnings"])
    assert not any(x["name"] == "learning_rate" for x in run(kb, "plan where params = 7B and method = lora")["quantities"])


def recipes(kb):
    return sorted((f for f in kb.snap["facts"].values() if "learning_rate" in f), key=lambda f: f["id"])


#: law / published, learning rate and batch tokens, for each published recipe of the KB (the
#: table of docs/research/hyperparameters.md, read against the quotes there). The law lands on
#: DeepSeek's own runs; every other recipe uses a lower peak learning rate than the law
#: (1.4x-6x, GPT-3 175B's the lowest) and, but for Pythia-160M and Pythia-410M, a smaller batch.
PUBLISHED = {
    "recipe-chinchilla-70b": (3.33, 11.59), "recipe-deepseek-67b": (1.0, 1.02), "recipe-deepseek-7b": (1.01, 0.97),
    "recipe-gpt3-175b": (6.0, 4.43), "recipe-llama3-405b": (2.47, 4.25),
    "recipe-llama-13b": (1.43, 2.25), "recipe-llama-33b": (2.44, 3.38), "recipe-llama-65b": (2.24, 4.25),
    "recipe-llama-7b": (1.55, 1.81), "recipe-llama2-70b": (2.12, 4.89), "recipe-llama2-7b": (1.42, 2.3),
    "recipe-opt-175b": (3.2, 6.0), "recipe-opt-6.7b": (4.81, 2.06), "recipe-pythia-12b": (4.2, 2.81),
    "recipe-pythia-160m": (1.44, 0.69), "recipe-pythia-1b": (2.75, 1.25), "recipe-pythia-410m": (2.56, 0.93),
    "recipe-pythia-1-4b": (3.29, 1.39),
}


def test_the_law_against_published_recipes(kb):
    """DeepSeek LLM's laws against the peak learning rates and batch sizes of published runs:
    how far the law lands from each (a factor, law / published)."""
    rows = {}
    for f in recipes(kb):
        a = run(kb, f"plan where params = {f['params']:.6g} and tokens = {f['tokens']:.6g}")
        rows[f["id"]] = (round(q(a, "learning_rate")["value"] / f["learning_rate"], 2),
                         round(q(a, "batch_tokens")["value"] / f["batch_tokens"], 2))
    assert rows == PUBLISHED
    assert all(0.9 <= x <= 1.1 for x in rows["recipe-deepseek-7b"] + rows["recipe-deepseek-67b"])
    assert all(lr > 1 for name, (lr, _) in rows.items() if "deepseek" not in name)


def test_every_answer_has_an_as_of(kb):
    for text in ("recommend fix where symptom = loss-spike", "explain vit where data = images and samples = 3000",
                 "plan where params = 7B and hardware = h100 and gpus = 8"):
        a = run(kb, text)
        assert a["as_of"] and len(a["as_of"]) == 10 and a["as_of_source"] in kb.snap["papers"]


def test_stats_lists_the_superseded(kb):
    revised = kb.stats()["superseded"]
    assert {r["claim"] for r in revised} == {"effective-data", "repeated-data-guidance",
                                             "repeated-data-effectiveness", "repeated-data-up-to-four-epochs"}
    assert all(r["superseded_by"] == "data-constrained-effective-data" for r in revised)


@pytest.mark.parametrize("params, nearest", [("175B", {"recipe-opt-175b", "recipe-gpt3-175b"}), ("9B", {"recipe-llama2-7b", "recipe-pythia-12b"})])
def test_the_law_is_shown_beside_the_published_recipes_nearest_in_size(kb, params, nearest):
    """DeepSeek's law sets a higher learning rate than the published recipes (3.2× OPT-175B's):
    a plan of a size without a recipe of its own names the recipes nearest in size, in its first
    lines and in a note citing each, with how far the law is from them."""
    (a,) = kb.query(f"plan where params = {params} and hardware = a100 and gpus = 64")
    facts = {f["id"]: f for f in kb.snap["facts"].values() if f["id"] in nearest}
    assert set(facts) == nearest
    line = next(s for s in a["summary"] if s.startswith("hyperparameters:"))
    assert "published recipes nearest in size" in line
    note = next(n for n in a["notes"] if "nearest in size set the peak learning rate" in n["text"])
    lr = next(q for q in a["quantities"] if q["name"] == "learning_rate")["value"]
    for f in facts.values():
        name = f["label"].removeprefix("Published recipe: ")
        assert name in line and name in note["text"]
        assert f"the law gives {lr / f['learning_rate']:.1f}× that" in note["text"]
    assert {p for f in facts.values() for p in f["sources"]} <= {s["id"] for s in note["sources"]}


def test_a_named_model_with_its_own_recipe_shows_that_instead(kb):
    (a,) = kb.query("plan where model = llama-2-7b and hardware = a100 and gpus = 1024 and tokens = 2T")
    line = next(s for s in a["summary"] if s.startswith("hyperparameters:"))
    assert "Llama 2 7B's own" in line and "nearest in size" not in line


# ------------------------------------------------------------------ the laws' scope

def _quantity_names(answer: dict) -> set[str]:
    return {q["name"] for q in answer["quantities"]}


@pytest.mark.parametrize("architecture,law", [("vit", False), ("cnn", False), ("decoder", True),
                                              ("transformer", True), ("llama", True), (None, True)])
def test_the_lr_and_batch_laws_are_for_decoder_language_models(kb, architecture, law):
    """DeepSeek LLM's laws were fitted on decoder-only language models (``rkg:appliesTo``): a
    ViT or a CNN pretraining plan gets a note saying so instead of an LLM's learning rate; a
    transformer may be a decoder, and a plan naming no architecture keeps them."""
    named = f"architecture = {architecture} and " if architecture else ""
    (a,) = kb.query(f"plan where {named}params = 86M and tokens = 10B and hardware = a100 and gpus = 8")
    assert ({"learning_rate", "batch_tokens"} <= _quantity_names(a)) is law
    notes = " ".join(n["text"] for n in a["notes"])
    assert ("no learning-rate or batch law" in notes) is not law


def test_a_vit_recipe_takes_its_learning_rate_from_its_own_published_recipe(kb):
    (r,) = kb.query("recipe where architecture = vit and method = pretrain and params = 86M and hardware = a100 "
                    "and gpus = 8 and tokens = 10B")
    text = json.dumps(r)
    assert "(DeepSeek LLM's law)" not in text and "touvron2021deit" in text
