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
from recipekg.plan.methods import Method, adapter_params, kv_cache, states_env
from recipekg.plan.options import MemoryOptions, memory_options
from recipekg.plan.shape import Shape

ZERO = {0: "model-states-zero-0", 1: "model-states-zero-1", 2: "model-states-zero-2", 3: "model-states-zero-3"}
#: (attention, recompute) → the activation formula's id
ACTIVATIONS = {("standard", "none"): "activations-no-recompute", ("flash", "none"): "activations-flash",
               ("standard", "selective"): "activations-selective-recompute",
               ("flash", "selective"): "activations-selective-recompute",
               ("standard", "full"): "activations-full-recompute", ("flash", "full"): "activations-full-recompute"}
ZERO_NONE = Q.point(0)


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
        self.seen: dict = {}

    @property
    def inference(self) -> bool:
        return self.method.id == "inference"

    def formula(self, fid: str):
        return self.ledger.kb.by_id(fid)

    def states_formula(self, zero: int):
        return self.formula(self.method.state_formula or ZERO[zero])

    def _once(self, key: tuple, fid: str, env: dict) -> Q:
        if key not in self.seen:
            self.seen[key], _ = self.ledger.compute(self.formula(fid), env)
        return self.seen[key]

    def states_per_gpu(self, zero: int, tp: int, pp: int, dp: int) -> Q:
        f = self.method.state_formula or ZERO[zero]
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

    def logits_per_gpu(self, tp: int, pp: int) -> Q:
        """The output layer's input and fp32 logits, on a GPU that holds the last stage and the
        first (no pipeline); 0 at inference, with a pipeline, or without a vocabulary."""
        if self.inference or pp > 1 or self.shape.vocab is None:
            return ZERO_NONE
        return self._once(("logits", tp), "output-layer-activations", self.logits_env(tp))

    def buffers_per_gpu(self, zero: int, tp: int, dp: int) -> Q:
        """ZeRO stage 3's gathered layer (0 for the other stages and methods, or on one copy)."""
        if zero != 3 or not self.method.trains_all or dp <= 1:
            return ZERO_NONE
        return self._once(("buffers", tp), "zero3-gather-buffer", self.buffer_env(tp))

    def states_env(self, tp: int, pp: int, dp: int) -> dict:
        env = states_env(self.method, self.params, self.states, self.adapters, tp, pp, dp)
        env["gradient_bytes_per_param"] = self.options.grad_bytes
        return env

    def activation_env(self, tp: int) -> dict:
        s, kb = self.shape, self.ledger.kb
        stored = kb.q("c_mlp_stored_tensors_gated" if s.gated else "c_mlp_stored_tensors_plain")
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
        zero, tp, pp, rec = c
        gpus = gpus or tp * pp
        dp = max(1, gpus // (tp * pp))
        states, acts = self.states_per_gpu(zero, tp, pp, dp), self.activations_per_gpu(rec, tp, pp, dp)
        logits, buffers = self.logits_per_gpu(tp, pp), self.buffers_per_gpu(zero, tp, dp)
        headroom = self.options.headroom
        return {"zero": zero, "tp": tp, "pp": pp, "dp": dp, "recompute": rec, "states": states,
                "method": self.method.id, "offload": self.method.offload, "activations": acts,
                "logits": logits, "buffers": buffers, "headroom": headroom,
                "per_gpu": states + acts + logits + buffers + headroom}
