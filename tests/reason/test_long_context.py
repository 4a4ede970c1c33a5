"""Long inputs: the share of one GPU's memory one training sequence's activations take is derived
from seq-length, the model's shape and the GPU's memory (kb/long-context.ttl, ``rkg:derivedBy``
through the rule of thumb's shape: ``derived_through``), and leads to context parallelism and
recomputation; a short sequence changes nothing, and without the hardware the answer says what
to give."""

from __future__ import annotations

import pytest

LONG = "seq-length = 128k and params = 8B and gpus = 8 and hardware = h100"
NAMED = "seq-length = 128k and model = llama-3-8b and gpus = 8 and hardware = h100"
CP_MODERATE = "sequence-activations-over-one-gpu-context-parallelism"
CP_STRONG = "sequence-over-one-gpu-context-parallelism"
CHECKPOINTING = "sequence-activations-over-one-gpu-gradient-checkpointing"
CP_FLOOR = "sequence-floor-over-one-gpu-context-parallelism"


def _constant(snap, symbol):
    c = next(c for c in snap["constants"].values() if c["symbol"] == symbol)
    return c["value"]


def _shown(answer):
    return {c["dimension"]: c for c in answer["constraints"]}


def _rules(answer, choice):
    result = next((r for r in answer["results"] if r["id"] == choice), None)
    return [] if result is None else [reason["id"] for reason in result["because"]]


def _unused(answer, dimension):
    return next((u["why"] for u in answer.get("unused", ()) if u["dimension"] == dimension), None)


def test_the_shares_read_the_shape_through_the_rule_of_thumb_formulas(snap):
    """The formulas read layers and hidden; the compiler derives the shares from what those are
    computed from (params), and lists the figures with their formulas in the order to compute them."""
    dim = snap["dimensions"]["sequence-checkpoints"]
    assert dim["derived_from"] == ["seq-length", "params", "gpu-memory"]
    assert [figure for figure, _ in dim["derived_through"]] == ["layers", "hidden"]
    # the stored activations are counted for the model's own attention and MLP (plan's
    # formula:activations-flash): its key-value heads and its MLP's width and matrices too
    dim = snap["dimensions"]["sequence-activations"]
    assert sorted(dim["derived_from"]) == ["gpu-memory", "params", "seq-length"]
    figures = [figure for figure, _ in dim["derived_through"]]
    assert sorted(figures) == ["ffn-hidden", "ffn-matrices", "heads", "hidden", "kv-heads", "layers"]
    assert figures.index("layers") < figures.index("hidden") < figures.index("heads") < figures.index("kv-heads")
    for name in ("sequence-activations", "sequence-checkpoints"):
        dim = snap["dimensions"][name]
        assert [snap["formulas"][by]["output"] for _, by in dim["derived_through"]] == \
               [figure.replace("-", "_") for figure, _ in dim["derived_through"]]
    assert snap["dimensions"]["replica-memory"]["derived_through"] == []


def _stored_bytes(snap, model):
    """plan's formula:activations-flash per token, hidden unit and layer for a configuration."""
    c = {s: _constant(snap, s) for s in ("c_activation_bytes_fixed", "c_kv_activation_bytes", "c_activation_value_bytes",
                                          "c_mlp_stored_tensors_plain", "c_mlp_stored_tensors_gated", "c_ffn_matrices_plain")}
    tensors = c["c_mlp_stored_tensors_gated"] if model["ffn_matrices"] > c["c_ffn_matrices_plain"] else c["c_mlp_stored_tensors_plain"]
    return (c["c_activation_bytes_fixed"] + c["c_kv_activation_bytes"] * model["kv_heads"] / model["heads"]
            + c["c_activation_value_bytes"] * tensors * model["ffn_hidden"] / model["hidden"])


def test_a_shape_given_only_by_its_size_stores_the_gpt_shape_34_bytes(snap):
    gpt = {"ffn_matrices": 2, "kv_heads": 1, "heads": 1, "ffn_hidden": 4, "hidden": 1}
    assert _stored_bytes(snap, gpt) == _constant(snap, "c_activation_bytes_per_sbh")


def test_a_named_model_gives_its_configuration_s_shape(kb, snap):
    (a,) = kb.query(f"recommend technique where {NAMED}")
    shown = _shown(a)
    model = snap["models"]["https://w3id.org/recipekg/id/llama-3-8b"]
    gpu_memory = shown["gpu-memory"]["value"]
    tokens_layers_width = 128_000 * model["layers"] * model["hidden"]
    checkpoints = _constant(snap, "c_full_recompute_bytes_per_sbh") * tokens_layers_width / gpu_memory
    activations = _stored_bytes(snap, model) * tokens_layers_width / gpu_memory  # (a gated MLP, 8 of 32 key-value heads)
    assert _stored_bytes(snap, model) == pytest.approx(14 + 4 * 8 / 32 + 2 * 4 * 14336 / 4096)
    assert shown["sequence-checkpoints"]["value"] == pytest.approx(checkpoints, rel=1e-3)
    assert shown["sequence-activations"]["value"] == pytest.approx(activations, rel=1e-3)
    assert set(shown["sequence-activations"]["derived_from"].split(" and ")) == {"seq-length", "architecture", "hardware"}
    assert checkpoints < 1 < activations  # stored, one sequence does not fit; recomputed, it does
    assert CHECKPOINTING in _rules(a, "gradient-checkpointing")
    assert _unused(a, "seq-length") is None


def test_a_size_only_model_takes_the_rule_of_thumb_s_shape(kb, snap):
    (a,) = kb.query(f"recommend approach where {LONG}")
    shown = _shown(a)
    per_layer, hidden_sq = _constant(snap, "c_hidden_per_layer"), _constant(snap, "c_params_per_layer_hidden_sq")
    layers = (8e9 / (hidden_sq * per_layer ** 2)) ** (1 / 3)
    share = _constant(snap, "c_full_recompute_bytes_per_sbh") * 128_000 * layers * per_layer * layers \
        / shown["gpu-memory"]["value"]
    assert shown["sequence-checkpoints"]["value"] == pytest.approx(share, rel=1e-3)
    assert shown["sequence-checkpoints"]["derived_from"] == "seq-length and params and hardware"
    assert CP_MODERATE in _rules(a, "context-parallelism")
    assert _unused(a, "seq-length") is None  # the problem: it was "not used" before


def test_a_given_shape_wins_over_the_rule_of_thumb(kb):
    (given,) = kb.query(f"recommend approach where {LONG} and layers = 32 and hidden = 4096")
    (named,) = kb.query(f"recommend approach where {NAMED}")
    assert _shown(given)["sequence-checkpoints"]["value"] == _shown(named)["sequence-checkpoints"]["value"]
    assert "layers" in _shown(given)["sequence-checkpoints"]["derived_from"]


def test_a_sequence_too_long_even_recomputed_needs_context_parallelism(kb):
    (a,) = kb.query(f"recommend approach where {NAMED.replace('128k', '1M')}")
    assert _shown(a)["sequence-checkpoints"]["value"] > 1
    assert _rules(a, "context-parallelism") == [CP_STRONG]  # not the moderate rule: recomputing is no way out
    (e,) = kb.query(f"explain context-parallelism where {NAMED.replace('128k', '1M')}")
    assert [r["id"] for r in e["rules"] if r["fires"]] == [CP_STRONG]


def test_a_short_sequence_changes_nothing(kb):
    (short,) = kb.query(f"recommend approach where {LONG.replace('128k', '2k')}")
    (without,) = kb.query("recommend approach where params = 8B and gpus = 8 and hardware = h100")
    assert [r["id"] for r in short["results"]] == [r["id"] for r in without["results"]]
    assert "context-parallelism" not in [r["id"] for r in short["results"]]
    assert "sequence-activations > 100%" in _unused(short, "seq-length")


def test_without_the_hardware_the_answer_says_what_to_give(kb):
    (a,) = kb.query("recommend approach where seq-length = 128k and params = 8B and gpus = 8")
    why = _unused(a, "seq-length")
    assert "sequence-activations" in why and "give the hardware" in why and "gpu-memory" in why
    (b,) = kb.query("recommend approach where seq-length = 128k and hardware = h100")
    why = _unused(b, "seq-length")
    give = why.split("give", 1)[1].split("; here ", 1)[0]  # (what follows names the kind that reads it here)
    assert "sequence-activations" in why and "params" in give and "hardware" not in give
    (t,) = kb.query("recommend technique where seq-length = 128k and hardware = h100")  # (the kernel reads it alone)
    assert t["decision"]["pick"] == "flash" and not any(u["dimension"] == "seq-length" for u in t["unused"])


def test_explain_gives_the_same_reason(kb):
    (r,) = kb.query(f"recommend approach where {NAMED}")
    (e,) = kb.query(f"explain context-parallelism where {NAMED}")
    because = next(x for x in r["results"] if x["id"] == "context-parallelism")["because"]
    assert [x["id"] for x in because] == [CP_FLOOR, CP_MODERATE]   # at 128K the logits alone outgrow a GPU
    assert [(x["id"], x["text"]) for x in e["rules"] if x["fires"]] == [(x["id"], x["text"]) for x in because]


def test_inference_derives_no_activation_share(kb):
    (a,) = kb.query(f"recommend approach where {NAMED} and method = inference")
    assert "sequence-activations" not in _shown(a)


def _parallelism(answer):
    return [i["value"] for s in answer["sections"] if s["name"] == "parallelism" for i in s["items"]]


def test_the_recipe_lists_the_parallelism_the_approach_picks(kb):
    assert "context-parallelism" in _parallelism(kb.recipe(NAMED.replace("128k", "1M")))
    assert "context-parallelism" not in _parallelism(kb.recipe(LONG.replace("128k", "2k")))


STRETCH = "context-extension-lora-embeddings-norms"


def test_the_context_stretch_reads_a_named_models_trained_context(kb, snap):
    """context-stretch is seq-length over the trained context of a named model's configuration
    (a figure with no rule of thumb: a size alone derives nothing), or a given trained-context."""
    assert snap["dimensions"]["context-stretch"]["derived_through"] == [["trained-context", None]] or \
        [f for f, _ in snap["dimensions"]["context-stretch"]["derived_through"]] == ["trained-context"]
    (named,) = kb.query("recommend technique where model = llama-3-8b and method = lora and seq-length = 64k")
    stretch = _shown(named)["context-stretch"]
    assert stretch["value"] == pytest.approx(64000 / 8192, rel=1e-3) and stretch["derived_from"] == "seq-length and architecture"
    (sized,) = kb.query("recommend technique where params = 8B and method = lora and seq-length = 64k")
    assert "context-stretch" not in _shown(sized)
    (given,) = kb.query("recommend technique where params = 8B and method = lora and seq-length = 64k and "
                        "trained-context = 4096")
    assert _shown(given)["context-stretch"]["value"] == pytest.approx(64000 / 4096, rel=1e-3)


@pytest.mark.parametrize("method", ["lora", "qlora"])
def test_lora_past_the_trained_context_trains_embeddings_and_norms(kb, method):
    """LongLoRA: LoRA extends a model's context only with its embeddings and normalization layers
    trained too; well within the trained context, or a full fine-tune, the rule does not fire (just
    below it, 8,000 of 8,192 positions, it is near its threshold, as the scoring model counts it)."""
    (long,) = kb.query(f"recommend technique where model = llama-3-8b and method = {method} and seq-length = 64k")
    assert _rules(long, "lora-embeddings-norms") == [STRETCH]
    for q in (f"recommend technique where model = llama-3-8b and method = {method} and seq-length = 4k",
              "recommend technique where model = llama-3-8b and method = full-fine-tune and seq-length = 64k"):
        (a,) = kb.query(q)
        assert _rules(a, "lora-embeddings-norms") == [], q


def test_a_context_extending_lora_recipe_says_so(kb):
    (a,) = kb.query("recipe where model = llama-3-8b and method = lora and hardware = h100 and gpus = 8 and "
                    "seq-length = 64k and tokens = 1B")
    approach = next(s for s in a["sections"] if s["name"] == "approach")["items"]
    extra = next(it for it in approach if it["value"] == "lora-embeddings-norms")
    assert {s["id"] for s in extra["sources"]} == {"chen2023longlora", "longlora-code"}  # (its finding; its code's positions)
    assert any("modules_to_save" in n for n in a["configs"]["hf-peft"]["notes"])
    (short,) = kb.query("recipe where model = llama-3-8b and method = lora and hardware = h100 and gpus = 8 and "
                        "seq-length = 4k and tokens = 1B")
    assert not [it for s in short["sections"] for it in s["items"] if it["value"] == "lora-embeddings-norms"]


def test_when_even_recomputation_leaves_too_much_context_parallelism_is_strong(kb, snap):
    """sequence-floor: what one sequence keeps with every layer recomputed, the model's states
    aside (the layers' inputs, the layer being rebuilt, the fp32 logits, the framework), read from
    a named model's vocabulary. At 128K tokens Llama 3 8B's logits alone are 68 GB, so on 80 GB
    GPUs recomputation is not enough whatever FSDP shards, and context parallelism has a strong
    reason, not only the moderate 'or recompute' (audit 8/03)."""
    q = "recommend approach where model = llama-3-8b and method = full-fine-tune and seq-length = 128k and " \
        "hardware = h100 and gpus = 8"
    (a,) = kb.query(q)
    floor = _shown(a)["sequence-floor"]
    s, h, layers, v = 128000, 4096, 32, 128256
    layer = 14 + 4 * 8 / 32 + 2 * 4 * 14336 / h  # (the layer being rebuilt: Llama 3 8B's gated MLP and 8 key-value heads)
    kept = 2 * s * h * layers + layer * s * h + 4 * s * (h + v)
    low, high = floor["value"]
    assert low == pytest.approx((kept + 0.5e9) / 80e9, rel=1e-3) and high == pytest.approx((kept + 2e9) / 80e9, rel=1e-3)
    assert _shown(a)["sequence-checkpoints"]["value"] < 1 < low
    assert "sequence-floor-over-one-gpu-context-parallelism" in _rules(a, "context-parallelism")
    cp = next(r for r in a["results"] if r["id"] == "context-parallelism")
    assert cp["because"][0]["strength"] == "strong"
    # without the vocabulary (a size, not a named model) nothing is derived: the rule waits, and
    # the answer asks for the model or its vocabulary
    (sized,) = kb.query(q.replace("model = llama-3-8b", "params = 8B"))
    assert "sequence-floor" not in _shown(sized)
    cp = next(r for r in sized["results"] if r["id"] == "context-parallelism")
    assert [x["match"] for x in cp["because"] if x["id"] == CP_FLOOR] == ["partial"]
    assert any("give the model (model = llama-3-8b) or its vocabulary (vocab = 128256)" in x["text"]
               for x in sized["ask"])
    (given,) = kb.query(q.replace("model = llama-3-8b", "params = 8B and vocab = 128256"))
    assert given["decision"]["pick"] == "context-parallelism"
    # an ordinary sequence is far below the floor
    (short,) = kb.query(q.replace("128k", "8k"))
    assert _shown(short)["sequence-floor"]["value"][1] < 0.2


TP = "sequence-activations-over-one-gpu-tensor-parallelism"


def test_a_nodes_tensor_parallelism_comes_before_context_parallelism(kb, snap):
    """Audit 14/08: tensor parallelism with sequence parallelism divides one sequence's stored
    activations by its degree, up to the 8 GPUs of one NVLink domain; where that split fits, it is
    the advice and context parallelism's activation rules do not hold (Llama 3's 8K stage: TP 8,
    CP 1); where it does not (at 32K, 874% over 8 GPUs), context parallelism is."""
    eight = _constant(snap, "c_tensor_parallel_nvlink_gpus")
    (a,) = kb.query("recommend approach where params = 70B and method = pretrain and hardware = h100 and gpus = 256 "
                    "and seq-length = 8k")
    shown = _shown(a)
    share = shown["sequence-activations"]["value"]
    assert shown["sequence-activations-tensor-parallel"]["value"] == pytest.approx(share / eight, rel=1e-3)
    assert TP in _rules(a, "tensor-parallelism")
    assert CP_MODERATE not in _rules(a, "context-parallelism")
    (few,) = kb.query("recommend approach where params = 70B and method = pretrain and hardware = h100 and gpus = 4 "
                      "and seq-length = 8k")
    assert _shown(few)["sequence-activations-tensor-parallel"]["value"] == pytest.approx(
        _shown(few)["sequence-activations"]["value"] / 4, rel=1e-3)     # fewer GPUs than a node: all of them
    (long,) = kb.query("recommend approach where params = 70B and method = pretrain and hardware = h100 and gpus = 256 "
                       "and seq-length = 32k")
    assert TP not in _rules(long, "tensor-parallelism") and CP_MODERATE in _rules(long, "context-parallelism")


def test_without_the_gpus_the_split_ranges_over_every_count(kb):
    """The GPUs are an open input of the split (rkg:openInput): not given, the share ranges from
    the activations over 8 GPUs to over one. Above 100% at both ends, context parallelism holds
    whatever the count; across 100%, the rules on it wait for the GPUs and say so."""
    (long,) = kb.query("recommend approach where params = 70B and method = pretrain and hardware = h100 "
                       "and seq-length = 32k")
    low, high = _shown(long)["sequence-activations-tensor-parallel"]["value"]
    assert 1.0 < low < high == pytest.approx(_shown(long)["sequence-activations"]["value"], rel=1e-3)
    assert long["decision"]["pick"] == "context-parallelism"
    (mid,) = kb.query("recommend approach where params = 70B and method = pretrain and hardware = h100 "
                      "and seq-length = 8k")
    tp = next(r for r in mid["results"] if r["id"] == "tensor-parallelism")
    assert tp["group"] != "matches" and tp["waits_for"] == ["gpus"]
