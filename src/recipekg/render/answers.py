"""Render answers (recommend, explain, plan) as JSON, text or Markdown.

    >>> text = render_answers(kb.query("recommend fix where symptom = loss-spike top 1"), "text")
    >>> text.splitlines()[0]
    'recommend fix — recommend fix where symptom = loss-spike top 1'

JSON needs nothing but :mod:`json`; the text and Markdown renderers are imported when an
answer is written that way, so ``--format json`` loads none of them.
"""

from __future__ import annotations



def render_answers(answers: list[dict], fmt: str) -> str:
    """Several answers: a JSON array (one object for one answer), or text/Markdown blocks."""
    if fmt == "json":
        import json  # only for JSON: it compiles regular expressions on import

        return json.dumps(answers[0] if len(answers) == 1 else answers, indent=2, ensure_ascii=False)
    render = render_markdown if fmt == "markdown" else render_text
    return "\n\n".join(render(a) for a in answers)


def render_text(a: dict) -> str:
    return _renderer(a["statement"])(a, md=False)


def render_markdown(a: dict) -> str:
    """Markdown, every piece of KB and query text in it escaped
    (:func:`recipekg.render.tables.markdown_safe`)."""
    from recipekg.render.tables import markdown_safe

    return _renderer(a["statement"])(markdown_safe(a), md=True)


def _renderer(statement: str):
    if statement == "recommend":
        from recipekg.render.recommend import render_recommend

        return render_recommend
    if statement == "explain":
        from recipekg.render.explain import render_explain

        return render_explain
    from recipekg.render.plan import render_plan

    return render_plan
