"""The layout search: the cheapest way to lay a training run out on its GPUs so that it fits.

Per GPU, a run holds its share of the model states (ZeRO, ``kb/memory-model.ttl``:
weights, gradients, fp32 master weights and optimizer states, divided by the tensor and
pipeline parallel degrees and, by stage, by the data-parallel degree) and the activations of
its micro-batch (Korthikanti et al.: from the model's shape, the sequence length, the
micro-batch, the tensor-parallel degree and the recomputation). The search tries ZeRO stages
0–3, tensor-parallel degrees 1–8 (within a node, dividing the heads), pipeline degrees that
divide the GPUs, and recomputation none / selective / full, each fixed when the query gives
it, and keeps the cheapest layout whose high estimate fits in the low end of the GPU memory.
A method whose trainers run only some layouts (``rkg:parallelLayout`` in ``kb/methods.ttl``:
LoRA and QLoRA a copy on each GPU or FSDP) gets only those: no tensor or pipeline parallelism,
and at stage 3 the frozen base and the adapters sharded::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> found = search_layout(ledger, inputs, inputs.params)
    >>> found["fits"], found["layout"]["zero"], found["layout"]["recompute"]
    (True, 1, 'none')
    >>> found["text"]
    'fits with ZeRO stage 1 over 8 data-parallel GPUs, no recomputation: 48.7–50.2 GB of the 80 GB per GPU at one sequence per GPU (up to 4 fit: micro-batch = 4)'
    >>> parts = ledger.entry("memory_per_gpu")["per_gpu_parts"]
    >>> [(p["name"], show(Q.point(p["value"]), "bytes")) for p in parts]  # doctest: +NORMALIZE_WHITESPACE
    [('weights', '14 GB'), ('gradients', '14 GB'), ('master_weights', '3.5 GB'),
     ('optimizer_states', '7 GB'), ('activations', '9.71 GB'), ('headroom', '1.25 GB')]

"Cheapest" is our ordering, from the costs the papers give: full recomputation (a third more
compute) is avoided first, then model parallelism (communication in every layer), then ZeRO's
traffic (stages 0-2 move what plain data parallelism moves, stage 3 1.5 times it: the KB's
``c_zero_communication_*``), then selective recomputation (a few percent of compute, Korthikanti
et al.). Among stages of equal traffic over more than one data-parallel GPU, stage 1 (the KB's
``c_zero_first_stage``, as Pythia's and BLOOM's runs) comes first, then 2, then 0.
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.plan.figures import qjson, show
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger
from recipekg.plan.evaluator import ZERO, Evaluator
from recipekg.plan.methods import Method, read_method
from recipekg.plan.shape import Shape, model_shape, optimizer_state_bytes, whole_number

TENSOR_PARALLEL = (1, 2, 4, 8)
MORE_GPUS_LIMIT = 1 << 17


def search_layout(ledger: Ledger, inputs: Inputs, params: Q, method: Method | None = None) -> dict | None:
    """``{"fits", "layout", "text", ...}`` for the plan's GPUs (None without a GPU memory;
    ``{"impossible": why}`` when the degrees the query gives split no layout of its GPUs);
    records the model states, activations and memory per GPU of the layout found."""
    cap = inputs.gpu_memory
    method = method or read_method(ledger, inputs)
    if cap is None and method.state_formula is None:
        return None
    gpus = int(round(inputs.gpus.value)) if inputs.gpus else 1
    shape = ledger.shape = model_shape(ledger, inputs, params)
    states, state_constants = optimizer_state_bytes(ledger, inputs)
    memo = _Evaluator(ledger, params, shape, states, method, inputs)
    if cap is None:             # no memory to fit in: the method's memory on the plan's GPUs, leanest
        best = lean_best(memo, inputs, gpus)
        if best is not None:
            from recipekg.plan.method_record import record_method
            record_method(ledger, memo, best, inputs)
        return None
    if not any(True for _ in _candidates(inputs, gpus, shape, method)):
        given = ", ".join(f"{k.replace('_', '-')} = {v}" for k, v in shape.given.items())
        why = f"no layout of {gpus:,} GPUs has {given}: the degrees must divide the GPUs (and tensor parallelism the heads)"
        ledger.note(f"{why}; no layout was checked", warn=True)
        return {"impossible": why}
    _note_unlisted(ledger, shape.given, method)
    best = first_fit(memo, inputs, gpus, cap)
    fits = best is not None
    if best is None:
        best = lean_best(memo, inputs, gpus)
    if method.state_formula is None:
        from recipekg.plan.layout_record import record_zero
        record_zero(ledger, memo, best, params, states, state_constants)
    else:
        from recipekg.plan.method_record import record_method
        record_method(ledger, memo, best, inputs)
    if fits and "zero" not in shape.given:  # the search's choice, not the user's
        _note_sharding(ledger, memo, best, cap)
    room = micro_batch_room(best, cap, inputs) if fits else None
    out = {"fits": fits, "layout": _layout_json(best, shape, method, room), "memory_per_gpu": qjson(best["per_gpu"]),
           "capacity": qjson(cap), "text": _text(best, fits, cap, room)}
    if not memo.inference:
        out["bounding_stage"] = best["stage"]["bound"]
    if best["pp"] > 1 and not memo.inference:
        out["stages"] = stages_json(best, ledger.kb.q("c_last_stage_microbatches"))
    if not memo.inference:
        from recipekg.plan.placements import placements
        out["placements"] = placements(memo, gpus, cap)
    if not fits:
        need = _gpus_needed(memo, inputs, gpus, cap)
        out["gpus_needed"] = need
        out["text"] += (f"; it would fit on {need:,} GPUs" if need else
                        f"; not even {MORE_GPUS_LIMIT:,} GPUs would hold it")
    return out


def _candidates(inputs: Inputs, gpus: int, shape: Shape, method: Method):
    """Every layout the query allows: (zero, tp, pp, recompute)."""
    given = shape.given
    tps = [given["tensor_parallel"]] if "tensor_parallel" in given else \
        [t for t in TENSOR_PARALLEL if gpus % t == 0 and shape.heads_divisible_by(t) and (t == 1 or method.allows("tp"))]
    for tp in tps:
        pps = [given["pipeline_parallel"]] if "pipeline_parallel" in given else \
            pipeline_degrees(gpus // tp, max(1, int(shape.layers.value))) if method.allows("pp") else [1]
        for pp in pps:
            if gpus % (tp * pp) or not shape.heads_divisible_by(tp):
                continue
            for zero in [given["zero"]] if _zero_given(given, method) else method.zero_stages:
                for rec in [given["recompute"]] if "recompute" in given and method.id != "inference" \
                        else method.recompute_modes:
                    yield (zero, tp, pp, rec)


_DIVISORS: dict = {}


def divisors(n: int, most: int) -> list[int]:
    """The divisors of ``n`` up to ``most``, ascending, found by trial division up to the square
    root of ``n`` (a bounded count of steps: 10,000 for 10^8 GPUs), never a loop over every GPU.

    >>> divisors(1_000_000, 32), divisors(12, 100)
    ([1, 2, 4, 5, 8, 10, 16, 20, 25, 32], [1, 2, 3, 4, 6, 12])
    """
    if (n, most) in _DIVISORS:
        return _DIVISORS[(n, most)]
    small, large, d = [], [], 1
    while d * d <= n:
        if n % d == 0:
            small.append(d)
            if d * d != n:
                large.append(n // d)
        d += 1
    found = [x for x in small + large[::-1] if x <= most]
    if len(_DIVISORS) < 4096:     # a bounded memo: the capacity search asks for the same ones again and again
        _DIVISORS[(n, most)] = found
    return found


def pipeline_degrees(n: int, layers: int) -> list[int]:
    """The pipeline degrees the search tries on ``n`` GPUs (per tensor-parallel group): the
    divisors of ``n`` up to the layers, the eight smallest and then each at least twice the one
    before, and the largest. Their count grows with the logarithm of the layers, not with the
    GPUs: the search costs the same on 8 GPUs and on 8 million.

    >>> pipeline_degrees(8, 32), pipeline_degrees(1_000_000, 126)
    ([1, 2, 4, 8], [1, 2, 4, 5, 8, 10, 16, 20, 40, 80, 125])
    """
    kept: list[int] = []
    found = divisors(n, layers)
    for d in found:
        if len(kept) < 8 or d >= 2 * kept[-1]:
            kept.append(d)
    if found and kept[-1] != found[-1]:
        kept.append(found[-1])
    return kept


def _note_unlisted(ledger: Ledger, given: dict, method: Method) -> None:
    """Say so when the query fixes a tensor or pipeline degree the method's trainers do not run
    (the KB's ``rkg:parallelLayout``); the layout is sized as asked."""
    for key, what in (("tensor_parallel", "tp"), ("pipeline_parallel", "pp")):
        if given.get(key, 1) > 1 and not method.allows(what):
            ledger.note(f"{key.replace('_', '-')} = {given[key]}: the KB lists no {key.replace('_', ' ')}ism for "
                        f"method = {method.id}'s trainers (they run {', '.join(method.layouts)}); sized as asked",
                        warn=True)


def _zero_given(given: dict, method: Method) -> bool:
    """Whether the query's ZeRO stage holds for the method: any for a method training every
    weight, one of its own stages for the others (FSDP's 3 for an adapter method that has it)."""
    return "zero" in given and (method.trains_all or given["zero"] in method.zero_stages)


def _cost(c: tuple) -> tuple:
    zero, tp, pp, rec = c
    return (rec == "full", tp * pp, zero, rec == "selective", pp)


def _note_sharding(ledger: Ledger, memo: "_Evaluator", best: dict, cap: Q) -> None:
    """Say why a layout that fits shards the optimizer states (stages 1 and 2): at no traffic."""
    if best["zero"] not in (1, 2) or best["dp"] <= 1:
        return
    first = int(ledger.kb.q("c_zero_first_stage").value)
    what = "the optimizer states" + (" and the gradients" if best["zero"] == 2 else "")
    if best["zero"] != first:
        why = f"as stage {first} does not fit"
    elif memo.layout((0, best["tp"], best["pp"], best["recompute"]), best["tp"] * best["pp"] * best["dp"])["per_gpu"].high <= cap.low:
        why = "as published runs do where a full copy per GPU would fit"
    else:
        why = "as a full copy per GPU does not fit"
    ledger.note(f"ZeRO stage {best['zero']} shards {what} over the {best['dp']:,} data-parallel GPUs at the "
                f"communication of plain data parallelism (a reduce-scatter of the gradients and an all-gather "
                f"of the updated weights), {why}",
                ledger.kb.constant("c_zero_communication_sharded_states"), ledger.kb.constant("c_zero_first_stage"))


def _first_fit_order(kb, gpus: int):
    """The order in which :func:`first_fit` tries layouts: :func:`_cost`'s, but ZeRO's stages
    weighed by their communication (the KB's ``c_zero_communication_*``: stages 1 and 2 move what
    plain data parallelism moves, stage 3 1.5 times it) and, among stages of equal traffic over
    more than one data-parallel GPU, the KB's ``c_zero_first_stage`` first (stage 1: the
    optimizer states sharded, as published runs do), then those sharding more, then less."""
    sharded = kb.q("c_zero_communication_sharded_states").value
    comm = {0: 1.0, 1: sharded, 2: sharded, 3: kb.q("c_zero_communication_sharded_weights").value}
    first = int(kb.q("c_zero_first_stage").value)

    def key(c: tuple) -> tuple:
        zero, tp, pp, rec = c
        rank = (zero < first, abs(zero - first)) if gpus // (tp * pp) > 1 else (False, zero)
        return (rec == "full", tp * pp, comm[zero], rank, rec == "selective", pp)
    return key


def _leanest(c: tuple, given: dict, method: Method) -> list[tuple]:
    """The layouts with ``c``'s parallel degrees among which is the one that needs the least
    memory the query allows: the highest ZeRO stage, with full and with selective recomputation
    (full recomputation's rebuilt layer, with the attention scores stored, can outweigh what
    selective recomputation keeps)."""
    _, tp, pp, _ = c
    zero = given["zero"] if _zero_given(given, method) else method.zero_stages[-1]
    recs = [given["recompute"]] if "recompute" in given and method.id != "inference" else method.recompute_modes[-2:]
    return [(zero, tp, pp, rec) for rec in recs]


def first_fit(memo: "_Evaluator", inputs: Inputs, gpus: int, cap: Q) -> dict | None:
    """The cheapest layout that fits: each group of parallel degrees is skipped when even its
    leanest layout does not fit (memory only falls with the ZeRO stage and recomputation)."""
    hopeless: set = set()
    shape, method = memo.shape, memo.method
    for c in sorted(_candidates(inputs, gpus, shape, method), key=_first_fit_order(memo.ledger.kb, gpus)):
        group = (c[1], c[2])
        if group in hopeless:
            continue
        if all(memo.layout(lean, gpus)["per_gpu"].high > cap.low for lean in _leanest(c, shape.given, method)):
            hopeless.add(group)
            continue
        layout = memo.layout(c, gpus)
        if layout["per_gpu"].high <= cap.low:
            return layout
    return None


def lean_best(memo: "_Evaluator", inputs: Inputs, gpus: int) -> dict | None:
    """The layout needing the least memory (the cheapest among equals); None when no layout
    of ``gpus`` GPUs has the query's degrees."""
    shape, method = memo.shape, memo.method
    groups = {(c[1], c[2]): c for c in sorted(_candidates(inputs, gpus, shape, method), key=_cost, reverse=True)}
    by_tp: dict = {}
    for tp, pp in groups:
        by_tp.setdefault(tp, []).append(pp)
    # The pipeline degree only divides the memory per GPU (and, above 1, moves the output layer to
    # the last stage): per tensor-parallel degree the leanest layout is at its largest pipeline
    # degree, or at the smallest two when the memory does not depend on it. Three per degree:
    # the search costs the same however many GPUs there are.
    keep = {(tp, pp) for tp, pps in by_tp.items() for pp in sorted(pps)[:2] + [max(pps)]}
    leanest = {lean for g, c in groups.items() if g in keep for lean in _leanest(c, shape.given, method)}
    if not leanest:
        return None
    return min((memo.layout(c, gpus) for c in sorted(leanest, key=_cost)), key=lambda l: l["per_gpu"].value)


def _gpus_needed(memo: "_Evaluator", inputs: Inputs, gpus: int, cap: Q) -> int | None:
    """The fewest GPUs (doubling from the plan's) on which the leanest layout fits."""
    n = gpus * 2
    while n <= MORE_GPUS_LIMIT:
        best = lean_best(memo, inputs, n)
        if best is not None and best["per_gpu"].high <= cap.low:
            return n
        n *= 2
    return None


_Evaluator = Evaluator


def micro_batch_room(best: dict, cap: Q, inputs: Inputs) -> int | None:
    """The most sequences per GPU the layout ``best`` (found at one sequence per GPU) holds in
    ``cap``: its activations (the worst pipeline stage's layers, logits and rebuilt layer) grow
    in proportion to the micro-batch, as every activation formula of the KB does, and its model
    states, buffers and headroom do not; with batch-size given, at most a data-parallel copy's
    share of it. None at inference, when the query gives the micro-batch, or when one is all
    that fits: a trainer's configuration then runs the global batch in fewer accumulation steps.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 125M and hardware = a100 and gpus = 8")[0], snap)
    >>> found = search_layout(ledger, inputs, inputs.params)
    >>> found["layout"]["micro_batch"], found["layout"]["micro_batch_room"]
    (1, 107)
    """
    if best["method"] == "inference" or whole_number(inputs, "micro-batch") is not None:
        return None
    per_sequence = best["stage"]["worst"].high
    if not per_sequence > 0:
        return None
    fixed = best["states"] + best["buffers"] + best["headroom"]
    room = int((cap.low - fixed.high) // per_sequence)
    batch = whole_number(inputs, "batch-size")
    if batch:
        room = min(room, max(1, batch // best["dp"]))
    return room if room > 1 else None


def _layout_json(best: dict, shape: Shape, method: Method, room: int | None = None) -> dict:
    out = {"zero": best["zero"], "tensor_parallel": best["tp"], "pipeline_parallel": best["pp"],
           "data_parallel": best["dp"], "recompute": best["recompute"],
           "micro_batch": int(round(shape.micro_batch.value)), "offload": "cpu" if method.offload else "none"}
    if room is not None:
        out["micro_batch_room"] = room
    return out


def stages_json(best: dict, last_in_flight: Q) -> list[dict]:
    """The first and the last pipeline stage: their activations and memory per GPU (the model
    states, buffers and headroom are every stage's alike)."""
    stage, rest = best["stage"], best["states"] + best["buffers"] + best["headroom"]
    return [{"stage": name, "microbatches_in_flight": n, "activations": qjson(stage[name]),
             "memory_per_gpu": qjson(rest + stage[name])}
            for name, n in (("first", best["pp"]), ("last", int(round(last_in_flight.value))))]


def stage_text(best: dict) -> str:
    """Which pipeline stage bounds the memory, with both stages' figures ('' without a pipeline).

    >>> b = {"pp": 2, "states": Q.point(1e10), "buffers": Q.point(0), "headroom": Q.point(0),
    ...      "stage": {"bound": "last", "first": Q.point(2e10), "last": Q.point(5e10)}}
    >>> stage_text(b)
    'the last pipeline stage bounds it, with the output layer and its logits (first stage 30 GB, last stage 60 GB)'
    """
    stage = best.get("stage")
    if best["pp"] <= 1 or not stage or stage["bound"] == "only":
        return ""
    rest = best["states"] + best["buffers"] + best["headroom"]
    why = "the output layer and its logits" if stage["bound"] == "last" else f"{best['pp']} micro-batches in flight"
    return (f"the {stage['bound']} pipeline stage bounds it, with {why} (first stage "
            f"{show(rest + stage['first'], 'bytes')}, last stage {show(rest + stage['last'], 'bytes')})")


def describe(layout: dict) -> str:
    """A layout in words.

    >>> describe({"zero": 3, "tp": 8, "pp": 1, "dp": 256, "recompute": "selective"})
    'ZeRO stage 3 over 256 data-parallel groups, tensor parallel 8, selective recomputation'
    >>> describe({"zero": 3, "tp": 1, "pp": 1, "dp": 2, "recompute": "full", "method": "qlora"})
    'FSDP (the 4-bit base and adapters sharded) over 2 data-parallel GPUs, full recomputation'
    >>> describe({"zero": 3, "tp": 1, "pp": 1, "dp": 2, "recompute": "full", "method": "qlora", "offload": True})
    'FSDP (the 4-bit base and adapters sharded) over 2 data-parallel GPUs, the sharded weights offloaded to CPU memory, full recomputation'
    """
    unit = 'groups' if layout['tp'] * layout['pp'] > 1 else 'GPUs'
    method = layout.get("method", "pretrain")
    if layout["dp"] <= 1:
        parts = ["no data parallelism"]
    elif method in ("pretrain", "full-fine-tune"):
        parts = [f"ZeRO stage {layout['zero']} over {layout['dp']:,} data-parallel {unit}"]
    elif layout["zero"] == 3 and method != "inference":
        base = "4-bit base" if method == "qlora" else "frozen base"
        parts = [f"FSDP (the {base} and adapters sharded) over {layout['dp']:,} data-parallel {unit}"]
    else:
        parts = [f"a copy of the {'weights' if method == 'inference' else 'frozen base'} on each of "
                 f"{layout['dp']:,} data-parallel {unit}"]
    if layout.get("offload"):
        parts.append("optimizer offloaded to the CPU" if method in ("pretrain", "full-fine-tune") else
                     "the sharded weights offloaded to CPU memory")
    if layout["tp"] > 1:
        parts.append(f"tensor parallel {layout['tp']}")
    if layout["pp"] > 1:
        parts.append(f"pipeline parallel {layout['pp']}")
    if method != "inference":
        parts.append({"none": "no recomputation", "selective": "selective recomputation",
                      "full": "full recomputation"}[layout["recompute"]])
    return ", ".join(parts)


def _text(best: dict, fits: bool, cap: Q, room: int | None = None) -> str:
    need = show(best["per_gpu"], "bytes")
    stages = stage_text(best) if best["method"] != "inference" else ""
    stages = f"; {stages}" if stages else ""
    if fits:
        more = f" at one sequence per GPU (up to {room:,} fit: micro-batch = {room:,})" if room else ""
        return f"fits with {describe(best)}: {need} of the {show(cap, 'bytes')} per GPU{more}{stages}"
    return (f"does not fit: even the leanest layout ({describe(best)}) needs {need} of the {show(cap, 'bytes')} "
            f"per GPU{stages}")
