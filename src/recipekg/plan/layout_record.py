"""The quantities of the layout the search found, each a KB formula or a constant times a
count, with its sources: the model states (whole and per GPU), the activations, the output
layer's logits, ZeRO stage 3's gathered layer, the headroom, and the memory per GPU in its
parts (what the plan page's memory bar shows; they add up to the memory per GPU)::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.layout import search_layout
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> found = search_layout(ledger, inputs, inputs.params)
    >>> parts = ledger.entry("memory_per_gpu")["per_gpu_parts"]
    >>> [p["name"] for p in parts]
    ['weights', 'gradients', 'master_weights', 'optimizer_states', 'activations', 'headroom']
    >>> abs(sum(p["value"] for p in parts) / ledger.entry("memory_per_gpu")["value"] - 1) < 1e-9
    True
"""

from __future__ import annotations

from recipekg.plan.evaluator import REBUILT, ZERO, activation_formula
from recipekg.formula.expr import Q
from recipekg.plan.figures import qjson, show
from recipekg.plan.ledger import Ledger
from recipekg.plan.quantities import unit_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only
    from recipekg.contracts.plan import PerGpuPart

# The terms of the ZeRO formulas (kb/memory-model.ttl), each a number of bytes per parameter
STATE_TERMS = {"weights": "c_weight_bytes_per_param_bf16", "gradients": "gradient_bytes_per_param",
               "master_weights": "master_weight_bytes_per_param",
               "optimizer_states": "optimizer_state_bytes_per_param"}


def record_zero(ledger: Ledger, memo, best: dict, params: Q, states: Q, state_constants: list) -> None:
    """The quantities of a layout of ZeRO's full training (pretrain, full fine-tune)."""
    kb = ledger.kb
    grad, o = memo.options.grad_bytes, memo.options
    parts = (("weights", kb.q("c_weight_bytes_per_param_bf16"), [kb.constant("c_weight_bytes_per_param_bf16")]),
             ("gradients", grad, list(o.grad_constants)),
             ("master_weights", o.master_bytes, list(o.master_constants)),
             ("optimizer_states", states, state_constants))
    total = Q.point(0)
    for name, per, consts in parts:
        total = total + per * params
        ledger.add(name, per * params, constants=consts, label=f"{name.replace('_', ' ')} (whole model)",
                   derivation=f"{show(per, 'bytes/param')} × {show(params, 'parameters')} = {show(per * params, 'bytes')}")
    ledger.add("model_states", total, label="model states (whole model)",
               derivation="weights + gradients + " + ("fp32 master weights" if o.master == "fp32" else
                                                      "master weights (none: pure bf16)") + " + optimizer states")
    f = memo.formula(ZERO[best["zero"]])
    q, env = ledger.compute(f, memo.states_env(best["tp"], best["pp"], best["dp"]))
    ledger.add("model_states_per_gpu", q, formula=f, env=env, constants=list(o.master_constants))
    record_per_gpu(ledger, memo, best, zero_parts(ledger, memo, best))


def zero_parts(ledger: Ledger, memo, best: dict) -> list[PerGpuPart]:
    """The model states per GPU of a ZeRO layout in their parts: each is the layout's ZeRO
    formula evaluated with the other states' bytes per parameter at 0 (the formulas are sums of
    these terms, each divided by its sharding)."""
    f = memo.formula(ZERO[best["zero"]])
    env = memo.states_env(best["tp"], best["pp"], best["dp"])
    out: list[PerGpuPart] = []
    for name, sym in STATE_TERMS.items():
        alone = {other: Q.point(0) for other in STATE_TERMS.values() if other != sym}
        q, _ = ledger.compute(f, env, alone)
        out.append(part(name, q, f.id))
    return out


def part(name: str, q: Q, formula: str | None, label: str | None = None) -> PerGpuPart:
    return {"name": name, "label": label or name.replace("_", " "), **qjson(q), "unit": unit_of(name), "formula": formula}


def record_per_gpu(ledger: Ledger, memo, best: dict, state_parts: list[PerGpuPart]) -> None:
    """The activations, logits, working buffers, headroom and memory per GPU of a training
    layout (any method but inference), with the memory's parts: those of the pipeline stage
    that needs the most (the first stage's layers, or the last's with the output layer)."""
    fid = activation_formula(memo.options.attention, best["recompute"])
    f = memo.formula(fid)
    q, env = ledger.compute(f, memo.activation_env(best["tp"]))
    ledger.add("activations", q, formula=f, env=env, label="activations per GPU (the layers')" if best["pp"] == 1 else
               f"activations of the layers on the first pipeline stage ({best['pp']} micro-batches in flight)")
    stage = best["stage"]
    parts = list(state_parts) + [part("activations", stage["layers"], fid if stage["bound"] != "last"
                                      else "last-stage-activations")]
    if best["rebuilt"].high > 0:
        f = memo.formula(REBUILT[best["recompute"]])
        rq, env = ledger.compute(f, memo.rebuilt_env(best["tp"], best["recompute"]))
        ledger.add("rebuilt_layer_activations", rq, formula=f, env=env)
        parts.append(part("rebuilt_layer", rq, f.id, "layer rebuilt by full recomputation" if best["recompute"] == "full"
                          else "attention scores selective recomputation rebuilds for one layer"))
    if stage["logits"].high > 0:
        f = memo.formula("output-layer-activations")
        lq, env = ledger.compute(f, memo.logits_env(best["tp"]))
        ledger.add("logits_activations", lq, formula=f, env=env)
        if best["logits"].high > 0:
            parts.append(part("logits", lq, f.id, "output layer and logits"))
    record_stages(ledger, memo, best)
    if best["buffers"].high > 0:
        f = memo.formula(memo.buffer_formula)
        bq, env = ledger.compute(f, memo.buffer_env(best["tp"]))
        ledger.add("working_buffers_per_gpu", bq, formula=f, env=env)
        parts.append(part("buffers", bq, f.id, "ZeRO-3 gathered layer" if f.id == "zero3-gather-buffer"
                          else "FSDP gathered layer (frozen weights)"))
    record_headroom(ledger, memo)
    parts.append(part("headroom", memo.options.headroom, "memory-per-gpu-detailed", "headroom (framework)"))
    f = memo.formula("memory-per-gpu-detailed")
    q, env = ledger.compute(f, {"model_states_per_gpu": best["states"], "activations_worst_stage": stage["worst"],
                                "working_buffers_per_gpu": best["buffers"], "headroom": best["headroom"]})
    ledger.add("memory_per_gpu", q, formula=f, env=env, per_gpu_parts=parts, bounding_stage=stage["bound"])


def record_stages(ledger: Ledger, memo, best: dict) -> None:
    """Each pipeline stage's activations (the last stage's alone without a pipeline, where it is
    the only one) and the worst of them, each with its KB formula."""
    stage, pp = best["stage"], best["pp"]
    env = memo.stage_env(best["recompute"], best["tp"], pp, best["dp"])
    f = memo.formula("last-stage-activations")
    q, used = ledger.compute(f, env)
    ledger.add("last_stage_activations", q, formula=f, env=used,
               label="activations of the last pipeline stage" if pp > 1 else "activations of the only stage")
    if pp > 1:
        f = memo.formula("first-stage-activations")
        q, used = ledger.compute(f, env)
        ledger.add("first_stage_activations", q, formula=f, env=used)
    f = memo.formula("worst-stage-activations")
    q, used = ledger.compute(f, {"first_stage_activations": stage["first"], "last_stage_activations": stage["last"]})
    ledger.add("activations_worst_stage", q, formula=f, env=used, bounding_stage=stage["bound"])


def record_headroom(ledger: Ledger, memo) -> None:
    o = memo.options
    ledger.add("headroom", o.headroom, label="memory kept free per GPU for the framework",
               derivation=o.headroom_how, constants=list(o.headroom_constants), given="headroom" in
               memo.inputs.constraints)
