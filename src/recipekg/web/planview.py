"""What the plan page shows, verdict first: whether the run fits on the hardware given, how
long it takes, what to change; the per-GPU memory as a stacked bar against the GPU's
memory; the layout found. Every number comes from the plan answer's JSON.

    >>> (answer,) = kb.query("plan where params = 7B and hardware = h100 and gpus = 8")
    >>> view = plan_view(answer)
    >>> view["verdict"]["fits"], view["verdict"]["headline"]
    (True, 'Fits on 8 × NVIDIA H100 SXM')
    >>> [s["name"] for s in view["bar"]["segments"]]
    ['weights', 'gradients', 'master_weights', 'optimizer_states', 'activations', 'headroom']
"""

from __future__ import annotations

from recipekg.render import numbers as units
from recipekg.render.constraints import format_constraint
from recipekg.render.plan import gpu_label, quantity_value

RECOMPUTE_WORDS = {"none": "none", "selective": "selective (attention scores)", "full": "full (every layer)"}


def plan_view(a: dict) -> dict:
    """The plan page's panels: ``verdict`` (fits, time, changes), ``bar`` (None without a GPU
    memory), ``layout`` (rows of the layout table; None without a layout)."""
    by_name = {q["name"]: q for q in a["quantities"]}
    fit = a.get("fit")
    feasibility = a.get("feasibility") or {}
    return {"verdict": _verdict(a, fit), "time": _time(by_name, a.get("method")), "changes": _changes(a, fit),
            "budget": _budget(a, feasibility), "ask": a.get("ask") or [],
            "warnings": [w["text"] for w in a.get("warnings") or []],
            "feasibility": feasibility.get("rules", []) if isinstance(feasibility, dict) else feasibility,
            "bar": memory_bar(by_name.get("memory_per_gpu"), fit),
            "formulas": {q["formula"]["id"]: q["formula"]["label"] for q in a["quantities"] if q.get("formula")},
            "layout": _layout_rows(fit)}


def _verdict(a: dict, fit: dict | None) -> dict:
    if not fit:
        return {"fits": None, "headline": "No hardware given: memory not checked against a GPU",
                "text": "Give hardware (hardware = h100) or gpu-memory and gpus to check the fit."}
    hw = gpu_label(fit["hardware"]) if fit.get("hardware") else "GPUs of " + units.amount(
        fit["memory_per_gpu"]["value"], unit="bytes")
    where = f"{units.grouped(fit['gpus'], exact=True)} × {hw}"
    head = {"fits": "Fits on ", "may fit": "May fit on ", "does not fit": "Does not fit on "}[fit["verdict"]]
    return {"fits": fit["fits"], "headline": head + where, "text": fit["text"]}


def _time(by_name: dict, method: str | None = None) -> dict | None:
    """How long training takes; for ``method = inference``, how fast decoding can go."""
    decode = by_name.get("decode_tokens_per_second")
    if method == "inference":
        if not decode or decode.get("value") is None:
            return None
        step = by_name.get("decode_seconds_per_token") or {}
        streams = round(decode["value"] * step["value"]) if step.get("value") else 1
        each = quantity_value({"value": 1 / step["value"], "low": None, "high": None, "unit": decode["unit"]}) \
            if streams > 1 else None  # (a rate over several sequences at once is their sum)
        return {"decode": quantity_value(decode), "streams": streams, "each": each}
    hours, wall, mfu = by_name.get("gpu_hours"), by_name.get("wall_time"), by_name.get("mfu")
    if not hours:
        return None
    if hours.get("value") is None:
        return {"missing": hours.get("missing") or hours.get("derivation")}
    out = {"gpu_hours": quantity_value(hours), "wall": quantity_value(wall) if wall else None, "mfu": None}
    need = by_name.get("gpus_needed")
    if need and need.get("value") is not None:
        out["gpus_for_budget"] = quantity_value(need)
    for name in ("energy", "cost", "co2"):
        x = by_name.get(name)
        if x and x.get("value") is not None:
            out[name] = quantity_value(x)
    attention, flops, seq = (by_name.get(n) for n in ("attention_flops", "flops", "seq_length"))
    if attention and flops and seq and attention.get("value") and flops.get("value"):
        out["attention"] = {"flops": quantity_value(attention), "seq": units.grouped(seq["value"], exact=True),
                            "share": f"{attention['value'] / (attention['value'] + flops['value']):.0%}"}
    if mfu and mfu.get("value") is not None:
        low, high = mfu["low"], mfu["high"]
        out["mfu"] = (f"{units.ratio(low)}–{units.ratio(high)}" if low != high else units.ratio(mfu["value"]))
        out["mfu_label"] = mfu["label"]
    return out


def _changes(a: dict, fit: dict | None) -> dict:
    """What to change, cheapest first: each remedy of the answer with the query that asks for
    its change (more GPUs among them, with its own query)."""
    out = {"more_gpus": None, "query": None, "savings": []}
    for r in a.get("recommendations") or []:
        change = r.get("change")
        out["savings"].append(dict(r, query=query_with(a, change) if change else None))
    if fit and not fit["fits"] and fit.get("gpus_needed"):
        out["more_gpus"] = fit["gpus_needed"]
        out["query"] = query_with(a, {"gpus": fit["gpus_needed"]})
    return out


def _budget(a: dict, feasibility: dict) -> dict | None:
    """A missed time budget, said first, with the GPUs that would meet it and their query."""
    if not isinstance(feasibility, dict) or feasibility.get("meets_time_budget") is not False:
        return None
    more = feasibility.get("gpus_for_time")
    head = "May miss the time budget" if feasibility.get("mfu_for_time") else "Misses the time budget"
    return {"head": head, "text": feasibility.get("text"), "gpus": more,
            "query": query_with(a, {"gpus": more}) if more else None}


def query_with(a: dict, change: dict) -> str:
    """The answer's query with ``change`` applied (``None`` drops a constraint).

    >>> a = {"constraints": [{"dimension": "params", "op": "=", "value": 7e9, "unit": "count"},
    ...                      {"dimension": "gpus", "op": "=", "value": 8.0, "unit": "count"}]}
    >>> query_with(a, {"gpus": 16, "lora-rank": 8})
    'plan where params = 7B and gpus = 16 and lora-rank = 8'
    """
    given = [c for c in a["constraints"] if not c.get("derived_from")]
    out = []
    for c in given:
        if c["dimension"] in change:
            v = change[c["dimension"]]
            if v is not None:
                out.append(dict(c, value=float(v)) if isinstance(v, (int, float)) else {**c, "value": v, "unit": None})
        else:
            out.append(c)
    named = {c["dimension"] for c in given}
    for dim, v in change.items():
        if dim not in named and v is not None:
            out.append({"dimension": dim, "op": "=", "value": float(v) if isinstance(v, (int, float)) else v,
                        "unit": "count" if isinstance(v, (int, float)) else None})
    return "plan where " + " and ".join(format_constraint(c) for c in out)


def memory_bar(q: dict | None, fit: dict | None, width: float = 1000.0) -> dict | None:
    """The per-GPU memory's parts as segments of a bar whose full ``width`` is the larger of
    the GPU's memory and the memory needed; each segment's ``x`` and ``w`` in that scale.

    >>> bar = memory_bar({"value": 60, "per_gpu_parts": [{"name": "weights", "label": "weights", "value": 20},
    ...                   {"name": "activations", "label": "activations", "value": 40}]},
    ...                  {"memory_per_gpu": {"value": 80, "low": 80}}, width=100)
    >>> [(s["x"], s["w"]) for s in bar["segments"]], bar["capacity_x"], bar["over"]
    ([(0.0, 25.0), (25.0, 50.0)], 100.0, False)
    """
    if not q or not fit or not q.get("per_gpu_parts") or q.get("value") is None:
        return None
    cap = fit["memory_per_gpu"]["low"]
    total = q["value"]
    scale = width / max(cap, total)
    x, segments = 0.0, []
    for p in q["per_gpu_parts"]:
        w = p["value"] * scale
        segments.append({"name": p["name"], "label": p["label"], "value": p["value"], "x": round(x, 2),
                         "w": round(w, 2), "text": units.amount(p["value"], unit="bytes"),
                         "share": share(p["value"], total), "formula": p.get("formula")})
        x += w
    return {"segments": segments, "total": total, "total_text": units.amount(total, unit="bytes"),
            "capacity": cap, "capacity_text": units.amount(cap, unit="bytes"),
            "capacity_x": round(cap * scale, 2), "over": total > cap,
            "headroom_text": units.amount(abs(cap - total), unit="bytes")}


def share(part: float, total: float) -> str:
    """A part's share of a total in whole percent; under 1% says so.

    >>> share(1.32, 561), share(70, 561), share(0, 0)
    ('<1%', '12%', '—')
    """
    if not total:
        return "—"
    return "<1%" if 0 < part / total < 0.005 else f"{part / total:.0%}"


def _layout_rows(fit: dict | None) -> dict | None:
    if not fit:
        return None
    layout, found = (fit.get("layout"), True) if fit.get("layout") else (fit.get("leanest_layout"), False)
    if not layout:
        return None
    rows = [("ZeRO stage", str(layout["zero"])), ("tensor parallel", str(layout["tensor_parallel"])),
            ("pipeline parallel", str(layout["pipeline_parallel"])), ("data parallel", str(layout["data_parallel"])),
            ("recomputation", RECOMPUTE_WORDS.get(layout["recompute"], layout["recompute"])),
            ("micro-batch", str(layout["micro_batch"]))]
    if layout.get("offload") and layout["offload"] != "none":
        rows.append(("offload", layout["offload"]))
    return {"found": found, "rows": rows}
