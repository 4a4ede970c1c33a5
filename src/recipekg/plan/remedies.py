"""When the layout search finds nothing that fits: what would, each from the same detailed
memory model as the verdict (the leanest layout of every alternative on the plan's GPUs), the
cheap knobs first: a smaller LoRA rank, a shorter sequence, a smaller micro-batch (or fewer
sequences served at once), recomputation, the layout degrees and ZeRO stage the query fixed,
an 8-bit optimizer or KV cache; then ZeRO-Offload (or, for LoRA and QLoRA with FSDP among
their KB layouts, FSDP's CPU offload of the shards), LoRA or QLoRA, int8 or int4 weights; the
fewest of the knobs not enough alone that fit together (with the least halving of a knob when all
of them are not enough); then more GPUs and a smaller model. Each says the change (``change``, and the ``query`` that asks
for it) and whether it is enough on its own::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.methods import read_method
    >>> from recipekg.plan.layout import search_layout
    >>> ledger = Ledger(KBView(snap))
    >>> q = "plan where model = llama-2-70b and method = qlora and gpus = 1 and gpu-memory = 48GB"
    >>> inputs = read_inputs(parse(q)[0], snap)
    >>> method = read_method(ledger, inputs)
    >>> found = search_layout(ledger, inputs, inputs.params, method)
    >>> found["fits"]
    False
    >>> [(r["id"], r["enough"], r.get("change")) for r in remedies(ledger, inputs, inputs.params, method, found)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('lora-rank', True, {'lora-rank': 8}), ('adam-8bit', False, {'optimizer': 'adam-8bit'}),
     ('offload', True, {'offload': 'cpu'}), ('more-gpus', True, {'gpus': 2}),
     ('smaller-model', True, {'params': 53900000000.0})]
"""

from __future__ import annotations

from recipekg.plan.capacity import largest_params, leanest
from recipekg.formula.expr import Q
from recipekg.plan.figures import qjson, show
from recipekg.plan.inputs import Inputs, point_facts
from recipekg.plan.layout import describe
from recipekg.plan.ledger import Ledger
from recipekg.plan.kbview import const_json
from recipekg.plan.methods import (WEIGHT_BITS, Method, embedding_params, offloads_sharded, quantized_precisions,
                                   read_method, servable, states_env)
from recipekg.plan.options import memory_options
from recipekg.plan.shape import model_shape, optimizer_state_bytes
from recipekg.reason.facts import Facts

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from typing import Unpack

    from recipekg.contracts.plan import Remedy, RemedyMore, Verdict

#: The smallest value a halving knob is taken down to.
FLOOR = {"lora-rank": 1, "seq-length": 128, "micro-batch": 1, "batch-size": 1}
#: The layout choices a query may fix, which the leanest layout then frees.
FIXED = ("recompute", "tensor-parallel", "pipeline-parallel", "zero")


def remedies(ledger: Ledger, inputs: Inputs, params: Q, method: Method, found: dict | None) -> list[Remedy]:
    """What would make it fit (none when it fits or there is no memory to fit in), cheapest first."""
    if found is None or found["fits"]:
        return []
    cap, gpus = inputs.gpu_memory, int(inputs.gpus.value) if inputs.gpus else 1
    scratch = Ledger(ledger.kb, ledger.where)
    shape = model_shape(scratch, inputs, params)
    out = _halvings(ledger, inputs, params, method, shape, cap)
    out += _freed(ledger, inputs, params, method, cap)
    out += _switches(ledger, inputs, params, method, cap, together=not out)  # (knobs together: when none fits alone)
    need = found.get("gpus_needed")
    if need:
        there = leanest(ledger, inputs, params, method, gpus=need)
        out.append(_rec("more-gpus", "more GPUs", f"{need:,} GPUs of {show(cap, 'bytes')} would hold it"
                        + (f": {_after(there, cap)}" if there else ""), True,
                        after=there["per_gpu"] if there else None, change={"gpus": need}, gpus_needed=need))
    smaller = largest_params(ledger, inputs, method.id, method)
    if smaller is not None and smaller["params"].value < params.value:
        out.append(_rec("smaller-model", "a smaller model",
                        f"{'on this GPU' if gpus == 1 else f'on these {gpus:,} GPUs'} the largest model for "
                        f"method = {method.id} is "
                        f"{smaller['text'].split(': ', 1)[1]}", True, after=smaller["memory_per_gpu"],
                        params=qjson(smaller["params"]), change={"params": smaller["params"].value}))
    return out


def _fits(ledger: Ledger, inputs: Inputs, params: Q, method: Method, cap: Q) -> dict | None:
    best = leanest(ledger, inputs, params, method)
    return best if best is not None and best["per_gpu"].high <= cap.low else None


def _halvings(ledger: Ledger, inputs: Inputs, params: Q, method: Method, shape, cap: Q) -> list[Remedy]:
    """The knobs that halve: the largest value of each that fits (the least change), if any."""
    knobs = []
    if method.rank is not None:
        knobs.append(("lora-rank", int(method.rank.value), "a smaller LoRA rank", "adapters"))
    knobs.append(("seq-length", int(shape.seq_length.value), "shorter sequences",
                  "KV cache" if method.id == "inference" else "activations"))  # (what a shorter sequence keeps less of)
    if method.id == "inference" and shape.served is not None:
        knobs.append(("batch-size", int(shape.served.value), "fewer sequences served at once", "KV cache"))
    else:
        knobs.append(("micro-batch", int(shape.micro_batch.value), "a smaller micro-batch", "activations"))
    out: list[Remedy] = []
    for dim, now, label, what in knobs:
        value, best = now // 2, None
        while value >= FLOOR[dim]:
            changed = with_value(inputs, dim, value)
            alt = read_method(ledger, changed, method.id) if dim == "lora-rank" else method
            best = _fits(ledger, changed, params, alt, cap)
            if best is not None:
                break
            value //= 2
        if best is not None:
            out.append(_rec(dim, label, f"{dim} = {value:,} (from {now:,}; less {what}): {_after(best, cap)}", True,
                            after=best["per_gpu"], change={dim: value}))
    return out


def _freed(ledger: Ledger, inputs: Inputs, params: Q, method: Method, cap: Q) -> list[Remedy]:
    """The layout choices the query fixed, changed: each alone, by the least step that fits
    (``recompute = full`` keeps ZeRO stage 3 over every GPU; QA round 6, F7), else all of them
    freed at once, the leanest layout the search would pick."""
    fixed = [d for d in FIXED if d in inputs.facts]
    if not fixed:
        return []
    alone = [r for d in fixed if (r := _one_step(ledger, inputs, d, params, method, cap)) is not None]
    if alone:
        return alone
    best = _fits(ledger, without(inputs, *fixed), params, method, cap)
    if best is None:
        return []
    words = ", ".join(fixed)
    return [_rec("layout", f"let plan choose {words}", f"without fixing {words}: {_after(best, cap)}", True,
                 after=best["per_gpu"], change={d: None for d in fixed})]


_MORE = {"recompute": "more recomputation", "zero": "a higher ZeRO stage", "tensor-parallel": "more tensor parallelism",
         "pipeline-parallel": "more pipeline parallelism"}


def _one_step(ledger: Ledger, inputs: Inputs, dim: str, params: Q, method: Method, cap: Q) -> Remedy | None:
    """The least change of one fixed layout choice that fits, the others kept: the next
    recomputation modes, the next ZeRO stages, tensor or pipeline degrees doubled up to the GPUs."""
    kb, f = ledger.kb, inputs.facts[dim]
    steps: list[tuple[int | str, Inputs]]
    now: int | str | None
    if dim == "recompute":
        mode = kb.node_id(next(iter(f.values))) if f.values and len(f.values) == 1 else None
        modes, now = list(method.recompute_modes), mode
        steps = [(m, with_name(kb, inputs, dim, m)) for m in modes[modes.index(mode) + 1:]] if mode in modes else []
    else:
        degree = int(f.intervals[0][0]) if f.intervals and f.intervals[0][0] == f.intervals[0][2] else None
        gpus, now = int(inputs.gpus.value) if inputs.gpus else 1, degree
        values = range(degree + 1, 4) if dim == "zero" and degree is not None else \
            [degree * 2 ** k for k in range(1, 12) if degree * 2 ** k <= gpus] if degree else []
        steps = [(v, with_value(inputs, dim, v)) for v in values]
    for value, changed in steps:
        best = _fits(ledger, changed, params, method, cap)
        if best is not None:
            shown = f"{value:,}" if isinstance(value, int) else value
            return _rec(dim, _MORE[dim], f"{dim} = {shown} (from {now}), the other layout choices kept: "
                        f"{_after(best, cap)}", True, after=best["per_gpu"], change={dim: value})
    return None


def _switches(ledger: Ledger, inputs: Inputs, params: Q, method: Method, cap: Q, together: bool = True) -> list[Remedy]:
    """An 8-bit optimizer or KV cache, then the other methods and precisions; with ``together``,
    the fewest of the same method's knobs that fit together (:func:`_together`)."""
    kb, out = ledger.kb, []
    options = memory_options(Ledger(kb, ledger.where), inputs, quiet=True)
    alternatives = []
    if method.id != "inference" and optimizer_state_bytes(Ledger(kb), inputs)[0].value > \
            kb.q("c_adam_8bit_state_bytes_per_param").value:
        alternatives.append(("adam-8bit", "8-bit Adam (optimizer = adam-8bit)", with_name(kb, inputs, "optimizer", "adam-8bit"),
                             method, "2 bytes of optimizer state per trained parameter"))
    if method.id != "inference" and options.attention == "standard":
        alternatives.append(("attention", "FlashAttention (attention = flash)", with_name(kb, inputs, "attention", "flash"),
                             method, "no s × s attention scores stored, nor rebuilt by recomputation"))
    if method.id == "inference" and options.kv_bytes.value > kb.q("c_kv_bytes_per_value_8bit").value:
        alternatives.append(("kv-precision", "an 8-bit KV cache (kv-precision = fp8)",
                             with_name(kb, inputs, "kv-precision", "fp8"), method, "half the KV cache"))
    if method.id == "full-fine-tune" and not method.offload:
        if options.master != "bf16":
            alternatives.append(("master-weights", "pure bf16 (master-weights = bf16)",
                                 with_name(kb, inputs, "master-weights", "bf16"), method,
                                 "no fp32 master copy and the optimizer's states in bf16 (small updates are rounded "
                                 "away: for fine-tuning)"))
        if not options.in_backward:
            alternatives.append(("optimizer-step",
                                 "the optimizer step in the backward pass (optimizer-step = in-backward)",
                                 with_name(kb, inputs, "optimizer-step", "in-backward"), method,
                                 "each gradient freed once its parameter steps (no gradient accumulation)"))
    if method.trains_all:
        if not method.offload:
            alternatives.append(("offload", "ZeRO-Offload (offload = cpu)", inputs, Method(method.id, offload=True),
                                 "optimizer states, fp32 master weights and gradients on the CPU"))
        for mid in ("lora", "qlora"):
            alternatives.append((mid, "QLoRA" if mid == "qlora" else "LoRA", inputs, read_method(ledger, inputs, mid),
                                 "for fine-tuning a pretrained model only"
                                 + ("" if method.id == "full-fine-tune" else ", not for pretraining")))
    elif method.id == "inference":
        current = kb.node_id(inputs.precision) if inputs.precision else None
        precisions = quantized_precisions(kb)  # most bits first: only those leaner than the current
        for pid, bits in precisions.items():
            if servable(kb, pid, inputs.hardware) and bits < precisions.get(current, float("inf")):
                quantized = with_name(kb, inputs, "precision", pid)
                alternatives.append((pid, f"{pid} weights (precision = {pid})", quantized,
                                     read_method(Ledger(kb), quantized, "inference"), "quantized weights"))
    elif method.id == "lora":
        alternatives.append(("qlora", "QLoRA", inputs, read_method(ledger, inputs, "qlora"), "a 4-bit base"))
    if not method.trains_all and not method.offload and offloads_sharded(method.id, method.layouts):
        alternatives.append(("offload", "FSDP's CPU offload (offload = cpu)", inputs,
                             Method(method.id, True, method.rank, method.weight_bytes, method.weight_constants,
                                    method.layouts),
                             "the sharded weights, gradients and optimizer states in CPU memory"))
    now, weight_bits = leanest(ledger, inputs, params, method), quantized_precisions(kb)
    short: list[tuple[str, str, dict]] = []   # the same method's knobs not enough on their own
    for rid, label, alt_inputs, alt, why in alternatives:
        best = leanest(ledger, alt_inputs, params, alt)
        if best is None:
            continue
        ok = best["per_gpu"].high <= cap.low
        if not ok and now is not None and show(best["per_gpu"], "bytes") == show(now["per_gpu"], "bytes"):
            continue  # not even a change at the figures shown (8-bit Adam for a LoRA run's few adapters)
        enough = ok if not (rid in ("lora", "qlora") and method.id == "pretrain") else None
        change = _change(rid, weight_bits)
        more: RemedyMore = {"change": change}
        if rid in ("lora", "qlora"):
            base = _frozen_base(ledger, alt_inputs, params, alt, options)
            more["applies_to"] = "fine-tuning"
            more["base_weight_memory"] = qjson(base)
            more["base_fits"] = base.high <= cap.low
        if not ok and alt is method and alt_inputs is not inputs:
            short.append((rid, label.split(" (")[0], change))
        rec = _rec(rid, label, f"{why}: {_after(best, cap)}", enough, after=best["per_gpu"],
                   verdict="fits" if ok else "does not fit", **more)
        if rid in weight_bits:  # the figure it rests on, and whose it is (an extension's: hostile 080)
            figures = kb.constants_for(kb.snap["dimensions"]["precision"]["values"][rid], WEIGHT_BITS)
            rec["constants"], rec["sources"] = [const_json(c) for c in figures], kb.sources(*figures)
        out.append(rec)
    both = _together(ledger, inputs, params, method, cap, short) if together else None
    return out + ([both] if both else [])


def _change(rid: str, weight_bits) -> dict[str, float | str | None]:
    """The constraints a switch gives (its remedy's ``change``)."""
    return ({"method": rid} if rid in ("lora", "qlora") else {"offload": "cpu"} if rid == "offload" else
            {"precision": rid} if rid in weight_bits else {"optimizer": rid} if rid == "adam-8bit" else
            {"master-weights": "bf16"} if rid == "master-weights" else
            {"optimizer-step": "in-backward"} if rid == "optimizer-step" else
            {"attention": "flash"} if rid == "attention" else {"kv-precision": "fp8"})


def _together(ledger: Ledger, inputs: Inputs, params: Q, method: Method, cap: Q,
              short: list[tuple[str, str, dict]]) -> Remedy | None:
    """The fewest of the knobs not enough on their own that fit together, the cheapest first
    (QA round 10, R10: 8-bit Adam, pure bf16 and the optimizer step in the backward pass fit a
    full fine-tune of an 8B model on one 40 GB GPU, none alone); None when no set of two or more
    fits. At most 2^n leanest layouts for n knobs (n is at most five)."""
    from itertools import combinations

    kb = ledger.kb

    def applied(chosen) -> Inputs:
        changed = inputs
        for _, _, change in chosen:
            for dim, value in change.items():
                changed = with_name(kb, changed, dim, str(value))
        return changed

    def said(chosen, best: dict, knob: Remedy | None = None) -> Remedy:
        labels = [label for _, label, _ in chosen] + ([knob["text"].split(" (")[0]] if knob else [])
        words = ", ".join(labels[:-1]) + " and " + labels[-1]
        change = {dim: value for _, _, c in chosen for dim, value in c.items()} | (knob.get("change") or {} if knob else {})
        return _rec("together", f"{words} together", f"none of them enough alone: {_after(best, cap)}",
                    True, after=best["per_gpu"], verdict="fits", change=change)

    for size in range(2, len(short) + 1):
        for chosen in combinations(short, size):
            if (best := _fits(ledger, applied(chosen), params, method, cap)) is not None:
                return said(chosen, best)
    if short:  # (all of them, and the least halving of a knob: shorter sequences, a smaller micro-batch)
        changed = applied(short)
        for knob in _halvings(ledger, changed, params, method, model_shape(Ledger(kb, ledger.where), changed, params), cap):
            (dim, value), = (knob.get("change") or {}).items()
            best = _fits(ledger, with_value(changed, dim, float(value or 0)), params, method, cap)
            if best is not None:
                return said(short, best, knob)
    return None


def _frozen_base(ledger: Ledger, inputs: Inputs, params: Q, method: Method, options) -> Q:
    """The frozen base's memory: the method's model-states formula without adapters (with the
    weights it keeps in 16 bits, on a scratch ledger)."""
    scratch = Ledger(ledger.kb, ledger.where)
    embeddings = embedding_params(scratch, method, model_shape(scratch, inputs, params), inputs.model)
    env = states_env(method, params, Q.point(0), Q.point(0), 1, 1, 1, embeddings)
    env["gradient_bytes_per_param"] = options.grad_bytes
    env["master_weight_bytes_per_param"] = options.master_bytes
    q, _ = ledger.compute(ledger.kb.by_id(method.state_formula), env)
    return q


def _after(best: dict, cap: Q) -> str:
    ok = best["per_gpu"].high <= cap.low
    return (f"{show(best['per_gpu'], 'bytes')} per GPU with {describe(best)} — "
            f"{'fits' if ok else 'does not fit'} in {show(cap, 'bytes')}")


def with_value(inputs: Inputs, dim: str, value: float) -> Inputs:
    """The same inputs with a numeric dimension set (as if the query gave it)."""
    facts = dict(inputs.facts, **{dim: point_facts(dim, "count", Q.point(float(value)))})
    constraints = {k: v for k, v in inputs.constraints.items() if k != dim}
    return Inputs(**{f: facts if f == "facts" else constraints if f == "constraints" else getattr(inputs, f)
                     for f in inputs.fields})


def without(inputs: Inputs, *dims: str) -> Inputs:
    """The same inputs without the query's choice of ``dims``."""
    facts = {k: v for k, v in inputs.facts.items() if k not in dims}
    constraints = {k: v for k, v in inputs.constraints.items() if k not in dims}
    return Inputs(**{f: facts if f == "facts" else constraints if f == "constraints" else getattr(inputs, f)
                     for f in inputs.fields})


def with_name(kb, inputs: Inputs, dim: str, name: str) -> Inputs:
    """The same inputs with a categorical dimension set to the value ``name``."""
    iri = kb.snap["dimensions"][dim]["values"][name]
    facts = dict(inputs.facts, **{dim: Facts(dim, "categorical", values={iri}, derived="plan")})
    attr = {"optimizer": "optimizer", "precision": "precision"}.get(dim)
    return Inputs(**{f: facts if f == "facts" else iri if f == attr else getattr(inputs, f) for f in inputs.fields})


def _rec(rid: str, label: str, text: str, enough: bool | None, after: Q | None = None, verdict: Verdict | None = None,
         **more: Unpack[RemedyMore]) -> Remedy:
    """A recommendation from the detailed model."""
    return {"id": rid, "label": label, "iri": None, "saving_per_gpu": None,
            "memory_per_gpu_after": qjson(after), "verdict": verdict or ("fits" if enough else "does not fit"),
            "enough": enough, "text": text, "constants": [], "formula": None, "rules": [], "sources": [],
            "detailed": True, **more}
