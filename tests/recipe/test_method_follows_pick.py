"""The recipe's method is what its approach trains (audit 13/25: "approach: Fine-tune the head
only" came with "method: Full fine-tune", the method of the broader approach ranked after it)."""

from __future__ import annotations

HEAD_ONLY = "recipe where data = images and task = classification and samples = 5000 and hardware = rtx-3090 and gpus = 1"


def _items(a: dict, kind: str) -> list[dict]:
    return [it for s in a["sections"] for it in s["items"] if it["what"] == kind]


def test_a_head_only_pick_gets_no_full_fine_tune(kb):
    (a,) = kb.query(HEAD_ONLY)
    (approach,) = _items(a, "approach")
    assert approach["value"] == "fine-tune-head"
    assert _items(a, "method") == []  # (the head only trains none of the language's methods' weights)


def test_a_pick_that_is_a_method_still_gives_it(kb):
    (a,) = kb.query("recipe where model = llama-2-7b and data = text and samples = 5000 and hardware = a100 and gpus = 1")
    (method,) = _items(a, "method")
    (approach,) = _items(a, "approach")
    assert method["from"] == "recommend approach" and approach["value"] in ("lora", "qlora", "full-fine-tune", "fine-tune-pretrained")
