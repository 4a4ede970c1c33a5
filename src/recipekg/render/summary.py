"""The compact answer, for agents: the decision, the key quantities with their units and the
ids of the sources, at most :data:`BUDGET` bytes of JSON — what ``--format summary``, MCP's
tools (unless ``detail: true``) and ``/api/query?detail=0`` answer. The whole answer is the
JSON of ``--format json``; every compact answer says so in ``"detail"``.

    >>> s = summary(kb.query("recommend architecture where data = tabular and rows = 30k")[0])
    >>> s["decision"]["pick"], s["results"][0]["because"][0]["sources"]
    ({'id': 'gradient-boosted-trees', 'label': 'Gradient-boosted trees'}, ['chen2016xgboost', 'grinsztajn2022', 'ke2017'])
    >>> (plan,) = kb.query("plan where params = 7B and hardware = h100 and gpus = 8")
    >>> p = summary(plan)
    >>> p["fit"]["fits"], p["quantities"]["gpu_hours"]["unit"], p["constraints"][1], len(summary_answers([plan])) < BUDGET
    (True, 'GPU-hours', 'hardware = h100', True)

Each statement has its shape (:func:`summary`): ``recommend`` the pick, runner-ups and the
first results with their deciding rules; ``explain`` the rank and the rules that apply;
``plan`` its verdict lines, fit, every quantity's value, range and unit; ``recipe`` each
section's values with their source ids. What a compact answer leaves out it counts
(``"omitted"``), so an agent knows when to ask for the detail.
"""

from __future__ import annotations

#: The most bytes a compact answer's JSON takes (the spec: about 8 KB).
BUDGET = 8192
#: How many results, reasons and items a compact answer keeps before counting the rest.
RESULTS, REASONS = 5, 2
DETAIL = "the whole answer, every rule, derivation and source: detail: true (MCP), --format json, ?detail=1"


def summary_answers(answers: list[dict], detail: bool = False) -> str:
    """The compact answers as JSON: one object, or an array for several (the summary writer)."""
    import json

    docs = [summary(a) for a in answers]
    return json.dumps(docs[0] if len(docs) == 1 else docs, indent=1, ensure_ascii=False)


def summary(a: dict) -> dict:
    """One answer's compact form, cut to :data:`BUDGET` bytes."""
    out = {"statement": a["statement"], "query": a.get("query"), "constraints": constraints(a.get("constraints", ()))}
    out.update(_SHAPES[a["statement"]](a))
    for key in ("unused",):
        if a.get(key):
            out[key] = [f"{u['dimension']} {u.get('op', '=')} {_value(u['value'])}: {u['why']}" for u in a[key]]
    out["as_of"] = a.get("as_of")
    from recipekg.render.sources import SHOWN_LINES, origins

    marks = origins(a)
    if marks:  # what extensions contributed, though the compact form leaves the claims out
        out["extensions"] = [{"file": f, "claims": len(lines), "lines": lines[:SHOWN_LINES]} for f, lines in marks.items()]
    out["detail"] = DETAIL
    return _within_budget(out)


def _clip(doc, limit: int):
    """``doc`` with every string longer than ``limit`` characters cut (said with '…')."""
    if isinstance(doc, str):
        return doc if len(doc) <= limit else doc[:limit] + "…"
    if isinstance(doc, list):
        return [_clip(x, limit) for x in doc]
    if isinstance(doc, dict):
        return {k: _clip(v, limit) for k, v in doc.items()}
    return doc


def constraints(cs) -> list[str]:
    """Each constraint as the query language writes it (:func:`recipekg.render.constraints.constraint_label`),
    with what the reference gives no advice for."""
    from recipekg.render.constraints import constraint_label

    out = []
    for c in cs:
        text = constraint_label(c)
        for gap in c.get("no_advice", ()):
            text += f" (no advice: {gap['message']})"
        out.append(text)
    return out


def sources(items) -> list[str]:
    """The ids of ``items``' sources, each once, in order."""
    return list(dict.fromkeys(s["id"] for s in items or () if isinstance(s, dict) and s.get("id")))


def _value(v):
    if isinstance(v, list):
        return ", ".join(str(_value(x)) for x in v)
    return _round(v) if isinstance(v, float) else v


def _round(x):
    """A float to 4 significant digits (an int when whole): enough for a decision."""
    if x is None or x != x or x in (float("inf"), float("-inf")):
        return x
    r = float(f"{x:.4g}")
    return int(r) if r.is_integer() and abs(r) < 1e15 else r


def _choice(a: dict, cid: str | None) -> dict | None:
    if not cid:
        return None
    label = next((r["label"] for r in a.get("results", ()) if r["id"] == cid), None)
    return {"id": cid, "label": label} if label else {"id": cid}


def _reason(x: dict) -> dict:
    return {"rule": x["id"], "strength": x["strength"], "text": x["text"], "sources": sources(x["sources"])}


def _recommend(a: dict) -> dict:
    d = a.get("decision") or {}
    out = {"kind": a["kind"],
           "decision": {"pick": _choice(a, d.get("pick")), "runner_ups": [_choice(a, i) for i in d.get("runner_ups", ())],
                        "compare_with": [_choice(a, i) for i in d.get("compare_with", ())]}}
    if d.get("procedure"):
        out["decision"]["procedure"] = d["procedure"]["steps"]
    for side in ("tied_with", "broader", "narrower", "parts", "part_of"):
        if d.get(side):
            out["decision"][side] = [_choice(a, i) for i in d[side]]
    if d.get("alongside"):
        out["decision"]["alongside"] = [{"section": e["section"], "pick": _choice(a, e["pick"]),
                                         **({"tied_with": [_choice(a, i) for i in e["tied_with"]]}
                                            if e.get("tied_with") else {})} for e in d["alongside"]]
    if a.get("elsewhere"):
        out["elsewhere"] = [{"kind": e["kind"], "query": e["query"], "verdict": e["verdict"],
                             "choice": {"id": e["choice"], "label": e["label"]}} for e in a["elsewhere"]]
    results = []
    for r in a["results"][:RESULTS]:
        shown = [x for x in r["because"] if r["group"] != "matches" or x["match"] in ("full", "general", "near")]
        row = {"rank": r["rank"], "id": r["id"], "label": r["label"], "score": r["score"], "group": r["group"],
               "because": [_reason(x) for x in (shown or r["because"])[:REASONS]]}
        if r["against"]:
            row["against"] = [_reason(x) for x in r["against"][:1]]
        for key in ("waits_for",):
            if r.get(key):
                row[key] = r[key]
        if r.get("members"):
            row["members"] = [m["id"] for m in r["members"]]
        if r.get("memory_saving"):
            row["memory_saving"] = r["memory_saving"]["text"]
        results.append(row)
    out["results"] = results
    total = a["more"]["of"] if a.get("more") else len(a["results"])  # past the default top too
    if total > RESULTS:
        out["omitted"] = {"results": total - RESULTS}
    out.update(_situation(a))
    return out


def _situation(a: dict) -> dict:
    out = {}
    if a.get("ask"):
        out["ask"] = [q["text"] for q in a["ask"]]
    if a.get("excluded"):
        out["excluded"] = [{"id": e["id"], "why": e["why"], "sources": sources(e.get("sources"))} for e in a["excluded"]]
    if a.get("near_boundary"):
        out["near_boundary"] = [n["text"] for n in a["near_boundary"]]
    if a.get("shortfall"):
        out["shortfall"] = a["shortfall"]["text"]
    if a.get("compute_check"):
        out["compute_check"] = a["compute_check"]["text"]
    return out


def _explain(a: dict) -> dict:
    fired = [x for x in a["rules"] + a.get("family_rules", []) if x["fires"]]
    out = {"kind": a["kind"], "choice": {"id": a["choice"]["id"], "label": a["choice"]["label"]}, "rank": a["rank"],
           "rules": [dict(_reason(x), side=x["side"]) for x in fired[:2 * RESULTS]],
           "would_rank_first_if": [w["query"] for w in a.get("would_rank_first_if", ())]}
    if a.get("member_of"):
        out["member_of"] = a["member_of"]["id"]
    if a.get("tied_with"):
        out["tied_with"] = [t["id"] for t in a["tied_with"]]
    if a.get("against"):
        out["against"] = [x["text"] for x in a["against"]]
    if a.get("excluded"):
        out["excluded"] = {"why": a["excluded"]["why"], "sources": sources(a["excluded"].get("sources"))}
    if a.get("no_change_because"):
        out["no_change_because"] = a["no_change_because"]
    if a.get("memory_saving"):
        out["memory_saving"] = a["memory_saving"]["text"]
    if a.get("shortfall"):
        out["shortfall"] = a["shortfall"]["text"]
    if a.get("compute_check"):
        out["compute_check"] = a["compute_check"]["text"]
    idle = len(a["rules"]) + len(a.get("family_rules", [])) - len(out["rules"])
    if idle:
        out["omitted"] = {"rules": idle}
    return out


def quantity(q: dict) -> dict:
    """A plan quantity as ``{"value", "low", "high", "unit", "sources"}`` (the range only
    when it is one)."""
    out = {"value": _round(q.get("value")), "unit": q.get("unit") or None}
    if q.get("low") is not None and q.get("low") != q.get("high"):
        out["low"], out["high"] = _round(q["low"]), _round(q["high"])
    if q.get("sources"):
        out["sources"] = sources(q["sources"])
    return out


def _plan(a: dict) -> dict:
    fit = a.get("fit") or {}
    out = {"verdict": a.get("summary") or [],
           "fit": {"fits": fit.get("fits"), "text": fit.get("text"), "layout": fit.get("layout")} if fit else None,
           "quantities": {q["name"]: quantity(q) for q in a["quantities"] if q.get("value") is not None}}
    feas = a.get("feasibility")
    if isinstance(feas, dict) and feas.get("text"):
        out["feasibility"] = {k: feas.get(k) for k in ("meets_time_budget", "gpus_for_time", "text")}
    if a.get("recommendations"):
        out["recommendations"] = [{"label": r["label"], "text": r["text"], "enough": r.get("enough"),
                                   "change": r.get("change")} for r in a["recommendations"]]
    if a.get("largest_models"):
        out["largest_models"] = a["largest_models"]
    if a.get("ask"):
        out["ask"] = [q["text"] if isinstance(q, dict) else q for q in a["ask"]]
    if a.get("warnings"):
        out["warnings"] = [w["text"] for w in a["warnings"]]
    if a.get("notes"):
        out["omitted"] = {"notes": len(a["notes"])}
    return out


def _recipe(a: dict) -> dict:
    sections = {}
    for s in a["sections"]:
        if s["items"]:
            sections[s["name"]] = [_item(it) for it in s["items"]]
    out = {"context": a["context"], "sections": sections,
           "unsourced": [it["what"] for s in a["sections"] for it in s["items"] if it.get("unsourced")],
           "configs": sorted(a.get("configs") or {})}
    if a.get("plan"):
        out["plan"] = {"verdict": a["plan"].get("summary") or []}
    return out


def _item(it: dict) -> dict:
    out = {"what": it["what"], "value": it["text"]}
    if it.get("sources"):
        out["sources"] = sources(it["sources"])
    for flag in ("unsourced", "needs"):
        if it.get(flag):
            out[flag] = it[flag]
    return out


_SHAPES = {"recommend": _recommend, "explain": _explain, "plan": _plan, "recipe": _recipe}


def _size(doc) -> int:
    import json

    return len(json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8"))


def _within_budget(out: dict) -> dict:
    """``out`` cut to :data:`BUDGET` bytes: the longest lists lose their last entries first,
    each cut counted in ``"omitted"``."""
    omitted = out.setdefault("omitted", {})
    while _size(out) > BUDGET:
        key, items = _longest_list(out)
        if key is None:
            break
        items.pop()
        omitted[key] = omitted.get(key, 0) + 1
    for limit in (400, 120):  # texts too long for any list cut (an extension's): shortened
        if _size(out) > BUDGET:
            out = _clip(out, limit)
            omitted["text"] = f"texts cut at {limit} characters"
    if not omitted:
        del out["omitted"]
    return out


def _longest_list(doc: dict, prefix: str = ""):
    """The list inside ``doc`` whose JSON is the longest (never the verdict or the decision)."""
    best, best_size = (None, None), 0
    for key, value in doc.items():
        if key in ("verdict", "decision", "constraints", "omitted", "extensions"):
            continue
        name = f"{prefix}{key}"
        if isinstance(value, list) and len(value) > 1:
            size = _size(value)
            if size > best_size:
                best, best_size = (name, value), size
        elif isinstance(value, dict):
            inner, inner_list = _longest_list(value, f"{name}.")
            if inner is not None and _size(inner_list) > best_size:
                best, best_size = (inner, inner_list), _size(inner_list)
    return best
