"""The detailed memory model per GPU, evaluated for the layout search: the KB's formulas
(``kb/memory-model.ttl``, ``kb/methods.ttl``) once per distinct input, for the plan's method,
shape and options (:mod:`recipekg.plan.options`).

A layout's memory per GPU is its share of the model states, the activations of its
micro-batch (the attention kernel and recomputation choosing the formula), the output layer's
fp32 logits (without a pipeline: the last stage is then the first), ZeRO stage 3's gathered
layer and the headroom kept for the framework; at inference, the weights, the GPU's share of
the KV cache and the headroom::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.methods import read_method
    >>> from recipekg.plan.shape import model_shape, optimizer_state_bytes
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where model = llama-2-7b and hardware = h100 and seq-length = 4096")[0], snap)
    >>> memo = Evaluator(ledger, inputs.params, model_shape(ledger, inputs, inputs.params),
    ...                  optimizer_state_bytes(ledger, inputs)[0], read_method(ledger, inputs), inputs)
    >>> l = memo.layout((0, 1, 1, "none"), 1)
    >>> show(l["activations"], "bytes"), show(l["logits"], "bytes"), show(l["per_gpu"], "bytes")
    ('21.2 GB', '591 MB', '130–132 GB')
    >>> show(memo.layout((3, 1, 1, "none"), 8)["buffers"], "bytes")
    '524 MB'
"""

from __future__ import annotations

import math

from recipekg.formula.expr import Q
from recipekg.plan.figures import show  # noqa: F401  (the doctest's)
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger
from recipekg.plan.methods import Method, adapter_bytes, adapter_params, embedding_params, kv_cache, states_env
from recipekg.plan.options import MemoryOptions, memory_options
from recipekg.plan.shape import Shape

ZERO = {0: "model-states-zero-0", 1: "model-states-zero-1", 2: "model-states-zero-2", 3: "model-states-zero-3"}
#: (attention, recompute) → the activation formula's id
ACTIVATIONS = {("standard", "none"): "activations-no-recompute", ("flash", "none"): "activations-flash",
               ("standard", "selective"): "activations-selective-recompute",
               ("flash", "selective"): "activations-selective-recompute",
               ("standard", "full"): "activations-full-recompute", ("flash", "full"): "activations-full-recompute"}
ZERO_NONE = Q.point(0)
#: The formula of the one layer each recomputation mode rebuilds at a time in the backward pass.
REBUILT = {"full": "rebuilt-layer-activations", "selective": "rebuilt-layer-scores-selective"}


def activation_formula(attention: str, recompute: str) -> str:
    return ACTIVATIONS[(attention, recompute)]


class Evaluator:
    """The KB's formulas evaluated once per distinct input (the search asks many times), for
    the plan's method."""

    def __init__(self, ledger: Ledger, params: Q, shape: Shape, states: Q, method: Method,
                 inputs: Inputs, options: MemoryOptions | None = None) -> None:
        self.ledger, self.params, self.shape, self.states, self.method = ledger, params, shape, states, method
        self.inputs = inputs
        self.options = options or memory_options(ledger, inputs)
        self.adapters = adapter_params(ledger, method, shape)
        self.embeddings = embedding_params(ledger, method, shape, inputs.model)
        self.adapter_bytes = adapter_bytes(ledger, method, inputs, self.options.grad_bytes, self.options.grad_constants)
        self.seen: dict = {}

    @property
    def inference(self) -> bool:
        return self.method.id == "inference"

    def formula(self, fid: str):
        return self.ledger.kb.by_id(fid)

    def states_formula(self, zero: int):
        return self.formula(self.method.states_formula_at(zero) or ZERO[zero])

    def _once(self, key: tuple, fid: str, env: dict) -> Q:
        if key not in self.seen:
            self.seen[key], _ = self.ledger.compute(self.formula(fid), env)
        return self.seen[key]

    def states_per_gpu(self, zero: int, tp: int, pp: int, dp: int) -> Q:
        if self.method.offloads_at(zero):
            return ZERO_NONE            # FSDP's CPU offload: every shard in CPU memory
        f = self.method.states_formula_at(zero) or ZERO[zero]
        return self._once(("states", zero, tp, pp, dp), f, self.states_env(tp, pp, dp))

    def sequences(self, dp: int) -> Q:
        """Sequences each model copy holds: at inference the served batch shared by the copies."""
        s = self.shape
        if self.inference and s.served is not None:
            return Q.point(float(math.ceil(s.served.value / dp)))
        return s.micro_batch

    def kv_cache(self, dp: int) -> Q:
        """The KV cache of one model copy (every layer, its sequences)."""
        key = ("kv", dp)
        if key not in self.seen:
            self.seen[key] = kv_cache(self.ledger, self.shape, self.options.kv_bytes, self.sequences(dp))[0]
        return self.seen[key]

    def activations_per_gpu(self, rec: str, tp: int, pp: int = 1, dp: int = 1) -> Q:
        """Activations per GPU (the layers'); at inference, the GPU's share of the KV cache."""
        if self.inference:
            env = {"model_states_per_gpu": ZERO_NONE, "kv_cache": self.kv_cache(dp), "headroom": ZERO_NONE,
                   "tensor_parallel": Q.point(tp), "pipeline_parallel": Q.point(pp)}
            return self._once(("kv-share", tp, pp, dp), "inference-memory-per-gpu", env)
        fid = activation_formula(self.options.attention, rec)
        return self._once(("activations", fid, tp), fid, self.activation_env(tp))

    def logits_per_gpu(self, tp: int) -> Q:
        """The output layer's input and fp32 logits, on the last pipeline stage (the only one
        without a pipeline); 0 at inference or without a vocabulary."""
        if self.inference or self.shape.vocab is None:
            return ZERO_NONE
        return self._once(("logits", tp), "output-layer-activations", self.logits_env(tp))

    def rebuilt_layer(self, rec: str, tp: int) -> Q:
        """The one layer the backward pass rebuilds at a time: with full recomputation all of it,
        counted as without recomputation under the attention kernel; with selective recomputation
        the attention scores it recomputes (none under FlashAttention, which never stores them);
        0 without recomputation and at inference."""
        if self.inference or rec not in REBUILT:
            return ZERO_NONE
        key = ("rebuilt", rec, tp)
        if key not in self.seen:
            env = self.rebuilt_env(tp, rec)
            kept = env.get("kept_activations")
            self.seen[key] = ZERO_NONE if kept is not None and kept.value >= env["kernel_activations"].value else \
                self.ledger.compute(self.formula(REBUILT[rec]), env)[0]  # (selective under FlashAttention: none)
        return self.seen[key]

    def rebuilt_env(self, tp: int, rec: str = "full") -> dict:
        fid = activation_formula(self.options.attention, "none")
        kernel = self._once(("activations", fid, tp), fid, self.activation_env(tp))
        if rec != "full":  # (what selective recomputation keeps: the kernel's count less the scores)
            kept = activation_formula(self.options.attention, rec)
            return {"kernel_activations": kernel, "kept_activations": self._once(("activations", kept, tp), kept,
                                                                                 self.activation_env(tp)),
                    "layers": self.shape.layers}
        return {"kernel_activations": kernel, "layers": self.shape.layers}

    def stages(self, rec: str, tp: int, pp: int, dp: int = 1) -> dict:
        """The activations of the first and the last pipeline stage (one stage without a
        pipeline), the worst of them and which stage it is: ``first``, ``last`` or ``only``."""
        key = ("stages", rec, tp, pp, dp)
        if key not in self.seen:
            self.seen[key] = self._stages(rec, tp, pp, dp)
        return self.seen[key]

    def _stages(self, rec: str, tp: int, pp: int, dp: int) -> dict:
        stored = self.activations_per_gpu(rec, tp, pp, dp)
        if self.inference:
            return {"stored": stored, "layers": stored, "rebuilt": ZERO_NONE, "logits": ZERO_NONE, "first": stored,
                    "last": stored, "worst": stored, "bound": "only"}
        env = self.stage_env(rec, tp, pp, dp)
        last, _ = self.ledger.compute(self.formula("last-stage-activations"), env)
        first = last if pp == 1 else self.ledger.compute(self.formula("first-stage-activations"), env)[0]
        worst, _ = self.ledger.compute(self.formula("worst-stage-activations"),
                                       {"first_stage_activations": first, "last_stage_activations": last})
        bound = "only" if pp == 1 else ("last" if last.value > first.value else "first")
        alone = {**env, "rebuilt_layer_activations": ZERO_NONE, "logits_activations": ZERO_NONE}
        layers = stored if bound == "first" else \
            self.ledger.compute(self.formula("last-stage-activations"), alone)[0]   # the last stage's own layers
        return {"stored": stored, "layers": layers, "rebuilt": env["rebuilt_layer_activations"],
                "logits": env["logits_activations"], "first": first, "last": last, "worst": worst, "bound": bound}

    def stage_env(self, rec: str, tp: int, pp: int, dp: int = 1) -> dict:
        return {"activations_per_gpu": self.activations_per_gpu(rec, tp, pp, dp),
                "rebuilt_layer_activations": self.rebuilt_layer(rec, tp), "logits_activations": self.logits_per_gpu(tp),
                "pipeline_parallel": Q.point(pp)}

    @property
    def buffer_formula(self) -> str:
        """The gathered layer's formula: ZeRO stage 3's (16-bit weights and gradients), or a
        frozen base's under FSDP (its weights only)."""
        return "frozen-base-gather-buffer" if self.method.sharded else "zero3-gather-buffer"

    def buffers_per_gpu(self, zero: int, tp: int, dp: int) -> Q:
        """ZeRO stage 3's (or FSDP's) gathered layer (0 for the other stages and methods, or on one
        copy that keeps its weights on the GPU)."""
        if zero != 3 or not (self.method.trains_all or self.method.sharded) or \
                (dp <= 1 and not self.method.offloads_at(zero)):     # offloaded: gathered from the CPU
            return ZERO_NONE
        return self._once(("buffers", tp), self.buffer_formula, self.buffer_env(tp))

    def states_env(self, tp: int, pp: int, dp: int) -> dict:
        env = states_env(self.method, self.params, self.states, self.adapters, tp, pp, dp, self.embeddings)
        env["gradient_bytes_per_param"] = self.options.grad_bytes
        env["master_weight_bytes_per_param"] = self.options.master_bytes
        if self.adapter_bytes:   # (QLoRA's adapters: bf16, or fp32 under fp16 mixed precision)
            env["adapter_weight_bytes_per_param"], env["adapter_gradient_bytes_per_param"] = self.adapter_bytes[:2]
        return env

    def activation_env(self, tp: int) -> dict:
        s, kb = self.shape, self.ledger.kb
        stored = kb.q("c_mlp_stored_tensors_gated" if s.gated else "c_mlp_stored_tensors_plain")
        if s.experts_per_token is not None:     # a token's k experts each keep their tensors and a copy of it
            stored = self._once(("routed",), "mlp-stored-tensors-routed",
                                {"mlp_tensors_per_expert": stored, "experts_per_token": s.experts_per_token,
                                 "hidden": s.hidden, "ffn_hidden": s.ffn_hidden})
        return {"seq_length": s.seq_length, "micro_batch": s.micro_batch, "hidden": s.hidden, "layers": s.layers,
                "heads": s.heads, "kv_heads": s.kv_heads or s.heads, "ffn_hidden": s.ffn_hidden,
                "mlp_stored_tensors": stored, "tensor_parallel": Q.point(tp)}

    def logits_env(self, tp: int) -> dict:
        s = self.shape
        return {"seq_length": s.seq_length, "micro_batch": s.micro_batch, "hidden": s.hidden, "vocab": s.vocab,
                "tensor_parallel": Q.point(tp)}

    def buffer_env(self, tp: int) -> dict:
        s = self.shape
        return {"vocab": s.vocab or ZERO_NONE, "hidden": s.hidden, "ffn_hidden": s.ffn_hidden,
                "tensor_parallel": Q.point(tp)}

    def layout(self, c: tuple, gpus: int | None = None) -> dict:
        """A layout's memory per GPU: its model states, the activations of its worst pipeline
        stage (``stage``: each stage's, and which one bounds it), buffers and headroom."""
        zero, tp, pp, rec = c
        gpus = gpus or tp * pp
        dp = max(1, gpus // (tp * pp))
        states, stage = self.states_per_gpu(zero, tp, pp, dp), self.stages(rec, tp, pp, dp)
        buffers, headroom = self.buffers_per_gpu(zero, tp, dp), self.options.headroom
        bounding = stage["bound"] in ("last", "only")
        return {"zero": zero, "tp": tp, "pp": pp, "dp": dp, "recompute": rec, "states": states,
                "method": self.method.id, "offload": self.method.offload, "activations": stage["layers"],
                "rebuilt": stage["rebuilt"], "logits": stage["logits"] if bounding else ZERO_NONE,
                "stage": stage, "buffers": buffers, "headroom": headroom,
                "per_gpu": states + stage["worst"] + buffers + headroom}
