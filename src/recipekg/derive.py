"""Facts the query implies: hardware → its memory and bandwidth; gpus + time → compute tier.

Which dimensions derive from the hardware is data (``rkg:derivedVia`` in the ontology);
compute tiers are KB nodes with conditions on gpus and time::

    >>> derive(resolve_constraints(parse("plan where gpus = 1 and time < 1 day")[0].constraints, snap), snap)["tier"].values
    {'https://w3id.org/recipekg/id/single-gpu-short'}         # doctest: +SKIP
"""

from __future__ import annotations

from .conditions import FAILED, HELD, status
from .vocabulary import Facts


def derive(facts: dict[str, Facts], snap: dict) -> dict[str, Facts]:
    facts = dict(facts)
    _from_hardware(facts, snap)
    _tier(facts, snap)
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
        facts[name] = Facts(name, dim["kind"], intervals=[(v, True, v, True) for v in sorted(set(figures))],
                            derived="hardware",
                            constraints=[{"dimension": name, "op": "=" if len(set(figures)) == 1 else "in",
                                          "value": figures[0] if len(set(figures)) == 1 else sorted(set(figures))}])


def _tier(facts: dict[str, Facts], snap: dict) -> None:
    if "tier" in facts or not snap["tiers"] or not ({"gpus", "time"} & set(facts)):
        return
    held, failed = set(), set()
    for iri, tier in snap["tiers"].items():
        statuses = [status(snap["conditions"][c], facts, snap) for c in tier["conditions"]]
        if statuses and all(s == HELD for s in statuses):
            held.add(iri)
        elif FAILED in statuses:
            failed.add(iri)
    if held:
        facts["tier"] = Facts("tier", "categorical", values=held, all_of=True, derived="gpus and time", constraints=[
            {"dimension": "tier", "op": "=" if len(held) == 1 else "all of",
             "value": _ids(held, snap) if len(held) > 1 else _ids(held, snap)[0]}])
    elif failed:
        facts["tier"] = Facts("tier", "categorical", excluded=failed, derived="gpus and time", constraints=[
            {"dimension": "tier", "op": "not in", "value": _ids(failed, snap)}])


def _ids(iris, snap) -> list[str]:
    return sorted(snap["nodes"][i]["id"] for i in iris)
