"""Reports about the KB itself: ``stats``, ``papers`` and ``paper``, as text, JSON or Markdown.

    >>> print(render_papers([{"id": "kaplan2020", "claims": 11, "entities": 0, "year": 2020,
    ...                       "title": "Scaling Laws", "url": ""}], "markdown"))
    # 1 papers
    <BLANKLINE>
    | paper | claims | entities | year | title |
    |---|---|---|---|---|
    | `kaplan2020` | 11 | 0 | 2020 | Scaling Laws |
"""

from __future__ import annotations

import json

from recipekg.render.tables import md_cell, table


def render_stats(s: dict, fmt: str) -> str:
    """``recipekg stats``: counts per class, kind and section of the reference."""
    if fmt == "json":
        return json.dumps(s, indent=2)
    md = fmt == "markdown"
    out = ["# recipekg stats" if md else "recipekg stats",
           f"triples: {s['triples']}  rules: {s['rules']}  conditions: {s['conditions']}  "
           f"papers: {s['papers']}  dimensions: {s['dimensions']}", ""]
    out += _section("per class", ["class", "count"], list(s["classes"].items()), md)
    out += _section("per kind", ["kind", "count"], list(s["kinds"].items()), md)
    rows = [(r["section"] if md else "  " * r["section"].count(" > ") + r["section"].split(" > ")[-1],
             ", ".join(f"{v} {k}" for k, v in sorted(r["counts"].items())) or "NOTHING")
            for r in s["sections"]]
    out += _section("per section of the reference", ["section", "encoded"], rows, md)
    uncovered = s["uncovered_sections"]
    out.append(f"sections with nothing encoded: {len(uncovered)}" + "".join(f"\n  - {u}" for u in uncovered))
    return "\n".join(out)


def _section(title: str, header: list[str], rows: list[tuple], md: bool) -> list[str]:
    return ([f"## {title}", ""] if md else [title]) + table(header, rows, md=md) + [""]


def render_papers(rows: list[dict], fmt: str) -> str:
    """``recipekg papers``: every paper with the number of claims citing it."""
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    md = fmt == "markdown"
    cells = [(f"`{r['id']}`" if md else r["id"], r["claims"], r["entities"], r["year"] or "", r["title"])
             for r in rows]
    lines = table(["paper", "claims", "entities", "year", "title"], cells, md=md, right={1, 2, 3})
    if md:
        return "\n".join([f"# {len(rows)} papers", ""] + lines)
    return "\n".join([f"{len(rows)} papers; claims = rules, formulas, constants and facts citing each; "
                      f"entities = entities introduced in it or described from it", ""] + lines)


def render_paper(back: dict, reference: str, fmt: str) -> str:
    """``recipekg paper ID``: every claim citing the paper and the choices they lead to."""
    if fmt == "json":
        return json.dumps(back, indent=2, ensure_ascii=False)
    md = fmt == "markdown"
    p, n = back["paper"], len(back["claims"])
    out = [f"# {p['id']}: {p['title']}" if md else f"{p['id']} — {p['title']}", reference, "",
           f"{'## ' if md else ''}cited by {n} claim{'s' * (n != 1)}"]
    for cl in back["claims"]:
        head = f"{cl['kind']} {cl['id']}"
        if md:
            out.append(f"- **{head}** ({md_cell(cl['section'] or '')}): {md_cell(cl['text'] or cl['label'])}")
        else:
            out += [f"  {head}  [{cl['section']}]", f"      {cl['text'] or cl['label']}"]
        for rel, names in _by_rel(cl["choices"]).items():
            out.append(f"{'  - ' if md else '      → '}{rel}: {', '.join(names)}")
    if back["entities"]:
        out += ["", f"{'## ' if md else ''}entities"]
        for e in back["entities"]:
            out.append(f"{'- ' if md else '  '}{e['label']} ({e['id']}): {', '.join(e['rels'])}")
    return "\n".join(out)


def _by_rel(choices: list[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for ch in choices:
        for rel in ch["rels"]:
            out.setdefault(rel, []).append(f"{ch['label']} ({ch['id']})")
    return out
