"""The flowchart's Video leaf is the branch a video user takes (audit 6/02): its size rows are the
images' (their texts and the vision table's "< 5K images" say so), so 20k video clips are not sent
to an image ViT, and images keep their size rows."""

from __future__ import annotations

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
