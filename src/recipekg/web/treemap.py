"""The decision-tree map, like the reference's flowcharts: every data type, then every compute
tier, with the rules that start from it and the choices they lead to; then the rules that
hold whatever the data and the compute. Built from the snapshot, so an extension's rules
appear in it too.

    >>> data, tier = decision_tree(snap)["trees"]
    >>> [b["id"] for b in data["branches"]][:3], tier["branches"][0]["label"]
    (['audio', 'graph', 'images'], 'Single GPU, under 1 day')
    >>> any(r["id"] == "threshold-tabular-under-10k" for b in data["branches"] for r in b["rules"])
    True
"""

from __future__ import annotations

from recipekg.web.flow import human

#: The dimensions the reference's flowcharts start from: its master flowchart by data type and
#: its compute budget flowchart (by tier).
ROOTS = ("data", "tier")


def decision_tree(snap: dict) -> dict:
    """``trees``: one per root dimension (``dimension``, ``label``, ``branches``: one per value,
    each ``id``, ``label``, ``rules``); ``general``: the rules on none of the roots, grouped by
    the kind of choice they lead to. Every rule appears at least once."""
    placed: set[str] = set()
    trees = []
    for dim in ROOTS:
        if dim in snap["dimensions"]:
            trees.append(_tree(snap, dim, placed))
    general: dict[str, list[dict]] = {}
    for rule in snap["rules"].values():
        if rule["id"] not in placed:
            general.setdefault(_kind(snap, rule), []).append(_rule(snap, rule, ()))
    return {"trees": trees,
            "general": [{"kind": k, "rules": sorted(v, key=_order)} for k, v in sorted(general.items())]}


def _tree(snap: dict, dim: str, placed: set) -> dict:
    """The branches of one root dimension: a rule on a broader value ("visual") is shown under
    each narrower one (images, video)."""
    nodes, conditions = snap["nodes"], snap["conditions"]
    every = {iri for iri in snap["dimensions"][dim]["values"].values() if iri in nodes}
    broader = {a for m in every for a in nodes[m].get("ancestors", [])}
    values = sorted(every - broader, key=lambda iri: (_value_order(snap, iri), nodes[iri]["id"]))
    by_value: dict[str, list[dict]] = {iri: [] for iri in values}
    for iri, rule in snap["rules"].items():
        on = {v for c in rule["conditions"] if c in conditions and conditions[c]["dimension"] == dim
              for v in conditions[c]["values"]}
        for m in values:
            if on & {m, *nodes[m].get("ancestors", [])}:
                by_value[m].append(dict(_rule(snap, rule, ROOTS), iri=iri))
                placed.add(rule["id"])
    return {"dimension": dim, "label": snap["dimensions"][dim]["definition"] or dim,
            "branches": [_branch(snap, dim, nodes[m], by_value[m]) for m in values if by_value[m]]}


def _branch(snap: dict, dim: str, node: dict, rules: list[dict]) -> dict:
    """A value's branch, with the query that asks for the kind of choice most of its rules make."""
    kinds = [_kind(snap, snap["rules"][r["iri"]]) for r in rules]
    kind = max(sorted(set(kinds)), key=kinds.count)
    return {"id": node["id"], "label": node["label"], "rules": sorted(rules, key=_order),
            "ask": f"recommend {kind} where {dim} = {node['id']}" if kind in snap["kinds"] else None}


def _value_order(snap: dict, iri: str) -> tuple:
    """Compute tiers from the smallest (by the bounds of their conditions); other values by name."""
    tier = snap["tiers"].get(iri)
    if not tier:
        return ()
    conditions = [snap["conditions"][c] for c in tier["conditions"] if c in snap["conditions"]]
    return tuple(c["min"] if c["min"] is not None else (c["max"] or 0.0) for c in conditions)


def _rule(snap: dict, rule: dict, roots: tuple) -> dict:
    """A rule as the map shows it: its other conditions (not those on ``roots``), its label,
    strength and choices."""
    nodes, conditions = snap["nodes"], snap["conditions"]
    when = [conditions[c]["label"] for c in rule["conditions"]
            if c in conditions and conditions[c]["dimension"] not in roots]
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
