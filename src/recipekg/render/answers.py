"""Render answers (recommend, explain, plan) as JSON, text or Markdown.

    >>> text = render_answers(kb.query("recommend fix where symptom = loss-spike top 1"), "text")
    >>> text.splitlines()[0]
    'recommend fix — recommend fix where symptom = loss-spike top 1'
"""

from __future__ import annotations

import json

from recipekg.render.constraints import constraint_line
from recipekg.render.plan import render_plan
from recipekg.render.tables import table


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


def _sources(reason: dict) -> str:
    return "; ".join(f"{s['id']} ({'arXiv:' + s['arxiv'] if s['arxiv'] else s['url']})" for s in reason["sources"])


def _recommend(a: dict, md: bool) -> str:
    head = f"recommend {a['kind']} — {a['query']}"
    out = [f"## {head}" if md else head, f"constraints: {constraint_line(a['constraints'])}", ""]
    if not a["results"]:
        out.append("No rule of the KB applies to these constraints.")
    elif md:
        out += table(["#", "choice", "score", "top reasons", "sources"], [_result_row(r) for r in a["results"]], md=True)
    else:
        for r in a["results"]:
            out += _result_text(r)
    return "\n".join(out)


def _result_row(r: dict) -> tuple:
    reasons = r["because"][:2] or r["against"][:2]
    why = "<br>".join(_reason_md(x, r) for x in reasons)
    srcs = ", ".join(sorted({s["id"] for x in reasons for s in x["sources"]}))
    return (r["rank"], f"{r['label']} (`{r['id']}`)", f"{r['score']:.2f}", why, srcs)


def _result_text(r: dict) -> list[str]:
    out = [f"{r['rank']:>2}. {r['label']} ({r['id']})  score {r['score']:.2f}"]
    for x in r["because"][:2]:
        out += _reason_text(x, "+")
    for x in r["against"][:2]:
        out += _reason_text(x, "−")
    more = len(r["because"]) + len(r["against"]) - len(r["because"][:2]) - len(r["against"][:2])
    if more > 0:
        out.append(f"      … {more} more rule{'s' * (more != 1)} (--format json or explain {r['id']})")
    return out


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
    out = [f"## {head}" if md else head, f"constraints: {constraint_line(a['constraints'])}"]
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


_RENDERERS = {"recommend": _recommend, "explain": _explain, "plan": render_plan}
