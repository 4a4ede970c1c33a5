"""RIS, the tagged format reference managers import: ``TY`` CPAPER / JOUR / UNPB (preprint) /
BLOG / COMP (repository) / ELEC (web page), one ``AU`` per author (``Family, Given``), the
proceedings or journal in ``T2`` (and ``JO``), ``VL``, ``IS``, ``SP``/``EP``, ``DO``, ``UR``,
the version in ``ET`` and the access date in ``Y2``::

    >>> ris_entry(snap["papers"]["hochreiter1997"]).splitlines()[:6]
    ['TY  - JOUR', 'ID  - hochreiter1997', 'AU  - Hochreiter, Sepp', 'AU  - Schmidhuber, Jürgen', 'TI  - Long Short-Term Memory', 'PY  - 1997']
"""

from __future__ import annotations

import re

from recipekg.cite.entries import container, doi, kind, names, notes, page_range

_TYPES = {"inproceedings": "CPAPER", "article": "JOUR", "blog": "BLOG", "software": "COMP", "webpage": "ELEC"}


def ris_entry(p: dict) -> str:
    kind_ = kind(p)
    ty = _TYPES.get(kind_) or ("UNPB" if p.get("arxiv") else "GEN")
    people, complete = names(p)
    tags: list[tuple[str, str]] = [("TY", ty), ("ID", p["id"])]
    tags += [("AU", f"{n['family']}, {n['given']}" if n.get("given") else n["family"]) for n in people]
    tags.append(("TI", p["title"] or p["id"]))
    if p.get("year"):
        tags.append(("PY", str(p["year"])))
    where = container(p) or p.get("venue")
    if where:
        tags.append(("T2", where))
    if kind_ == "article" and container(p):
        tags.append(("JO", container(p)))
    first, last = page_range(p)
    tags += [(tag, v) for tag, v in (("VL", p.get("volume")), ("IS", p.get("number")), ("SP", first), ("EP", last),
                                     ("ET", p.get("version")), ("PB", p.get("publisher")), ("DO", doi(p)),
                                     ("UR", p.get("url"))) if v]
    if p.get("accessed"):
        tags.append(("Y2", p["accessed"].replace("-", "/")))
    tags += [("N1", n) for n in notes(p, complete)]
    lines = [f"{tag}  - {_one_line(value)}" for tag, value in tags]
    return "\n".join(lines + ["ER  - "])


def _one_line(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip()


def render_ris(bundle) -> str:
    return "\n\n".join(ris_entry(p) for p in bundle.papers) + "\n"
