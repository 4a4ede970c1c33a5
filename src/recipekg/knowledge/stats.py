"""Counts that show what the knowledge base holds and which sections it covers.

    >>> s = stats(snap)
    >>> s["uncovered_sections"]
    []
"""

from __future__ import annotations

from collections import Counter

from recipekg.knowledge.terms import local_name
from recipekg.knowledge.view import of_reference


def stats(snap: dict, triple_count: int | None = None) -> dict:
    """Counts per class, per kind, per section; the sections with nothing encoded."""
    per_class = Counter(local_name(t) for node in snap["nodes"].values() for t in node["types"])
    per_kind = Counter(k for node in snap["nodes"].values() for k in node["kinds"])
    claims = [("rule", snap["rules"]), ("formula", snap["formulas"]),
              ("constant", snap["constants"]), ("fact", snap["facts"])]
    per_section = {s: Counter() for s in snap["sections"]}
    for what, items in claims:
        for item in items.values():
            if item["section"] in per_section:
                per_section[item["section"]][what] += 1
    for paper in snap["papers"].values():
        for s in paper.get("sections", []):
            per_section[s]["paper"] += 1
    _roll_up(per_section, snap["sections"])
    ordered = sorted(snap["sections"], key=lambda s: snap["sections"][s]["order"] or 0)
    return {
        "triples": triple_count,
        "classes": dict(sorted(per_class.items())),
        "kinds": dict(sorted(per_kind.items())),
        "rules": len(snap["rules"]), "conditions": len(snap["conditions"]),
        "papers": len(snap["papers"]), "dimensions": len(snap["dimensions"]),
        "sections": [{"section": snap["sections"][s]["path"], "counts": dict(per_section[s]),
                      "of_reference": of_reference(s, snap["sections"])} for s in ordered],
        "uncovered_sections": [snap["sections"][s]["path"] for s in ordered if not per_section[s]],
        "superseded": superseded(snap),
    }


def superseded(snap: dict) -> list[dict]:
    """Every claim a newer source revises, with the claim that revises it (both stay in the KB)."""
    tables = {"rule": snap["rules"], "formula": snap["formulas"], "constant": snap["constants"], "fact": snap["facts"]}
    by_iri = {iri: (kind, c) for kind, t in tables.items() for iri, c in t.items()}
    out = []
    for kind, table in tables.items():
        for claim in table.values():
            for iri in claim.get("superseded_by", ()):
                newer = by_iri.get(iri, (None, {"id": iri, "label": iri, "sources": []}))[1]
                out.append({"kind": kind, "claim": claim["id"], "label": claim["label"], "sources": claim["sources"],
                            "superseded_by": newer["id"], "superseded_by_label": newer["label"],
                            "superseded_by_sources": newer["sources"],
                            **({"origin": claim["origin"]} if claim.get("origin") else {}),
                            **({"superseded_by_origin": newer["origin"]} if newer.get("origin") else {})})
    return sorted(out, key=lambda x: (x["kind"], x["claim"]))


def _roll_up(per_section: dict, sections: dict) -> None:
    """A heading counts what its subsections hold under 'in subsections' (deepest first)."""
    for s in sorted(sections, key=lambda s: -(sections[s]["order"] or 0)):
        parent = sections[s]["parent"]
        if parent in per_section and (total := sum(per_section[s].values())):
            per_section[parent]["in subsections"] += total
