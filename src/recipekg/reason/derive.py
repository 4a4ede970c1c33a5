"""Facts the query implies: hardware → its memory and bandwidth; gpus + time → compute tier.

Which dimensions derive from the hardware is data (``rkg:derivedVia`` in the ontology); a
dimension whose values are defined by conditions on others (``derived_from``: compute tiers,
KB nodes with conditions on gpus and time) is derived from those::

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> facts = resolve_constraints(parse("plan where gpus = 1 and time < 1 day")[0].constraints, snap)
    >>> sorted(derive(facts, snap)["tier"].values)
    ['https://w3id.org/recipekg/id/single-gpu-short']
"""

from __future__ import annotations

from recipekg.reason.conditions import FAILED, HELD, status
from recipekg.reason.facts import Facts, constraint_json


def derive(facts: dict[str, Facts], snap: dict) -> dict[str, Facts]:
    facts = dict(facts)
    _from_hardware(facts, snap)
    for name in snap.get("derived_dimensions", ()):
        dim = snap["dimensions"][name]
        if name not in facts and set(dim["derived_from"]) & set(facts):
            _from_conditions(name, dim, facts, snap)
    return facts


def _from_hardware(facts: dict[str, Facts], snap: dict) -> None:
    hw = facts.get("hardware")
    if hw is None or hw.values is None:
        return
    for name, dim in snap["dimensions"].items():
        prop = dim.get("derived_via")
        if not prop or name in facts:
            continue
        figures = [snap["hardware"].get(h, {}).get(prop) for h in sorted(hw.values)]
        if any(v is None for v in figures):
            continue  # e.g. a bf16 peak the vendor has not published
        distinct = sorted(set(figures))
        shown = constraint_json(dim, "=", distinct[0]) if len(distinct) == 1 else constraint_json(dim, "in", distinct)
        facts[name] = Facts(name, dim["kind"], intervals=[(v, True, v, True) for v in distinct],
                            derived="hardware", constraints=[shown])


def _from_conditions(name: str, dim: dict, facts: dict[str, Facts], snap: dict) -> None:
    """The values of ``dim`` whose conditions the facts meet (all of them: a run can be in two
    overlapping tiers), or those they rule out."""
    held, failed, mine = set(), set(), set(dim["values"].values())
    for iri, defined in snap["tiers"].items():
        if iri not in mine:
            continue
        statuses = [status(snap["conditions"][c], facts, snap) for c in defined["conditions"]]
        if statuses and all(s == HELD for s in statuses):
            held.add(iri)
        elif FAILED in statuses:
            failed.add(iri)
    derived = " and ".join(dim["derived_from"])
    if held:
        shown = (constraint_json(dim, "=", _ids(held, snap)[0]) if len(held) == 1 else
                 constraint_json(dim, "all of", _ids(held, snap)))
        facts[name] = Facts(name, dim["kind"], values=held, all_of=True, derived=derived, constraints=[shown])
    elif failed:
        facts[name] = Facts(name, dim["kind"], excluded=failed, derived=derived,
                            constraints=[constraint_json(dim, "not in", _ids(failed, snap))])


def _ids(iris, snap) -> list[str]:
    return sorted(snap["nodes"][i]["id"] for i in iris)
