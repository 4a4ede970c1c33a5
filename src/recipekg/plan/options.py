"""What the detailed memory model is told besides the shape: the attention kernel
(``attention``), the gradients' precision (``grad-precision``), the KV cache's
(``kv-precision``) and the memory kept free for the framework (``headroom``), each the
query's or the KB's default, said in a note::

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
    headroom_constants: tuple = ()


def memory_options(ledger: Ledger, inputs: Inputs, quiet: bool = False) -> MemoryOptions:
    """The options of this plan (``quiet``: without the notes on the defaults)."""
    kb = ledger.kb
    note = (lambda *a, **k: None) if quiet else ledger.note
    attention = _named(kb, inputs, "attention")
    if attention is None:
        attention = "flash"
        note("attention not given: memory-efficient attention (FlashAttention) assumed, which stores no s × s score "
             "matrix; attention = standard counts the stored scores (Korthikanti et al.'s 5as/h term)",
             kb.by_id("activations-flash").data)
    grad = _precision(kb, inputs, "grad-precision", GRADIENTS) or "bf16"
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
    if "grad-precision" in inputs.constraints and inference:
        note("grad-precision is not used at inference: serving keeps no gradients", warn=True)
    gc, kc = kb.constant(GRADIENTS[grad]), kb.constant(KV_CACHE[kv])
    return MemoryOptions(attention, const_q(gc), (gc,), const_q(kc), (kc,), headroom, how, tuple(consts))


def _named(kb, inputs: Inputs, dim: str) -> str | None:
    """The notation of the one value the query gives a categorical ``dim`` (None if not given)."""
    f = inputs.facts.get(dim)
    if f is None or not f.values:
        return None
    iri = next(iter(f.values))
    return kb.node_id(iri)


def _precision(kb, inputs: Inputs, dim: str, allowed: dict) -> str | None:
    """The precision the query gives ``dim`` (None when not given); RangeError for one the
    KB has no figure for."""
    name = _named(kb, inputs, dim)
    if name is None or name in allowed:
        return name
    c = inputs.constraints[dim]
    what = "KV-cache" if dim == "kv-precision" else "gradient"
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
