"""What the pages show for an answer, a claim or a paper, beyond the answer's own JSON:
constraint labels, the flow picture, plan quantities in readable units.

    >>> short("a" * 60)[-1], short("vit")
    ('…', 'vit')
"""

from __future__ import annotations

from recipekg.knowledge.view import of_reference
from recipekg.render.constraints import constraint_label
from recipekg.render.plan import quantity_value, table_note, render_plan
from recipekg.render.recommend import shown_group
from recipekg.render.situation import entry_name, property_text, same_reason, unused_shown, value_text
from recipekg.web.flow import flow
from recipekg.web.planview import plan_view


def answer_view(a: dict) -> dict:
    """An answer plus what the page draws for it (constraint labels, the flow picture)."""
    constraints = [constraint_label(c) for c in a.get("constraints", [])]
    view = {"answer": a, "constraints": constraints, "flow": None,
            "labels": {r["id"]: entry_name(r) for r in a.get("results", [])},
            "groups": {g: [r for r in a.get("results") or () if shown_group(r) == g]
                       for g in ("matches", "near", "against", "would apply")} if a["statement"] == "recommend" else {},
            "excluded": [dict(e, shown=property_text(e["property"]),
                              given=", ".join(constraint_label(c) for c in e.get("because_of", ())))
                         for e in ([a["excluded"]] if a["statement"] == "explain" and a.get("excluded")
                                   else a.get("excluded") or [] if a["statement"] == "recommend" else [])],
            "properties": [dict(p, shown=property_text(p)) for p in a.get("properties", [])],
            "unused": [{"shown": unused_shown(u), "why": u["why"], "answered_by": u.get("answered_by", [])}
                       for u in a.get("unused") or []]}
    _said_once(view["excluded"])
    if a["statement"] == "recommend" and a["results"]:
        fired = lambda reasons: [x for x in reasons if x["match"] != "near"]  # noqa: E731  (near rules did not fire)
        view["flow"] = flow(a["constraints"], constraints,
                            [(r["id"], entry_name(r), fired(r["because"]), fired(r["against"])) for r in a["results"]])
    elif a["statement"] == "plan":
        view["quantities"] = [quantity_view(q) for q in a["quantities"]]
        view["plan"] = plan_view(a)
        view["plan_text"] = render_plan(a, False)
    elif a["statement"] == "explain":
        fired = [x for x in a["rules"] + a.get("family_rules", []) if x["fires"]]
        c = a["choice"]
        view["flow"] = flow(a["constraints"], constraints,
                            [(c["id"], c["label"], [x for x in fired if x["side"] == "for"],
                              [x for x in fired if x["side"] == "against"])])
    return view


def quantity_view(q: dict) -> dict:
    """A plan quantity as the page shows it: readable value, the KB formula, the derivation."""
    formula = q.get("formula") if isinstance(q.get("formula"), dict) else {}
    return {"name": q["name"], "value": quantity_value(q), "table": table_note(q).strip(" ()"),
            "formula_id": formula.get("id"), "expression": formula.get("expression"),
            "derivation": q.get("derivation"), "sources": q.get("sources") or [],
            "section": q.get("section")}


def claim_details(kind: str, iri: str, c: dict, snap: dict) -> dict:
    """What a claim page shows beyond text, section, sources and choices."""
    out: dict = {"conditions": [], "strength": None, "disputes": [], "constants": [], "used_by": [], "procedure": None}
    if kind == "rule":
        out["conditions"] = [snap["conditions"][x]["label"] for x in c["conditions"] if x in snap["conditions"]]
        out["strength"] = (snap["strengths"].get(c["strength"]) or {}).get("label")
        out["disputes"] = [{**snap["rules"][x], "of_reference": of_reference(snap["rules"][x]["section"], snap["sections"])}
                           for x in c["contradicts"] if x in snap["rules"]]
        if c.get("procedure"):
            out["procedure"] = {"label": (snap["procedures"].get(c["procedure"]) or {}).get("label"),
                                "step": int(c["step"]) if c.get("step") is not None else None}
    if kind == "formula":
        out["constants"] = [snap["constants"][x] for x in c["constants"] if x in snap["constants"]]
    if kind == "constant":
        out["used_by"] = [f for f in snap["formulas"].values() if iri in f["constants"]]
    return out


def paper_kind(p: dict) -> str:
    """What sort of publication a paper is, in words."""
    from recipekg.cite.formats import entry_type, web_kind

    return web_kind(p) or {"inproceedings": "conference paper", "article": "journal article"}.get(
        entry_type(p), "preprint" if p.get("arxiv") else "paper")


def short(text, n: int = 48) -> str:
    """A label cut to ``n`` characters with an ellipsis (the template filter ``short``)."""
    text = str(text or "")
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def sentence(text, capital: bool = True) -> str:
    """A text as a sentence on the page: its first letter capital (unless ``capital`` is false:
    a clause after a dash) and one full stop at its end (the template filter ``sentence``; a
    text that ends with one keeps it).

    >>> sentence("fits on 8 GPUs"), sentence("a larger model train."), sentence("the advice", False)
    ('Fits on 8 GPUs.', 'A larger model train.', 'the advice.')
    """
    text = str(text or "")
    return (text[:1].upper() if capital else text[:1]) + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


_HINTS = ("expected:", "did you mean:", "note:")


def error_view(exc, q: str) -> dict:
    """An error as the page shows it: the position, the query line and the caret (``block``,
    kept as typed), then the hints that wrap (``hints``: what was expected, the notes), and
    each suggestion with the query it would make (``fixes``: the misspelt word replaced), a
    link to click.

    >>> from recipekg.errors import VocabularyError
    >>> q = "recommend architecture where data = tabluar"
    >>> err = VocabularyError("unknown data 'tabluar'", line=1, column=37, length=7, suggestions=["tabular"])
    >>> error_view(err.with_source(q), q)["fixes"]
    [('tabular', 'recommend architecture where data = tabular')]
    """
    lines = str(exc).split("\n")
    block = [x for x in lines if not x.startswith(_HINTS)]
    hints = [x for x in lines if x.startswith(_HINTS) and not x.startswith("did you mean:")]
    return {"block": "\n".join(block), "hints": hints,
            "fixes": [(s, _fixed(q, exc, s)) for s in getattr(exc, "suggestions", None) or ()]}


def _fixed(q: str, exc, suggestion: str) -> str | None:
    """``q`` with the one word the error underlines replaced by ``suggestion`` (None when the
    error underlines more than a word, or nothing)."""
    line, column, length = getattr(exc, "line", None), getattr(exc, "column", None), getattr(exc, "length", None) or 1
    rows = q.split("\n")
    if not line or not column or line > len(rows):
        return None
    text = rows[line - 1]
    word = text[column - 1:column - 1 + length]
    if not word.strip() or " " in word.strip() or " " in suggestion.strip(" ") and "," not in word:
        return None
    rows[line - 1] = text[:column - 1] + suggestion + text[column - 1 + length:]
    return "\n".join(rows)


def _said_once(excluded: list[dict]) -> None:
    """Mark each ruled-out choice whose reason an earlier one already gives (one property of a
    whole kind: every optimizer at inference) with that choice's label (``same_as``), so the
    page says the reason once.

    >>> ex = [{"label": "AdamW", "why": "w", "property": {"id": "p"}}, {"label": "Lion", "why": "w", "property": {"id": "p"}}]
    >>> _said_once(ex); [e.get("same_as") for e in ex]
    [None, 'AdamW']
    """
    first: dict[tuple, str] = {}
    for e in excluded:
        key = same_reason(e)
        if key in first:
            e["same_as"] = first[key]
        else:
            first[key] = e["label"]

