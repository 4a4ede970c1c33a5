"""`plan` with a named model configuration (``model = llama-2-70b``) and with a mixture of
experts (``active-params``, or Mixtral's): params and shape come from the configuration and
the answer says so; FLOPs and time count the active parameters, memory the total."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.errors import RangeError
from recipekg.plan.inputs import read_inputs
from recipekg.plan.kbview import KBView
from recipekg.plan.ledger import Ledger
from recipekg.plan.shape import model_shape
from recipekg.query.parser import parse


def q(answer: dict, name: str) -> dict:
    return next(x for x in answer["quantities"] if x["name"] == name)


def config(snap, model_id: str) -> dict:
    return next(m for m in snap["models"].values() if m["id"] == model_id)


def notes(answer: dict) -> str:
    return "\n".join(n["text"] for n in answer["notes"] + answer["warnings"])


def test_llama_2_70b_gives_its_size_and_shape(run_plan, snap):
    a = run_plan("plan where model = llama-2-70b and hardware = a100 and gpus = 8")
    m = config(snap, "llama-2-70b")
    assert 6.5e10 <= q(a, "params")["value"] <= 7.5e10 and q(a, "params")["value"] == m["params"]
    for name in ("layers", "hidden", "heads", "kv_heads", "vocab"):
        assert q(a, name)["value"] == m[name], name
    assert (q(a, "layers")["value"], q(a, "kv_heads")["value"]) == (80, 8)  # the GQA model of Llama 2
    assert "Llama 2 70B" in q(a, "params")["derivation"] and q(a, "params")["sources"]
    assert any("Llama 2 70B" in line for line in a["summary"])
    assert m["params"] == 68_976_648_192            # the configuration's exact count, not the nominal 70B
    assert "the model's shape is Llama 2 70B's" in notes(a)
    assert "rule of thumb (params" not in notes(a) and "kv-heads not given" not in notes(a)
    assert "architecture" not in " ".join(n["text"] for n in a["notes"] if n["text"].startswith("not used"))


def test_the_query_s_own_numbers_win_over_the_configuration_s(run_plan, snap):
    a = run_plan("plan where model = llama-2-70b and params = 65B and layers = 60 and hardware = a100 and gpus = 8")
    assert q(a, "params")["value"] == 65e9 and "given in the query" in q(a, "params")["derivation"]
    assert q(a, "hidden")["value"] == config(snap, "llama-2-70b")["hidden"]
    assert "layers = 60" not in notes(a) and "layers = 80" not in notes(a)


def test_the_configuration_s_context_is_the_sequence_length(snap, kb):
    inputs = read_inputs(parse("plan where model = mixtral-8x7b and gpus = 8")[0], snap)
    shape = model_shape(Ledger(KBView(snap)), inputs, inputs.params)
    assert shape.seq_length.value == config(snap, "mixtral-8x7b")["seq_length"]
    inputs = read_inputs(parse("plan where model = llama-3-1-405b and gpus = 8")[0], snap)  # none recorded
    ledger = Ledger(KBView(snap))
    shape = model_shape(ledger, inputs, inputs.params)
    assert "seq-length not given" in " ".join(n["text"] for n in ledger.notes)


def test_kv_heads_default_to_the_heads_and_the_answer_says_so(snap):
    inputs = read_inputs(parse("plan where params = 7B and gpus = 8")[0], snap)
    ledger = Ledger(KBView(snap))
    shape = model_shape(ledger, inputs, inputs.params)
    assert shape.kv_heads.value == shape.heads.value and shape.vocab is None
    assert any("kv-heads not given" in n["text"] for n in ledger.notes)
    inputs = read_inputs(parse("plan where params = 7B and gpus = 8 and kv-heads = 8 and vocab = 32000")[0], snap)
    ledger = Ledger(KBView(snap))
    shape = model_shape(ledger, inputs, inputs.params)
    assert (shape.kv_heads.value, shape.vocab.value) == (8, 32000)
    assert not any("kv-heads not given" in n["text"] for n in ledger.notes)


def test_mixtral_counts_active_params_for_flops_and_total_for_memory(run_plan, snap):
    a = run_plan("plan where model = mixtral-8x7b and hardware = h100 and gpus = 64")
    m = config(snap, "mixtral-8x7b")
    assert 1.2e10 <= m["active_params"] <= 1.4e10 and 4.5e10 <= m["params"] <= 4.9e10
    six = next(c for c in snap["constants"].values() if c["symbol"] == "c_flops_per_param_token")["value"]
    tokens = q(a, "tokens")["value"]
    assert q(a, "flops")["value"] == pytest.approx(six * m["active_params"] * tokens, rel=1e-3)
    assert q(a, "flops")["formula"]["id"] == "training-flops-active"
    assert q(a, "active_params")["value"] == m["active_params"] and q(a, "params")["value"] == m["params"]
    per_param = next(c for c in snap["constants"].values() if c["symbol"] == "c_training_bytes_per_param")
    assert q(a, "memory")["low"] == pytest.approx(per_param["low"] * m["params"], rel=1e-3)
    assert any("active parameters" in line for line in a["summary"]) and "mixture of experts" in notes(a)


def test_a_mixture_of_experts_costs_its_active_share_of_a_dense_model(run_plan):
    dense = run_plan("plan where params = 47B and tokens = 1T and hardware = h100 and gpus = 64")
    moe = run_plan("plan where params = 47B and active-params = 13B and tokens = 1T and hardware = h100 and gpus = 64")
    assert q(moe, "flops")["value"] / q(dense, "flops")["value"] == pytest.approx(13 / 47, rel=1e-2)
    # the attention is every token's in every layer, routed or not, of the trunk a token passes
    # through: a dense model's of the active size (formula:layers-from-active-params), not the total's
    active = run_plan("plan where params = 13B and tokens = 1T and hardware = h100 and gpus = 64")
    assert q(moe, "layers")["value"] == q(active, "layers")["value"] < q(dense, "layers")["value"]
    assert q(moe, "attention_flops")["value"] == pytest.approx(q(active, "attention_flops")["value"], rel=1e-6)
    assert q(moe, "layers")["formula"]["id"] == "layers-from-active-params"
    model = {"moe": q(moe, "flops")["value"] + q(moe, "attention_flops")["value"],
             "dense": q(dense, "flops")["value"] + q(dense, "attention_flops")["value"]}
    assert q(moe, "gpu_hours")["value"] / q(dense, "gpu_hours")["value"] == pytest.approx(model["moe"] / model["dense"],
                                                                                          rel=1e-2)
    for name in ("memory", "model_states"):
        assert q(moe, name)["value"] == q(dense, name)["value"], name


def test_a_mixture_of_experts_shape_from_its_active_parameters_is_nearer_mixtral_s(run_plan):
    """Mixtral 8x7B's sizes without its configuration: the attention counted from the shape the
    active parameters give is within 1.7 times the configuration's (32 layers of 4,096), where the
    shape of the total was 3.7 times it (audit 15/14)."""
    sizes = "tokens = 1T and hardware = h100 and gpus = 512 and seq-length = 4k"
    by_sizes = run_plan(f"plan where params = 46.7B and active-params = 12.9B and {sizes}")
    by_config = run_plan(f"plan where model = mixtral-8x7b and {sizes}")
    ratio = q(by_sizes, "attention_flops")["value"] / q(by_config, "attention_flops")["value"]
    assert 1 < ratio < 1.7


def test_given_flops_solve_tokens_through_the_active_params(run_plan):
    a = run_plan("plan where params = 47B and active-params = 13B and flops = 7.8e22")
    assert q(a, "tokens")["value"] == pytest.approx(1e12, rel=1e-3)


def test_recommend_with_a_configuration_holds_its_family_s_rules(kb):
    (by_model,) = kb.query("recommend optimizer where model = llama-2-70b")
    (by_family,) = kb.query("recommend optimizer where architecture = llama")
    assert [r["id"] for r in by_model["results"]] == [r["id"] for r in by_family["results"]]
    soap = next(r for r in by_model["results"] if r["id"] == "soap")
    assert any("decoder" in r["text"] for r in soap["because"])  # a rule on decoders holds for Llama 2 70B


def test_a_quoted_dotted_name_reaches_llama_3_1(kb):
    (a,) = kb.query('plan where model = "llama-3.1-405b" and hardware = h100 and gpus = 1024')
    assert q(a, "params")["value"] == 405_853_388_800 and q(a, "layers")["value"] == 126


def cli(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_a_misspelled_model_gets_the_closest_names_and_exit_2():
    code, out = cli("query", "plan where model = lama-2-70b and gpus = 8")
    assert code == 2 and "line 1, column 20" in out
    assert "did you mean" in out and "'llama-2-70b'" in out.split("did you mean")[1]


@pytest.mark.parametrize("query,column,words", [
    ("plan where active-params = 13B and tokens = 1T", 12, "active-params needs params"),
    ("plan where params = 7B and active-params = 13B", 28, "cannot exceed params"),
    ("plan where model = llama-2-70b and active-params = 80B", 36, "cannot exceed params"),
    ("plan where model = llama-2-70b and gpus = 8 and hardware = h100 and kv-heads < 8", 69, "one whole number for 'kv-heads'"),
])
def test_active_params_plan_cannot_use_exit_2_at_the_constraint(query, column, words):
    code, out = cli("query", query)
    assert code == 2 and f"column {column}" in out and words in out, out


def test_read_inputs_refuses_active_params_above_params(snap):
    with pytest.raises(RangeError, match="cannot exceed"):
        read_inputs(parse("plan where params = 7B and active-params = 8B")[0], snap)


def test_a_plan_with_a_model_keeps_its_clear_refusal_in_sparql(snap):
    from recipekg.errors import UnsupportedStatement
    from recipekg.sparql.generate import to_sparql

    with pytest.raises(UnsupportedStatement, match="plan has no SPARQL form"):
        to_sparql(parse("plan where model = mixtral-8x7b and gpus = 8")[0], snap)
    code, out = cli("sparql", "plan where model = llama-2-70b")
    assert code == 2 and "plan has no SPARQL form" in out, out


def test_a_family_is_not_read_by_plan_and_two_configurations_are_refused(run_plan):
    a = run_plan("plan where architecture in (cnn, transformer) and params = 7B")
    assert any(n["text"] == "not used by plan: architecture" for n in a["notes"])
    code, out = cli("query", "plan where model in (llama-2-7b, llama-2-13b)")
    assert code == 2 and "plan takes one architecture" in out and "column 12" in out


def test_a_shape_from_the_rule_of_thumb_names_the_published_shapes_nearest_in_size(run_plan, snap):
    """params = 7B: the rule of thumb gives 33 layers, hidden 4,224, 33 heads (GPT-3's 128 per
    layer and head); the answer also names the two dense configurations the KB holds nearest in
    size, with their shapes and sources (Mistral 7B and Llama 2 7B: 32 layers, hidden 4,096, 32
    heads). A mixture of experts is not a dense model's shape; a named model needs no such note."""
    a = run_plan("plan where params = 7B and gpus = 8 and hardware = a100")
    assert (q(a, "layers")["value"], q(a, "hidden")["value"], q(a, "heads")["value"]) == (33, 4224, 33)
    (note,) = [n for n in a["notes"] if n["text"].startswith("the published shapes nearest in size")]
    assert note["text"].endswith("Mistral 7B (7.24B parameters): 32 layers, hidden 4,096, 32 heads, 8 key-value heads; "
                                 "Llama 2 7B (6.74B parameters): 32 layers, hidden 4,096, 32 heads")
    ids = {s["id"] for s in note["sources"]}
    assert {s for m in ("mistral-7b", "llama-2-7b") for s in config(snap, m)["sources"]} == ids
    big = run_plan("plan where params = 40B and gpus = 64 and hardware = h100")
    assert "Mixtral" not in notes(big) and "Llama 2 70B (69B parameters)" in notes(big)
    named = run_plan("plan where model = llama-2-7b and gpus = 1 and hardware = a100-80gb")
    assert "published shapes nearest" not in notes(named)
    small = run_plan("plan where params = 125M and gpus = 1 and hardware = a100")  # no model within a factor of 2
    assert "published shapes nearest" not in notes(small)


@pytest.mark.parametrize("seq, warned", [("32k", True), ("4096", False), ("2048", False)])
def test_a_sequence_longer_than_the_named_models_context_is_a_warning(kb, seq, warned):
    """Llama 2 7B was trained with 4,096 positions (its config.json): planning 32k tokens per
    sequence on it is planned, and warned about, never silently."""
    (a,) = kb.query(f"plan where model = llama-2-7b and seq-length = {seq} and hardware = a100 and gpus = 8 and tokens = 1B")
    found = [w for w in a["warnings"] if "positions Llama 2 7B was trained with" in w["text"]]
    assert bool(found) == warned
    if warned:
        assert "hf-llama-2-7b-config" in {s["id"] for s in found[0]["sources"]}


def test_a_named_models_own_learning_rate_and_batch_stand_beside_the_laws(kb):
    """Llama 2 70B's published 1.5e-4 and 4M tokens (Touvron et al. 2023, Table 1) beside
    DeepSeek LLM's laws, in the short answer and as a sourced note; a model without a published
    recipe in the KB (Mixtral) gets the laws alone."""
    (a,) = kb.query("plan where model = llama-2-70b and hardware = a100 and gpus = 64 and tokens = 2T")
    line = next(x for x in a["summary"] if x.startswith("hyperparameters:"))
    assert line.endswith("; Llama 2 70B's own: 0.00015, 4M tokens")
    note = next(n for n in a["notes"] if "was itself trained" in n["text"])
    assert "touvron2023llama2" in {s["id"] for s in note["sources"]}
    (b,) = kb.query("plan where model = mixtral-8x7b and hardware = h100 and gpus = 64 and tokens = 1T")
    assert not any("'s own:" in x for x in b["summary"])


def test_a_mixture_of_experts_stores_the_activations_of_each_expert_a_token_passes_through(run_plan, snap):
    """Mixtral routes each token through 2 of its 8 experts (audit 14/15): each keeps its gated
    MLP's 4 tensors of 14,336 and its own copy of the token, 8.57 tensors of the expert's width
    (formula:mlp-stored-tensors-routed), so 75 bytes per token, hidden unit and layer against a
    dense layer's 43; the note says why."""
    query = ("plan where model = mixtral-8x7b and method = full-fine-tune and hardware = h100 and gpus = 16 "
             "and tokens = 1B and seq-length = 4096 and tensor-parallel = 1 and recompute = none")
    a = run_plan(query)
    acts = q(a, "activations")
    per = 14 + 4 * 8 / 32 + 2 * (4 * 2 + 2 * 4096 / 14336) * 14336 / 4096
    assert per == pytest.approx(75.0, rel=1e-3)
    assert acts["value"] == pytest.approx(4096 * 4096 * 32 * per, rel=1e-3)
    assert "8.571" in acts["derivation"]
    assert "each token passes through 2 of Mixtral 8x7B's 8 experts" in notes(a)
    dense = run_plan(query.replace("model = mixtral-8x7b", "model = mistral-7b"))
    assert "passes through" not in notes(dense) and "2 × 4 × 14,336" in q(dense, "activations")["derivation"]
