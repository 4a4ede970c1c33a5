"""What the recipe's approach says of what the query leaves open (recipe/premise.py): a recipe
that trains from scratch ranks the architecture as for a run without a pretrained model, one
that fine-tunes as for a run with one (QA round 10, C02)."""

from __future__ import annotations

import pytest

FROM_SCRATCH = "recipe where data = images and task = classification and samples = 2M and hardware = a100 and gpus = 32"


def _premise(a: dict) -> list[dict]:
    return [c for c in a["constraints"] if c.get("derived_from") == "approach"]


def _constraint(a: dict, dimension: str) -> dict:
    return next(c for c in a["constraints"] if c["dimension"] == dimension)


def test_training_from_scratch_ranks_the_architecture_without_a_pretrained_model(kb):
    """2M images: the approach trains from scratch, so the ViT the ranking took with pretrained
    unknown gives way to what the advice says for no pretrained ViT to start from; the premise
    is shown, derived from the approach, with its source, and the question it stands in for
    is still asked."""
    (a,) = kb.query(FROM_SCRATCH)
    assert a["context"]["method_from"] == "train-from-scratch" and a["context"]["method"] == "pretrain"
    assert a["context"]["architecture"] != "vit"
    (plain,) = kb.query(FROM_SCRATCH.replace("recipe", "recommend architecture", 1) + " and pretrained = no")
    assert a["context"]["architecture"] == plain["decision"]["pick"]
    (pretrained,) = _premise(a)
    assert pretrained["dimension"] == "pretrained" and pretrained["value"] == "no" and "Training from scratch starts from random weights" in pretrained["note"]
    assert [s["id"] for s in pretrained["sources"]] == ["reference"]
    assert any(q["dimension"] == "pretrained" and "vit" in q["would_change"] for q in a["ask"])


def test_a_premise_the_user_gives_is_the_user_s(kb):
    """pretrained given: the recipe reads it as given, and ranks as before (the flowchart's ViT
    from scratch above 1M images)."""
    (a,) = kb.query(FROM_SCRATCH + " and pretrained = yes")
    assert a["context"]["architecture"] == "vit"
    assert not _premise(a) and "derived_from" not in _constraint(a, "pretrained")
    assert not any(q["dimension"] == "pretrained" for q in a["ask"])


@pytest.mark.parametrize("text", [
    FROM_SCRATCH + " and architecture = vit",
    "recipe where model = llama-2-7b and method = lora and hardware = a100 and gpus = 1",
    "recipe where data = tabular and rows = 30k",
])
def test_no_premise_where_the_architecture_is_given_or_nothing_changes(kb, text):
    """A given architecture (or a named model) is the user's; a ranking the premise would not
    change keeps its answer, with no premise shown."""
    (a,) = kb.query(text)
    assert not _premise(a)


@pytest.mark.parametrize("samples", ["3000", "20k", "200k", "2M", "20M"])
def test_the_premised_architecture_is_the_ranking_s_for_the_premise(kb, samples):
    """Whatever the size: when the recipe shows a premise, its architecture is the one
    ``recommend architecture`` picks with that premise given, and its method the one the
    approach settles on for that architecture."""
    text = f"recipe where data = images and task = classification and samples = {samples}"
    (a,) = kb.query(text)
    shown = _premise(a)
    if not shown:
        return
    (c,) = shown
    (plain,) = kb.query(text.replace("recipe", "recommend architecture", 1) + f" and pretrained = {c['value']}")
    assert a["context"]["architecture"] == plain["decision"]["pick"]
