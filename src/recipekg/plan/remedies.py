"""When the layout search finds nothing that fits: what would, each from the detailed memory
model (the leanest layout of every alternative, per GPU): more GPUs, a smaller model, LoRA or
QLoRA instead of training every weight, ZeRO-Offload, and for inference int8 or int4 weights.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.methods import read_method
    >>> from recipekg.plan.layout import search_layout
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 70B and method = inference and hardware = h100")[0], snap)
    >>> method = read_method(ledger, inputs)
    >>> found = search_layout(ledger, inputs, inputs.params, method)
    >>> found["fits"]
    False
    >>> [(r["id"], r["enough"]) for r in remedies(ledger, inputs, inputs.params, method, found)]
    [('more-gpus', True), ('smaller-model', True), ('int8', True), ('int4', True)]
"""

from __future__ import annotations

from recipekg.plan.capacity import largest_params, leanest
from recipekg.plan.expr import Q
from recipekg.plan.figures import qjson, show
from recipekg.plan.inputs import Inputs
from recipekg.plan.layout import describe
from recipekg.plan.ledger import Ledger
from recipekg.plan.methods import Method, read_method, states_env
from recipekg.plan.shape import optimizer_state_bytes


def remedies(ledger: Ledger, inputs: Inputs, params: Q, method: Method, found: dict | None) -> list[dict]:
    """What would make it fit (none when it fits or there is no memory to fit in)."""
    if found is None or found["fits"]:
        return []
    cap = inputs.gpu_memory
    out = []
    need = found.get("gpus_needed")
    if need:
        out.append(_rec("more-gpus", "more GPUs", f"{need:,} GPUs of {show(cap, 'bytes')} would hold it",
                        True, gpus_needed=need))
    smaller = largest_params(ledger, inputs, method.id, method)
    if smaller is not None:
        out.append(_rec("smaller-model", "a smaller model",
                        f"on these GPUs the largest model for method = {method.id} is {smaller['text'].split(': ', 1)[1]}",
                        True, after=smaller["memory_per_gpu"], params=qjson(smaller["params"])))
    alternatives = []
    if method.trains_all:
        if not method.offload:
            alternatives.append(("offload", "ZeRO-Offload (offload = cpu)", Method(method.id, offload=True),
                                 f"optimizer states, fp32 master weights and gradients on the CPU "
                                 f"({show(_offloaded(ledger, inputs, params), 'bytes')} of host memory in all)"))
        for mid in ("lora", "qlora"):
            alternatives.append((mid, "QLoRA" if mid == "qlora" else "LoRA", read_method(ledger, inputs, mid),
                                 "for fine-tuning a pretrained model only"
                                 + ("" if method.id == "full-fine-tune" else ", not for pretraining")))
    elif method.id == "inference":
        current = ledger.kb.node_id(inputs.precision) if inputs.precision else None
        for pid in ("int8", "int4"):
            if pid != current and not (current == "int4" and pid == "int8"):
                alt = read_method(ledger, _with_precision(ledger, inputs, pid), "inference")
                alternatives.append((pid, f"{pid} weights (precision = {pid})", alt, "quantized weights"))
    elif method.id == "lora":
        alternatives.append(("qlora", "QLoRA", read_method(ledger, inputs, "qlora"), "a 4-bit base"))
    for rid, label, alt, why in alternatives:
        best = leanest(ledger, inputs, params, alt)
        if best is None:
            continue
        ok = best["per_gpu"].high <= cap.low
        more = {"sources": ledger.kb.sources(ledger.kb.by_id(alt.state_formula or "model-states-zero-3").data)}
        if rid in ("lora", "qlora"):
            base = _frozen_base(ledger, params, alt)
            more.update(applies_to="fine-tuning", base_weight_memory=qjson(base), base_fits=base.high <= cap.low)
        enough = ok if not (rid in ("lora", "qlora") and method.id == "pretrain") else None
        out.append(_rec(rid, label, f"{why}: {show(best['per_gpu'], 'bytes')} per GPU with {describe(best)} — "
                                    f"{'fits' if ok else 'does not fit'} in {show(cap, 'bytes')}",
                        enough, after=best["per_gpu"], verdict="fits" if ok else "does not fit", **more))
    return out


def _offloaded(ledger: Ledger, inputs: Inputs, params: Q) -> Q:
    """What ZeRO-Offload moves to CPU memory, over all the hosts."""
    states, _ = optimizer_state_bytes(Ledger(ledger.kb, ledger.where), inputs)
    q, _ = ledger.compute(ledger.kb.by_id("offloaded-states"),
                          {"params": params, "optimizer_state_bytes_per_param": states})
    return q


def _frozen_base(ledger: Ledger, params: Q, method: Method) -> Q:
    """The frozen base's memory: the method's model-states formula without adapters."""
    env = states_env(method, params, Q.point(0), Q.point(0), 1, 1, 1)
    q, _ = ledger.compute(ledger.kb.by_id(method.state_formula), env)
    return q


def _with_precision(ledger: Ledger, inputs: Inputs, pid: str) -> Inputs:
    iri = ledger.kb.snap["dimensions"]["precision"]["values"][pid]
    return Inputs(**{f: iri if f == "precision" else getattr(inputs, f) for f in inputs.fields})


def _rec(rid: str, label: str, text: str, enough: bool | None, after: Q | None = None, **more) -> dict:
    """A recommendation in the shape of plan/savings.py's, from the detailed model."""
    return {"id": rid, "label": label, "iri": None, "saving_per_gpu": None,
            "memory_per_gpu_after": qjson(after), "verdict": "fits" if enough else "does not fit",
            "enough": enough, "text": text, "constants": [], "formula": None, "rules": [], "sources": [],
            "detailed": True, **more}
