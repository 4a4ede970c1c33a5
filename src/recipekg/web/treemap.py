"""The decision-tree map: every data type, the rules that start from it and the choices they
lead to, like the reference's flowcharts; then the rules that hold whatever the data. Built
from the snapshot, so an extension's rules appear in it too.

    >>> tree = decision_tree(snap)
    >>> [b["id"] for b in tree["branches"]][:3]
    ['audio', 'graph', 'images']
    >>> any(r["id"] == "threshold-tabular-under-10k" for b in tree["branches"] for r in b["rules"])
    True
"""

from __future__ import annotations

from recipekg.web.flow import human

DATA = "data"


def decision_tree(snap: dict) -> dict:
    """``branches``: one per data type (``id``, ``label``, ``rules``); ``general``: the
    rules without a data condition, grouped by the kind of choice they lead to."""
    nodes, conditions = snap["nodes"], snap["conditions"]
    every = {iri for iri in snap["dimensions"][DATA]["values"].values() if iri in nodes}
    broader = {a for m in every for a in nodes[m].get("ancestors", [])}
    modalities = sorted(every - broader, key=lambda iri: nodes[iri]["id"])  # "visual": under images and video
    by_data: dict[str, list[dict]] = {iri: [] for iri in modalities}
    general: dict[str, list[dict]] = {}
    for iri, rule in snap["rules"].items():
        data = {v for c in rule["conditions"] if c in conditions and conditions[c]["dimension"] == DATA
                for v in conditions[c]["values"]}
        entry = _rule(snap, rule)
        if not data:
            general.setdefault(_kind(snap, rule), []).append(entry)
            continue
        for m in modalities:  # a rule on "visual" belongs to images and to video
            if data & {m, *nodes[m].get("ancestors", [])}:
                by_data[m].append(entry)
    branches = [{"id": nodes[m]["id"], "label": nodes[m]["label"], "rules": sorted(by_data[m], key=_order)}
                for m in modalities if by_data[m]]
    return {"branches": branches,
            "general": [{"kind": k, "rules": sorted(v, key=_order)} for k, v in sorted(general.items())]}


def _rule(snap: dict, rule: dict) -> dict:
    nodes, conditions = snap["nodes"], snap["conditions"]
    when = [conditions[c]["label"] for c in rule["conditions"]
            if c in conditions and conditions[c]["dimension"] != DATA]
    section = snap["sections"].get(rule["section"], {}).get("path", "")
    bounds = [b for c in rule["conditions"] if c in conditions
              for b in (conditions[c]["min"], conditions[c]["max"]) if b is not None]
    return {"id": rule["id"], "label": human(rule["label"] or rule["id"]), "when": when, "section": section,
            "threshold": min(bounds) if bounds else None,
            "strength": (snap["strengths"].get(rule["strength"]) or {}).get("label"),
            "for": [_choice(nodes, x) for x in rule["recommends"] if x in nodes],
            "against": [_choice(nodes, x) for x in rule["against"] if x in nodes]}


def _choice(nodes: dict, iri: str) -> dict:
    return {"id": nodes[iri]["id"], "label": nodes[iri]["label"]}


def _kind(snap: dict, rule: dict) -> str:
    """The kind of choice a rule leads to (architecture, optimizer, ...), else "other"."""
    for iri in rule["recommends"] + rule["against"]:
        kinds = (snap["nodes"].get(iri) or {}).get("kinds") or []
        if kinds:
            return kinds[0]
    return "other"


def _order(entry: dict) -> tuple:
    """By section; within it, rules with a size threshold first, smallest first."""
    t = entry["threshold"]
    return (entry["section"], t is None, t or 0.0, entry["label"])
