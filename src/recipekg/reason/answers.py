"""The JSON of answers (the contract of ../shared/spec/query-language.md), built in one place
for every backend: constraints, reasons, papers, ranked results.

    >>> paper_json("grinsztajn2022", snap)["year"]
    2022
"""

from __future__ import annotations

from recipekg.reason.scoring import best_match, rank_key, score


def constraints_json(facts: dict) -> list[dict]:
    """The constraints as given (and derived: ``derived_from``), without their source text."""
    out = []
    for f in facts.values():
        out.extend({k: v for k, v in c.items() if k != "text"} | ({"derived_from": f.derived} if f.derived else {})
                   for c in f.constraints)
    return out


def reason_json(iri: str, rule: dict, ev: dict, snap: dict) -> dict:
    """One rule as a reason for (or against) a choice, with its evaluation and sources."""
    return {
        "rule": iri, "id": rule["id"], "label": rule["label"], "text": rule["text"],
        "strength": snap["strengths"][rule["strength"]]["label"], "match": ev["match"],
        "contribution": round(ev["contribution"], 4),
        "conditions": [{"condition": c["label"], "dimension": c["dimension"], "status": s}
                       for c, s in zip(ev["conditions"], ev["statuses"])],
        "section": snap["sections"][rule["section"]]["path"],
        "sources": [paper_json(p, snap) for p in rule["sources"]],
        "disputed_by": [disputed_json(c, snap) for c in rule["contradicts"]],
        **({"step": int(rule["step"])} if rule["step"] is not None else {}),
    }


def disputed_json(iri: str, snap: dict) -> dict:
    other = snap["rules"][iri]
    return {"rule": iri, "id": other["id"], "text": other["text"],
            "section": snap["sections"][other["section"]]["path"]}


def paper_json(pid: str, snap: dict) -> dict:
    p = snap["papers"][pid]
    return {"id": pid, "title": p["title"], "year": p["year"], "arxiv": p["arxiv"], "url": p["url"]}


def choice_json(iri: str, snap: dict) -> dict:
    """A choice as answers name it: id, label, IRI, kinds and the papers that introduced it."""
    node = snap["nodes"][iri]
    return {"id": node["id"], "label": node["label"], "iri": iri, "kinds": node["kinds"],
            "papers": [paper_json(p, snap) for p in node["papers"]]}


def result_json(iri: str, entry: dict, snap: dict) -> dict:
    """A ranked result (rank filled in by :func:`order_results`) from its reasons."""
    for side in ("because", "against"):
        entry[side].sort(key=lambda r: (-r["contribution"], r["id"]))
    total, support = score(entry["because"], entry["against"])
    choice = choice_json(iri, snap)
    return {"rank": 0, "id": choice["id"], "label": choice["label"], "iri": iri, "kinds": choice["kinds"],
            "score": total, "support": support, "match": best_match(entry["because"]),
            "papers": choice["papers"], "because": entry["because"], "against": entry["against"]}


def order_results(choices: dict[str, dict], snap: dict) -> list[dict]:
    """Choice → {"because": [...], "against": [...]} reasons, as ranked results."""
    results = sorted((result_json(iri, entry, snap) for iri, entry in choices.items()), key=rank_key)
    for i, r in enumerate(results, 1):
        r["rank"] = i
        del r["support"]
    return results
