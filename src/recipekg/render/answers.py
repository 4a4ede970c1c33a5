"""Render answers (recommend, explain, plan) as JSON, text or Markdown.

    >>> text = render_answers(kb.query("recommend fix where symptom = loss-spike top 1"), "text")
    >>> text.splitlines()[0]
    'recommend fix — recommend fix where symptom = loss-spike top 1'

JSON needs nothing but :mod:`recipekg.render.jsontext`; the text and Markdown renderers are imported when an
answer is written that way, so ``--format json`` loads none of them.
"""

from __future__ import annotations



def render_answers(answers: list[dict], fmt: str) -> str:
    """Several answers: a JSON array (one object for one answer), or text/Markdown blocks."""
    if fmt == "json":
        from recipekg.render.jsontext import dumps  # json.dumps(indent=2) without importing json

        return dumps(answers[0] if len(answers) == 1 else answers, ensure_ascii=False)
    render = render_markdown if fmt == "markdown" else render_text
    return "\n\n".join(render(a) for a in answers)


def render_text(a: dict) -> str:
    return _renderer(a["statement"])(a, md=False) + recency_lines(a, md=False)


def render_markdown(a: dict) -> str:
    return _renderer(a["statement"])(a, md=True) + recency_lines(a, md=True)


def recency_lines(a: dict, md: bool) -> str:
    """The answer's ``as_of`` and the claims in it a newer source revises, both sides named.

    >>> print(recency_lines({"as_of": "2023-05-01", "as_of_source": "muennighoff2023"}, md=False))
    <BLANKLINE>
    as of 2023-05-01 (the newest source cited: muennighoff2023)
    """
    if not a.get("as_of"):
        return ""
    out = [f"as of {a['as_of']} (the newest source cited: {a['as_of_source']})"]
    for s in a.get("superseded", []):
        for r in s["superseded_by"]:
            out.append(f"superseded: {s['label']} ({s['claim']}) is revised by {r.get('label', r['iri'])}"
                       + (f" ({', '.join(x['id'] for x in r.get('sources', []))}, as of {r['as_of']})"
                          if r.get("as_of") else "") + "; both are shown")
    if md:
        return "\n\n" + "\n".join(f"*{line}*  " for line in out)
    return "\n" + "\n".join(out)


def _renderer(statement: str):
    if statement == "recommend":
        from recipekg.render.recommend import render_recommend

        return render_recommend
    if statement == "explain":
        from recipekg.render.explain import render_explain

        return render_explain
    if statement == "recipe":
        from recipekg.render.recipe import render_recipe

        return render_recipe
    from recipekg.render.plan import render_plan

    return render_plan
