"""``recipekg vocab``: the word list (:mod:`recipekg.reason.vocab`) as text, JSON or Markdown.

    >>> doc = {"statements": [], "keywords": [], "operators": [], "kinds": [], "dimensions": [
    ...     {"name": "goal", "label": "goal", "aliases": [], "kind": "categorical", "unit": None,
    ...      "definition": "Research or production.", "example": "goal = production", "min": None,
    ...      "max": None, "plan_only": False, "derived_from": None, "values": [
    ...          {"id": "production", "label": "production", "aliases": ["deployment"],
    ...           "definition": None, "broader": [], "narrower": []}]}]}
    >>> print(render_vocab(doc, "text"))
    dimensions (1)
    <BLANKLINE>
    goal — a name — Research or production.
      example: goal = production
      values:
        production — production (also: deployment)
"""

from __future__ import annotations

from recipekg.render.jsontext import dumps
from recipekg.render.sources import origin_text
from recipekg.render.tables import markdown_safe, md_cell, md_code, table

_KIND_WORDS = {"categorical": "a name", "count": "a number", "bytes": "a size",
               "duration": "a duration", "ratio": "a fraction"}


def render_vocab(doc: dict, fmt: str) -> str:
    """The vocabulary document in ``fmt`` (``text``, ``json`` or ``markdown``)."""
    if fmt == "json":
        return dumps(doc, ensure_ascii=False)
    md = fmt == "markdown"
    doc = markdown_safe(doc) if md else doc
    out = ["# recipekg vocabulary", ""] if md else []
    out.append(f"## dimensions ({len(doc['dimensions'])})" if md else f"dimensions ({len(doc['dimensions'])})")
    for d in doc["dimensions"]:
        out += [""] + (_dimension_md(d) if md else _dimension_text(d))
    for k in doc["kinds"]:
        out += ["", f"## choices: {k['kind']} ({len(k['choices'])})" if md
                else f"choices: {k['kind']} ({len(k['choices'])})"]
        if md:
            out += [""] + table(["id", "label", "also", "what it is"],
                                [(f"`{c['id']}`", md_cell(c["label"] + _from(c)), ", ".join(c["aliases"]),
                                  md_cell(c["definition"] or "")) for c in k["choices"]], md=True)
        else:
            out += [f"  {c['id']} — {c['label']}{_also(c['aliases'])}{_from(c)}" for c in k["choices"]]
    return "\n".join(out)


def _what(d: dict) -> str:
    """``a number (count), at least 0`` — what a dimension takes."""
    what = _KIND_WORDS.get(d["kind"], d["kind"])
    if d["unit"] and d["unit"] not in ("count",):
        what += f" ({d['unit']})"
    if d["min"] is not None and d["max"] is not None:
        what += f" between {d['min']:g} and {d['max']:g}"
    notes = (["plan only"] if d["plan_only"] else []) + ([f"derived from {d['derived_from']} when not given"]
                                                        if d["derived_from"] else [])
    return what + (f" ({', '.join(notes)})" if notes else "")


def _from(item: dict) -> str:
    """`` [extension FILE, line N]`` after what an extension added, else ``""``.

    >>> _from({"origin": {"file": "team.ttl", "line": 3}}), _from({})
    (' [extension team.ttl, line 3]', '')
    """
    return f" [{origin_text(item)}]" if item.get("origin") else ""


def _also(aliases: list[str]) -> str:
    return f" (also: {', '.join(aliases)})" if aliases else ""


def _related(v: dict, side: str) -> str:
    """The broader or narrower values' ids, each an extension added marked with where."""
    marks = v.get("related_origins") or {}
    return ", ".join(i + (_from({"origin": marks[i]}) if i in marks else "") for i in v[side])


def _family(v: dict) -> str:
    parts = ([f"broader: {_related(v, 'broader')}"] if v["broader"] else []) + \
            ([f"narrower: {_related(v, 'narrower')}"] if v["narrower"] else []) + \
            ([f"implies: {', '.join(v['implies'])}"] if v.get("implies") else [])
    return " — " + "; ".join(parts) if parts else ""


def _dimension_text(d: dict) -> list[str]:
    out = [f"{d['name']}{_also(d['aliases'])} — {_what(d)} — {d['definition']}{_from(d)}", f"  example: {d['example']}"]
    if "values" in d:
        out.append("  values:")
        for v in d["values"]:
            out.append(f"    {v['id']} — {v['label']}{_also(v['aliases'])}{_family(v)}{_from(v)}")
            if v.get("no_advice"):
                out.append(f"      no advice in the reference; nearest: {v['no_advice']['nearest_query']}")
    return out


def _dimension_md(d: dict) -> list[str]:
    out = [f"### `{d['name']}`", "", md_cell(d["definition"] or ""), "",
           f"- takes: {_what(d)}{_from(d)}", f"- also spelt: {', '.join(f'`{a}`' for a in d['aliases']) or '—'}",
           f"- example: {md_code(d['example'])}"]
    if "values" in d:
        rows = [(f"`{v['id']}`", md_cell(v["label"] + _from(v)), ", ".join(v["aliases"]), md_cell(_related(v, "broader")),
                 md_cell(_related(v, "narrower")),
                 md_cell("; ".join(([f"implies {', '.join(v['implies'])}"] if v.get("implies") else []) +
                                   ([f"no advice; nearest: {v['no_advice']['nearest_query']}"] if v.get("no_advice") else []))))
                for v in d["values"]]
        out += [""] + table(["value", "label", "also", "broader", "narrower", "note"], rows, md=True)
    return out
