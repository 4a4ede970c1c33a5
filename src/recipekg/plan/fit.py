"""Fit: does the training state fit on ``gpu-memory`` × ``gpus`` (or the hardware's memory),
replicated on every GPU or sharded with FSDP; and the hardware's rules on model size.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.memory import training_memory
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> fit = check_fit(ledger, inputs, inputs.params, training_memory(ledger, inputs, inputs.params))
    >>> fit.json["replicated"]["verdict"], fit.json["sharded"]["verdict"], fit.json["rule_of_thumb"]["text"]
    ('does not fit', 'fits', 'fits with FSDP sharding over 8 GPUs')
    >>> fit.json["fits"], fit.json["layout"]["zero"]
    (True, 1)
    >>> show(fit.per_gpu, "bytes")
    '38.5–66.5 GB'
    >>> [r["id"] for r in feasibility(ledger.kb, inputs, inputs.params)]
    []

Verdicts compare whole ranges: ``fits`` when even the high end of the need is within the low
end of the memory, ``may fit`` when only the low end is, else ``does not fit``. The answer's
own verdict, ``fits`` and ``layout`` come from the layout search (:mod:`recipekg.plan.layout`)
over the detailed memory model, and so do the ``replicated`` and ``sharded`` placements beside
it (:mod:`recipekg.plan.placements`: a whole copy, or every state sharded, on every GPU at the
least recomputation that fits), so that neither contradicts it. The reference's rule of thumb
counts 4-8 bytes of activations per parameter on every GPU whatever the model's shape: its
figures stay in each placement (``rule_of_thumb_need_per_gpu``) and its own verdict in
``rule_of_thumb``; for a run of another layout (optimizer offload, adapters on a frozen base)
the placements are the rule of thumb's, labelled so.
"""

from __future__ import annotations

import math


from recipekg.formula.expr import Q
from recipekg.plan.figures import qjson, relative_change, rounded, show
from recipekg.plan.inputs import Inputs, point_facts
from recipekg.plan.kbview import KBFormula, KBView
from recipekg.plan.layout import search_layout
from recipekg.plan.ledger import Ledger
from recipekg.plan.memory import ACTIVATIONS, ADAM_STATES, GRADIENTS, WEIGHTS, Memory
from recipekg.plan.placements import placement_json
from recipekg.record import Record
from recipekg.reason.answers import reason_json
from recipekg.reason.scoring import evaluate_rule
from recipekg.render import numbers as units

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.plan import Fit as FitJson, HardwareRule

_RANK = {"fits": 0, "may fit": 1, "does not fit": 2}


class Fit(Record):
    """The answer's ``fit`` (``json``) and what the memory savings are weighed against: the
    memory per GPU, the GPUs, the FSDP formula and its memory per GPU (None on one GPU)."""

    json: FitJson
    capacity: Q
    gpus: Q
    fsdp: KBFormula | None
    per_gpu: Q | None

    @property
    def replicated_fits(self) -> bool:
        return self.json["replicated"]["verdict"] == "fits"


def verdict(need: Q, cap: Q) -> dict:
    """``fits`` (even the high end), ``may fit`` (only the low end) or ``does not fit``."""
    if need.high <= cap.low:
        return {"verdict": "fits", "over": None}
    if need.low <= cap.high:
        return {"verdict": "may fit", "over": {"low": 0.0, "high": rounded(need.high - cap.low)}}
    return {"verdict": "does not fit",
            "over": {"low": rounded(need.low - cap.high), "high": rounded(need.high - cap.low),
                     "factor_low": rounded(need.low / cap.high), "factor_high": rounded(need.high / cap.low)}}


def check_fit(ledger: Ledger, inputs: Inputs, params: Q, memory: Memory, method=None) -> Fit | None:
    """Whether the plan fits, replicated and (on 2+ GPUs) sharded; None without a memory size."""
    cap = inputs.gpu_memory
    if cap is None:
        ledger.note("no hardware or gpu-memory given: add hardware = h100 (or gpu-memory = 80GB) to check "
                    "whether it fits")
        return None
    kb, gpus = ledger.kb, inputs.gpus or Q.point(1)
    device = kb.label(inputs.hardware) if inputs.hardware else "GPU"
    replicated = verdict(memory.total, cap)
    if not math.isfinite((cap * gpus).high):
        ledger.out_of_scale(f"too large to plan with: {gpus.value:g} GPUs × {show(cap, 'bytes')} of memory")
    fit = {"hardware": kb.hardware_json(inputs.hardware), "gpus": rounded(gpus.value), "memory_per_gpu": qjson(cap),
           "memory_total": qjson(cap * gpus),
           "replicated": {**replicated, "need_per_gpu": qjson(memory.total),
                          "text": f"whole training state on each {device}: {show(memory.total, 'bytes')} against "
                                  f"{show(cap, 'bytes')} — {replicated['verdict']}"},
           "sharded": None}
    fsdp_f, per_gpu = kb.find("memory_per_gpu", "gpus"), None
    best = replicated
    if fsdp_f is not None and gpus.high >= 2:
        per_gpu, env = ledger.compute(fsdp_f, {"params": params, "gpus": gpus}, memory_overrides(kb, memory))
        ledger.add("rule_of_thumb_per_gpu", per_gpu, formula=fsdp_f, env=env,
                   label=f"training memory per GPU with FSDP over {show(gpus)} GPUs (the reference's rule of thumb)")
        sharded = verdict(per_gpu, cap)
        fit["sharded"] = {**sharded, "need_per_gpu": qjson(per_gpu), "formula": fsdp_f.id,
                          "text": f"FSDP over {show(gpus)} GPUs (weights, gradients and optimizer states "
                                  f"sharded, activations per GPU): {show(per_gpu, 'bytes')} per GPU against "
                                  f"{show(cap, 'bytes')} — {sharded['verdict']}"}
        if _RANK[sharded["verdict"]] < _RANK[replicated["verdict"]] or \
                sharded["verdict"] == replicated["verdict"] == "does not fit":
            best = sharded
    fit["verdict"] = best["verdict"]
    fit["fits"] = best["verdict"] == "fits"
    fit["text"] = _fit_text(best, "" if best is replicated else f" with FSDP sharding over {show(gpus)} GPUs", cap)
    _detailed(ledger, inputs, params, fit, method)
    if method is not None and not method.trains_all and "rule_of_thumb" not in fit:
        fit["text"] = (f"{fit['text']} (the reference's rule of thumb for training every weight: no layout of "
                       f"method = {method.id} was checked)")
    return Fit(fit, cap, gpus, fsdp_f, per_gpu)


def _detailed(ledger: Ledger, inputs: Inputs, params: Q, fit: dict, method=None) -> None:
    """The verdict of the layout search (plan/layout.py) replaces the rule of thumb's, which
    stays in ``rule_of_thumb`` (the reference's, for training every weight)."""
    found = search_layout(ledger, inputs, params, method)
    if found is None:
        return
    fit["rule_of_thumb"] = {"verdict": fit["verdict"], "text": fit["text"]}
    if "impossible" in found:  # the layout asked for cannot be: said first, the rule of thumb after it
        whose = (f" (for training every weight: no layout of method = {method.id} was checked)"
                 if method is not None and not method.trains_all else "")
        fit["text"] = f"{found['impossible']}, so no layout was checked; the reference's rule of thumb: {fit['text']}{whose}"
        return
    if method is not None:
        fit["method"] = method.id
        if not method.trains_all:
            fit["rule_of_thumb"]["text"] += f" (for training every weight, not method = {method.id})"
            for key in ("replicated", "sharded"):
                if fit.get(key):
                    fit[key]["text"] += f" (the reference's rule of thumb for training every weight, not {method.id})"
    fit.update(verdict="fits" if found["fits"] else "does not fit", fits=found["fits"], text=found["text"],
               layout=found["layout"] if found["fits"] else None, need_per_gpu=found["memory_per_gpu"])
    _placements(ledger, inputs, fit, found.get("placements"))
    for key in ("bounding_stage", "stages"):
        if key in found:
            fit[key] = found[key]
    if not found["fits"]:
        fit["leanest_layout"] = found["layout"]
        fit["gpus_needed"] = found.get("gpus_needed")


def _placements(ledger: Ledger, inputs: Inputs, fit: dict, found: dict | None) -> None:
    """The replicated and sharded placements counted by the memory model the verdict comes from
    (:mod:`recipekg.plan.placements`), so that neither contradicts it; the rule of thumb's
    figure for each stays beside it."""
    if not found:
        return
    kb, cap = ledger.kb, inputs.gpu_memory
    device = kb.label(inputs.hardware) if inputs.hardware else "GPU"
    thumbs = {"replicated": (fit["replicated"] or {}).get("need_per_gpu"),
              "sharded": (fit.get("sharded") or {}).get("need_per_gpu")}
    for name, layout in found.items():
        if layout is None:
            continue
        thumb = thumbs[name]
        fit[name] = placement_json(name, layout, cap, device, inputs.gpus or Q.point(1),
                                   Q.span(thumb["low"], thumb["high"], thumb["value"]) if thumb else None, verdict)


def _fit_text(best: dict, how: str, cap: Q) -> str:
    if best["verdict"] == "fits":
        return f"fits{how}"
    if best["verdict"] == "may fit":
        return f"may fit{how}: the high end of the estimate is over the {show(cap, 'bytes')} per GPU"
    over = best["over"]
    return (f"does not fit{', even' if how else ''}{how}: "
            f"{units.amount(over['low'], over['high'], 'bytes')} over the "
            f"{show(cap, 'bytes')} of each GPU ({over['factor_low']:.2g}–{over['factor_high']:.2g}× "
            f"its memory)")


def memory_overrides(kb: KBView, memory: Memory, checkpointing: bool = False,
                     quantized: bool = False) -> dict[str, Q]:
    """The FSDP formula's constants replaced for the plan's precision and optimizer, and for
    the memory-saving techniques applied."""
    out = {}
    for part, sym in (("weights", WEIGHTS), ("gradients", GRADIENTS)):
        if memory.per_param(part) != kb.q(sym):
            out[sym] = memory.per_param(part)
    states = memory.per_param("optimizer_states")
    if quantized:
        states = relative_change(states, kb.q("c_quantized_optimizer_state_memory_change"))
    if states != kb.q(ADAM_STATES):
        out[ADAM_STATES] = states
    if checkpointing:
        out[ACTIVATIONS] = relative_change(kb.q(ACTIVATIONS), kb.q("c_grad_ckpt_activation_memory_change"))
    return out


def feasibility(kb: KBView, inputs: Inputs, params: Q) -> list[HardwareRule]:
    """Rules about model size on this hardware (DGX Spark's table), with their sources; a named
    model's size classes read the size it is published as (Llama 3 70B is in the 30-70B row),
    as recommend's do (:func:`recipekg.reason.derive._from_model`)."""
    if inputs.hardware is None:
        return []
    snap = kb.snap
    named = inputs.params_from_model and "params" in inputs.facts
    facts = dict(inputs.facts, params=inputs.facts["params"] if named else point_facts("params", "count", params))
    out: list[HardwareRule] = []
    by_dimension = snap["rule_index"]["by_dimension"]
    for iri in sorted(set(by_dimension.get("params", ())) & set(by_dimension.get("hardware", ()))):
        rule = snap["rules"][iri]
        ev = evaluate_rule(rule, facts, snap)
        if ev["fires"] and ev["match"] == "full":
            out.append({**reason_json(iri, rule, ev, snap),
                        "recommends": [kb.node_id(x) for x in rule["recommends"]],
                        "advises_against": [kb.node_id(x) for x in rule["against"]]})
    out.sort(key=lambda r: (-r["contribution"], r["id"]))
    return out
