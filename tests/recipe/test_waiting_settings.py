"""A setting of a choice the query names that waits only for a condition the query does not
give is said with that condition, not called unsourced: QLoRA's gradient clipping at 0.3 is
for a transformer, so a QLoRA recipe that names no architecture shows 0.3 "if architecture =
transformer" and asks for the architecture (``needs``), and no configuration reads it until
the architecture is given. Settings of a choice the recipe only ranked (AdamW's weight decay for
a ConvNeXt fine-tune) are no such value: a run of another architecture is no sign of the user's."""

import pytest

QLORA = "recipe where method = qlora and params = 7B and hardware = rtx-4090 and gpus = 1"
#: AdamW is ranked here, not given: its settings for other runs (a ConvNeXt fine-tune's) wait for nothing.
FULL = "recipe where method = full-fine-tune and params = 7B and hardware = h100 and gpus = 8"


def _items(kb, query: str) -> dict:
    (r,) = kb.query(query)
    return {i["what"]: i for s in r["sections"] for i in s["items"]}


def test_a_setting_waiting_for_the_architecture_says_so(kb):
    clip = _items(kb, QLORA)["gradient-clipping max norm"]
    assert clip["value"] is None and "unsourced" not in clip
    assert clip["needs"] == ["architecture"] and clip["setting"] == "qlora-max-grad-norm"
    assert clip["text"].startswith("0.3 ") and clip["text"].endswith("if architecture = transformer")
    assert [s["id"] for s in clip["sources"]] == ["dettmers2023"]


def test_given_the_architecture_the_setting_is_the_recipes(kb):
    clip = _items(kb, QLORA + " and architecture = llama")["gradient-clipping max norm"]
    assert clip["value"] == pytest.approx(0.3) and "needs" not in clip and "unsourced" not in clip


def test_a_ranked_choices_settings_for_other_runs_do_not_wait(kb):
    from recipekg.query.parser import parse
    from recipekg.reason.resolve import facts_of
    from recipekg.recipe.settings import waiting

    decay = _items(kb, FULL)["weight decay"]
    assert decay.get("unsourced") is True and "needs" not in decay
    # the same setting would wait for the architecture had the query named AdamW itself
    facts = facts_of(parse(FULL)[0].constraints, kb.snap)
    named = waiting([kb.snap["rule_index"]["choices"]["adamw"]], facts, kb.snap)
    assert [c["dimension"] for c in named["weight-decay"]["waits"]] == ["architecture"]


def test_the_text_flags_it_and_leaves_it_off_the_unsourced_list(kb):
    from recipekg.render.answers import render_text

    (r,) = kb.query(QLORA)
    text = render_text(r)
    line = next(x for x in text.splitlines() if "gradient-clipping max norm" in x)
    assert "[give more]" in line and "0.3" in line
    unsourced = next(x for x in text.splitlines() if x.startswith("unsourced ("))
    assert "gradient-clipping" not in unsourced and "epochs" in unsourced


def test_settings_of_other_values_waiting_alike_leave_it_unsourced(kb):
    """Where the settings waiting for what the query leaves open disagree (AdamW's weight decay for
    a decoder and for a ConvNeXt), none is shown as the recipe's; where they agree (LoRA's dropout
    0.1 for a decoder, in the LoRA paper's runs and in QLoRA's large ones), the value is shown on
    each of their conditions, with each one's sources."""
    items = _items(kb, "recipe where optimizer = adamw and method = pretrain")
    assert items["weight decay"].get("unsourced") is True and "needs" not in items["weight decay"]
    dropout = _items(kb, "recipe where optimizer = adamw and method = lora")["LoRA dropout"]
    assert dropout["needs"] == ["architecture", "params"] and " or " in dropout["text"]
    assert len({s["id"] for s in dropout["sources"]}) >= 2
