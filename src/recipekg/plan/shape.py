"""The model's shape and the optimizer's bytes per parameter, as the layout search needs them.

The shape (layers, hidden size, heads, key-value heads, vocabulary) is given in the query,
or is a named model configuration's (``model = llama-2-70b``), or follows from the size by
the KB's rule of thumb (params ≈ 12 · layers · hidden², GPT-3's aspect ratio and head size),
which the answer says; key-value heads default to the heads (multi-head attention), the
vocabulary stays unknown without a configuration or ``vocab``; the sequence length and
micro-batch are given, the configuration's context, or assumed (GPT-3's context, one
sequence)::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 175B")[0], snap)
    >>> s = model_shape(ledger, inputs, inputs.params)
    >>> round(s.layers.value), round(s.hidden.value), round(s.heads.value), s.seq_length.value
    (96, 12288, 96, 2048.0)
    >>> s.kv_heads.value, s.vocab
    (96.0, None)
    >>> show(optimizer_state_bytes(ledger, inputs)[0], "bytes/param")
    '8 bytes/param'
    >>> inputs = read_inputs(parse("plan where model = llama-2-70b and gpus = 8")[0], snap)
    >>> s = model_shape(Ledger(KBView(snap)), inputs, inputs.params)
    >>> [round(q.value) for q in (s.layers, s.hidden, s.heads, s.kv_heads, s.vocab, s.seq_length)]
    [80, 8192, 64, 8, 32000, 4096]
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs, shape_scope, whole
from recipekg.formula.expr import const_q
from recipekg.plan.ledger import Ledger
from recipekg.plan.options import named
from recipekg.record import Record

#: The query's layout choices the search keeps fixed, by dimension.
FIXED = {"tensor-parallel": "tensor_parallel", "pipeline-parallel": "pipeline_parallel", "zero": "zero"}


class Shape(Record):
    """Layers, hidden size, heads, sequence length and micro-batch (each a :class:`Q`), the
    layout choices the query fixed (``given``), whether the shape is the rule of thumb's
    (``derived``), the key-value heads (a :class:`Q`; the heads unless given or known) and the
    vocabulary (a :class:`Q`, None when unknown)."""

    layers: Q
    hidden: Q
    heads: Q
    seq_length: Q
    micro_batch: Q
    given: dict
    derived: bool
    kv_heads: Q | None = None
    vocab: Q | None = None
    ffn_hidden: Q | None = None         # the MLP's width (the configuration's, else 4 × hidden)
    gated: bool = False                 # a gated (SwiGLU) MLP: three matrices
    served: Q | None = None             # at inference: the sequences served at once (batch-size)
    mlp_matrices: Q | None = None       # the MLP's weight matrices: 2 (plain), 3 (gated)
    window: Q | None = None             # a sliding attention window (given, or the configuration's)
    experts: Q | None = None            # a mixture of experts' MLPs per layer (the configuration's)
    experts_per_token: Q | None = None  # the experts each token passes through (the configuration's)

    def heads_divisible_by(self, tp: int) -> bool:
        """Whether ``tp`` GPUs can split the heads (any degree, for a shape from the rule of thumb)."""
        heads = self.heads.value
        return tp == 1 or self.derived or (heads == round(heads) and round(heads) % tp == 0)


#: The MLP's dimensions a query may give (else the configuration's, else GPT-3's), and their quantities.
MLP = {"ffn-hidden": "ffn_hidden", "ffn-matrices": "ffn_matrices"}

#: The shape's dimensions, and the model configuration's key for each.
SHAPE = {"layers": "layers", "hidden": "hidden", "heads": "heads", "kv-heads": "kv_heads", "vocab": "vocab",
         "seq-length": "seq_length", "attention-window": "attention_window"}


def model_shape(ledger: Ledger, inputs: Inputs, params: Q) -> Shape:
    """The shape, recording how each part was found."""
    kb = ledger.kb
    got = {dim: Q.point(v) for dim in (*SHAPE, *MLP, "micro-batch") if (v := whole_number(inputs, dim)) is not None}
    _from_model(ledger, inputs.model, got)
    layers, hidden, heads = got.get("layers"), got.get("hidden"), got.get("heads")
    if layers is None:  # (a mixture of experts' trunk from the parameters a token passes through)
        active = inputs.active_params
        layers = (_derive(ledger, "layers", {"active_params": active}) if active is not None and active.high < params.low
                  else _derive(ledger, "layers", {"params": params}))
    if hidden is None:
        hidden = _derive(ledger, "hidden", {"layers": layers})
    if heads is None:
        heads = _derive(ledger, "heads", {"hidden": hidden})
    kv_heads = got.get("kv-heads")
    if kv_heads is None:
        kv_heads = heads
        ledger.note(f"kv-heads not given: {show(heads)}, as many as the heads (multi-head attention) assumed")
    if not {"layers", "hidden"} <= got.keys():
        ledger.note("the model's shape comes from its size by a rule of thumb (params ≈ 12 · layers · hidden², "
                    "GPT-3's 128 hidden units per layer and per head): give layers, hidden and heads for a "
                    "better activation estimate", kb.constant("c_hidden_per_layer"))
        if inputs.other_shape:
            ledger.note(f"architecture = {inputs.other_shape} is not the kind of model this shape is for "
                        f"({_shape_kinds(ledger)}): the layers, sequence, activations and micro-batch here "
                        "are such a model's of the same size, not its own; the weights, gradients and "
                        "optimizer states (bytes per parameter) hold for any network", warn=True)
        _published_near(ledger, params)
    seq = got.get("seq-length")
    longest = inputs.longest_input
    if seq is None and longest is not None:
        seq = Q.point(longest["value"])
        ledger.note(f"seq-length not given: {show(seq)} tokens assumed, the longest input the architecture reads "
                    f"({longest['label']})", longest)
        ledger.add("seq_length", seq, label="seq-length", extra_sources=[longest], exact=True,
                   derivation=f"not given: the longest input the architecture reads ({longest['label']})")
    elif seq is None:
        seq = const_q(kb.constant("c_default_seq_length"))
        ledger.note(f"seq-length not given: {show(seq)} tokens assumed (GPT-3's context)",
                    kb.constant("c_default_seq_length"))
        ledger.add("seq_length", seq, label="seq-length", constants=[kb.constant("c_default_seq_length")],
                   derivation="not given: GPT-3's context assumed", exact=True)
    elif ledger.entry("seq_length") is None:  # given in the query (a configuration's is recorded already)
        ledger.add("seq_length", seq, label="seq-length", given=True, derivation="given")
        if longest is not None and seq.high > longest["value"]:
            ledger.note(f"seq-length = {show(seq, exact=True)} is longer than the {show(Q.point(longest['value']))} "
                        f"tokens the architecture reads ({longest['label']}): the memory and time here are for that "
                        "length, but the model would need longer position embeddings", longest, warn=True)
    micro, served = _micro_batch(ledger, inputs, got)
    ffn, gated, matrices = _mlp(ledger, inputs.model, hidden, got)
    return Shape(layers, hidden, heads, seq, micro, _given(inputs, ledger), not {"layers", "hidden"} <= got.keys(),
                 kv_heads=kv_heads, vocab=got.get("vocab"), ffn_hidden=ffn, gated=gated, served=served,
                 mlp_matrices=matrices, window=got.get("attention-window"),
                 experts=Q.point(inputs.model["experts"]) if inputs.model and inputs.model.get("experts") else None,
                 experts_per_token=_routed(ledger, inputs.model))


def _shape_kinds(ledger: Ledger) -> str:
    """The kinds of model the rules of thumb for the layers give the shape of, as words (some:
    the query's architecture was found outside them)."""
    nodes = ledger.kb.snap["nodes"]
    return " or ".join(sorted(nodes[a]["label"] for a in shape_scope(ledger.kb.snap) if a in nodes))


def _routed(ledger: Ledger, model: dict | None) -> Q | None:
    """The experts each token passes through, for a mixture of experts' configuration (None for
    a dense model), said: its activations keep each expert's MLP tensors."""
    k = model.get("experts_per_token") if model and model.get("experts") else None
    if not k:
        return None
    f = ledger.kb.by_id("mlp-stored-tensors-routed")
    ledger.note(f"mixture of experts: each token passes through {k:g} of {model['label']}'s {model['experts']:g} experts "
                f"in every layer, so its activations keep each one's MLP tensors and its own copy of the token "
                f"({f.data['expression']})", f.data, model)
    return Q.point(k)


def _published_near(ledger: Ledger, params: Q) -> None:
    """Beside the rule of thumb's shape, the two dense configurations the KB holds nearest to
    ``params`` in size (by ratio), each with its own shape and sources: what published models
    of about that size look like (a 7B: 32 layers, hidden 4,096, 32 heads). Only those within
    the factor that makes a value near (:data:`recipekg.reason.situation.NEAR_FACTOR`, 2): a
    125M model is told nothing of 7B ones."""
    import math

    from recipekg.reason.situation import NEAR_FACTOR

    dense = [m for m in ledger.kb.snap["models"].values()
             if m.get("params") and m.get("layers") and m.get("hidden") and m.get("heads") and not m.get("experts")]
    if not dense or not params.value > 0:
        return
    dense.sort(key=lambda m: (abs(math.log(m["params"] / params.value)), m["id"]))
    near = [m for m in dense[:2] if 1 / NEAR_FACTOR <= m["params"] / params.value <= NEAR_FACTOR]
    if not near:
        return
    shapes = "; ".join(f"{m['label']} ({show(Q.point(m['params']), 'parameters')}): {show(Q.point(m['layers']))} "
                       f"layers, hidden {show(Q.point(m['hidden']))}, {show(Q.point(m['heads']))} heads"
                       + (f", {show(Q.point(m['kv_heads']))} key-value heads" if m.get("kv_heads") not in (None, m["heads"]) else "")
                       for m in near)
    ledger.note(f"the published shapes nearest in size that the KB holds: {shapes}", *near)


def _micro_batch(ledger: Ledger, inputs: Inputs, got: dict) -> tuple[Q, Q | None]:
    """Sequences per GPU (``micro-batch``, else one) and, at inference, the sequences served at
    once (``batch-size``: each keeps its own KV cache; None when not given)."""
    inference = inputs.method is not None and ledger.kb.node_id(inputs.method) == "inference"
    served = whole_number(inputs, "batch-size") if inference else None
    micro = got.get("micro-batch")
    if served is not None:
        ledger.note(f"batch-size = {served:,} at inference: {served:,} sequences served at once, each with its own KV "
                    f"cache, shared among the model's copies")
        return micro or Q.point(1), Q.point(float(served))
    if micro is None:
        micro = Q.point(1)
        ledger.note("micro-batch not given: one sequence per GPU per step assumed, the least memory"
                    + ("; batch-size = 8 (say) serves that many sequences at once" if inference else ""))
    return micro, None


def _mlp(ledger: Ledger, model: dict | None, hidden: Q, got: dict) -> tuple[Q, bool, Q]:
    """The MLP's width, whether it is gated and its matrices: the query's (``ffn-hidden``,
    ``ffn-matrices``), else the configuration's, else GPT-3's plain MLP of two matrices, 4h wide."""
    plain = const_q(ledger.kb.constant("c_ffn_matrices_plain"))
    configured = model if model is not None and model.get("ffn_hidden") else None
    matrices = got.get("ffn-matrices") or (Q.point(configured["ffn_matrices"]) if configured and
                                           configured.get("ffn_matrices") else plain)
    gated = matrices.value > plain.value
    for dim, q in sorted(got.items()):
        if dim in MLP:
            ledger.add(MLP[dim], q, label=dim, given=True, derivation="given")
    ffn = got.get("ffn-hidden")
    if ffn is None and configured is not None:      # the query's, else the configuration's (recorded), else 4h
        ffn = Q.point(configured["ffn_hidden"])
        ledger.add("ffn_hidden", ffn, label="MLP width (intermediate size)", given=True,
                   extra_sources=[configured], derivation=f"{configured['label']}'s configuration: "
                   + ("a gated (SwiGLU) MLP of three matrices" if gated else "a plain MLP of two matrices"))
    elif ffn is None:
        ffn = const_q(ledger.kb.constant("c_ffn_multiple")) * hidden
    return ffn, gated, matrices


def _from_model(ledger: Ledger, model: dict | None, got: dict) -> None:
    """The parts of the shape the query leaves out, from the named model configuration (``got``
    is updated), recorded as quantities citing the configuration's sources."""
    if model is None:
        return
    taken = []
    for dim, key in SHAPE.items():
        if dim not in got and model.get(key):
            got[dim] = Q.point(model[key])
            taken.append(f"{dim} = {show(got[dim], exact=True)}")
            ledger.add(key, got[dim], label=dim,
                       given=True, extra_sources=[model], derivation=f"{model['label']}'s configuration")
    if taken:
        ledger.note(f"the model's shape is {model['label']}'s (model = {model['id']}): " + ", ".join(taken), model)
    context, seq = model.get("seq_length"), got.get("seq-length")
    if context and seq is not None and seq.high > context:
        ledger.note(f"seq-length = {show(seq, exact=True)} is longer than the {show(Q.point(context), exact=True)} "
                    f"positions {model['label']} was trained with (its configuration): the memory and time here "
                    "are for that length, but the model reads it only after its context is extended", model, warn=True)


def _derive(ledger: Ledger, output: str, env: dict) -> Q:
    """A part of the shape by its KB formula, rounded to a whole number (at least 1)."""
    f = ledger.kb.formula(output, *env)
    q, used = ledger.compute(f, env)
    whole = Q.point(max(1, round(q.value)))
    ledger.add(output, whole, formula=f, env=used,
               derivation=f"{f.data['label']}: {show(q)}, rounded to {show(whole)}")
    return whole


def whole_number(inputs: Inputs, dim: str) -> int | None:
    """The one whole number the query gives ``dim`` (None when not given); RangeError at the
    constraint for a range, a bound or a number out of the dimension's bounds
    (:func:`recipekg.plan.inputs.whole`).

    >>> from recipekg.plan.inputs import read_inputs
    >>> whole_number(read_inputs(parse("plan where params = 7B and zero = 3")[0], snap), "zero")
    3
    >>> whole_number(read_inputs(parse("plan where params = 7B and layers < 4")[0], snap), "layers")
    Traceback (most recent call last):
    recipekg.errors.RangeError: line 1, column 28: plan needs one whole number for 'layers', not a range or a bound
    expected: layers = 32
    """
    return whole(dim, inputs.stmt, inputs.constraints, inputs.facts)


def _given(inputs: Inputs, ledger: Ledger) -> dict:
    out: dict[str, int | str] = {}
    for dim, key in FIXED.items():
        value = whole_number(inputs, dim)
        if value is not None:
            out[key] = value
    f = inputs.facts.get("recompute")
    if f is not None and f.values:
        out["recompute"] = ledger.kb.node_id(next(iter(f.values)))
    return out


def optimizer_state_bytes(ledger: Ledger, inputs: Inputs) -> tuple[Q, list[dict]]:
    """The optimizer's state in bytes per parameter and the KB constants it rests on: a
    paper's figure for this optimizer when the KB has one, else its memory multiple times an
    fp32 value (a bf16 one in pure bf16 training, ``master-weights = bf16``), else Adam's (no
    optimizer given; AdamW's multiple in pure bf16)."""
    kb = ledger.kb
    pure = named(kb, inputs, "master-weights") == "bf16"
    if inputs.optimizer is None and not pure:
        c = kb.constant("c_adam_state_bytes_per_param")
        return const_q(c), [c]
    iris = [inputs.optimizer, *kb.snap["nodes"][inputs.optimizer]["ancestors"]] if inputs.optimizer else []
    for iri in iris:
        stated = kb.constants_for(iri, "optimizer-state-bytes-per-param")
        if stated:
            return const_q(stated[0]), [stated[0]]
    multiple = next((c for iri in iris for c in kb.constants_for(iri, "optimizer-state-memory")), None)
    if multiple is None and pure:  # Adam's default, in bf16: AdamW's two moments
        multiple = kb.constants_for(kb.snap["dimensions"]["optimizer"]["values"]["adamw"], "optimizer-state-memory")[0]
    if multiple is None:
        c = kb.constant("c_adam_state_bytes_per_param")
        return const_q(c), [c]
    value = "c_weight_bytes_per_param_bf16" if pure else "c_fp32_bytes_per_value"
    f = kb.formula("optimizer_state_bytes_per_param", "optimizer_state_multiple", value)
    q, _ = ledger.compute(f, {"optimizer_state_multiple": const_q(multiple)})
    return q, [multiple, kb.constant(value)]

