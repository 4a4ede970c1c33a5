"""What the detailed memory model is told besides the shape: the attention kernel
(``attention``), the gradients' precision (``grad-precision``) and when the optimizer steps
(``optimizer-step``: after the backward pass, or fused into it, which frees each gradient),
the weights the optimizer updates (``master-weights``: an fp32 master copy, or pure bf16),
the KV cache's precision (``kv-precision``) and the memory kept free for the framework
(``headroom``), each the query's or the KB's default, said in a note::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> o = memory_options(ledger, read_inputs(parse("plan where params = 7B and hardware = h100")[0], snap))
    >>> o.attention, show(o.grad_bytes, "bytes/param"), show(o.kv_bytes, "bytes"), show(o.headroom, "bytes")
    ('flash', '2 bytes/param', '2 bytes', '0.5–2 GB')
    >>> q = "plan where params = 7B and hardware = h100 and headroom = 10% and grad-precision = fp32"
    >>> o = memory_options(ledger, read_inputs(parse(q)[0], snap))
    >>> show(o.grad_bytes, "bytes/param"), show(o.headroom, "bytes"), o.headroom_how
    ('4 bytes/param', '8 GB', 'given in the query (headroom = 10%): 10% of 80 GB')
    >>> show(o.master_bytes, "bytes/param"), o.master
    ('4 bytes/param', 'fp32')
    >>> q = "plan where params = 7B and master-weights = bf16 and optimizer-step = in-backward"
    >>> o = memory_options(ledger, read_inputs(parse(q)[0], snap))
    >>> show(o.master_bytes, "bytes/param"), show(o.grad_bytes, "bytes/param"), o.master, o.in_backward
    ('0 bytes/param', '0 bytes/param', 'bf16', True)
    >>> read_inputs(parse("plan where params = 7B and kv-precision = int4")[0], snap)
    Traceback (most recent call last):
    recipekg.errors.RangeError: line 1, column 43: plan has no KV-cache figure for kv-precision = int4
    expected: kv-precision = bf16, kv-precision = fp16, kv-precision = fp8 or kv-precision = int8
"""

from __future__ import annotations

from recipekg.errors import RangeError
from recipekg.formula.expr import Q, const_q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger
from recipekg.record import Record
from recipekg.query.ast import Quantity

#: The precisions each option takes, and the KB constant of each one's bytes.
GRADIENTS = {"bf16": "c_gradient_bytes_per_param_bf16", "fp16": "c_gradient_bytes_per_param_bf16",
             "fp32": "c_gradient_bytes_per_param_fp32"}
KV_CACHE = {"bf16": "c_kv_bytes_per_value", "fp16": "c_kv_bytes_per_value", "fp8": "c_kv_bytes_per_value_8bit",
            "int8": "c_kv_bytes_per_value_8bit"}
MASTER = {"fp32": "c_master_weight_bytes_per_param", "bf16": "c_master_weight_bytes_per_param_bf16"}
IN_BACKWARD = "c_gradient_bytes_per_param_in_backward"
FRAMEWORK = "c_framework_memory_bytes"


class MemoryOptions(Record):
    """The options, each with the KB constants behind it (``*_constants``)."""

    attention: str
    grad_bytes: Q
    grad_constants: tuple
    kv_bytes: Q
    kv_constants: tuple
    headroom: Q
    headroom_how: str
    headroom_constants: tuple
    master: str
    master_bytes: Q
    master_constants: tuple
    in_backward: bool


def memory_options(ledger: Ledger, inputs: Inputs, quiet: bool = False) -> MemoryOptions:
    """The options of this plan (``quiet``: without the notes on the defaults)."""
    kb = ledger.kb
    note = (lambda *a, **k: None) if quiet else ledger.note
    attention = named(kb, inputs, "attention")
    if attention is None:
        attention = "flash"
        note("attention not given: memory-efficient attention (FlashAttention) assumed, which stores no s × s score "
             "matrix; attention = standard counts the stored scores (Korthikanti et al.'s 5as/h term)",
             kb.by_id("activations-flash").data)
    grad = _precision(kb, inputs, "grad-precision", GRADIENTS) or "bf16"
    master = _precision(kb, inputs, "master-weights", MASTER) or "fp32"
    in_backward = named(kb, inputs, "optimizer-step") == "in-backward"
    kv = _precision(kb, inputs, "kv-precision", KV_CACHE) or "bf16"
    headroom, how, consts = _headroom(ledger, inputs)
    if "headroom" not in inputs.constraints:
        note(f"headroom not given: {show(headroom, 'bytes')} per GPU kept free for the framework (the CUDA context "
             f"and kernels PyTorch loads); fragmentation and temporary buffers are not counted: give headroom = 10% "
             f"to keep more", *consts)
    inference = inputs.method is not None and kb.node_id(inputs.method) == "inference"
    if "kv-precision" in inputs.constraints and not inference:
        note("kv-precision is the KV cache's precision at inference (method = inference): training keeps no KV "
             "cache", warn=True)
    for dim in ("grad-precision", "master-weights", "optimizer-step"):
        if dim in inputs.constraints and inference:
            note(f"{dim} is not used at inference: serving keeps no gradients, master weights or optimizer states",
                 warn=True)
    if in_backward and "grad-precision" in inputs.constraints:
        note("grad-precision is not used with optimizer-step = in-backward: each gradient is freed once its "
             "parameter is updated, so no whole-model gradient is held in any precision", warn=True)
    gc = kb.constant(IN_BACKWARD if in_backward else GRADIENTS[grad])
    kc, mc = kb.constant(KV_CACHE[kv]), kb.constant(MASTER[master])
    if not inference:
        _training_notes(note, kb.node_id(inputs.method) if inputs.method else "pretrain", master, in_backward, mc, gc)
    return MemoryOptions(attention, const_q(gc), (gc,), const_q(kc), (kc,), headroom, how, tuple(consts),
                         master, const_q(mc), (mc,), in_backward)


def _training_notes(note, method: str, master: str, in_backward: bool, mc: dict, gc: dict) -> None:
    """What pure bf16 and the fused optimizer step cost besides the memory they save."""
    if master == "bf16":
        pretrain = method == "pretrain"
        note("master-weights = bf16: no fp32 master copy and the optimizer's states in bf16; rounding each update to "
             "bf16 cancels updates smaller than half a weight's spacing, which degrades convergence (Zamirai et al.); "
             "torchtune's single-device full fine-tunes use it; stochastic rounding or Kahan summation in the "
             "optimizer recovers fp32's accuracy"
             + ("; for pretraining, keep master-weights = fp32 unless the optimizer does one of those" if pretrain else ""),
             mc, warn=pretrain)
    if in_backward:
        note("optimizer-step = in-backward: each parameter steps as soon as its gradient is ready and the gradient is "
             "freed, so no whole-model gradient is held; this rules out gradient accumulation over micro-batches and "
             "clipping by the global gradient norm; the one gradient being applied (at most the embedding's) is not "
             "counted", gc)


def named(kb, inputs: Inputs, dim: str) -> str | None:
    """The notation of the one value the query gives a categorical ``dim`` (None if not given);
    RangeError when it gives several (plan counts one memory regime)."""
    f = inputs.facts.get(dim)
    if f is None or not f.values:
        return None
    if len(f.values) > 1:
        c = inputs.constraints[dim]
        raise RangeError.at(c.pos, f"plan needs one value for '{dim}', not {len(f.values)}",
                            expected=[f"{dim} = {kb.node_id(v)}" for v in sorted(f.values, key=kb.node_id)])
    return kb.node_id(next(iter(f.values)))


def _precision(kb, inputs: Inputs, dim: str, allowed: dict) -> str | None:
    """The precision the query gives ``dim`` (None when not given); RangeError for one the
    KB has no figure for."""
    name = named(kb, inputs, dim)
    if name is None or name in allowed:
        return name
    c = inputs.constraints[dim]
    what = {"kv-precision": "KV-cache", "master-weights": "master-weight"}.get(dim, "gradient")
    raise RangeError.at(c.values[0].pos, f"plan has no {what} figure for {dim} = {name}",
                        expected=[f"{dim} = {p}" for p in allowed])


def _headroom(ledger: Ledger, inputs: Inputs) -> tuple[Q, str, list]:
    """The headroom per GPU: bytes or a share of the GPU's memory as given, else the
    framework's own memory (the KB's figure)."""
    kb = ledger.kb
    c = inputs.constraints.get("headroom")
    if c is None:
        const = kb.constant(FRAMEWORK)
        return const_q(const), "the framework's own memory (CUDA context and kernels)", [const]
    f = inputs.facts["headroom"]
    low, _, high, _ = f.intervals[0]
    value = c.values[0]
    if len(f.intervals) != 1 or low != high:
        raise RangeError.at(c.pos, "plan needs one value for 'headroom'", expected=["headroom = 4GB", "headroom = 10%"])
    given = f"given in the query (headroom = {value.text})"
    if isinstance(value, Quantity) and value.unit_kind == "ratio":
        if not 0 <= low < 1:
            raise RangeError.at(value.pos, f"a headroom share is below 100%, not {value.text}",
                                expected=["headroom = 10%"])
        cap = inputs.gpu_memory
        if cap is None:
            raise RangeError.at(value.pos, "headroom as a share needs the GPU's memory: give hardware or gpu-memory",
                                expected=["headroom = 4GB", "hardware = h100"])
        q = cap * low
        return q, f"{given}: {value.text} of {show(cap, 'bytes')}", []
    return Q.point(low), given, []
