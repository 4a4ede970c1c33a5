"""explain's smallest change turns knobs the user gave: a rule's condition on a share a KB
formula derives (the frozen base against the GPUs' memory, the training memory against one
GPU) is met by the number it is derived from (a model size, a GPU count), and a rule against
the choice that holds can be turned off by one (reason/changes.py, reason/inverse.py)."""

from __future__ import annotations

import pytest

MEMORY = [
    "explain lora where method = lora and params = 13B and hardware = rtx-4090 and gpus = 1",
    "explain qlora where method = qlora and params = 70B and hardware = rtx-4090 and gpus = 1",
    "explain fsdp where method = lora and params = 13B and hardware = rtx-4090 and gpus = 1",
    "explain fsdp where method = qlora and params = 70B and hardware = rtx-4090 and gpus = 1",
    "explain gradient-checkpointing where params = 1B and method = pretrain and hardware = h100 and gpus = 8",
    "explain fsdp where params = 7B and hardware = a100-80gb and gpus = 1",
    "explain ddp where params = 30B and hardware = a100-80gb and gpus = 8",
]
OTHERS = [
    "explain vit where data = images and samples = 3000",
    "explain vit where data = images and samples = 3000 and pretrained = no",
    "explain lightgbm where data = tabular and rows = 300",
    "explain train-from-scratch where gpus = 1 and time < 1 day",
    "explain lora where model = llama-2-70b and hardware = a100 and gpus = 8",
]


def _formula_derived(snap) -> set[str]:
    return {n for n, d in snap["dimensions"].items() if d.get("derived_by")}


@pytest.mark.parametrize("query", MEMORY + OTHERS)
def test_every_change_found_asked_as_it_is_written_ranks_the_choice_first(kb, query):
    """The query each change proposes is a query: asked, its first entry is the choice (or the
    family the choice is a member of) and the advice there is for it; for a kind whose choices
    are parts of one run, its first entry of the choice's recipe section (``section``)."""
    (a,) = kb.query(query)
    chosen = a["choice"]["id"]
    sections = kb.snap["recipe_sections"]
    for w in a["would_rank_first_if"]:
        (again,) = kb.query(w["query"])
        top = next(r for r in again["results"] if not a.get("section")
                   or (sections.get(r["iri"]) or a["kind"]) == a["section"])
        assert chosen in [top["id"]] + [m["id"] for m in top.get("members", ())], (w["query"], top["id"])
        assert top["score"] > 0


@pytest.mark.parametrize("query", MEMORY)
def test_a_derived_share_is_changed_through_the_numbers_it_is_derived_from(kb, snap, query):
    """Where the user gave the numbers a share is derived from, no change states the share
    itself (``memory-load > 100%``, ``base-load <= 100%``): it names the model size or the GPU
    count that gives it. A share is stated only when the query lacks one of its inputs (the
    activations of a sequence, without a sequence length)."""
    (a,) = kb.query(query)
    dims = snap["dimensions"]
    given = {c["dimension"] for c in a["constraints"] if "derived_from" not in c}
    assert a["would_rank_first_if"], query
    for w in a["would_rank_first_if"]:
        for c in w["changes"]:
            if dims[c["dimension"]].get("derived_by"):
                assert not set(dims[c["dimension"]]["derived_from"]) <= given | {"gpu-memory"}, w["query"]


def test_a_rule_against_the_choice_is_turned_off_by_a_knob(kb, snap):
    """LoRA of a 13B model on one 24 GB GPU: the 16-bit base (26 GB) does not fit, a strong rule
    against it. A 12B model's base is 24 GB, 100% of the GPU, which the rule (over 100%) lets
    pass: the change says so and that it turns that rule off."""
    (a,) = kb.query(MEMORY[0])
    assert a["rank"] == 1 and "no_change_because" not in a  # first of a list the advice is all against: no pick
    off = [w for w in a["would_rank_first_if"] if w.get("turns_off")]
    assert off and off[0]["rule"].endswith("/lora-base-over-gpus")
    assert off[0]["changes"] == [{"dimension": "params", "op": "=", "value": 12e9, "unit": "count"}]
    (again,) = kb.query(off[0]["query"])
    assert again["results"][0]["id"] == "lora"


def test_a_rule_for_the_choice_on_a_derived_share_is_met_by_the_smallest_knob_change(kb):
    """FSDP for a LoRA run whose 16-bit base (26 GB) exceeds one 24 GB GPU: the rule needs the
    base over one GPU and within all of them, which a second GPU gives (54%): ``gpus = 2``, not
    ``base-load <= 100%``; for 8-bit Adam on 8 H100s, a model whose training memory exceeds the
    GPUs' (36B at 18-20 bytes per parameter), not ``memory-load > 100%`` (the method given: a
    LoRA run's memory is another formula's)."""
    (fsdp,) = kb.query(MEMORY[2])
    assert fsdp["would_rank_first_if"][0]["changes"] == [{"dimension": "gpus", "op": "=", "value": 2.0,
                                                         "unit": "count"}]
    (ckpt,) = kb.query("explain adam-8bit where params = 1B and method = pretrain and hardware = h100 and gpus = 8")
    sizes = [c["value"] for w in ckpt["would_rank_first_if"] for c in w["changes"] if c["dimension"] == "params"]
    assert sizes and all(30e9 <= v <= 40e9 for v in sizes), sizes


@pytest.mark.parametrize("query", [
    # data = audio is implied by the task: a change to data = text would change the problem
    "explain lora where task = speech-recognition and architecture = whisper and samples = 2000 and hardware = t4 "
    "and gpus = 1 and pretrained = yes",
    "explain lora where task = speech-recognition and samples = 500",
    "explain vit where task = speech-recognition and samples = 50k",
])
def test_a_change_never_contradicts_a_fact_of_the_problem_the_query_implies(kb, snap, query):
    """Facts of the problem (data, task, symptom, ...) are never changed, whether the user stated
    them or the query implies them (audit 15/09 proposed data = text for a speech task)."""
    (a,) = kb.query(query)
    implied = {c["dimension"]: c["value"] for c in a["constraints"]
               if snap["dimensions"].get(c["dimension"], {}).get("problem_fact")}
    assert implied.get("data") == "audio"
    for w in a["would_rank_first_if"]:
        for c in w["changes"]:
            if c["dimension"] in implied:
                assert c["value"] == implied[c["dimension"]], (w["query"], c)


def test_a_missing_input_of_a_derived_share_is_proposed_not_the_share(kb, snap):
    """Without a model size, a rule on the training memory against the GPUs (memory-load) is met
    by the model size that gives it, solved on the formula with the GPUs given (a T4's 16 GB at
    18-20 bytes per parameter: from 890M), never by the share itself, which nobody can set."""
    (a,) = kb.query("explain lora where task = speech-recognition and architecture = whisper and samples = 2000 "
                    "and hardware = t4 and gpus = 1 and pretrained = yes")
    derived = {n for n, d in snap["dimensions"].items() if d.get("derived_by")}
    assert a["would_rank_first_if"]
    for w in a["would_rank_first_if"]:
        assert not {c["dimension"] for c in w["changes"]} & derived, w["query"]
    params = [c for w in a["would_rank_first_if"] for c in w["changes"] if c["dimension"] == "params"]
    assert params and min(c["value"] for c in params) == pytest.approx(8.9e8)
    (again,) = kb.query(a["would_rank_first_if"][0]["query"])
    assert again["results"][0]["id"] in ("lora", "fine-tune-pretrained")


def test_a_missing_gpu_count_is_solved_whichever_way_the_share_moves(kb, snap):
    """The training memory against all the GPUs falls as the GPUs grow: without a GPU count, FSDP's
    rule (the copy fits all the GPUs) is met by the count that brings a 70B model's 18-20 bytes per
    parameter within 80 GB GPUs (18), not by a memory-load the user cannot set."""
    from recipekg.query.parser import parse
    from recipekg.reason.inverse import missing_knob
    from recipekg.reason.resolve import resolve_constraints

    given = resolve_constraints(parse("recommend x where params = 70B and hardware = a100")[0].constraints, snap)
    within = snap["conditions"]["https://w3id.org/recipekg/cond/memory-load-within-all-gpus"]
    over = snap["conditions"]["https://w3id.org/recipekg/cond/memory-load-over-all-gpus"]
    assert [c["value"] for c in missing_knob(within, given, snap)["gpus"].constraints] == [18]
    assert [c["value"] for c in missing_knob(over, given, snap)["gpus"].constraints] == [15]


def test_narrowing_what_the_user_gave_comes_before_replacing_it(kb):
    """AdamW for a CNN ranks first for a ConvNeXt (its own rule) and for CLIP (a stronger rule):
    the change that says more of the user's CNN is the one shown, not one that swaps it out."""
    (a,) = kb.query("explain adamw where architecture = cnn and data = images")
    (first,) = a["would_rank_first_if"][:1]
    assert first["changes"] == [{"dimension": "architecture", "op": "=", "value": "convnext"}], first
    (swapped,) = kb.query("explain adamw where architecture = clip and data = images")
    assert swapped["rank"] == 1, "the replacement ranks it first too: the order, not the search, chose"
    cnn, convnext = (kb.snap["rule_index"]["choices"][i] for i in ("cnn", "convnext"))
    assert cnn in kb.snap["nodes"][convnext]["ancestors"]


@pytest.mark.parametrize("query, why", [
    ("explain lion where prefer = low-memory", "every rule for it holds already (2)"),
    ("explain mistral-7b where data = text and samples = 2k",
     "no rule of the KB recommends it itself, only rules about the families it is one of"),
])
def test_no_change_says_why_when_no_condition_is_left_to_meet(kb, query, why):
    """Lion's two rules, general advice and the low-memory preference given, hold already (8-bit
    Adam's outweigh them), and Mistral 7B has no rule of its own: no change was even tried, and the answer says why instead of only that none was found."""
    (a,) = kb.query(query)
    assert a["rank"] != 1 and not a["would_rank_first_if"]
    assert a["no_change_because"].startswith(why), a["no_change_because"]
