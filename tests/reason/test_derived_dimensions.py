"""A dimension derived from others is data (``rkg:derivedFrom`` in ontology/dimensions.ttl):
the compute tier is derived from gpus and time, asked for through them and said so in the word
list; no code names the tier for it. A formula derives the memory shares (``rkg:derivedBy``),
the hardware its figures and the precisions its tensor cores run (``rkg:derivedVia``)."""

from __future__ import annotations

import pytest

from recipekg.knowledge.terms import RKG

from support import REPO


def test_the_tier_is_derived_from_gpus_and_time_by_the_ontology(kb):
    assert kb.snap["dimensions"]["tier"]["derived_from"] == ["gpus", "time"]
    assert [n for n, d in kb.snap["dimensions"].items() if d["derived_from"] and not d["derived_by"]] == ["tier"]
    assert kb.vocab("tier")["dimensions"][0]["derived_from"] == "gpus and time"
    (a,) = kb.query("recommend technique where gpus = 1 and time < 1 day")
    tier = next(c for c in a["constraints"] if c["dimension"] == "tier")
    assert tier["derived_from"] == "gpus and time"


def test_no_reasoner_module_names_the_tier():
    """The reasoner reads ``derived_from`` instead of naming the tier (issue 26); its examples may."""
    for path in sorted((REPO / "src" / "recipekg" / "reason").glob("*.py")):
        code = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.strip().startswith(">>>")]
        assert not [line for line in code if '"tier"' in line], path.name


# ------------------------------------------------------------------ derived by a KB formula

def _constant(snap, symbol):
    return next(c for c in snap["constants"].values() if c["symbol"] == symbol)


def test_memory_shares_are_derived_by_the_kb_formula_from_params_and_the_hardware(kb):
    """``replica-memory`` and ``memory-load`` are computed by the formulas ``rkg:derivedBy``
    names (the rule of thumb's bytes per parameter, a range, over the GPU memory the hardware
    gives), from what the query gives, and say what they come from."""
    snap = kb.snap
    dims = snap["dimensions"]
    assert dims["replica-memory"]["derived_from"] == ["params", "gpu-memory"]
    assert dims["memory-load"]["derived_from"] == ["params", "gpu-memory", "gpus"]
    per_param = _constant(snap, "c_training_bytes_per_param")
    (a,) = kb.query("recommend approach where params = 13B and gpus = 4 and hardware = a100")
    shown = {c["dimension"]: c for c in a["constraints"]}
    gpu_memory = shown["gpu-memory"]["value"]  # derived from the hardware's datasheet figure
    low, high = (per_param["low"] * 13e9 / gpu_memory, per_param["high"] * 13e9 / gpu_memory)
    assert shown["replica-memory"]["op"] == "between"
    assert shown["replica-memory"]["value"] == pytest.approx([low, high], rel=1e-3)
    assert shown["replica-memory"]["derived_from"] == "params and hardware"
    assert shown["memory-load"]["value"] == pytest.approx([low / 4, high / 4], rel=1e-3)
    assert shown["memory-load"]["derived_from"] == "params and hardware and gpus"
    (b,) = kb.query("recommend approach where params = 13B and gpu-memory = 40GB")
    shown = {c["dimension"]: c for c in b["constraints"]}
    assert shown["replica-memory"]["derived_from"] == "params and gpu-memory"
    assert "memory-load" not in shown  # no GPU count: not derived


@pytest.mark.parametrize("where", ["params > 7B and hardware = a100", "hardware = a100", "params = 7B",
                                   "params = 7B and gpu-memory = 0GB"])
def test_a_memory_share_needs_a_finite_value_of_every_input(kb, where):
    (a,) = kb.query(f"recommend approach where {where}")
    assert "replica-memory" not in {c["dimension"] for c in a["constraints"]}


def test_a_model_whose_full_copy_does_not_fit_one_gpu_rules_data_parallelism_out(kb):
    """A 70B model on 8 A100s for a week: the flowchart's tier says DDP, but a full training
    copy (1.26-1.4 TB by the rule of thumb) does not fit an 80 GB GPU, so DDP is ruled out by
    its property; the run is about twice the 8 GPUs' memory together, so sharding alone does
    not fit it either and adapters come first: on the 16-bit base, which takes a fifth of the 8
    GPUs' memory (torchtune trains Llama 3.1 70B with LoRA on 8 A100s), QLoRA among its kinds. A
    13B model on the same GPUs fits them sharded: sharding is the pick. The constraints they
    use are said used."""
    (a,) = kb.query("recommend approach where params = 70B and gpus = 8 and hardware = a100 and time = 1 week")
    assert a["decision"]["pick"] == "lora" and "qlora" in a["decision"].get("narrower", ())
    assert [(e["id"], e["property"]["id"]) for e in a["excluded"]] == [("ddp", "ddp-full-copy-per-gpu"),
                                                                        ("fsdp", "fsdp-states-fit-all-gpus")]
    assert not {u["dimension"] for u in a["unused"]} & {"params", "hardware"}
    (b,) = kb.query("recommend approach where params = 13B and gpus = 8 and hardware = a100 and time = 1 week")
    assert b["decision"]["pick"] == "fsdp" and "ddp" in {e["id"] for e in b["excluded"]}
    (small,) = kb.query("recommend approach where params = 1B and gpus = 8 and hardware = a100 and time = 1 week")
    assert "ddp" not in {e["id"] for e in small["excluded"]}
    assert "ddp" in {r["id"] for r in small["results"]}


def test_sharding_is_ruled_out_where_the_states_exceed_all_the_gpus_memory(kb):
    """Preferring low memory speaks for FSDP on several GPUs, but 70B on 2 A100s needs about
    eight times their memory together (the rule of thumb's 18-20 bytes per parameter): sharding
    divides the states, it does not shrink them, so FSDP is ruled out by its property and is
    never the pick; 7B on the same 2 GPUs fits sharded, and FSDP is the pick there."""
    (big,) = kb.query("recommend approach where params = 70B and gpus = 2 and hardware = a100 and prefer = low-memory")
    assert big["decision"]["pick"] != "fsdp"
    assert ("fsdp", "fsdp-states-fit-all-gpus") in [(e["id"], e["property"]["id"]) for e in big["excluded"]]
    assert "fsdp" not in {r["id"] for r in big["results"]}
    (fits,) = kb.query("recommend approach where params = 7B and gpus = 2 and hardware = a100 and prefer = low-memory")
    assert fits["decision"]["pick"] == "fsdp" and "fsdp" not in {e["id"] for e in fits["excluded"]}


def test_a_value_on_a_threshold_names_the_side_the_other_ranking_was_tried_on(kb):
    """gpus = 2 sits on the FSDP rule's 'gpus >= 2': the other side tried is below 2 (where
    the rule fails), and the text says so, not 'above'."""
    (a,) = kb.query("recommend approach where params = 7B and gpus = 2 and hardware = a100 and prefer = low-memory")
    (near,) = [n for n in a["near_boundary"] if n["dimension"] == "gpus"]
    assert near["side"] == "at" and near["other_side"]["value"] < near["threshold"]
    assert "gpus = 2 is at 2," in near["text"] and "; below 2 " in near["text"] and "above" not in near["text"]


def test_memory_pressure_brings_the_memory_savings_forward(kb):
    """More memory than the GPUs hold (7B on one 24 GB GPU) decides as prefer = low-memory
    does: the memory-saving techniques, a memory-light optimizer, QLoRA."""
    (tech,) = kb.query("recommend technique where params = 13B and gpus = 1 and hardware = a100")
    assert tech["decision"]["pick"] in ("gradient-checkpointing", "quantized-optimizer-states")
    (opt,) = kb.query("recommend optimizer where params = 7B and gpus = 1 and hardware = rtx-4090")
    assert opt["decision"]["pick"] == "adam-8bit"
    (fits,) = kb.query("recommend optimizer where params = 1B and gpus = 1 and hardware = h100")
    assert fits["decision"]["pick"] == "adamw"


# ------------------------------------------------------------ derived from the hardware, by name

def test_the_tensor_cores_precisions_are_derived_from_the_hardware(kb):
    """``tensor-precision`` is what every accelerator named runs (``rkg:supportsPrecision`` of
    kb/hardware.ttl), all at once; FP8 advice for the cutting edge follows it on any hardware
    whose tensor cores run FP8, and waits for the preference otherwise."""
    snap = kb.snap
    fp8 = snap["dimensions"]["precision"]["values"]["fp8"]
    with_fp8 = {h for h, figures in snap["hardware"].items() if fp8 in figures.get(RKG.supportsPrecision, ())}
    (a,) = kb.query("recommend technique where hardware = h100 and prefer = cutting-edge")
    shown = {c["dimension"]: c for c in a["constraints"]}
    assert shown["tensor-precision"]["op"] == "all of" and "fp8" in shown["tensor-precision"]["value"]
    assert shown["tensor-precision"]["derived_from"] == "hardware"
    assert a["decision"]["pick"] == "fp8-training"
    hardware = snap["dimensions"]["hardware"]["values"]
    assert hardware["h100"] in with_fp8 and hardware["a100"] not in with_fp8
    (b,) = kb.query("recommend technique where hardware = a100 and prefer = cutting-edge")
    assert "fp8-training" not in {r["id"] for r in b["results"] if r["group"] == "matches"}
    (c,) = kb.query("recommend technique where hardware in (h100, a100)")  # what both run
    assert "fp8" not in next(x["value"] for x in c["constraints"] if x["dimension"] == "tensor-precision")


@pytest.mark.parametrize("gpus, over", [(2, True), (4, False)])
def test_tensor_parallel_serving_says_when_the_weights_do_not_fit_all_the_gpus(kb, gpus, over):
    """``serving-load`` (the 16-bit weights against all the GPUs' memory, by the KB's formula)
    puts a note on tensor parallelism when split over every GPU the weights still do not fit:
    Llama 3 70B's 141 GB over two 48 GB L40S, not over four; the note is in the short text."""
    from recipekg.render.answers import render_answers

    (a,) = kb.query(f"recommend approach where method = inference and model = llama-3-70b and hardware = l40s "
                    f"and gpus = {gpus}")
    load = next(c for c in a["constraints"] if c["dimension"] == "serving-load")
    assert set(load["derived_from"].split(" and ")) == {"method", "architecture", "hardware", "gpus"}
    tp = next(r for r in a["results"] if r["id"] == "tensor-parallelism")
    notes = [n["id"] for n in tp.get("notes", ())]
    assert a["decision"]["pick"] == "tensor-parallelism"
    assert ("tensor-parallelism-serving-weights-fit-all-gpus" in notes) is over, notes
    text = render_answers([a], "text", False)
    assert ("quantise them (8 or 4 bits) or add GPUs" in text) is over
    (b,) = kb.query(f"recommend approach where method = lora and params = 70B and hardware = l40s and gpus = {gpus}")
    assert "serving-load" not in {c["dimension"] for c in b["constraints"]}  # inference only (rkg:forMethod)


def test_the_kv_cache_served_at_once_is_reasoned_with_and_agrees_with_plan(kb):
    """``kv-load`` (the 16-bit weights and the KV cache of batch-size sequences of seq-length
    tokens against all the GPUs' memory) is derived through the model's shape, its key-value
    heads included (the configuration's, else as many as heads): 64 sequences of 128K tokens on
    one H100 are 13.6 times its memory, as plan counts them, and bring an 8-bit KV cache; the
    sequence length and the batch are used, or said to need the GPUs (the sequence length is
    read by the attention kernel's advice either way)."""
    where = "method = inference and model = llama-3-8b and hardware = h100 and seq-length = 128k and batch-size = 64"
    (a,) = kb.query(f"recommend technique where {where} and gpus = 1")
    load = next(c for c in a["constraints"] if c["dimension"] == "kv-load")
    (p,) = kb.query(f"plan where {where} and gpus = 1")
    weights, kv = (next(x["value"] for x in p["quantities"] if x["name"] == n) for n in ("weights", "kv_cache"))
    low, high = load["value"]   # with the framework's own memory, 0.5-2 GB (plan's headroom)
    assert (low, high) == (pytest.approx((weights + kv + 0.5e9) / 80e9, rel=1e-3),
                           pytest.approx((weights + kv + 2e9) / 80e9, rel=1e-3))
    assert a["decision"]["pick"] == "kv-cache-quantization"
    assert not {u["dimension"] for u in a["unused"]} & {"seq-length", "batch-size"}
    (b,) = kb.query(f"recommend technique where {where}")  # no gpus: not derived, and said so
    why = {u["dimension"]: u["why"] for u in b["unused"]}
    assert "kv-load" in why["batch-size"] and "gpus" in why["batch-size"]
    (c,) = kb.query("recommend technique where method = inference and params = 8B and hardware = h100 "
                    "and seq-length = 128k and batch-size = 64 and gpus = 1 and kv-heads = 8")
    (d,) = kb.query("recommend technique where method = inference and params = 8B and hardware = h100 "
                    "and seq-length = 128k and batch-size = 64 and gpus = 1")
    kv_c, kv_d = (next(x["value"] for x in e["constraints"] if x["dimension"] == "kv-load") for e in (c, d))
    assert kv_d > 3 * kv_c  # without kv-heads every head keeps its own keys and values: a larger cache


def test_a_tight_serving_budget_brings_the_serving_techniques_on_any_hardware(kb):
    (a,) = kb.query("recommend technique where inference-budget = tight")
    first = [r["id"] for r in a["results"][:3]]
    assert {"gqa", "paged-attention"} <= set(first) or a["decision"]["pick"] in ("gqa", "mqa", "paged-attention")
    assert not a["unused"]


def test_a_task_implies_the_data_it_is_done_on(kb):
    """``rkg:impliesValue`` (ontology/dimensions.ttl): summarization is done on text, so an
    answer about it without the data reads data = text, shown as derived from the task, and
    decides what it could not before; a given data value is never overridden."""
    (a,) = kb.query("recommend architecture where task = summarization")
    data = next(c for c in a["constraints"] if c["dimension"] == "data")
    assert (data["value"], data["derived_from"]) == ("text", "task")
    assert a["decision"]["pick"] == "encoder-decoder"
    (b,) = kb.query("recommend architecture where task = summarization and data = images")
    assert [c["value"] for c in b["constraints"] if c["dimension"] == "data"] == ["images"]


def test_values_that_imply_different_things_imply_nothing(kb, snap):
    """Every given value must imply one: a task done on several kinds of data implies none."""
    (a,) = kb.query("recommend architecture where task in (ner, summarization)")
    assert [c["value"] for c in a["constraints"] if c["dimension"] == "data"] == ["text"]
    (b,) = kb.query("recommend architecture where task in (ner, classification)")
    assert not [c for c in b["constraints"] if c["dimension"] == "data"]
    implying = {iri: n for iri, n in snap["nodes"].items() if n.get("implies")}
    assert {n["id"] for n in implying.values()} >= {"summarization", "speech-recognition", "forecasting", "out-of-memory"}
    values_of = {d: set(dim["values"].values()) for d, dim in snap["dimensions"].items() if dim.get("values")}
    implied_in = {"task": {"data"}, "symptom": {"prefer"}, "horizon": {"task", "data"}}
    for iri, n in implying.items():  # a task implies its data; a symptom what it asks for (out of memory:
        own = next(d for d, vs in values_of.items() if iri in vs)  # low memory); a horizon is of a forecast
        assert {d for w in n["implies"] for d, vs in values_of.items() if w in vs} <= implied_in[own], n["id"]


def test_a_horizon_is_of_a_forecast_of_a_time_series(kb):
    """``horizon = long`` (how far ahead a forecast looks) reads task = forecasting and data =
    time-series where the query gives neither, so the forecasting models' own property no
    longer waits for the task ("applies only if: PatchTST is a forecasting model")."""
    (a,) = kb.query("recommend architecture where horizon = long and sequences = 500k")
    derived = {c["dimension"]: (c["value"], c.get("derived_from")) for c in a["constraints"] if c.get("derived_from")}
    assert derived["task"] == ("forecasting", "horizon") and derived["data"] == ("time-series", "horizon")
    patchtst = next(r for r in a["results"] if r["id"] == "patchtst")
    assert not patchtst.get("applies_if")
    (b,) = kb.query("recommend architecture where horizon = long and task = classification")
    assert [c["value"] for c in b["constraints"] if c["dimension"] == "task"] == ["classification"]


def test_the_word_list_says_what_a_value_implies(kb):
    """``recipekg vocab task`` shows each task's implied data, as the reasoner takes it."""
    values = {v["id"]: v for v in kb.vocab("task")["dimensions"][0]["values"]}
    assert values["summarization"]["implies"] == ["data = text"]
    assert "implies" not in values["classification"]


# ------------------------------------------------------------ a named model's size; the method the memory is for

def test_a_named_model_gives_its_size_to_every_statement(kb):
    """``model = llama-2-70b`` is a 70B model in recommend and explain too, not only in plan: one
    A100 for a day asks for no model size; the conditions read the size it is published as
    (70B), the memory shares the count of its weights (68.98B), which the constraint notes."""
    (a,) = kb.query("recommend approach where model = llama-2-70b and hardware = a100 and gpus = 1 "
                    "and pretrained = yes and time < 1 day")
    shown = {c["dimension"]: c for c in a["constraints"]}
    assert shown["params"]["derived_from"] == "architecture" and shown["params"]["value"] == 70e9
    assert "68.98B" in shown["params"]["note"]
    assert "architecture" in shown["memory-load"]["derived_from"]
    # 68.98B x 18-20 bytes against one A100's 80 GB: the count, not the published 70B (1575%-1750%)
    assert shown["memory-load"]["value"] == pytest.approx([68.98e9 * 18 / 80e9, 68.98e9 * 20 / 80e9], rel=1e-3)
    assert "params" not in {q["dimension"] for q in a["ask"]}
    assert a["decision"]["pick"] == "qlora"
    (given,) = kb.query("recommend approach where model = llama-2-70b and params = 7B and hardware = a100")
    assert next(c for c in given["constraints"] if c["dimension"] == "params").get("derived_from") is None


def test_a_family_gives_no_size(kb):
    (a,) = kb.query("recommend approach where architecture = llama and hardware = a100")
    assert "params" not in {c["dimension"] for c in a["constraints"]}


@pytest.mark.parametrize("method, derived", [("qlora", False), ("lora", False), ("inference", False),
                                             ("full-fine-tune", True), ("pretrain", True)])
def test_the_memory_shares_are_derived_for_methods_that_train_every_weight(kb, method, derived):
    """The rule of thumb's 18-20 bytes per parameter counts every weight's gradient and optimizer
    states (``rkg:forMethod`` on its formulas): a QLoRA run of 7B on an RTX 4090 is not 'over the
    GPU's memory', and gets no 8-bit Adam or gradient checkpointing for it."""
    (a,) = kb.query(f"recommend technique where params = 7B and hardware = rtx-4090 and gpus = 1 and method = {method}")
    dims = {c["dimension"] for c in a["constraints"]}
    assert ("memory-load" in dims) == derived and ("replica-memory" in dims) == derived


def test_explain_never_changes_what_a_named_model_fixes(kb):
    """LoRA's one-GPU rule wants params >= 500M and gpus = 1: for model = llama-2-70b the size
    is the model's (69B), so no suggested query sets params on its own (which would describe
    another model under the same name); the changes shown keep the model's size."""
    (a,) = kb.query("explain lora where model = llama-2-70b and hardware = a100 and gpus = 1")
    found = a["would_rank_first_if"]
    assert found and all("params" not in c["query"] and c["changes"] for c in found), found
    assert all(ch["dimension"] != "params" for c in found for ch in c["changes"])


def test_a_dimension_derived_by_a_formula_per_method_keeps_those_reading_the_same_inputs():
    """``rkg:derivedBy`` may name one formula per training method (the frozen base's share: 16
    bits for LoRA, 4 bits for QLoRA); one reading other dimensions than the first derives
    nothing (the dimension's inputs are asked for through it), and a unit conversion is no input."""
    from recipekg.knowledge.dimensions import derived_order

    dims = {n: {"derived_by": None, "derived_from": []} for n in ("params", "gpus", "seq")}
    dims["share"] = {"derived_by": "A", "derived_by_all": ["A", "B", "C"], "derived_from": []}
    formulas = {"A": {"expression": "share = c_two * params / gpus", "names": ["c_two", "gpus", "params"],
                      "constants": ["K2"]},
                "B": {"expression": "share = c_bits / bits_per_byte * params / gpus",
                      "names": ["bits_per_byte", "c_bits", "gpus", "params"], "constants": ["KB"]},
                "C": {"expression": "share = c_two * params / seq", "names": ["c_two", "params", "seq"],
                      "constants": ["K2"]}}
    constants = {"K2": {"symbol": "c_two"}, "KB": {"symbol": "c_bits"}}
    assert derived_order(dims, formulas, constants) == ["share"]
    assert dims["share"]["derived_from"] == ["params", "gpus"] and dims["share"]["derived_by_all"] == ["A", "B"]


def test_the_frozen_base_is_derived_for_the_adapter_methods_only(kb):
    """base-memory and base-load: the LoRA base in 16 bits, the QLoRA base in 4.127 bits, against
    one GPU's memory and all of them; a query without a method plans pretraining (the method's
    rkg:defaultValue) and derives neither, nor does a full fine-tune or inference. The method
    the value comes from is said with it."""
    one, all_ = kb.snap["dimensions"]["base-memory"], kb.snap["dimensions"]["base-load"]
    assert len(one["derived_by_all"]) == len(all_["derived_by_all"]) == 2
    assert one["derived_from"] == ["params", "gpu-memory"] and all_["derived_from"] == ["params", "gpu-memory", "gpus"]
    shares = {}
    for method in ("lora", "qlora", "full-fine-tune", "inference", None):
        where = "params = 70B and hardware = rtx-4090 and gpus = 2" + (f" and method = {method}" if method else "")
        (a,) = kb.query(f"recommend approach where {where}")
        found = {c["dimension"]: c for c in a["constraints"] if c["dimension"] in ("base-memory", "base-load")}
        shares[method] = tuple(found[d]["value"] for d in ("base-memory", "base-load")) if found else None
        if found:
            assert found["base-load"]["derived_from"] == "method and params and hardware and gpus"
    assert shares["lora"] == pytest.approx((5.833, 2.917), abs=1e-3)
    assert shares["qlora"] == pytest.approx((1.505, 0.7523), abs=1e-3)
    assert shares["full-fine-tune"] is shares["inference"] is shares[None] is None


def test_a_named_language_model_means_text_unless_the_data_is_given(kb):
    """Audit 14/10: `explain qlora where model = llama-3-8b ...` counted advice for forecasting and
    images among its reasons, since no data was given. A named configuration states the data it
    reads (rkg:dataModality, from its paper: 'large language models'), which the query then means;
    data given stays as given, and a family (bert) states none."""
    (a,) = kb.query("explain qlora where model = llama-3-8b and hardware = h100 and gpus = 1 and samples = 20k "
                    "and pretrained = yes")
    data = next(c for c in a["constraints"] if c["dimension"] == "data")
    assert data["value"] == "text" and data["derived_from"] == "architecture"
    reasons = " ".join(r["text"] for r in a["rules"] + a["family_rules"] if r["side"] == "for")
    assert "forecasting" not in reasons and "images" not in reasons
    assert all(m.get("data") == [KB_TEXT] for m in kb.snap["models"].values())
    (given,) = kb.query("recommend approach where model = llama-3-8b and data = images")
    data = [c for c in given["constraints"] if c["dimension"] == "data"]
    assert [c.get("derived_from") for c in data] == [None]
    (family,) = kb.query("recommend approach where architecture = bert and samples = 800")
    assert not [c for c in family["constraints"] if c["dimension"] == "data"]


KB_TEXT = "https://w3id.org/recipekg/id/text"


def test_a_tier_kept_for_the_facts_it_reads_equals_one_derived_afresh(snap):
    """A dimension defined by conditions (the compute tier) is kept per snapshot for the facts its
    conditions read, so the trials of an answer share it; what they get equals what the
    conditions give afresh, for facts that differ in what the tiers read and in what they do not."""
    from recipekg.query.parser import parse
    from recipekg.reason.derive import _defined, derive
    from recipekg.reason.resolve import resolve_constraints

    dim = snap["dimensions"]["tier"]
    seen = []
    for where in ("gpus = 8 and time = 3 days", "gpus = 64 and time = 2 weeks", "gpus = 1 and time = 12 hours",
                  "gpus = 8 and time = 3 days and data = text", "gpus = 1", "time = 3 days", "gpus = 8 and time = 2 weeks"):
        given = resolve_constraints(parse(f"plan where {where}")[0].constraints, snap)
        first, again = derive(given, snap), derive(given, snap)
        fresh = _defined("tier", dim, {k: v for k, v in first.items() if k != "tier"}, snap)
        assert first.get("tier") == fresh and again.get("tier") is first.get("tier"), where
        seen.append(first.get("tier"))
    assert seen[0] != seen[1] != seen[2] != seen[0] and seen[0] != seen[6]  # (the same GPUs, another time)
    assert seen[0] is seen[3]  # (data: read by no tier)


# ------------------------------------------------------------------ sized from a budget

def _params(answer):
    return next(c for c in answer["constraints"] if c["dimension"] == "params")


def test_a_flops_budget_sizes_the_model_by_the_kb_formula_the_answer_names(kb):
    """Without a model size, a FLOPs budget gives one (``rkg:sizedBy``): at Chinchilla's ratio
    alone, or by 6ND with the tokens given; the approach advice reads it (no question for the
    size, the budget not listed unused) and the note names the formula, the assumption."""
    snap = kb.snap
    six, twenty = (_constant(snap, s)["value"] for s in ("c_flops_per_param_token", "c_chinchilla_tokens_per_param"))
    (a,) = kb.query("recommend approach where flops = 1e21 and gpus = 8 and hardware = a100 and time = 1 week")
    p = _params(a)
    assert p["value"] == pytest.approx((1e21 / (six * twenty)) ** 0.5, rel=1e-3)
    assert p["derived_from"] == "flops" and "chinchilla-optimal-params-from-flops" in p["note"]
    assert "params" not in {q["dimension"] for q in a["ask"]}
    assert "flops" not in {u["dimension"] for u in a["unused"]}
    # the memory shares follow from the sized model, and the tier rules read its size
    load = next(c for c in a["constraints"] if c["dimension"] == "memory-load")
    assert load["derived_from"] == "flops and hardware and gpus"
    assert a["decision"]["pick"] == "ddp" and a["compute_check"]["meets_time_budget"] is False
    (b,) = kb.query("recommend approach where flops = 1.2e21 and tokens = 100B and gpus = 8")
    assert _params(b)["value"] == pytest.approx(1.2e21 / (six * 100e9), rel=1e-3)
    assert _params(b)["derived_from"] == "flops and tokens"


@pytest.mark.parametrize("text, params", [
    ("recommend approach where flops = 1e21 and params = 7B", 7e9),          # given: the user's
    ("recommend approach where flops = 1e21 and model = llama-2-13b", 13e9),  # a named model's size
])
def test_a_size_given_or_named_is_not_resized_by_the_budget(kb, text, params):
    (a,) = kb.query(text)
    p = _params(a)
    assert p["value"] == pytest.approx(params) and "chinchilla" not in p.get("note", "")


def test_a_budget_sizes_a_model_to_pretrain_not_one_to_fine_tune(kb):
    """A LoRA run's model is the one it adapts: a FLOPs budget gives it no size."""
    (a,) = kb.query("recommend optimizer where flops = 1e18 and method = lora")
    assert not any(c["dimension"] == "params" for c in a["constraints"])
    (b,) = kb.query("recommend optimizer where flops = 1e18 and method = pretrain")
    assert _params(b)["derived_from"] == "flops"


def test_plan_sizes_a_budget_by_its_own_strategy_not_the_sized_value(kb):
    """plan reads its strategy's ratio (tokens-per-param = 100 here), not the reasoner's
    compute-optimal size of the same budget."""
    (a,) = kb.query("plan where flops = 1e21 and tokens-per-param = 100")
    params = next(q for q in a["quantities"] if q["name"] == "params")
    assert params["value"] == pytest.approx((1e21 / (6 * 100)) ** 0.5, rel=1e-3)
    assert not any(c["dimension"] == "params" for c in a["constraints"])


def test_gpus_between_the_tiers_say_they_fall_in_none(kb):
    """16 GPUs lie between the flowchart's 4-8 GPU tiers and its 32+ GPU ones: the tier
    constraint rules out every tier, and says so rather than only listing them all."""
    (a,) = kb.query("recommend technique where gpus = 16")
    tier = next(c for c in a["constraints"] if c["dimension"] == "tier")
    assert tier["op"] == "not in" and len(tier["value"]) == len(kb.snap["tiers"])
    assert tier["note"] == f"the gpus given fall in none of the KB's {len(kb.snap['tiers'])} tiers"
    (b,) = kb.query("recommend technique where gpus = 1")  # the single-GPU tiers wait for the time: no note
    tier = next(c for c in b["constraints"] if c["dimension"] == "tier")
    assert 0 < len(tier["value"]) < len(kb.snap["tiers"]) and "note" not in tier


@pytest.mark.parametrize("text", ["recommend approach where flops = 1e-300",
                                  "recommend approach where flops = 1 and tokens = 1e30"])
def test_a_budget_that_buys_less_than_one_parameter_sizes_nothing(kb, text):
    (a,) = kb.query(text)
    assert not any(c["dimension"] == "params" for c in a["constraints"])

