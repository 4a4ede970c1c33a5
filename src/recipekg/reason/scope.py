"""Values given whose KB entry is about other runs: a failure mode the reference describes
under a condition (``rkg:condition``: NaN in fp16 is a fp16 run's failure; the loss spikes of
its table were "observed in large-scale training", so pretraining runs) that the user's own
constraints contradict. Its advice comes from runs unlike theirs, and the answer says so
beside the constraints instead of ranking on as if nothing were amiss (audit 5/12: a loss spike
in a LoRA fine-tune was given PaLM's pretraining procedure with ``method = lora`` unmentioned;
5/13: a NaN in a bf16 run ended in "No pick" without saying why every fix was ruled out)::

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend fix where symptom = loss-spike and method = lora")[0].constraints, snap)
    >>> [(s["value"], s["condition"], s["because_of"][0]["value"]) for s in out_of_scope(facts, snap)]
    [('loss-spike', 'method = pretrain', 'lora')]
    >>> out_of_scope(facts_of(parse("recommend fix where symptom = loss-spike")[0].constraints, snap), snap)
    []
"""

from __future__ import annotations

from recipekg.reason.answers import shown_constraint
from recipekg.reason.conditions import FAILED, status
from recipekg.render.constraints import format_constraint

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import Unused
    from recipekg.contracts.recommend import OutOfScope


def out_of_scope(facts: dict, snap: dict) -> list[OutOfScope]:
    """For each failure mode the user gave (not derived) whose condition their constraints
    contradict: the mode, the condition's label and the constraints that contradict it."""
    modes = snap.get("failure_modes") or {}
    out: list[OutOfScope] = []
    for name, f in sorted(facts.items()):
        if f.derived or not f.values:
            continue
        for value in sorted(f.values):
            for c in modes.get(value, ()):
                cond = snap["conditions"].get(c)
                if cond is None or status(cond, facts, snap) != FAILED:
                    continue
                node, against = snap["nodes"][value], facts[cond["dimension"]]
                entry: OutOfScope = {"dimension": name, "value": node["id"], "label": node["label"],
                                     "condition": cond["label"],
                                     "because_of": [shown_constraint(x) for x in against.constraints]}
                if node.get("origin"):  # an extension's failure mode: its entry, not the reference's
                    entry["origin"] = node["origin"]
                out.append(entry)
    return out


def unrunnable(facts: dict, snap: dict) -> tuple[dict, list[Unused]]:
    """``(facts, unused)``: the facts without each value given that the hardware does not run
    (``rkg:runsOn``: a precision given against the tensor cores' precisions, when they are known
    in full: derived from the hardware), derived again without it, and why each was left aside.
    A run in fp8 on an A100 is no run its tensor cores do: the advice reads the hardware, not the
    premise it does not meet. A value no hardware of the KB states (fp32), or one that a part
    among several given runs (``hardware in (a100, h100)`` and fp8), is not checked.

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend technique where hardware = a100 and precision = fp8")[0].constraints, snap)
    >>> kept, unused = unrunnable(facts, snap)
    >>> "precision" in kept, unused[0]["why"][:56]
    (False, 'it runs where tensor-precision holds fp8, and hardware =')
    >>> unrunnable(facts_of(parse("recommend technique where hardware = h100 and precision = fp8")[0].constraints, snap), snap)[1]
    []
    """
    out: list[Unused] = []
    for name, f in facts.items():
        on = snap["dimensions"][name].get("runs_on")
        held = facts.get(on) if on else None
        if f.derived or not f.values or held is None or not held.all_of or held.values is None:
            continue
        via = snap["dimensions"][on].get("derived_via")
        source = facts.get(held.derived)
        some = _stated(via, snap, source.values if source and source.values else None)  # (what any part given runs)
        if not f.values <= _stated(via, snap) or f.values & (some or held.values):
            continue  # (a value no hardware states, or one a part given runs: hardware in (a100, h100) and fp8)
        nodes = snap["nodes"]
        runs = ", ".join(sorted(nodes.get(v, {}).get("id", v) for v in held.values))
        c = shown_constraint(f.constraints[0])
        given = format_constraint(c)
        source = "; ".join(format_constraint(shown_constraint(x)) for x in facts[held.derived].constraints) \
            if held.derived in facts else held.derived
        out.append({"dimension": name, "op": c.get("op", "="), "value": c["value"],
                    "why": f"it runs where {on} holds {' or '.join(sorted(nodes.get(v, {}).get('id', v) for v in f.values))}"
                           f", and {source} gives {on} all of ({runs}): the "
                           f"advice reads the hardware, not a premise it does not meet (give another {name}, or "
                           f"hardware that runs {given})"})
    if not out:
        return facts, out
    from recipekg.reason.derive import derive

    left = {d["dimension"] for d in out}
    return derive({n: f for n, f in facts.items() if not f.derived and n not in left}, snap), out


def _stated(via: str | None, snap: dict, parts=None) -> set[str]:
    """The values the hardware of the KB (or only ``parts``) states through ``via`` (a
    dimension's ``rkg:derivedVia``)."""
    hardware = snap["hardware"]
    return {v for h in (hardware if parts is None else parts) for v in (hardware.get(h, {}).get(via) or ())
            if type(v) is str} if via else set()
