"""A CLIP pretraining recipe takes the settings CLIP's paper states in its Section 2.5 (audit
15/18: every setting was unsourced), its own stability measure among them, and a fine-tune of
CLIP takes none of them."""

import pytest

RUN = "architecture = clip and data = multimodal and hardware = a100 and gpus = 64"


def _items(kb, query: str) -> dict:
    (r,) = kb.query(query)
    return {i["what"]: dict(i, section=s["name"]) for s in r["sections"] for i in s["items"]}


def test_clip_pretraining_takes_section_2_5s_settings(kb):
    items = _items(kb, f"recipe where {RUN} and method = pretrain")
    expected = {"epochs": 32, "global batch": 32768, "initial temperature": 0.07, "largest logit scale": 100}
    for what, value in expected.items():
        assert items[what]["value"] == pytest.approx(value), what
        (source,) = [s for s in items[what]["sources"] if s["id"] == "radford2021"]
        assert source["role"] == "states" and source["where"] == "Section 2.5", what
    assert items["learning-rate schedule"]["value"] == "cosine"
    assert items["largest logit scale"]["section"] == "stability"
    assert items["global batch"]["text"].startswith("32,768 ")  # every digit of a published batch


def test_the_users_batch_wins_with_clips_as_the_alternative(kb):
    items = _items(kb, f"recipe where {RUN} and method = pretrain and batch-size = 16k")
    batch = items["global batch"]
    assert batch["value"] == 16000 and batch["from"] == "given"
    assert [a["value"] for a in batch["alternatives"]] == [32768]


def test_a_clip_fine_tune_takes_none_of_its_pretraining_settings(kb):
    items = _items(kb, f"recipe where {RUN} and method = full-fine-tune")
    for what in ("epochs", "global batch", "initial temperature", "largest logit scale"):
        assert what not in items or "radford2021" not in [s["id"] for s in items[what]["sources"]], what
