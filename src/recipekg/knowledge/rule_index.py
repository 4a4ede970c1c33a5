"""The rule index: rules by kind, dimension and value, compiled into the snapshot so that a
query evaluates only the rules that could apply to it
(:func:`recipekg.reason.backend.candidates`), never the whole KB.

    >>> index = index_rules(snap)
    >>> "gradient-boosted-trees" in {snap["nodes"][i]["id"] for i in index["choices"].values()}
    True
"""

from __future__ import annotations

from collections import defaultdict


def index_rules(snap: dict) -> dict:
    """Rules indexed by kind, dimension and value.

    Per kind (a rule belongs to every kind one of its targets has), positions into that
    kind's ``rules`` list (in the order of ``snap["rules"]``: sorted, so found by bisection):

    - ``always``: rules without conditions (general advice, they always apply) and rules
      naming a condition the KB does not describe (evaluated, so they fail as they would);
    - ``exact[dim][v]``: rules with a condition on ``dim`` that lists the value ``v``;
    - ``under[dim][v]``: rules with such a condition listing a value narrower than ``v``;
    - ``numeric[dim]``: ``[[cats, [[min, min_inclusive, max, max_inclusive, positions], ...]],
      ...]``: rules with a condition on ``dim`` bounded by ``min`` and ``max`` (each included
      or not, as the condition says; None: unbounded), grouped by ``cats``, the dimensions of
      the rule's value-listing conditions (a query that gives values for one of those
      reaches the rule through ``exact``/``under`` or the rule cannot apply).

    Also ``by_target[iri]``: the rules recommending or advising against ``iri`` (sorted);
    ``choices``: every name of a choice (id or alias) -> its IRI, as ``explain`` reads them;
    ``by_dimension[dim]``: the rules with a condition on ``dim`` (sorted), as ``plan`` reads them;
    ``narrower[iri]``: the choices narrower than ``iri`` (sorted), which a rule against a family reaches;
    ``by_kind[kind]``: the choices of ``kind`` (sorted), so that listing them reads no node.

    Per kind also ``rows``, beside ``rules`` (same positions): each rule as the ranking reads it
    (:func:`rank_row`), so that ranking a kind decodes its rules' rows, not the whole rule map;
    and ``dimensions``: ``[[dim, positions], ...]``, the dimensions its rules' conditions are on,
    the most read first, with the rules reading each, where an answer no rule reaches starts.
    """
    nodes, conditions = snap["nodes"], snap["conditions"]
    kinds: dict[str, dict] = {}
    numeric: dict[str, dict] = {}  # kind -> dim -> cats -> (min, min_inc, max, max_inc) -> positions
    reading: dict[str, dict[str, set]] = {}  # kind -> dim -> positions of the rules with a condition on it
    by_target: dict[str, list[str]] = defaultdict(list)
    for iri, rule in snap["rules"].items():
        targets = rule["recommends"] + rule["against"]
        for t in dict.fromkeys(targets):
            by_target[t].append(iri)
        rule_kinds = {k for t in targets for k in nodes.get(t, {}).get("kinds", ())}
        conds = rule["conditions"]
        known = all(c in conditions for c in conds)
        cats = sorted({conditions[c]["dimension"] for c in conds if known and conditions[c]["values"]},
                      key=str)
        for kind in sorted(rule_kinds):
            entry = kinds.setdefault(kind, {"rules": [], "rows": [], "always": [], "exact": {}, "under": {},
                                            "numeric": {}})
            pos = len(entry["rules"])
            for c in conds if known else ():
                if conditions[c]["dimension"]:
                    reading.setdefault(kind, {}).setdefault(conditions[c]["dimension"], set()).add(pos)
            entry["rules"].append(iri)
            entry["rows"].append(rank_row(rule, kind, nodes))  # the rule as ranking the kind reads it
            if not conds or not known:
                entry["always"].append(pos)
                continue
            for c in conds:
                cond = conditions[c]
                dim = cond["dimension"]
                if dim is None:
                    continue  # never established: the query cannot name it
                if cond["values"]:
                    for v in cond["values"]:
                        _add(entry["exact"].setdefault(dim, {}), v, pos)
                        for a in nodes.get(v, {}).get("ancestors", ()):
                            _add(entry["under"].setdefault(dim, {}), a, pos)
                else:
                    boxes = numeric.setdefault(kind, {}).setdefault(dim, {}).setdefault(tuple(cats), {})
                    _add(boxes, (cond["min"], cond["min_inclusive"], cond["max"], cond["max_inclusive"]), pos)
    for kind, entry in kinds.items():
        entry["dimensions"] = sorted(([d, sorted(ps)] for d, ps in reading.get(kind, {}).items()),
                                     key=lambda x: (-len(x[1]), x[0]))
    for kind, dims in numeric.items():
        kinds[kind]["numeric"] = {dim: [[list(cats), [[*box, positions] for box, positions in boxes.items()]]
                                        for cats, boxes in groups.items()]
                                  for dim, groups in dims.items()}
    return {"kinds": kinds, "by_target": {t: sorted(rs) for t, rs in sorted(by_target.items())},
            "choices": _choice_names(nodes), "by_dimension": _by_dimension(snap), **_by_choice(nodes),
            "of_method": _of_method(snap)}


def _of_method(snap: dict) -> dict[str, list[str]]:
    """Each kind's choices that a property ties to training methods (``rkg:methodFor``, one-of,
    always checked): those that may be one method, taken as the user would take it
    (:mod:`recipekg.reason.taking`), which a decisive ranking looks up without reading every
    property or node of the kind."""
    props, nodes = snap.get("choice_properties") or {}, snap["nodes"]
    out: dict[str, set[str]] = defaultdict(set)
    for p in props.values():
        check = p.get("check")
        if check and check["dimension"] == "method" and p["test"] == "one-of" and not p["when"] and p["of"] in nodes:
            for kind in nodes[p["of"]]["kinds"]:
                out[kind].add(p["of"])
    return {k: sorted(v) for k, v in sorted(out.items())}


def _choice_names(nodes: dict) -> dict[str, str]:
    """Every name of a choice (id or alias) -> its IRI; an id wins over another's alias."""
    choices: dict[str, str] = {}
    for iri, node in nodes.items():
        if node["kinds"]:
            for alias in node["aliases"]:
                choices.setdefault(alias, iri)
    for iri, node in nodes.items():
        if node["kinds"]:
            choices[node["id"]] = iri
    return choices


def _by_dimension(snap: dict) -> dict[str, list[str]]:
    """Each dimension -> the rules with a condition on it (sorted)."""
    conditions = snap["conditions"]
    by_dimension: dict[str, set[str]] = defaultdict(set)
    for iri, rule in snap["rules"].items():
        for c in rule["conditions"]:
            if conditions.get(c, {}).get("dimension"):
                by_dimension[conditions[c]["dimension"]].add(iri)
    return {d: sorted(rs) for d, rs in sorted(by_dimension.items())}


#: What a rule's row leaves out: what only an answer shows (its label and text, filled in for the
#: entries shown: :func:`recipekg.reason.recommend.dress`), its papers' citations, and targets
#: (``targets`` says which choices of the row's kind it names, and on which side).
LEFT_OUT = ("label", "text", "citations", "differs_from", "recommends", "against")


def rank_row(rule: dict, kind: str, nodes: dict) -> dict:
    """``rule`` as ranking ``kind`` reads it: its fields but :data:`LEFT_OUT`, its sources only
    when an extension added it (what the scoring counts its evidence by), and ``targets``:
    ``[choice, side]`` for each choice of ``kind`` it recommends (``for``) or advises against
    (none when ``rkg:forKind`` keeps it from ranking ``kind``), as
    :meth:`recipekg.reason.backend.NativeBackend.applying` pairs them.

    >>> rule = {"id": "r", "label": "R", "text": "...", "recommends": ["a", "b"], "against": ["c"],
    ...         "for_kinds": [], "sources": ["p"], "conditions": []}
    >>> rank_row(rule, "k", {"a": {"kinds": ["k"]}, "b": {"kinds": ["j"]}, "c": {"kinds": ["k"]}})
    {'id': 'r', 'for_kinds': [], 'conditions': [], 'targets': [['a', 'for'], ['c', 'against']]}
    """
    row = {k: v for k, v in rule.items() if k not in LEFT_OUT and (k != "sources" or rule.get("origin"))}
    ranks = not rule.get("for_kinds") or kind in rule["for_kinds"]
    row["targets"] = [[t, side] for side, named in (("for", rule["recommends"]), ("against", rule["against"]))
                      for t in named if ranks and kind in nodes.get(t, {}).get("kinds", ())]
    return row


def _by_choice(nodes: dict) -> dict:
    """``narrower`` (the choices narrower than each node) and ``by_kind`` (each kind's choices)."""
    narrower: dict[str, list[str]] = defaultdict(list)
    by_kind: dict[str, list[str]] = defaultdict(list)
    for iri, node in nodes.items():
        for kind in node["kinds"]:
            by_kind[kind].append(iri)
        if node["kinds"]:
            for a in node.get("ancestors", ()):
                narrower[a].append(iri)
    return {"by_kind": {k: sorted(iris) for k, iris in sorted(by_kind.items())},
            "narrower": {a: sorted(ds) for a, ds in sorted(narrower.items())}}


def _add(index: dict, key, pos: int) -> None:
    positions = index.setdefault(key, [])
    if not positions or positions[-1] != pos:
        positions.append(pos)
