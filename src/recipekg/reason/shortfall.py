"""A memory saving checked against the size of the memory shortfall (docs/scoring.md §4).

When the query gives or implies a ``memory-load`` above 100% (the rule of thumb's 18-20 bytes
per parameter against all the GPUs' memory), each memory-saving choice an answer advises says
what it leaves: its saving in bytes per parameter (the KB's formulas with output
``saved_bytes_per_param`` that ``rkg:appliesTo`` it, from the breakdown's figures), and the
memory-load after it (``formula:memory-load-after-saving``), enough alone or not. The answer
then says what the shortfall is and what closes it: the savings that are enough, all of them
together (one per part of the breakdown they act on), sharding over the GPUs it would take,
adapters on a 4-bit base for fine-tuning, offloading::

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend x where params = 70B and gpus = 1 and hardware = a100-80gb")[0].constraints, snap)
    >>> note = saving_note(snap["rule_index"]["choices"]["adam-8bit"], facts, snap)
    >>> note["enough"], note["text"]
    (False, "saves 2.8–6 bytes/param of the rule of thumb's 18–20: leaves memory-load at about 1050–1505% (not enough alone)")
    >>> facts = facts_of(parse("recommend x where params = 4.2B and gpus = 1 and hardware = a100-80gb")[0].constraints, snap)
    >>> saving_note(snap["rule_index"]["choices"]["adam-8bit"], facts, snap)["text"]
    "saves 2.8–6 bytes/param of the rule of thumb's 18–20: leaves memory-load at about 63–90.3% (enough alone)"
    >>> facts = facts_of(parse("recommend x where params = 70B and method = lora")[0].constraints, snap)
    >>> saving_note(snap["rule_index"]["choices"]["adam-8bit"], facts, snap) is None   # no GPU memory: no memory-load
    True

A query naming the GPU but not how many, whose full copy is over one GPU's memory
(``replica-memory``: the memory-load's formula with one GPU), is checked against one GPU and
says so (:func:`memory_facts`)::

    >>> facts = facts_of(parse("recommend x where params = 7B and hardware = rtx-4090 and method = full-fine-tune")[0].constraints, snap)
    >>> saving_note(snap["rule_index"]["choices"]["adam-8bit"], facts, snap)["text"]
    "saves 2.8–6 bytes/param of the rule of thumb's 18–20: leaves memory-load at about 350–501.6% on one GPU, as no GPU count is given (not enough alone)"

The saving is plan's too (plan/savings.py reads :func:`saved_per_param`): one model of what a
saving brings, written once, in the KB. The check only describes: it changes no ranking (a
saving that is not enough still helps), so both backends answer alike.
"""

from __future__ import annotations

import math

from recipekg.formula.expr import Q, const_q, evaluate, solve
from recipekg.plan.figures import qjson, round_up, rounded, show
from recipekg.reason.facts import measured

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import Range
    from recipekg.contracts.recommend import MemorySaving, Shortfall, ShortfallFix
    from recipekg.plan.kbview import KBFormula, KBView

#: The output of a saving's formula, and the inputs of the formula that checks it.
SAVED, LOAD, AFTER = "saved_bytes_per_param", "memory_load", "memory_load_after"
#: The optimizer's own state, which a leaner optimizer's saving reads (plan's formula of it).
STATE, MULTIPLE = "optimizer_state_bytes_per_param", "optimizer_state_multiple"
#: The choices the answer names for what closes a shortfall (KB ids, not numbers).
FSDP, QLORA = "fsdp", "qlora"
#: The offload dimension's value that moves the states to the CPU, and plan's formula of what it moves.
OFFLOAD, OFFLOADED = "cpu", "model-states-offload"


def view(snap: dict) -> KBView:
    from recipekg.plan.kbview import KBView
    return KBView.of(snap)


def saving_formula(kb: KBView, iri: str) -> KBFormula | None:
    """The formula of what the choice ``iri`` saves (its own, else its nearest ancestor's)."""
    node = kb.snap["nodes"].get(iri, {})
    for choice in (iri, *node.get("ancestors", ())):
        for f in kb.by_output(SAVED):
            if choice in f.data.get("applies_to", ()):
                return f
    return None


def state_multiple(kb: KBView, optimizer: str) -> dict | None:
    """The optimizer table's memory multiple of ``optimizer`` (or of its nearest ancestor)."""
    node = kb.snap["nodes"][optimizer]
    return next((c for iri in [optimizer, *node["ancestors"]] for c in kb.constants_for(iri, "optimizer-state-memory")
                 if c.get("unit") == "× params"), None)


def saved_per_param(kb: KBView, iri: str, overrides: dict[str, Q] | None = None
                    ) -> tuple[Q, KBFormula, list[dict]] | None:
    """What the choice ``iri`` saves, in bytes per parameter, its formula and the constants it
    reads (``overrides`` stand in for some: plan's optimizer states); None when it saves nothing
    the KB quantifies."""
    f = saving_formula(kb, iri)
    if f is None:
        return None
    env = {**kb.constants_in(f), **(overrides or {})}
    used = [kb.constant(n) for n in sorted(f.parsed.names) if n in kb.by_symbol and n not in (overrides or ())]
    if STATE in f.parsed.names:
        multiple = state_multiple(kb, iri)
        if multiple is None:
            return None
        of = kb.formula(STATE, MULTIPLE)
        env[STATE] = evaluate(of.parsed, {**kb.constants_in(of), MULTIPLE: const_q(multiple)})
        used += [multiple, *(kb.constant(n) for n in sorted(of.parsed.names) if n in kb.by_symbol)]
    return evaluate(f.parsed, env), f, used


#: What stands for the GPU count of a query that names the GPUs' memory but not how many (:func:`memory_facts`).
ONE_GPU = "one GPU, as no GPU count is given"


def memory_facts(facts: dict) -> dict:
    """The facts a memory saving is checked against: ``facts``, or, for a query that gives the
    run's method and the GPUs' memory but no GPU count, and whose full copy is over one GPU
    (``replica-memory`` above 100%, the memory-load's formula with one GPU: a 7B full fine-tune
    on an RTX 4090), those with that share as the memory-load of one GPU (``gpus`` derived as
    :data:`ONE_GPU`, which the texts say). Without a method given the rule of thumb is only
    pretraining's default (a question about 70B on A100s is no claim to one GPU); a copy that
    fits one GPU is left alone (a GPU count would change nothing the notes say)."""
    method = facts.get("method")
    if "memory-load" in facts or "gpus" in facts or method is None or not method.values or method.derived:
        return facts
    replica = facts.get("replica-memory")
    if replica is None or not replica.intervals or not 1 < replica.intervals[-1][2] < math.inf:
        return facts
    from recipekg.reason.facts import Facts
    return {**facts, "memory-load": Facts("memory-load", replica.kind, intervals=list(replica.intervals),
                                          derived=replica.derived),
            "gpus": Facts("gpus", "count", intervals=[(1.0, True, 1.0, True)], derived=ONE_GPU)}


def _one_gpu(facts: dict) -> bool:
    """Whether ``facts`` are :func:`memory_facts`' one GPU for a query that gives no GPU count."""
    gpus = facts.get("gpus")
    return gpus is not None and gpus.derived == ONE_GPU


def _load(facts: dict) -> Q | None:
    """The memory-load the query gives or implies, when it is known and finite."""
    f = facts.get("memory-load")
    if f is None or not f.intervals or not math.isfinite(f.intervals[-1][2]):
        return None
    return Q.span(f.intervals[0][0], f.intervals[-1][2])


def load_of(facts: dict) -> Q | None:
    """The memory-load the query gives or implies, when some of it is over 100%."""
    load = _load(facts)
    return load if load is not None and load.high > 1 else None


def fitting_load(facts: dict) -> Q | None:
    """The memory-load the query gives or implies, when all of it is within 100% (the run fits
    the GPUs' memory by the rule of thumb)."""
    load = _load(facts)
    return load if load is not None and load.high <= 1 else None


def _over_elsewhere(because, snap: dict) -> bool:
    """Whether one of the reasons ``because`` holds on a memory share other than the rule of
    thumb's memory-load (one 32k sequence's activations over a GPU): the rule of thumb, which
    counts no activations by sequence length, then cannot say the run fits without the choice
    (audit 5/11)."""
    dims = snap["dimensions"]
    return any(c["status"] == "held" and c["dimension"] != "memory-load" and dims.get(c["dimension"], {}).get("capacity")
               for r in because for c in r.get("conditions", ()))


def _after(kb: KBView, load: Q, saved: Q) -> tuple[Q, KBFormula]:
    f = kb.formula(AFTER, LOAD, SAVED)
    return evaluate(f.parsed, {**kb.constants_in(f), LOAD: load, SAVED: saved}), f


def _enough(after: Q) -> bool | None:
    return True if after.high <= 1 else False if after.low > 1 else None


def share(q: Q) -> str:
    """A memory-load in percent, to the four significant figures the derived constraint shows
    (reason/derive.py).

    >>> share(Q.span(13.3, 15.05)), share(Q.span(1.125, 1.25)), share(Q.point(0.95))
    ('1330–1505%', '112.5–125%', '95%')
    """
    low, high = (f"{float(f'{x * 100:.4g}'):g}" for x in (q.low, q.high))
    return f"{low}%" if low == high else f"{low}–{high}%"


#: What the memory-load left says of a saving (``enough``: true, false, null).
VERDICT = {True: "enough alone", False: "not enough alone",
           None: "enough alone at the low end of the estimate only"}


def saving_note(iri: str, facts: dict, snap: dict, because=()) -> MemorySaving | None:
    """The note on a memory-saving choice when the memory-load is known: what it leaves when the
    run is over the GPUs' memory, or that the run fits without it (advised for another reason,
    as ``prefer = low-memory``); None when the load is not known or the choice saves nothing
    the KB quantifies, or when the run fits by the rule of thumb but a rule advising the choice
    (``because``: its reasons) holds on another memory share (:func:`_over_elsewhere`)."""
    facts = memory_facts(facts)
    over = load_of(facts)
    load = over if over is not None else fitting_load(facts)
    if load is None or over is None and _over_elsewhere(because, snap):
        return None
    kb = view(snap)
    found = saved_per_param(kb, iri)
    if found is None:
        return None
    saved, f, used = found
    after, af = _after(kb, load, saved)
    enough = _enough(after)
    total = kb.q("c_training_bytes_per_param")
    text = (f"saves {show(saved, 'bytes/param')} of the rule of thumb's {show(total)}: leaves memory-load at "
            f"about {share(after)}{f' on {ONE_GPU}' if _one_gpu(facts) else ''} ({VERDICT[enough]})")
    if over is None:
        text = (f"not needed to fit: the run's memory-load is about {share(load)} without it (the rule of thumb's "
                f"{show(total, 'bytes/param')}); it saves {show(saved, 'bytes/param')}, to about {share(after)}")
    return {"saved_bytes_per_param": _range(saved), "memory_load": _range(load), "memory_load_after": _range(after),
            "enough": enough, "text": text, "formulas": [f.id, af.id],
            "sources": kb.sources(f.data, *used, af.data)}


def shortfall(entries: list[dict], facts: dict, snap: dict) -> Shortfall | None:
    """What the shortfall is and what closes it, for an answer whose ``entries`` (results, or
    the one explained choice) carry memory-saving notes; None when none does."""
    noted = [e for e in entries if e.get("memory_saving") and e.get("group", "matches") == "matches"
             and e.get("score", 1) > 0]  # the savings advised
    facts = memory_facts(facts)
    load = load_of(facts)
    if load is None:
        return None
    kb = view(snap)
    if not noted:  # (the run's method given: without one, the rule of thumb is pretraining's, which a fine-tune may not be)
        method = facts.get("method")
        return _unsaved(kb, facts, load) if method is not None and method.values and not method.derived else None
    alone = [e["id"] for e in noted if e["memory_saving"]["enough"]]
    parts = ", ".join(f"{e['label']} {share(_q(e['memory_saving']['memory_load_after']))}" for e in noted)
    text = _needs(kb, facts, load)
    together = _together(kb, noted, load)
    if alone:
        text += f": {', '.join(e['label'] for e in noted if e['id'] in alone)} closes it alone"
    else:
        maybe = any(e["memory_saving"]["enough"] is None for e in noted)
        text += (f"; no memory saving advised here {'is sure to close' if maybe else 'closes'} it alone "
                 f"(memory-load after each: {parts})")
        if together is not None:
            text += (f"; all of them together leave about {share(together)} "
                     f"({VERDICT[_enough(together)].replace(' alone', '')})")
    closes = [] if alone or together is not None and _enough(together) else _closers(kb, facts)
    if closes:
        text += ". What would: " + "; ".join(c["text"] for c in closes)
    return {"memory_load": _range(load), "enough_alone": alone, "together": qjson(together), "text": text, "closes": closes}


def _unsaved(kb: KBView, facts: dict, load: Q) -> Shortfall:
    """The shortfall of a run over all its GPUs' memory when the answer advises no memory
    saving (an approach, a technique): the answer's pick does not make the run fit, so it
    says so and what would (audit 14's 70B fine-tune on 16 GPUs, whose pick was tensor
    parallelism alone)."""
    gpus = facts.get("gpus")
    count = Q.span(*measured(gpus)) if gpus and gpus.intervals else None
    where = ("one GPU" if count is not None and count.high == 1 else
             f"{'the GPUs' if count is None else f'all {show(count)} GPUs'} even sharded evenly over them")
    text = (f"{_needs(kb, facts, load)}: its training state does not fit {where}"
            f"{'' if load.low > 1 else ' (it may at the low end of the estimate)'}, "
            f"whatever the layout, and nothing advised here saves memory")
    closes = _closers(kb, facts)
    if closes:
        text += ". What would: " + "; ".join(c["text"] for c in closes)
    return {"memory_load": _range(load), "enough_alone": [], "together": None, "text": text, "closes": closes}


def _needs(kb: KBView, facts: dict, load: Q) -> str:
    """What the run needs of the GPUs' memory, the shortfall's first words (of one GPU's, said
    so, for a query that gives no GPU count: :func:`memory_facts`)."""
    thumb = f"the rule of thumb's {show(kb.q('c_training_bytes_per_param'), 'bytes/param')}"
    if _one_gpu(facts):
        return (f"a full copy of the run needs about {share(load)} of one GPU's memory ({thumb}; no GPU count is "
                f"given: gpus = N checks it against yours)")
    return f"the run needs about {share(load)} of the GPUs' memory ({thumb})"


def _range(q: Q) -> Range:
    """A quantity as the JSON's range (:func:`~recipekg.plan.figures.qjson` of a value that is there)."""
    return {"value": rounded(q.value), "low": rounded(q.low), "high": rounded(q.high)}


def _q(r: dict) -> Q:
    return Q(r["value"], r["low"], r["high"])


def _together(kb: KBView, noted: list[dict], load: Q) -> Q | None:
    """The memory-load after every noted saving at once: the largest of those that act on the
    same part of the breakdown (the breakdown's constant their formula reads), summed over the
    parts; None when they all act on one part."""
    breakdown = kb.formula("memory", "c_activation_bytes_per_param", "c_adam_state_bytes_per_param")
    best: dict[str, Q] = {}
    for e in noted:
        f = saving_formula(kb, e["iri"])
        part = next((n for n in sorted(f.parsed.names) if n in breakdown.parsed.names), None) if f else None
        saved = _q(e["memory_saving"]["saved_bytes_per_param"])
        if part is not None and (part not in best or saved.high > best[part].high):
            best[part] = saved
    if len(best) < 2:
        return None
    return _after(kb, load, sum(best.values(), Q.point(0)))[0]


def _sharded_limit(kb: KBView, fsdp: str) -> float | None:
    """The largest memory-load sharding runs at: the value of FSDP's property on it
    (``rkg:shardedFits``, which rules FSDP out above it)."""
    props = kb.snap.get("choice_properties") or {}
    return next((p["value"] for p in map(props.get, (kb.snap.get("properties_by_choice") or {}).get(fsdp, ()))
                 if p and p["dimension"] == "memory-load" and p["test"] == "at-most"), None)


def _closers(kb: KBView, facts: dict) -> list[ShortfallFix]:
    """What closes the shortfall beyond the savings: the GPUs for the sharded state to fit (the
    memory-load formula solved for the GPU count at FSDP's limit), adapters on a 4-bit base for
    fine-tuning (the base's memory against the GPUs'), offloading (which plan sizes)."""
    out: list[ShortfallFix] = []
    env = {n: Q.span(*measured(facts[d]))
           for n, d in (("params", "params"), ("gpu_memory", "gpu-memory"), ("gpus", "gpus"))
           if d in facts and facts[d].intervals}
    fsdp = kb.iri(FSDP)
    limit = _sharded_limit(kb, fsdp) if fsdp else None
    if limit is not None and len(env) == 3:
        f = kb.by_id(kb.snap["formulas"][kb.snap["dimensions"]["memory-load"]["derived_by"]]["id"])
        need = solve(f.parsed, "gpus", {**kb.constants_in(f), "params": env["params"], "gpu_memory": env["gpu_memory"],
                                        f.parsed.output: limit})
        if need is not None and math.isfinite(need.high):
            n = round_up(need)
            out.append({"id": kb.snap["nodes"][fsdp]["id"], "label": kb.snap["nodes"][fsdp]["label"],
                        "gpus_needed": _range(n),
                        "text": f"shard the training state (FSDP) over {show(n)} GPUs of "
                                f"{show(env['gpu_memory'], 'bytes')}, where the memory-load comes down to "
                                f"{share(Q.point(limit))} (plan sizes the layout)",
                        "sources": kb.sources(f.data)})
    qlora = kb.iri(QLORA)
    base_f = kb.find("qlora_base_memory", "params")
    if qlora and base_f is not None and "params" in env and "gpu_memory" in env:
        from recipekg.formula.expr import CONVERSIONS
        base = evaluate(base_f.parsed, {**kb.constants_in(base_f), **CONVERSIONS, "params": env["params"]})
        cap = env["gpu_memory"] * env.get("gpus", Q.point(1))
        fits = "within" if base.high <= cap.low else "over"
        out.append({"id": "qlora", "label": kb.snap["nodes"][qlora]["label"],
                    "text": f"to fine-tune a pretrained model, adapters on a 4-bit base (QLoRA): the frozen base "
                            f"takes {show(base, 'bytes')}, {fits} the GPUs' {show(cap, 'bytes')}, with the "
                            f"adapters and activations on top (plan with method = qlora)",
                    "sources": kb.sources(base_f.data)})
    offload = kb.snap["dimensions"].get("offload", {}).get("values", {}).get(OFFLOAD)
    if offload and OFFLOADED in kb.snap["plan_index"]["formula_ids"] and "params" in env and "gpu_memory" in env:
        node, f = kb.snap["nodes"][offload], kb.by_id(OFFLOADED)
        kept = evaluate(f.parsed, {**kb.constants_in(f), "params": env["params"],
                                   "tensor_parallel": 1.0, "pipeline_parallel": 1.0})
        fits = "within" if kept.high <= env["gpu_memory"].low else "over"
        out.append({"id": node["id"], "label": node["label"],
                    "text": f"{node['label']} keeps only the 16-bit weights on each GPU: {show(kept, 'bytes')}, "
                            f"{fits} one GPU's {show(env['gpu_memory'], 'bytes')} before the activations "
                            f"(plan with offload = {node['id']} sizes it; offloading the weights too, as "
                            f"ZeRO-Infinity does, is beyond the KB's figures)", "sources": kb.sources(f.data)})
    return out
