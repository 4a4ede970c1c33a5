"""The word list of the query language, from the snapshot: every dimension with its spellings,
unit, meaning and an example; every value of a categorical dimension with its label, its
spellings and the values broader and narrower than it; every choice of every kind.

    >>> from recipekg.reason.vocab import vocabulary
    >>> doc = vocabulary(snap)
    >>> data = next(d for d in doc["dimensions"] if d["name"] == "data")
    >>> data["example"], "modality" in data["aliases"]
    ('data = tabular', True)
    >>> images = next(v for v in data["values"] if v["id"] == "images")
    >>> images["broader"], [d["name"] for d in vocabulary(snap, "rows")["dimensions"]]
    (['visual'], ['samples'])

``recipekg vocab``, ``GET /api/vocab`` and :meth:`recipekg.api.KnowledgeBase.vocab` give
this document; the renderers are in :mod:`recipekg.render.vocab`. Nothing here is written
by hand: a dimension or value added to the KB appears in it.
"""

from __future__ import annotations

from recipekg.errors import VocabularyError, closest
from recipekg.query.lean import KEYWORDS, STATEMENT_KEYWORDS
from recipekg.reason.facts import unit_of
from recipekg.reason.resolve import dimension_names, no_advice

__all__ = ["vocabulary", "OPERATORS"]

#: The comparison operators of the language (docs: the contract's grammar).
from recipekg.query.ast import OPERATORS  # noqa: E402  (re-exported)


def vocabulary(snap: dict, dimension: str | None = None) -> dict:
    """The vocabulary document (plain JSON types). With ``dimension`` (any spelling of
    one), only that dimension and no choices; an unknown one is a
    :class:`~recipekg.errors.VocabularyError` with suggestions."""
    dims = sorted(snap["dimensions"].values(), key=lambda d: (d.get("order") or 0, d["name"]))
    if dimension is not None:
        names = dimension_names(snap)
        if dimension.lower() not in names:
            raise VocabularyError(f"unknown dimension '{dimension}'",
                                  expected=["one of " + ", ".join(d["name"] for d in dims)],
                                  suggestions=closest(dimension.lower(), names))
        dims = [snap["dimensions"][names[dimension.lower()]]]
    return {
        "statements": list(STATEMENT_KEYWORDS),
        "keywords": list(KEYWORDS),
        "operators": list(OPERATORS),
        "dimensions": [_dimension(d, snap) for d in dims],
        "kinds": [] if dimension is not None else _kinds(snap),
    }


def _dimension(dim: dict, snap: dict) -> dict:
    out = {
        "name": dim["name"], "label": dim["label"], "aliases": sorted(dim["aliases"]),
        "kind": dim["kind"], "unit": unit_of(dim), "definition": dim["definition"],
        "example": dim.get("example"), "min": dim["min"], "max": dim["max"],
        "plan_only": dim["plan_only"],
        "derived_from": "hardware" if dim["derived_via"] else " and ".join(dim.get("derived_from") or ()) or None,
    }
    if dim["kind"] == "categorical":
        out["values"] = _values(dim, snap)
    if dim.get("origin"):       # (what an extension added says so: hostile round 8, 018)
        out["origin"] = dim["origin"]
    return out


def _values(dim: dict, snap: dict) -> list[dict]:
    """The values of a categorical dimension, each once, by id."""
    nodes = snap["nodes"]
    spellings: dict[str, list[str]] = {}
    for name, iri in dim["values"].items():
        spellings.setdefault(iri, []).append(name)
    narrower: dict[str, list[str]] = {}   # (IRIs)
    for iri in spellings:
        for b in nodes[iri]["broader"]:
            narrower.setdefault(b, []).append(iri)
    values = []
    for iri, names in spellings.items():
        node = nodes[iri]
        value = {"id": node["id"], "label": node["label"],
                 "aliases": sorted(n for n in names if n != node["id"]),
                 "definition": node.get("definition"),
                 "broader": sorted(nodes[b]["id"] for b in node["broader"] if b in nodes),
                 "narrower": sorted(nodes[n]["id"] for n in narrower.get(iri, ()))}
        implied = [w for w in node.get("implies") or () if w in nodes]
        if implied:
            value["implies"] = sorted(f"{_dimension_of(w, snap)} = {nodes[w]['id']}" for w in implied)
        if node.get("no_advice"):
            value["no_advice"] = no_advice(iri, snap)
        if node.get("origin"):
            value["origin"] = node["origin"]
        related = {nodes[r]["id"]: nodes[r]["origin"] for r in [*node["broader"], *narrower.get(iri, ())]
                   if r in nodes and nodes[r].get("origin")}
        if related:
            value["related_origins"] = dict(sorted(related.items()))
        values.append(value)
    return sorted(values, key=lambda v: v["id"])


def _dimension_of(value: str, snap: dict) -> str:
    """The name of the dimension whose values ``value`` is one of."""
    return next((name for name, d in snap["dimensions"].items() if value in d["values"].values()), "?")


def _kinds(snap: dict) -> list[dict]:
    """Every kind of choice with its choices (id, label, spellings), by id."""
    by_kind: dict[str, dict[str, dict]] = {k: {} for k in sorted(snap["kinds"])}
    for name, iri in snap["rule_index"]["choices"].items():
        node = snap["nodes"][iri]
        for kind in node["kinds"]:
            entry = by_kind.setdefault(kind, {}).setdefault(node["id"], {
                "id": node["id"], "label": node["label"], "aliases": [],
                "definition": node.get("definition"), **({"origin": node["origin"]} if node.get("origin") else {})})
            if name != node["id"]:
                entry["aliases"].append(name)
    return [{"kind": k, "choices": [dict(c, aliases=sorted(c["aliases"])) for _, c in sorted(choices.items())]}
            for k, choices in by_kind.items()]
