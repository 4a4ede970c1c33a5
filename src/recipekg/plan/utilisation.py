"""The MFU a plan's time assumes when the query gives none: the range published runs of a
similar size reached on GPUs of the same compute (dense 16-bit peak), the MFU their total GPU-hours
imply (what the run paid for, restarts and overheads included: ``kb/runs.ttl``) with the
steady-state MFUs papers state (``kb/mfu.ttl``) beside them; the point is the median of the
total-hours MFUs. Every figure says where it comes from::

    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> h100 = snap["dimensions"]["hardware"]["values"]["h100"]
    >>> small = evidence(ledger, h100, Q.point(8e9))
    >>> sorted((p["label"], p["basis"]) for p in small)  # doctest: +NORMALIZE_WHITESPACE
    [('Llama 3 70B', 'total GPU-hours'), ('Llama 3 8B', 'total GPU-hours'), ('Llama 3.1 405B on 16,384 GPUs',
      'steady state (stated or from throughput)'), ('Llama 3.1 405B on 16,384 GPUs, long-context stage',
      'steady state (stated or from throughput)'), ('Llama 3.1 405B on 8,192 GPUs', 'steady state (stated or from
      throughput)'), ('Llama 3.1 70B', 'total GPU-hours'), ('Llama 3.1 8B', 'total GPU-hours')]
    >>> q = mfu_range(ledger, h100, Q.point(8e9), [], [])
    >>> f"{q.low:.3f}", f"{q.value:.3f}", f"{q.high:.3f}"
    ('0.176', '0.244', '0.430')
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.knowledge.derived import once
from recipekg.plan.attention import run_attention_flops
from recipekg.plan.figures import rounded, show
from recipekg.plan.ledger import Ledger

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only
    from recipekg.contracts.plan import PublishedRun

RUN = "PublishedRun"
#: How a plan names the runs it takes for a GPU faster than every GPU with runs (fact:mfu-beyond-fastest).
FASTEST = "the fastest GPUs with runs"


def median(values: list[float]) -> float:
    """The middle value (the mean of the two middle ones for an even count).

    >>> median([0.3, 0.5, 0.4]), median([0.2, 0.4, 0.5, 0.9])
    (0.4, 0.45)
    """
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def points(ledger: Ledger, exclude: tuple = ()) -> list[dict]:
    """Every MFU the KB has: each published run's (from its total GPU-hours) and each stated
    or throughput-derived one; ``exclude``: fact ids left out (the tests leave each run out
    in turn). They depend on the snapshot alone: compiled into it (``plan_index``,
    :mod:`recipekg.plan.index`), else computed once per snapshot; never changed."""
    if exclude:
        return _points(ledger, exclude)
    return once(ledger.kb.snap, "mfu points", lambda snap: _compiled(snap) or _points(Ledger(ledger.kb), ()))


def compiled_points(ledger: Ledger) -> list[dict]:
    """:func:`points` as the snapshot holds them: each with its fact's IRI for its ``item``."""
    return [{**{k: v for k, v in p.items() if k != "item"}, "iri": iri} for iri, p in _named_points(ledger, ())]


def _compiled(snap: dict) -> list[dict] | None:
    """The snapshot's points with their facts (None when it holds none: computed then)."""
    table = (snap.get("plan_index") or {}).get("mfu_points")
    if table is None:
        return None
    facts = snap["facts"]
    return [{**{k: v for k, v in p.items() if k != "iri"}, "item": facts[p["iri"]]} for p in table]


def _points(ledger: Ledger, exclude: tuple) -> list[dict]:
    return [p for _, p in _named_points(ledger, exclude)]


def _named_points(ledger: Ledger, exclude: tuple) -> list[tuple[str, dict]]:
    kb = ledger.kb
    implied_f = kb.formula("mfu", "gpu_hours", "flops")
    flops_f = kb.formula("flops", "params", "tokens")
    out = []
    for iri, f in sorted(kb.snap["facts"].items(), key=lambda item: item[1]["id"]):
        if f["id"] in exclude or not f.get("hardware") or not kb.peak(f["hardware"]):
            continue
        if RUN in f["types"] and f.get("gpu_hours") and f.get("tokens") and f.get("params"):
            flops, _ = ledger.compute(flops_f, {"params": Q.point(f["params"]), "tokens": Q.point(f["tokens"])})
            attention = run_attention_flops(ledger, f)
            mfu, _ = ledger.compute(implied_f, {"flops": flops, "gpu_hours": Q.point(f["gpu_hours"]),
                                                "attention_flops": attention,
                                                "bf16_peak": Q.point(kb.peak(f["hardware"]))})
            out.append((iri, _point(kb, f, mfu.value, "total GPU-hours", gpu_hours=f["gpu_hours"],
                                    attention_flops=rounded(attention.value))))
        elif "mfu" in f and f.get("params"):
            out.append((iri, _point(kb, f, f["mfu"], "steady state (stated or from throughput)")))
    return out


def _point(kb, f: dict, mfu: float, basis: str, **more) -> dict:
    label = f["label"].removeprefix("Published run: ").removeprefix("Published MFU: ")
    return {"fact": f["id"], "label": label, "mfu": rounded(mfu), "params": f["params"], "basis": basis,
            "hardware": kb.node_id(f["hardware"]), "peak": kb.peak(f["hardware"]), "item": f, **more}


def kin(ledger: Ledger, hw: str):
    """Whether an MFU point was measured on a GPU of ``hw``'s compute: one of the same dense
    16-bit peak, or one the KB states has the same compute (``rkg:sameComputeAs``: the H200
    and the H100, whose peaks the KB gives as 989 and 989.5 TFLOPS)::

        >>> from recipekg.plan.kbview import KBView
        >>> ledger = Ledger(KBView(snap))
        >>> h200 = snap["dimensions"]["hardware"]["values"]["h200"]
        >>> sorted({p["hardware"] for p in points(ledger) if kin(ledger, h200)(p)})
        ['h100']
    """
    peak, ids = ledger.kb.peak(hw), ledger.kb.same_compute(hw)
    return lambda p: (peak is not None and p["peak"] == peak) or p["hardware"] in ids


def evidence(ledger: Ledger, hw: str | None, params: Q | None, exclude: tuple = ()) -> list[dict]:
    """The points a plan of ``params`` on ``hw`` is compared with, on GPUs of its compute (the
    same dense 16-bit peak, or stated the same: :func:`kin`; else on GPUs of its chip
    architecture, ``rkg:gpuArchitecture``; else on any): the runs'
    total-hours MFUs within the KB's size window (else at the nearest sizes below and above),
    and the steady MFUs papers state on those GPUs, of any size (the high end: what a tuned
    run reached there)."""
    every = points(ledger, exclude)
    same = list(filter(kin(ledger, hw), every)) if hw else []
    # one run on a GPU is no range: the runs on GPUs of its architecture then, else (with its
    # own) those on the fastest GPUs for a GPU faster than all (fact:mfu-beyond-fastest), else every GPU's
    related = [p for p in every if p["hardware"] in ledger.kb.same_architecture(hw)] if hw and len(same) < 2 else []
    pool = same if len(same) >= 2 else related if len(related) >= 2 else (
        _fastest_below(ledger, hw, every, [*same, *related]) if hw else every)
    window = ledger.kb.q("c_mfu_size_window").value
    runs = [p for p in pool if p["basis"] == "total GPU-hours"]
    if params is None:          # planning backwards: the size is not known yet, every run counts
        return pool
    near = [p for p in runs if params.low / window <= p["params"] <= params.high * window]
    if not near and runs:
        below = max((p["params"] for p in runs if p["params"] <= params.value), default=None)
        above = min((p["params"] for p in runs if p["params"] >= params.value), default=None)
        near = [p for p in runs if p["params"] in (below, above)]
    steady = [p for p in pool if p["basis"] != "total GPU-hours"]   # what tuned runs reached on the GPU, any size
    return near + steady


def _fastest_below(ledger: Ledger, hw: str, every: list[dict], own: list[dict]) -> list[dict]:
    """For a GPU faster (in dense 16-bit peak) than every chip architecture with two or more
    points: ``own`` (its one point, if any) with the points on the fastest of those
    (fact:mfu-beyond-fastest); every point for any other GPU::

        >>> from recipekg.plan.kbview import KBView
        >>> ledger, values = Ledger(KBView(snap)), snap["dimensions"]["hardware"]["values"]
        >>> sorted({p["hardware"] for p in _fastest_below(ledger, values["b200"], points(ledger), [])})
        ['h100']
        >>> len(_fastest_below(ledger, values["l40s"], points(ledger), [])) == len(points(ledger))
        True
    """
    peak = ledger.kb.peak(hw)
    groups: dict[str, list[dict]] = {}
    for p in every:
        groups.setdefault(ledger.kb.architecture(p["item"]["hardware"]) or p["hardware"], []).append(p)
    fastest = {name: max(p["peak"] for p in group) for name, group in groups.items() if len(group) >= 2}
    top = max(fastest.values(), default=None)
    if not peak or top is None or peak <= top:
        return every
    taken = {p["fact"] for p in own}
    return [*{p["fact"]: p for p in own}.values(),
            *(p for name, group in groups.items() if fastest.get(name) == top for p in group if p["fact"] not in taken)]


def _size_text(window: float, params: Q | None, sizes: list[float]) -> str:
    """How the runs compared were chosen by size: within the KB's window of the plan's, or, when
    none is, the nearest sizes below and above (said so, never called "within").

    >>> _size_text(10.0, Q.point(1.24e8), [8e9])
    ' nearest in size to 124M parameters (none within a factor of 10)'
    >>> _size_text(10.0, Q.point(7e9), [8e9])
    ' within a factor of 10 of 7B parameters'
    """
    if params is None:
        return " of every size"
    if all(params.low / window <= x <= params.high * window for x in sizes):
        return f" within a factor of {window:g} of {show(params, 'parameters')}"
    return f" nearest in size to {show(params, 'parameters')} (none within a factor of {window:g})"


def mfu_range(ledger: Ledger, hw: str | None, params: Q | None, rows: list[dict], implied: list[float]) -> Q:
    """The MFU range and its point, recorded as the ``mfu`` quantity with where each figure
    comes from, naming the GPUs its points were measured on (and saying so when they are not
    the plan's); the reference's own assumption (the MFU its GPU-hours table implies, on its
    GPU) joins the range on that GPU and is shown beside it on others."""
    kb = ledger.kb
    found = evidence(ledger, hw, params)
    totals = [p["mfu"] for p in found if p["basis"] == "total GPU-hours"]
    table_hw = rows[0]["hardware"] if rows else None
    own = (implied if implied and table_hw is not None and hw is not None
           and kin(ledger, hw)({"peak": kb.peak(table_hw), "hardware": kb.node_id(table_hw)}) else [])
    values = [p["mfu"] for p in found] + own
    mfu = Q.span(min(values), max(values), median(totals or values))
    same = all(map(kin(ledger, hw), found)) if hw else False
    on = measured_on(ledger, hw, found)
    reference = (f"; the reference's own assumption, from its {kb.label(table_hw)} GPU-hours table: "
                 + ", ".join(f"{show(Q.point(f['params']))} → {v:.3f}" for f, v in zip(rows, implied))
                 + ("" if own else " (shown, not in the range: another GPU)")) if rows else ""
    size = _size_text(kb.q("c_mfu_size_window").value, params, [p["params"] for p in found
                                                                  if p["basis"] == "total GPU-hours"])
    runs = (f"published runs{size} on {on['text']}, and the steady MFUs stated there for runs of any size" if totals else
            f"the steady MFUs stated for published runs on {on['text']} (none there gives its total GPU-hours)")
    ledger.add("mfu", mfu, "fraction of bf16 peak",
               label=f"MFU of published runs on {on['short']}" + (", and the reference's own from its GPU-hours table"
                                                                   if own else ""),
               extra_sources=[p["item"] for p in found] + rows[:1],
               derivation=(f"{runs}: "
                           + ", ".join(f"{p['label']} {p['mfu']:.3f} ({_how(p)})" for p in found) + reference
                           + f"; the median of the {'total-GPU-hours runs' if totals else 'MFUs'} {mfu.value:.3f}, "
                             f"range {mfu.low:.3f}–{mfu.high:.3f}"),
               rows=[{"fact": f["id"], "params": f["params"], "flops": f["flops"], "gpu_hours": f["gpu_hours"],
                      "mfu": rounded(v)} for f, v in zip(rows, implied)],
               published=[_published(p) for p in found], measured_on=on["hardware"], same_peak=same)
    if not same and hw is not None:
        nearest = [kb.fact("mfu-beyond-fastest")] if on["others"].startswith(FASTEST) else []
        ledger.note(f"{on['why']}: the range of the runs on {on['others']} is assumed; give mfu = 40% (for example) "
                    f"to plan with your own", *[p["item"] for p in found[:1]], *filter(None, nearest))
    if totals:
        similar = "nearest in size" if size.startswith(" nearest") else "of a similar size"
        ledger.note(f"the MFU is a range: what published runs {similar} paid for in total GPU-hours (restarts, "
                    "evaluation and idle time included) beside the steady MFU papers state; give mfu = 45% (for "
                    "example) to plan with your own", kb.constant("c_mfu_size_window"))
    else:
        ledger.note("the MFU is a range of steady MFUs papers state, of runs of every size: no run on these GPUs "
                    "gives its total GPU-hours (restarts, evaluation and idle time included), so the time is the "
                    "short end of what such a run takes; give mfu = 45% (for example) to plan with your own",
                    kb.constant("c_mfu_size_window"))
    return mfu


def measured_on(ledger: Ledger, hw: str | None, found: list[dict]) -> dict:
    """Which GPUs the MFU points were measured on, in words: ``text`` (for the derivation),
    ``short`` (for the label), ``hardware`` (their ids), and when they are not GPUs of ``hw``'s
    peak, ``why`` and ``others`` (for the note saying so)::

        >>> from recipekg.plan.kbview import KBView
        >>> ledger = Ledger(KBView(snap))
        >>> v100 = snap["dimensions"]["hardware"]["values"]["v100"]
        >>> measured_on(ledger, v100, evidence(ledger, v100, Q.point(175e9)))["text"]
        'NVIDIA V100 SXM2 32GB'
        >>> tpu = snap["dimensions"]["hardware"]["values"]["tpu-v4"]
        >>> on = measured_on(ledger, tpu, evidence(ledger, tpu, Q.point(175e9)))
        >>> on["why"], on["short"]                        # doctest: +NORMALIZE_WHITESPACE
        ("the KB has one published run on a GPU of Google Cloud TPU v4 (per chip)'s peak (PaLM 540B), too few for a
          range", 'other GPUs (NVIDIA A100 80GB SXM, NVIDIA H100 SXM, Google Cloud TPU v4 (per chip), NVIDIA V100
          SXM2 32GB)')
    """
    kb = ledger.kb
    ids = sorted({p["hardware"] for p in found})
    hardware = kb.snap["dimensions"]["hardware"]["values"]
    labels = ", ".join(kb.label(hardware.get(i, i)) for i in ids)
    out = {"hardware": ids, "text": f"the GPUs the KB has published runs for ({labels})", "short": labels}
    if hw is None:
        return out
    peak, of_hw = kb.peak(hw), kin(ledger, hw)
    if found and all(map(of_hw, found)):
        if ids == [kb.node_id(hw)]:
            return {**out, "text": kb.label(hw), "short": kb.label(hw)}
        # runs on a GPU the KB states has this one's compute (the peaks may differ by rounding)
        what = "dense 16-bit peak" if all(p["peak"] == peak for p in found) else "compute"
        return {**out, "text": f"GPUs of {kb.label(hw)}'s {what} ({labels})",
                "short": f"GPUs of {kb.label(hw)}'s {what}"}
    own = list(filter(of_hw, found))
    values, nodes = kb.snap["dimensions"]["hardware"]["values"], kb.snap["nodes"]
    # (an extension's twin with no run of its own does not change a bundled GPU's wording: hostile round 9, 009)
    twins = [i for i in kb.same_compute(hw) if not nodes.get(values.get(i, ""), {}).get("origin")]
    what = "peak" if len(twins) <= 1 else "compute"
    others = ", ".join(kb.label(hardware.get(i, i)) for i in ids if not any(p["hardware"] == i for p in own)) or labels
    why = (f"the KB has no published run on a GPU of {kb.label(hw)}'s {what}" if not own else
           f"the KB has one published run on a GPU of {kb.label(hw)}'s {what} ({own[0]['label']}), too few for a range")
    kind = kb.architecture(hw)
    where = others_words(ledger, hw, ids)
    if where == FASTEST:  # no run of its architecture either: said so
        why = why.replace(f"'s {what}", f"'s {what} or of its {kind} architecture" if kind else f"'s {what}", 1)
        why += ", and its peak is above that of every GPU with runs"
    return {**out, "text": f"{where} ({labels}; {why})", "short": f"{where} ({labels})", "why": why,
            "others": f"{where} ({others})" + (", that run's with them" if own else "")}


def others_words(ledger: Ledger, hw: str, ids) -> str:
    """What the GPUs ``ids`` (not all of ``hw``'s compute) are to ``hw``, in words: other GPUs
    of its architecture, the fastest GPUs with runs, slower than it (:func:`_fastest_below`), or other GPUs."""
    kb = ledger.kb
    kind = kb.architecture(hw)
    if kind and set(ids) <= kb.same_architecture(hw):  # its architecture's runs (evidence): said so
        return f"other {kind} GPUs"
    every = points(ledger)
    fastest = {p["hardware"] for p in _fastest_below(ledger, hw, every, [])}
    mine = kb.same_compute(hw) | kb.same_architecture(hw)
    if fastest != {p["hardware"] for p in every} and set(ids) - mine <= fastest:
        return FASTEST
    return "other GPUs"


def _published(p: dict) -> PublishedRun:
    out: PublishedRun = {"fact": p["fact"], "label": p["label"], "mfu": p["mfu"], "basis": p["basis"],
                         "hardware": p["hardware"], "params": p["params"]}
    if "gpu_hours" in p:
        out["gpu_hours"] = p["gpu_hours"]
    if "attention_flops" in p:
        out["attention_flops"] = p["attention_flops"]
    return out


def _how(p: dict) -> str:
    if "gpu_hours" in p:
        return f"{p['hardware']}, {show(Q.point(p['gpu_hours']), 'GPU-hours')}"
    return f"{p['hardware']}, steady state"
