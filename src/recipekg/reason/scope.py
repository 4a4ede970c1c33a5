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

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
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
