"""CSL-JSON, valid against the CSL project's csl-data.json (no property outside the schema)::

    >>> item = csl_item(snap["papers"]["hoffmann2022"])
    >>> item["type"], item["container-title"], len(item["author"]), item["author"][0]
    ('paper-conference', 'Advances in Neural Information Processing Systems', 22, {'family': 'Hoffmann', 'given': 'Jordan'})
"""

from __future__ import annotations

from recipekg.cite.entries import container, doi, kind, names, notes, web_kind
from recipekg.render.jsontext import dumps

_TYPES = {"inproceedings": "paper-conference", "article": "article-journal", "preprint": "article",
          "blog": "post-weblog", "software": "software", "webpage": "webpage"}


def csl_item(p: dict) -> dict:
    """One CSL-JSON item."""
    kind_, web = kind(p), web_kind(p)
    item: dict = {"id": p["id"], "type": _TYPES[kind_], "title": p["title"] or p["id"]}
    people, complete = names(p)
    if people:
        item["author"] = [{"family": n["family"], "given": n["given"]} if n.get("given") else {"family": n["family"]}
                          for n in people]
    elif p.get("publisher"):
        item["author"] = [{"literal": p["publisher"]}]
    if p.get("year"):
        item["issued"] = {"date-parts": [[p["year"]]]}
    if kind_ in ("inproceedings", "article") and container(p):
        item["container-title"] = container(p)
    elif web and p.get("venue"):
        item["genre"] = p["venue"]
    for field, key in (("volume", "volume"), ("number", "issue"), ("pages", "page"), ("version", "version")):
        if p.get(field):
            item[key] = p[field]
    _publisher(p, kind_, item)
    if d := doi(p):
        item["DOI"] = d
    if p.get("url"):
        item["URL"] = p["url"]
    if p.get("accessed"):
        item["accessed"] = {"date-parts": [[int(x) for x in p["accessed"].split("-")]]}
    extra = notes(p, complete, arxiv="number" not in item)
    if extra:
        item["note"] = "; ".join(extra)
    return item


def _publisher(p: dict, kind_: str, item: dict) -> None:
    if kind_ == "preprint" and (p.get("arxiv") or "Preprint" in (p.get("types") or [])):
        item["publisher"] = "arXiv"
        if p.get("arxiv"):
            item["number"] = f"arXiv:{p['arxiv']}"
    elif p.get("publisher"):
        item["publisher"] = p["publisher"]


def render_csl(bundle) -> str:
    return dumps([csl_item(p) for p in bundle.papers], ensure_ascii=False) + "\n"
