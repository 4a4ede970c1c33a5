"""Render answers (recommend, explain, plan) as JSON, text or Markdown.

    >>> text = render_answers(kb.query("recommend fix where symptom = loss-spike top 1"), "text")
    >>> text.splitlines()[0]
    'recommend fix — recommend fix where symptom = loss-spike top 1'
"""

from __future__ import annotations

import json

from recipekg.render.constraints import constraint_line
from recipekg.render.plan import render_plan
from recipekg.render.recommend import render_recommend
from recipekg.render.sources import caveat_line, sources_text


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
        out.append(f"    section: {x['section']}; sources: {sources_text(x['sources'])}")
        out += caveat_line(x, "    ")
    if a.get("group") == "would apply":
        out.append(f"\nIt is among the choices that would also apply: every rule for or against it waits for "
                   f"a condition you did not give ({', '.join(a['waits_for'])}), so it is ranked after the "
                   f"choices your constraints decide.")
    if a["rank"] == 1:
        out.append("\nIt already ranks first for these constraints.")
    elif a["would_rank_first_if"]:
        out.append("\nIt would rank first with:")
        for w in a["would_rank_first_if"]:
            out.append(f"    {w['query']}")
    else:
        out.append("\nNo change of constraints found that ranks it first.")
    return "\n".join(out)


_RENDERERS = {"recommend": render_recommend, "explain": _explain, "plan": render_plan}
