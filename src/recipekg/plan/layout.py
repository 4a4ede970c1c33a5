"""The layout search: the cheapest way to lay a training run out on its GPUs so that it fits.

Per GPU, a run holds its share of the model states (ZeRO, ``kb/memory-model.ttl``:
weights, gradients, fp32 master weights and optimizer states, divided by the tensor and
pipeline parallel degrees and, by stage, by the data-parallel degree) and the activations of
its micro-batch (Korthikanti et al.: from the model's shape, the sequence length, the
micro-batch, the tensor-parallel degree and the recomputation). The search tries ZeRO stages
0–3, tensor-parallel degrees 1–8 (within a node, dividing the heads), pipeline degrees that
divide the GPUs, and recomputation none / selective / full, each fixed when the query gives
it, and keeps the cheapest layout whose high estimate fits in the low end of the GPU memory::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> found = search_layout(ledger, inputs, inputs.params)
    >>> found["fits"], found["layout"]["zero"], found["layout"]["recompute"]
    (True, 1, 'none')
    >>> found["text"]
    'fits with ZeRO stage 1 over 8 data-parallel GPUs, no recomputation: 71 GB of the 80 GB per GPU'
    >>> parts = ledger.entry("memory_per_gpu")["per_gpu_parts"]
    >>> [(p["name"], show(Q.point(p["value"]), "bytes")) for p in parts]  # doctest: +NORMALIZE_WHITESPACE
    [('weights', '14 GB'), ('gradients', '14 GB'), ('master_weights', '3.5 GB'),
     ('optimizer_states', '7 GB'), ('activations', '32.5 GB')]

"Cheapest" is our ordering, from the costs the papers give: full recomputation (a third more
compute) is avoided first, then model parallelism (communication in every layer), then higher
ZeRO stages (stage 3 moves 1.5× the data of plain data parallelism), then selective
recomputation (a few percent of compute, Korthikanti et al.).
"""

from __future__ import annotations

from recipekg.plan.expr import Q
from recipekg.plan.figures import qjson, show
from recipekg.plan.inputs import Inputs
from recipekg.plan.kbview import const_q
from recipekg.plan.ledger import Ledger
from recipekg.plan.shape import Shape, model_shape, optimizer_state_bytes

ZERO = {0: "model-states-zero-0", 1: "model-states-zero-1", 2: "model-states-zero-2", 3: "model-states-zero-3"}
RECOMPUTE = {"none": "activations-no-recompute", "selective": "activations-selective-recompute",
             "full": "activations-full-recompute"}
TENSOR_PARALLEL = (1, 2, 4, 8)
MORE_GPUS_LIMIT = 1 << 17


def search_layout(ledger: Ledger, inputs: Inputs, params: Q) -> dict | None:
    """``{"fits", "layout", "text", ...}`` for the plan's GPUs (None without a GPU memory);
    records the model states, activations and memory per GPU of the layout found."""
    cap = inputs.gpu_memory
    if cap is None:
        return None
    gpus = int(round(inputs.gpus.value)) if inputs.gpus else 1
    shape = model_shape(ledger, inputs, params)
    states, state_constants = optimizer_state_bytes(ledger, inputs)
    memo = _Evaluator(ledger, params, shape, states)
    if not any(True for _ in _candidates(inputs, gpus, shape)):
        given = ", ".join(f"{k.replace('_', '-')} = {v}" for k, v in shape.given.items())
        ledger.note(f"no layout of {gpus:,} GPUs has {given}: the degrees must divide the GPUs "
                    f"(and tensor parallelism the heads); no layout was checked", warn=True)
        return None
    best = _first_fit(memo, inputs, gpus, shape, cap)
    fits = best is not None
    if best is None:
        best = _lean_best(memo, inputs, gpus, shape)
    _record(ledger, memo, best, params, states, state_constants)
    out = {"fits": fits, "layout": _layout_json(best, shape), "memory_per_gpu": qjson(best["per_gpu"]),
           "capacity": qjson(cap), "text": _text(best, fits, cap)}
    if not fits:
        need = _gpus_needed(memo, inputs, gpus, shape, cap)
        out["gpus_needed"] = need
        out["text"] += (f"; it would fit on {need:,} GPUs" if need else
                        f"; not even {MORE_GPUS_LIMIT:,} GPUs would hold it")
    return out


def _candidates(inputs: Inputs, gpus: int, shape: Shape):
    """Every layout the query allows: (zero, tp, pp, recompute)."""
    given = shape.given
    tps = [given["tensor_parallel"]] if "tensor_parallel" in given else \
        [t for t in TENSOR_PARALLEL if gpus % t == 0 and shape.heads_divisible_by(t)]
    for tp in tps:
        pps = [given["pipeline_parallel"]] if "pipeline_parallel" in given else \
            [p for p in range(1, gpus // tp + 1) if (gpus // tp) % p == 0 and p <= max(1.0, shape.layers.value)]
        for pp in pps:
            if gpus % (tp * pp) or not shape.heads_divisible_by(tp):
                continue
            for zero in [given["zero"]] if "zero" in given else ZERO:
                for rec in [given["recompute"]] if "recompute" in given else RECOMPUTE:
                    yield (zero, tp, pp, rec)


def _cost(c: tuple) -> tuple:
    zero, tp, pp, rec = c
    return (rec == "full", tp * pp, zero, rec == "selective", pp)


def _leanest(c: tuple, given: dict) -> tuple:
    """The layout with ``c``'s parallel degrees that needs the least memory the query allows."""
    _, tp, pp, _ = c
    return (given.get("zero", 3), tp, pp, given.get("recompute", "full"))


def _first_fit(memo: "_Evaluator", inputs: Inputs, gpus: int, shape: Shape, cap: Q) -> dict | None:
    """The cheapest layout that fits: each group of parallel degrees is skipped when even its
    leanest layout does not fit (memory only falls with the ZeRO stage and recomputation)."""
    hopeless: set = set()
    for c in sorted(_candidates(inputs, gpus, shape), key=_cost):
        group = (c[1], c[2])
        if group in hopeless:
            continue
        if memo.layout(_leanest(c, shape.given), gpus)["per_gpu"].high > cap.low:
            hopeless.add(group)
            continue
        layout = memo.layout(c, gpus)
        if layout["per_gpu"].high <= cap.low:
            return layout
    return None


def _lean_best(memo: "_Evaluator", inputs: Inputs, gpus: int, shape: Shape) -> dict:
    """The layout needing the least memory (the cheapest among equals)."""
    groups = {(c[1], c[2]): c for c in sorted(_candidates(inputs, gpus, shape), key=_cost, reverse=True)}
    leanest = {_leanest(c, shape.given) for c in groups.values()}
    return min((memo.layout(c, gpus) for c in sorted(leanest, key=_cost)), key=lambda l: l["per_gpu"].value)


def _gpus_needed(memo: "_Evaluator", inputs: Inputs, gpus: int, shape: Shape, cap: Q) -> int | None:
    """The fewest GPUs (doubling from the plan's) on which the leanest layout fits."""
    n = gpus * 2
    while n <= MORE_GPUS_LIMIT:
        if _lean_best(memo, inputs, n, shape)["per_gpu"].high <= cap.low:
            return n
        n *= 2
    return None


class _Evaluator:
    """The KB's formulas evaluated once per distinct input (the search asks many times)."""

    def __init__(self, ledger: Ledger, params: Q, shape: Shape, states: Q) -> None:
        self.ledger, self.params, self.shape, self.states = ledger, params, shape, states
        self.seen: dict = {}

    def formula(self, fid: str):
        return self.ledger.kb.by_id(fid)

    def states_per_gpu(self, zero: int, tp: int, pp: int, dp: int) -> Q:
        key = ("states", zero, tp, pp, dp)
        if key not in self.seen:
            self.seen[key], _ = self.ledger.compute(self.formula(ZERO[zero]), self.states_env(tp, pp, dp))
        return self.seen[key]

    def activations_per_gpu(self, rec: str, tp: int) -> Q:
        key = ("activations", rec, tp)
        if key not in self.seen:
            self.seen[key], _ = self.ledger.compute(self.formula(RECOMPUTE[rec]), self.activation_env(tp))
        return self.seen[key]

    def states_env(self, tp: int, pp: int, dp: int) -> dict:
        return {"params": self.params, "optimizer_state_bytes_per_param": self.states,
                "tensor_parallel": Q.point(tp), "pipeline_parallel": Q.point(pp), "data_parallel": Q.point(dp)}

    def activation_env(self, tp: int) -> dict:
        s = self.shape
        return {"seq_length": s.seq_length, "micro_batch": s.micro_batch, "hidden": s.hidden, "layers": s.layers,
                "heads": s.heads, "tensor_parallel": Q.point(tp)}

    def layout(self, c: tuple, gpus: int | None = None) -> dict:
        zero, tp, pp, rec = c
        gpus = gpus or tp * pp
        dp = max(1, gpus // (tp * pp))
        states, acts = self.states_per_gpu(zero, tp, pp, dp), self.activations_per_gpu(rec, tp)
        return {"zero": zero, "tp": tp, "pp": pp, "dp": dp, "recompute": rec, "states": states,
                "activations": acts, "per_gpu": states + acts}


def _record(ledger: Ledger, memo: _Evaluator, best: dict, params: Q, states: Q, state_constants: list) -> None:
    """The quantities of the layout found, each with its formula and sources."""
    kb = ledger.kb
    parts = (("weights", "c_weight_bytes_per_param_bf16"), ("gradients", "c_gradient_bytes_per_param_bf16"),
             ("master_weights", "c_master_weight_bytes_per_param"))
    total = Q.point(0)
    for name, sym in parts:
        per = const_q(kb.constant(sym))
        total = total + per * params
        ledger.add(name, per * params, "bytes", constants=[kb.constant(sym)], label=f"{name.replace('_', ' ')} (whole model)",
                   derivation=f"{show(per, 'bytes/param')} × {show(params, 'parameters')} = {show(per * params, 'bytes')}")
    ledger.add("optimizer_states", states * params, "bytes", label="optimizer states (whole model)",
               derivation=f"{show(states, 'bytes/param')} × {show(params, 'parameters')} = {show(states * params, 'bytes')}",
               constants=state_constants)
    ledger.add("model_states", total + states * params, "bytes", label="model states (whole model)",
               derivation="weights + gradients + fp32 master weights + optimizer states")
    f = memo.formula(ZERO[best["zero"]])
    q, env = ledger.compute(f, memo.states_env(best["tp"], best["pp"], best["dp"]))
    ledger.add("model_states_per_gpu", q, "bytes", formula=f, env=env)
    f = memo.formula(RECOMPUTE[best["recompute"]])
    q, env = ledger.compute(f, memo.activation_env(best["tp"]))
    ledger.add("activations", q, "bytes", formula=f, env=env, label="activations per GPU")
    f = kb.formula("memory_per_gpu", "model_states_per_gpu", "activations_per_gpu")
    q, env = ledger.compute(f, {"model_states_per_gpu": best["states"], "activations_per_gpu": best["activations"]})
    ledger.add("memory_per_gpu", q, "bytes", formula=f, env=env, per_gpu_parts=parts_per_gpu(ledger, memo, best))


# The terms of the ZeRO formulas (kb/memory-model.ttl), each a number of bytes per parameter
STATE_TERMS = {"weights": "c_weight_bytes_per_param_bf16", "gradients": "c_gradient_bytes_per_param_bf16",
               "master_weights": "c_master_weight_bytes_per_param",
               "optimizer_states": "optimizer_state_bytes_per_param"}


def parts_per_gpu(ledger: Ledger, memo: "_Evaluator", best: dict) -> list[dict]:
    """The memory per GPU of a layout in its parts: each model state is the layout's ZeRO
    formula evaluated with the other states' bytes per parameter at 0 (the formulas are sums
    of these terms, each divided by its sharding), then the activations. They add up to the
    memory per GPU; each names the KB formula it comes from."""
    f = memo.formula(ZERO[best["zero"]])
    env = memo.states_env(best["tp"], best["pp"], best["dp"])
    out = []
    for name, sym in STATE_TERMS.items():
        alone = {other: Q.point(0) for other in STATE_TERMS.values() if other != sym}
        q, _ = ledger.compute(f, env, alone)
        out.append({"name": name, "label": name.replace("_", " "), **qjson(q), "unit": "bytes", "formula": f.id})
    out.append({"name": "activations", "label": "activations", **qjson(best["activations"]), "unit": "bytes",
                "formula": RECOMPUTE[best["recompute"]]})
    return out


def _layout_json(best: dict, shape: Shape) -> dict:
    return {"zero": best["zero"], "tensor_parallel": best["tp"], "pipeline_parallel": best["pp"],
            "data_parallel": best["dp"], "recompute": best["recompute"],
            "micro_batch": int(round(shape.micro_batch.value)), "offload": "none"}


def describe(layout: dict) -> str:
    """A layout in words.

    >>> describe({"zero": 3, "tp": 8, "pp": 1, "dp": 256, "recompute": "selective"})
    'ZeRO stage 3 over 256 data-parallel groups, tensor parallel 8, selective recomputation'
    """
    parts = [f"ZeRO stage {layout['zero']} over {layout['dp']:,} data-parallel "
             f"{'groups' if layout['tp'] * layout['pp'] > 1 else 'GPUs'}" if layout["dp"] > 1
             else "no data parallelism"]
    if layout["tp"] > 1:
        parts.append(f"tensor parallel {layout['tp']}")
    if layout["pp"] > 1:
        parts.append(f"pipeline parallel {layout['pp']}")
    parts.append({"none": "no recomputation", "selective": "selective recomputation",
                  "full": "full recomputation"}[layout["recompute"]])
    return ", ".join(parts)


def _text(best: dict, fits: bool, cap: Q) -> str:
    need = show(best["per_gpu"], "bytes")
    if fits:
        return f"fits with {describe(best)}: {need} of the {show(cap, 'bytes')} per GPU"
    return f"does not fit: even the leanest layout ({describe(best)}) needs {need} of the {show(cap, 'bytes')} per GPU"
