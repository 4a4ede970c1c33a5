"""The two placements the fit section sets beside the verdict — a whole training copy on each
GPU (ZeRO stage 0, plain data parallelism) and every state sharded over the GPUs (ZeRO stage
3, FSDP) — each without tensor or pipeline parallelism, counted by the same memory model the
verdict's layout search counts with (``kb/memory-model.ttl``): the model states' share, the
activations of each GPU's micro-batch from the model's shape, the gathered layer and the
headroom, at the least recomputation that fits (else at the leanest). A placement therefore
never contradicts the verdict: the search tries these layouts too, and keeps the cheapest that
fits::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.layout import search_layout
    >>> ledger = Ledger(KBView(snap))
    >>> q = "plan where model = gpt-3-175b and hardware = v100 and gpus = 1024"
    >>> inputs = read_inputs(parse(q)[0], snap)
    >>> found = search_layout(ledger, inputs, inputs.params)
    >>> found["text"]
    'fits with ZeRO stage 3 over 256 data-parallel groups, tensor parallel 4, no recomputation: 24.4–25.9 GB of the 32 GB per GPU'
    >>> p = found["placements"]
    >>> p["sharded"]["recompute"], show(p["sharded"]["per_gpu"], "bytes")      # FSDP alone needs recomputation
    ('full', '11.3–12.8 GB')
    >>> p["replicated"]["recompute"], show(p["replicated"]["per_gpu"], "bytes")  # a whole copy never fits 32 GB
    ('full', '2.81 TB')

The reference's rule of thumb (18-20 bytes per parameter, 4-8 of them activations on every GPU
whatever the model's shape) stays in the answer as the ``memory`` and ``rule_of_thumb_per_gpu``
quantities and the fit's ``rule_of_thumb``; a placement quotes its figure, with no verdict of
its own.
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.plan.figures import qjson, show
from recipekg.plan.ledger import Ledger  # noqa: F401  (the doctest's)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only
    from collections.abc import Mapping
    from typing import Any

    from recipekg.contracts.plan import Placement

#: ZeRO stage of each placement
STAGES = {"replicated": 0, "sharded": 3}
#: the dimension of the KB's choice properties each placement answers (rkg:replicaFits: a whole
#: copy against one GPU's memory; rkg:shardedFits: the state sharded over every GPU's memory)
DIMENSIONS = {"replicated": "replica-memory", "sharded": "memory-load"}
_RECOMPUTE = {"none": "no recomputation", "selective": "selective recomputation", "full": "full recomputation"}


def placements(memo, gpus: int, cap: Q) -> dict | None:
    """``{"replicated", "sharded"}`` by the memory model (``sharded`` None on one GPU); None
    for a method that trains only some weights or offloads its states (the rule of thumb's
    placements then stay, labelled as the reference's)."""
    method = memo.method
    if not method.trains_all or method.offload or any(z not in method.zero_stages for z in STAGES.values()):
        return None
    return {"replicated": placement(memo, gpus, cap, STAGES["replicated"]),
            "sharded": placement(memo, gpus, cap, STAGES["sharded"]) if gpus >= 2 else None}


def placement(memo, gpus: int, cap: Q, zero: int) -> dict:
    """The layout at ZeRO stage ``zero`` over ``gpus`` data-parallel GPUs, no tensor or pipeline
    parallelism, with the least recomputation the query allows that fits, else the leanest."""
    given = memo.shape.given
    recs = [given["recompute"]] if "recompute" in given else list(memo.method.recompute_modes)
    layouts = [memo.layout((zero, 1, 1, rec), gpus) for rec in recs]        # none, selective, full
    fitting = [lay for lay in layouts if lay["per_gpu"].high <= cap.low]
    return fitting[0] if fitting else min(layouts, key=lambda lay: lay["per_gpu"].value)


def placement_json(name: str, layout: dict, cap: Q, device: str, gpus: Q, rule_of_thumb: Q | None,
                   verdict) -> Placement:
    """A placement of the answer's ``fit`` (``replicated`` or ``sharded``) from its layout:
    the verdict, the memory per GPU and a line saying both, with the rule of thumb's figure."""
    need = layout["per_gpu"]
    v = verdict(need, cap)
    rec = _RECOMPUTE[layout["recompute"]]
    how = rec if v["verdict"] == "fits" else f"at its leanest ({rec})"
    if name == "replicated":
        what = f"whole training state on each {device}, ZeRO stage 0 with no tensor or pipeline parallelism, {how}"
        thumb = "the reference's rule of thumb counts"
    else:
        what = (f"FSDP over {show(gpus)} GPUs (ZeRO stage 3: weights, gradients and optimizer states sharded, each "
                f"GPU's activations from the model's shape; no tensor or pipeline parallelism), {how}")
        thumb = "the reference's rule of thumb, which keeps its activations per parameter on every GPU, counts"
    text = (f"{what}: {show(need, 'bytes')} per GPU against {show(cap, 'bytes')} — {v['verdict']}"
            + (f"; {thumb} {show(rule_of_thumb, 'bytes')}" if rule_of_thumb is not None else ""))
    out: Placement = {"verdict": v["verdict"], "over": v["over"], "need_per_gpu": qjson(need),
                      "formula": "memory-per-gpu-detailed",
                      "layout": {"zero": layout["zero"], "tensor_parallel": 1, "pipeline_parallel": 1,
                                 "data_parallel": layout["dp"], "recompute": layout["recompute"]},
                      "text": text}
    if rule_of_thumb is not None:
        out["rule_of_thumb_need_per_gpu"] = qjson(rule_of_thumb)
    return out


def placement_facts(facts: dict, fit: Mapping[str, Any] | None, cap: Q | None) -> dict:
    """``facts`` with the memory shares the memory model's placements give in place of the
    rule of thumb's (derived ones only: a value the query gives stays), so that what the
    answer says of a choice's properties (data parallelism needs a whole copy to fit one GPU)
    agrees with its fit section::

        >>> from recipekg.plan.inputs import point_facts
        >>> fit = {"replicated": {"formula": "memory-per-gpu-detailed",
        ...                       "need_per_gpu": {"value": 72e9, "low": 71e9, "high": 73e9}}}
        >>> facts = {"replica-memory": point_facts("replica-memory", "ratio", Q.span(1.3, 1.5))}
        >>> placement_facts(facts, fit, Q.point(80e9))["replica-memory"].intervals
        [(0.8875, True, 0.9125, True)]
    """
    if not fit or cap is None:
        return facts
    out = dict(facts)
    for name, dim in DIMENSIONS.items():
        counted, given = fit.get(name) or {}, facts.get(dim)
        if counted.get("formula") != "memory-per-gpu-detailed" or given is None or given.derived is None:
            continue
        need = counted["need_per_gpu"]
        share = Q.span(need["low"] / cap.high, need["high"] / cap.low)
        out[dim] = type(given)(dim, given.kind, intervals=[(share.low, True, share.high, True)],
                               derived=f"the memory model's {name} placement")
    return out
