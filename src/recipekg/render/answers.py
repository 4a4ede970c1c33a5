"""Render answers (recommend, explain, plan, recipe) in the answer formats of
:mod:`recipekg.render.formats`: text, JSON, Markdown, and the compact summary.

    >>> text = render_answers(kb.query("recommend fix where symptom = loss-spike top 1"), "text")
    >>> text.splitlines()[0]
    'recommend fix — recommend fix where symptom = loss-spike top 1'

Text is short by default: the verdict and the lines that decide it (each renderer's
``detail=False``); ``detail=True`` (``--detail``) writes every derivation, rule
and source. JSON needs nothing but :mod:`recipekg.render.jsontext`; the text and Markdown renderers are imported
when an answer is written that way, so ``--format json`` loads none of them.
"""

from __future__ import annotations



def render_answers(answers: list[dict], fmt: str, detail: bool = False) -> str:
    """Several answers in the answer format ``fmt`` (:func:`recipekg.render.formats.writer`):
    a JSON array (one object for one answer), or text/Markdown blocks."""
    if fmt == "json":  # the commonest, without even reading the registry
        return json_answers(answers, detail)
    from recipekg.render.formats import writer

    return writer("answer", fmt)(answers, detail)


def json_answers(answers: list[dict], detail: bool = False) -> str:
    """The answers as the spec's JSON: one object, or an array for several."""
    from recipekg.render.jsontext import dumps  # json.dumps(indent=2) without importing json

    return dumps(answers[0] if len(answers) == 1 else answers, ensure_ascii=False)


def text_answers(answers: list[dict], detail: bool = False) -> str:
    """The answers as text, each short unless ``detail``."""
    return "\n\n".join(render_text(a, detail) for a in answers)


def markdown_answers(answers: list[dict], detail: bool = False) -> str:
    """The answers as Markdown, always whole."""
    return "\n\n".join(render_markdown(a) for a in answers)


def render_text(a: dict, detail: bool = True) -> str:
    """One answer as text: the whole of it, or (``detail=False``) its short form, which names
    every extension that contributed to the answer even where it leaves the claim out."""
    text = _renderer(a["statement"])(a, md=False, detail=detail) + recency_lines(a, md=False)
    if not detail:
        from recipekg.render.sources import origins_line

        own = origins_line(a)
        if own:
            text += "\n" + own
    return text


def render_markdown(a: dict) -> str:
    """Markdown, every piece of KB and query text in it escaped
    (:func:`recipekg.render.tables.markdown_safe`)."""
    from recipekg.render.tables import markdown_safe

    safe = markdown_safe(a)
    return _renderer(a["statement"])(safe, md=True) + recency_lines(safe, md=True)


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
            out.append(f"superseded: {s['label']} ({s['claim']}){_origin_mark(s)} is revised by {r.get('label', r['iri'])}"
                       + (f" ({', '.join(x['id'] for x in r.get('sources', []))}, as of {r['as_of']})"
                          if r.get("as_of") else "") + _origin_mark(r) + "; both are shown")
    if md:
        return "\n\n" + "\n".join(f"*{line}*  " for line in out)
    return "\n" + "\n".join(out)


def _origin_mark(item: dict) -> str:
    """`` [extension FILE, line N]`` after what an extension added, else ``""``."""
    from recipekg.render.sources import origin_text

    return f" [{origin_text(item)}]" if item.get("origin") else ""


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
