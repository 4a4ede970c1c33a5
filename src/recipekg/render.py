"""Render answers and reports as text, JSON or Markdown.

    >>> print(render_stats({"classes": {"Rule": 3}, ...}, "text"))     # doctest: +SKIP
"""

from __future__ import annotations

import json


def render_stats(s: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(s, indent=2)
    md = fmt == "markdown"
    out = [f"# recipekg stats" if md else "recipekg stats",
           f"triples: {s['triples']}  rules: {s['rules']}  conditions: {s['conditions']}  "
           f"papers: {s['papers']}  dimensions: {s['dimensions']}", ""]
    out += _table("per class", ["class", "count"], list(s["classes"].items()), md)
    out += _table("per kind", ["kind", "count"], list(s["kinds"].items()), md)
    rows = [(r["section"] if md else "  " * r["section"].count(" > ") + r["section"].split(" > ")[-1],
             ", ".join(f"{v} {k}" for k, v in sorted(r["counts"].items())) or "NOTHING")
            for r in s["sections"]]
    out += _table("per section of the reference", ["section", "encoded"], rows, md)
    uncovered = s["uncovered_sections"]
    out.append(f"sections with nothing encoded: {len(uncovered)}" + "".join(f"\n  - {u}" for u in uncovered))
    return "\n".join(out)


def _table(title: str, header: list[str], rows: list[tuple], md: bool) -> list[str]:
    rows = [tuple(str(c) for c in r) for r in rows]
    if md:
        lines = [f"## {title}", "", "| " + " | ".join(header) + " |",
                 "|" + "|".join("---" for _ in header) + "|"]
        return lines + ["| " + " | ".join(r) + " |" for r in rows] + [""]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return [title, fmt.format(*header), fmt.format(*("-" * w for w in widths))] + [
        fmt.format(*r) for r in rows] + [""]


# ------------------------------------------------------------------ answers

def render_answers(answers: list[dict], fmt: str) -> str:
    """Several answers: a JSON array (one object for one answer), or text/Markdown blocks."""
    if fmt == "json":
        return json.dumps(answers[0] if len(answers) == 1 else answers, indent=2, ensure_ascii=False)
    render = render_markdown if fmt == "markdown" else render_text
    return "\n\n".join(render(a) for a in answers)


def render_text(a: dict) -> str:
    return _RENDERERS[a["statement"]](a, md=False)


def render_markdown(a: dict) -> str:
    return _RENDERERS[a["statement"]](a, md=True)


def _constraint_line(a: dict) -> str:
    from .units import value

    parts = []
    for c in a["constraints"]:
        v = c["value"]
        shown = (f"{_num(v[0], c)} and {_num(v[1], c)}" if c["op"] == "between" else
                 "(" + ", ".join(_num(x, c) for x in v) + ")" if isinstance(v, list) else _num(v, c))
        parts.append(f"{c['dimension']} {c['op']} {shown}" + (f" (from {c['derived_from']})" if c.get("derived_from") else ""))
    return ", ".join(parts) or "none"


def _num(v, c) -> str:
    from .units import bytes_, count, hours

    if isinstance(v, str):
        return v
    return {"gpu-memory": bytes_, "time": hours,
            "bandwidth": lambda x: bytes_(x) + "/s"}.get(c["dimension"], count)(v)


def _sources(reason: dict) -> str:
    return "; ".join(f"{s['id']} ({'arXiv:' + s['arxiv'] if s['arxiv'] else s['url']})" for s in reason["sources"])


def _recommend(a: dict, md: bool) -> str:
    head = f"recommend {a['kind']} — {a['query']}"
    out = [f"## {head}" if md else head, f"constraints: {_constraint_line(a)}", ""]
    if not a["results"]:
        out.append("No rule of the KB applies to these constraints. Rules about this kind condition on: "
                   + ", ".join(a.get("dimensions_used", [])) if a.get("dimensions_used") else
                   "No rule of the KB applies to these constraints.")
        return "\n".join(out)
    if md:
        out += ["| # | choice | score | top reasons | sources |", "|---|---|---|---|---|"]
    for r in a["results"]:
        reasons = r["because"][:2] or r["against"][:2]
        if md:
            why = "<br>".join(_reason_md(x, r) for x in reasons)
            srcs = ", ".join(sorted({s["id"] for x in reasons for s in x["sources"]}))
            out.append(f"| {r['rank']} | {r['label']} (`{r['id']}`) | {r['score']:.2f} | {why} | {srcs} |")
            continue
        out.append(f"{r['rank']:>2}. {r['label']} ({r['id']})  score {r['score']:.2f}")
        for x in r["because"][:2]:
            out += _reason_text(x, "+")
        for x in r["against"][:2]:
            out += _reason_text(x, "−")
        more = len(r["because"]) + len(r["against"]) - len(r["because"][:2]) - len(r["against"][:2])
        if more > 0:
            out.append(f"      … {more} more rule{'s' * (more != 1)} (--format json or explain {r['id']})")
    return "\n".join(out)


def _reason_text(x: dict, sign: str) -> list[str]:
    lines = [f"    {sign} [{x['strength']}, {x['match']}] {x['text']}",
             f"      section: {x['section']}",
             f"      sources: {_sources(x)}"]
    for d in x.get("disputed_by", []):
        lines.append(f"      ! the reference disagrees ({d['section']}): {d['text']}")
    return lines


def _reason_md(x: dict, r: dict) -> str:
    sign = "against: " if x in r["against"] else ""
    disputed = "".join(f" ⚠ disputed by *{d['section']}*" for d in x.get("disputed_by", []))
    return f"{sign}**{x['strength']}**, {x['match']}: {x['text']} (*{x['section']}*){disputed}"


def _explain(a: dict, md: bool) -> str:
    c = a["choice"]
    rank = f"rank {a['rank']} among {a['kind']} choices" if a["rank"] else f"not ranked among {a['kind']} choices"
    head = f"explain {c['label']} ({c['id']}) — {rank}"
    out = [f"## {head}" if md else head, f"constraints: {_constraint_line(a)}"]
    if c.get("definition"):
        out.append(f"what it is: {c['definition']}")
    if c["papers"]:
        out.append("introduced in: " + "; ".join(f"{p['id']} — {p['title']}" for p in c["papers"]))
    out.append("")
    for x in a["rules"]:
        verdict = ("applies" if x["fires"] else "does not apply") + f", {x['match']}"
        side = "FOR" if x["side"] == "for" else "AGAINST"
        out.append(f"{'- ' if md else ''}{side} [{x['strength']}] {x['text']}  ({verdict})")
        for cond in x["conditions"]:
            out.append(f"    {cond['status']:>9}: {cond['condition']}")
        out.append(f"    section: {x['section']}; sources: {_sources(x)}")
    if a["rank"] == 1:
        out.append("\nIt already ranks first for these constraints.")
    elif a["would_rank_first_if"]:
        out.append("\nIt would rank first with:")
        for w in a["would_rank_first_if"]:
            out.append(f"    {w['query']}")
    else:
        out.append("\nNo change of constraints found that ranks it first.")
    return "\n".join(out)


def _plan(a: dict, md: bool) -> str:
    from .plan_render import render_plan

    return render_plan(a, md)


_RENDERERS = {"recommend": _recommend, "explain": _explain, "plan": _plan}
