"""When the training state does not fit on one GPU: what each memory-saving technique and
approach of the KB brings on its own, then all of them together.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.memory import training_memory
    >>> from recipekg.plan.fit import check_fit
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 70B and hardware = h100 and gpus = 8")[0], snap)
    >>> memory = training_memory(ledger, inputs, inputs.params)
    >>> recs = recommend(ledger, inputs, inputs.params, memory, check_fit(ledger, inputs, inputs.params, memory))
    >>> [(r["id"], r["verdict"]) for r in recs]             # doctest: +NORMALIZE_WHITESPACE
    [('gradient-checkpointing', 'does not fit'), ('quantized-optimizer-states', 'does not fit'),
     ('fsdp', 'does not fit'), ('qlora', None), ('combined', 'does not fit')]
"""

from __future__ import annotations

import math

from recipekg.errors import KBError
from recipekg.formula.expr import Q, const_q, solve
from recipekg.plan.figures import percent, qjson, round_up, show
from recipekg.plan.fit import Fit, memory_overrides, verdict
from recipekg.plan.inputs import Inputs, point_facts
from recipekg.plan.kbview import KBFormula, KBView, const_json
from recipekg.plan.ledger import Ledger
from recipekg.plan.memory import ACTIVATIONS, ADAM_STATES, Memory
from recipekg.record import Record
from recipekg.reason.facts import Facts
from recipekg.reason.recommend import rank
from recipekg.reason.shortfall import saved_per_param

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from collections.abc import Sequence
    from typing import Unpack

    from recipekg.contracts.plan import Remedy, RemedyMore

# KB ids plan refers to by name (ids, not numbers: what the KB says about them is read from it)
CHECKPOINTING, QUANTIZED_STATES, FSDP, QLORA = ("gradient-checkpointing", "quantized-optimizer-states",
                                                "fsdp", "qlora")


class _Weighing(Record):
    """What every saving is weighed against: the plan's params, its memory and the GPUs'."""

    kb: KBView
    params: Q
    memory: Q
    cap: Q
    reasons: dict[str, list]

    def rec(self, iri: str, text: str, *, saving: Q | None = None, after: Q | None = None,
            constants: Sequence[dict] = (), formula: str | None = None, rules: list | None = None,
            **more: Unpack[RemedyMore]) -> Remedy:
        """A recommendation: the technique, what it saves, whether that is enough, and why."""
        v = verdict(after, self.cap)["verdict"] if after is not None else None
        node = self.kb.snap["nodes"][iri]
        rules = (self.reasons.get(iri, []) if rules is None else rules)[:2]  # ranked reasons (RankedReason)
        return {"id": node["id"], "label": node["label"], "iri": iri,
                "saving_per_gpu": qjson(saving), "memory_per_gpu_after": qjson(after),
                "verdict": v, "enough": None if v is None else v == "fits",
                "text": text, "constants": [const_json(c) for c in constants], "formula": formula,
                "rules": rules, "sources": self.kb.sources(*constants, *rules), **more}


def recommend(ledger: Ledger, inputs: Inputs, params: Q, memory: Memory, fit: Fit | None) -> list[Remedy]:
    """The recommendations (none when there is no fit to check or it fits on one GPU)."""
    if fit is None or fit.replicated_fits:
        return []
    kb = ledger.kb
    weighed = tuple(i for i in map(kb.iri, (CHECKPOINTING, QUANTIZED_STATES, FSDP, QLORA)) if i)
    w = _Weighing(kb, params, memory.total, fit.capacity, low_memory_reasons(kb.snap, inputs.facts, weighed))
    recs: list[Remedy] = []
    savings: list[Q] = []
    ckpt_iri = kb.iri(CHECKPOINTING)
    ckpt = next(iter(kb.constants_for(ckpt_iri, "activation-memory")), None)
    if ckpt is not None:
        rec, saving = _checkpointing(w, ckpt_iri, ckpt)
        recs.append(rec)
        savings.append(saving)
    quant_iri = kb.iri(QUANTIZED_STATES)
    quant = next(iter(kb.constants_for(quant_iri, "optimizer-state-memory")), None)
    if quant is not None and not (inputs.optimizer and inputs.optimizer == kb.iri("adam-8bit")):
        rec, saving = _quantized_states(w, quant_iri, quant, memory, inputs.optimizer)
        recs.append(rec)
        savings.append(saving)
    fsdp_iri = kb.iri(FSDP)
    if fit.fsdp is not None and fsdp_iri is not None:
        recs.append(_fsdp(w, fsdp_iri, fit, memory, inputs.facts))
    qlora_iri, qlora_f = kb.iri(QLORA), kb.find("qlora_base_memory", "params")
    if qlora_iri is not None and qlora_f is not None:
        recs.append(_qlora(ledger, w, qlora_iri, qlora_f))
    combined = _combined(ledger, w, fit, memory, savings, ckpt is not None, quant is not None)
    return recs + ([combined] if combined else [])


def _checkpointing(w: _Weighing, iri: str, ckpt: dict) -> tuple[Remedy, Q]:
    kb = w.kb
    act = kb.q(ACTIVATIONS) * w.params
    per_param, f, used = _saved(kb, iri)
    saving = per_param * w.params
    cost = next(iter(kb.constants_for(iri, "compute")), None)
    rec = w.rec(iri, f"recompute activations in the backward pass: the activations "
                     f"({show(act, 'bytes')}) shrink by {percent(kb.q(ckpt['symbol']))}, saving "
                     f"{show(saving, 'bytes')} → {show(w.memory - saving, 'bytes')} per GPU"
                     + (f", for about {percent(const_q(cost))} more compute" if cost else ""),
                saving=saving, after=w.memory - saving, formula=f.id,
                constants=[*used, *([cost] if cost else [])])
    return rec, saving


def _quantized_states(w: _Weighing, iri: str, quant: dict, memory: Memory, optimizer: str | None
                      ) -> tuple[Remedy, Q]:
    states = memory.per_param("optimizer_states") * w.params
    per_param, f, used = _saved(w.kb, iri, {ADAM_STATES: memory.per_param("optimizer_states")})
    saving = per_param * w.params
    rec = w.rec(iri, f"keep the optimizer states in 8 bits: the states ({show(states, 'bytes')}) shrink by "
                     f"{percent(w.kb.q(quant['symbol']))}, saving {show(saving, 'bytes')} → "
                     f"{show(w.memory - saving, 'bytes')} per GPU"
                     + ("" if optimizer else " (or plan with optimizer = adam-8bit)"),
                saving=saving, after=w.memory - saving, formula=f.id, constants=used)
    return rec, saving


def _saved(kb: KBView, iri: str, overrides: dict[str, Q] | None = None) -> tuple[Q, KBFormula, list[dict]]:
    """What a saving brings per parameter, by the KB's formula (the reasoner's too)."""
    found = saved_per_param(kb, iri, overrides)
    if found is None:
        raise KBError(f"the KB has no formula of what {kb.snap['nodes'][iri]['id']} saves per parameter, which plan needs")
    return found


def _fsdp(w: _Weighing, iri: str, fit: Fit, memory: Memory, facts: dict) -> Remedy:
    kb, cap, gpus = w.kb, w.cap, fit.gpus
    need = gpus_for_fsdp(kb, fit, memory, w.params)
    act = kb.q(ACTIVATIONS) * w.params
    need_text = (f"FSDP fits from about {_gpus_text(need, show(cap, 'bytes'))}" if need is not None
                 else f"no number of GPUs is enough with FSDP alone: the activations ({show(act, 'bytes')} "
                      f"by the KB's {show(kb.q(ACTIVATIONS), 'bytes/param')}) are not "
                      f"sharded and exceed {show(cap, 'bytes')} by themselves")
    if gpus.high >= 2:
        return w.rec(iri, f"shard weights, gradients and optimizer states over the {show(gpus)} GPUs: "
                          f"{show(fit.per_gpu, 'bytes')} per GPU; {need_text}",
                     saving=w.memory - fit.per_gpu, after=fit.per_gpu, formula=fit.fsdp.id, gpus_needed=qjson(need))
    rules = None
    if need is not None and math.isfinite(need.high):     # the rules for the GPUs it would take
        hypo = dict(facts, gpus=point_facts("gpus", "count", Q.point(need.high)))
        rules = low_memory_reasons(kb.snap, hypo, (iri,)).get(iri, [])
    return w.rec(iri, f"on one GPU there is nothing to shard; {need_text}",
                 formula=fit.fsdp.id, gpus_needed=qjson(need), rules=rules)


def _qlora(ledger: Ledger, w: _Weighing, iri: str, f: KBFormula) -> Remedy:
    """QLoRA's frozen 4-bit base: only for fine-tuning, and only the base is quantified."""
    kb = w.kb
    base, _ = ledger.compute(f, {"params": w.params})
    v = verdict(base, w.cap)["verdict"]
    return w.rec(iri, f"only for fine-tuning a pretrained model, not for pretraining: the frozen base in "
                      f"4 bits takes {show(base, 'bytes')} ({v} in {show(w.cap, 'bytes')}); the "
                      f"adapters, their optimizer states and the activations come on top: plan with "
                      f"method = qlora for the whole figure",
                 constants=[kb.constant(n) for n in sorted(f.parsed.names) if n in kb.by_symbol],
                 formula=f.id, base_weight_memory=qjson(base), base_fits=v == "fits", applies_to="fine-tuning")


def _combined(ledger: Ledger, w: _Weighing, fit: Fit, memory: Memory, savings: list[Q],
              checkpointing: bool, quantized: bool) -> Remedy | None:
    """All the savings together (warns when even that is not enough)."""
    if fit.fsdp is not None and fit.gpus.high >= 2:
        combined, _ = ledger.compute(fit.fsdp, {"params": w.params, "gpus": fit.gpus},
                                     memory_overrides(w.kb, memory, checkpointing=checkpointing, quantized=quantized))
        how = f"FSDP over {show(fit.gpus)} GPUs with gradient checkpointing and 8-bit optimizer states"
    elif len(savings) == 2:
        combined = w.memory - savings[0] - savings[1]
        how = "gradient checkpointing and 8-bit optimizer states together"
    else:
        return None
    v = verdict(combined, w.cap)["verdict"]
    if v != "fits":
        ledger.note(f"even with every memory saving the KB quantifies ({how}), {show(combined, 'bytes')} "
                    f"per GPU is over {show(w.cap, 'bytes')}: more GPUs, tensor or pipeline parallelism, "
                    f"or a smaller model", warn=True)
    return {"id": "combined", "label": "all of them together", "iri": None,
            "saving_per_gpu": qjson(w.memory - combined), "memory_per_gpu_after": qjson(combined),
            "verdict": v, "enough": v == "fits",
            "text": f"{how}: {show(combined, 'bytes')} per GPU — {v}",
            "constants": [], "formula": fit.fsdp.id if how.startswith("FSDP") else None,
            "rules": [], "sources": []}


def gpus_for_fsdp(kb: KBView, fit: Fit, memory: Memory, params: Q) -> Q | None:
    """GPUs needed for FSDP's per-GPU memory to come down to the capacity (rounded up)."""
    env = {**kb.constants_in(fit.fsdp), **memory_overrides(kb, memory), "params": params,
           "memory_per_gpu": fit.capacity}
    need = solve(fit.fsdp.parsed, "gpus", env, bracket=(1e-3, 1e9))
    return None if need is None else round_up(need)


def low_memory_reasons(snap: dict, facts: dict, among: tuple[str, ...] | None = None) -> dict[str, list[dict]]:
    """The KB's rules for saving memory, through the ranker with ``prefer = low-memory`` (for
    the choices ``among`` only, when given)."""
    prefer = snap["dimensions"].get("prefer", {}).get("values", {}).get("low-memory")
    if prefer is None:
        return {}
    hypo = dict(facts, prefer=Facts("prefer", "categorical", values={prefer}))
    out: dict[str, list[dict]] = {}
    for kind in ("technique", "approach"):
        for r in rank(kind, hypo, snap, among=among):
            out.setdefault(r["iri"], r["because"])
    return out


def _gpus_text(q: Q, cap: str) -> str:
    """How many GPUs FSDP needs, each bound from the end of the activation estimate that gave it."""
    if not math.isfinite(q.high):
        mid = f", {q.value:.0f} at its midpoint" if math.isfinite(q.value) and q.value != q.low else ""
        return (f"{q.low:.0f} GPUs of {cap} at the low end of the activation estimate{mid}; no count is "
                f"enough at its high end")
    count = f"{q.value:.0f}" if q.low == q.high else f"{q.low:.0f}–{q.high:.0f}"
    return f"{count} GPUs of {cap}"
