"""Plan's look-up tables, compiled into the snapshot with it (``snap["plan_index"]``, built by
:func:`recipekg.knowledge.compiler.compile_graph`), so that a plan reads the constants,
formulas and facts it uses and not every one of them: constants by symbol, by the entity they
apply to and by id, formulas by output and by id, facts by type and by id, and the MFUs of the
published runs (:func:`recipekg.plan.utilisation.points`, which computes 48 formulas over every
fact: a tenth of a cold plan)::

    >>> index = plan_index(snap)
    >>> snap["constants"][index["constants_by_symbol"]["c_chinchilla_tokens_per_param"]]["value"]
    20.0
    >>> [snap["formulas"][i]["id"] for i in index["formulas_by_output"]["flops"]][:3]
    ['frozen-base-training-flops', 'training-flops', 'training-flops-active']
    >>> sorted({p["basis"] for p in index["mfu_points"]})
    ['steady state (stated or from throughput)', 'total GPU-hours']

Every table holds IRIs (the entries stay where they are) in the order the whole-table scans
they replace would meet them, so a look-up finds what the scan found. Only the MFUs are
values: computed by plan's own code on the snapshot being compiled, whose modules are then
part of the cache's key (:func:`recipekg.knowledge.snapshot.code_files`), so a change of that
code rebuilds them. When the MFUs cannot be computed (a published run whose arithmetic
overflows, a broken formula), the table holds None and every plan computes them as before, so
it stops with the same error at the same point.
"""

from __future__ import annotations

#: The types of fact plan lists (the others need no list: every fact is a ``Fact``, and the list
#: would be in the core, which every command decodes).
INDEXED_TYPES = ("ComputeEstimate",)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the snapshot's types, for the type checker only
    from recipekg.contracts.snapshot import PlanIndex


def plan_index(snap: dict) -> PlanIndex:
    """The tables of a compiled snapshot (plain data, for the snapshot)."""
    index = _look_ups(snap)
    index["mfu_points"] = _mfu_points(dict(snap, plan_index=index))
    return index


def _look_ups(snap: dict) -> PlanIndex:
    by_symbol: dict[str, str] = {}
    by_entity: dict[str, list[str]] = {}
    constant_ids: dict[str, str] = {}
    for iri, c in snap["constants"].items():  # in the table's order, as KBView read them
        if c["symbol"]:
            by_symbol[c["symbol"]] = iri  # the last one, as KBView's dict kept it
        for entity in c["applies_to"]:
            by_entity.setdefault(entity, []).append(iri)
        constant_ids.setdefault(c["id"], iri)  # the first one, as a scan by id finds it
    by_output: dict[str, list[str]] = {}
    formula_ids: dict[str, str] = {}
    broken = None
    for iri, f in sorted(snap["formulas"].items()):  # KBView's order
        if not f["expression"]:
            continue
        if f.get("error") and broken is None:
            broken = iri  # KBView stops at the first formula that does not read
        by_output.setdefault(f["computes"], []).append(iri)
        formula_ids.setdefault(f["id"], iri)
    by_type: dict[str, list[str]] = {}
    fact_ids: dict[str, str] = {}
    for iri, f in snap["facts"].items():
        for t in dict.fromkeys(f["types"]):  # each type once, as a test of membership finds it
            if t in INDEXED_TYPES:
                by_type.setdefault(t, []).append(iri)
        fact_ids.setdefault(f["id"], iri)
    recipes = sorted([f["params"], iri] for iri, f in snap["facts"].items()
                     if f.get("params") and f.get("learning_rate") and f.get("batch_tokens"))
    return {"constants_by_symbol": by_symbol, "constants_by_entity": by_entity, "constant_ids": constant_ids,
            "formulas_by_output": by_output, "formula_ids": formula_ids, "broken_formula": broken,
            "facts_by_type": by_type, "fact_ids": fact_ids, "recipes_by_params": recipes, "mfu_points": None}


def _mfu_points(snap: dict) -> list[dict] | None:
    """The published runs' MFUs (:func:`recipekg.plan.utilisation.compiled_points`), or None
    when computing them fails (then each plan computes them, and fails, as before)."""
    from recipekg.plan.kbview import KBView
    from recipekg.plan.ledger import Ledger
    from recipekg.plan.utilisation import compiled_points

    try:
        return compiled_points(Ledger(KBView(snap)))
    except Exception:  # whatever it is, a plan meets it again, computing them itself
        return None
