"""The flowchart's Video leaf is the branch a video user takes (audit 6/02): its size rows are the
images' (their texts and the vision table's "< 5K images" say so), so 20k video clips are not sent
to an image ViT, and images keep their size rows."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("clips", ["8k", "20k", "2M"])
def test_video_goes_to_the_video_transformers_whatever_its_size(kb, clips):
    (a,) = kb.query(f"recommend architecture where data = video and task = classification and samples = {clips} "
                    "and pretrained = yes")
    assert a["decision"]["pick"] in ("timesformer", "video-swin"), a["decision"]
    matching = {r["id"] for r in a["results"] if r["group"] == "matches" and r["score"] > 0}
    assert not matching & {"vit", "cnn", "convnext", "coatnet"}, matching


@pytest.mark.parametrize("images,pick", [("3k", {"cnn", "resnet", "efficientnet"}), ("2M", {"vit", "convnext", "coatnet"})])
def test_images_keep_the_size_rows(kb, images, pick):
    (a,) = kb.query(f"recommend architecture where data = images and samples = {images}")
    assert a["decision"]["pick"] in pick, a["decision"]


def test_a_fix_without_advice_points_to_the_approach_narrower_than_the_user_s_own(kb):
    """Audit 6/14: overfitting in a full fine-tune of a ViT on 2,000 images has no fix rule; the
    approach advice's pick is the user's own method's family (fine-tune a pretrained model), so
    it was not pointed to, though its narrower "fine-tune the head only" is the KB's advice
    against small-data overfitting. A choice narrower than (or tied with) such a pick is."""
    (a,) = kb.query("recommend fix where symptom = overfitting and method = full-fine-tune and architecture = vit "
                    "and data = images and samples = 2000")
    found = {e["kind"]: e for e in a.get("elsewhere", ())}
    assert found["approach"]["choice"] == "fine-tune-head" and found["approach"]["verdict"] == "for"
    from recipekg.render.answers import render_answers
    assert "the approach advice for these constraints is for Fine-tune the head only" in render_answers([a], "text")


def test_a_vit_fine_tune_is_advised_its_authors_sgd_and_the_recipe_agrees(kb):
    """Audit 6/05: a ViT full fine-tune got AdamW first and SGD+momentum at 0.07, while the KB's
    own recipe settings (the ViT paper's Appendix B.1.1) fine-tune it with SGD at momentum 0.9."""
    q = "where architecture = vit and method = full-fine-tune and data = images and samples = 20k"
    (a,) = kb.query(f"recommend optimizer {q}")
    assert a["decision"]["pick"] == "sgd-momentum"
    (r,) = kb.query(f"recipe {q}")
    text = json.dumps(r)
    assert '"optimizer"' in text and "sgd-momentum" in text and "dosovitskiy2020" in text
    (a,) = kb.query("recommend optimizer where architecture = llama and method = full-fine-tune")
    assert a["decision"]["pick"] == "adamw", "another model keeps the optimizer it was pretrained with"


def test_a_t5_is_advised_the_adafactor_it_was_trained_with(kb):
    """Audit 6/07: an 11B T5 pretraining on TPU v4 was advised AdamW and Adafactor was absent; T5
    was trained with Adafactor (Raffel et al., Section 3.1.2)."""
    (a,) = kb.query("recommend optimizer where method = pretrain and architecture = t5 and params = 11B "
                    "and hardware = tpu-v4 and gpus = 256")
    assert a["decision"]["pick"] == "adafactor"
    first = a["results"][0]
    assert "t5-adafactor" in {r["id"] for r in first["because"]}
    assert not [u for u in a["unused"] if u["dimension"] == "architecture"], "architecture = t5 is used"
