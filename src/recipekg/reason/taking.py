"""A choice that is one training method, as the user would take it: when the query gives no
``method``, the rules against such a choice are also read with its method taken.

LoRA is the lora method (a 16-bit frozen base), QLoRA the qlora one: asked which approach
fits a 13B model on one 24 GB GPU, the rule "LoRA: the 16-bit base does not fit the GPUs"
waits for ``method = lora`` and for the base's share it derives, so without this LoRA would
rank as if its base fitted. Taking LoRA means ``method = lora``: the query's facts with that
method, derived again (``base-load`` 108%), make the rule apply, and LoRA gets it as a
reason against, marked ``taken`` (``{"dimension": "method", "value": "lora"}``): what
speaks against the choice once you take it, not a constraint you gave.

A choice's own method is what its ``rkg:methodFor`` property names, less what its narrower
choices' own properties name (LoRA's "lora and QLoRA's adapters" less QLoRA's qlora), when
exactly one remains: a family (fine-tuning: full, lora or qlora) or a technique for several
methods (gradient checkpointing) is no one method and is not read so (:func:`own_method`).
Only rules against a choice are read so: a rule for it under its own method would be the
user's choice speaking for itself.
"""

from __future__ import annotations

from recipekg.knowledge.derived import table
from recipekg.reason.facts import Facts

#: The dimension a choice is taken on (what its ``rkg:methodFor`` property checks).
METHOD = "method"


def own_method(iri: str, snap: dict) -> str | None:
    """The one method (value IRI) choice ``iri`` is by its own properties, less its narrower
    choices' (None for a family or a choice of several methods).

    >>> own_method(snap["rule_index"]["choices"]["lora"], snap).rsplit("/", 1)[1]
    'method-lora'
    >>> own_method(snap["rule_index"]["choices"]["fine-tune-pretrained"], snap) is None
    True
    """
    known = table(snap, "own method of each choice")  # (what the snapshot alone says)
    try:
        return known[iri]
    except KeyError:
        pass
    methods = methods_of(iri, snap)
    for narrower in snap["rule_index"].get("narrower", {}).get(iri, ()) if methods else ():
        methods -= methods_of(narrower, snap)
    found = known[iri] = next(iter(methods)) if len(methods) == 1 else None
    return found



def same_run(pick: str | None, other: str, snap: dict) -> bool:
    """Whether choice ``other`` (by id: another section's pick) can be part of the same run as
    ``pick``: not when the training methods each is for (``rkg:methodFor``) have none in common
    (inference-optimal training, a pretraining strategy, beside fine-tuning a pretrained model:
    audit 5/16 was asked for the inference budget to settle on it).

    >>> same_run("fine-tune-pretrained", "inference-optimal-training", snap), same_run("fsdp", "chinchilla-optimal-training", snap)
    (False, True)
    """
    choices = snap["rule_index"]["choices"]
    ours, theirs = (methods_of(choices[i], snap) if i in choices else set() for i in (pick, other))
    return not ours or not theirs or not ours.isdisjoint(theirs)


def methods_of(iri: str, snap: dict) -> set[str]:
    """The training methods (value IRIs) choice ``iri``'s own ``rkg:methodFor`` properties name
    (unconditional ones); empty when it has none."""
    props = snap.get("choice_properties") or {}
    out: set[str] = set()
    for piri in (snap.get("properties_by_choice") or {}).get(iri, ()):
        prop = props.get(piri)
        if prop and prop["check"] and prop["check"]["dimension"] == METHOD and prop["test"] == "one-of" \
                and not prop["when"]:
            out.update(prop["check"]["values"])
    return out


def as_taken(choices: dict[str, dict], facts: dict, snap: dict, backend, make, lean: bool) -> None:
    """Add to each ranked choice that is one method (:func:`own_method`) the rules against it
    that apply with its method taken and not with the query's facts (:func:`taken_verdicts`),
    each made by ``make`` (``recipekg.reason.recommend.reason_record`` or a whole reason) from
    the taken facts and marked ``taken``; a reason of the same rule waiting for the method
    gives way to it."""
    trials: dict[str, dict] = {}
    for iri, entry in choices.items():
        for a, trial, taken in taken_verdicts(iri, facts, snap, backend, trials):
            if any(r["rule"] == a.rule and r["match"] in ("full", "general") for r in entry["against"]):
                continue  # it applies as given already
            entry["against"] = [r for r in entry["against"] if r["rule"] != a.rule]
            record = make(a, trial, snap, lean)
            record["taken"] = taken
            if "applied" in record:  # a record, made into a reason later: from the taken facts
                record["facts"] = trial
            entry["against"].append(record)


def taken_verdicts(iri: str, facts: dict, snap: dict, backend, trials: dict | None = None) -> list[tuple]:
    """``(verdict, taken facts, taken)`` for each rule against choice ``iri`` that applies with
    its own method taken (the query's facts with that method, derived again); none when the
    query gives a method, the KB has none or the choice is no one method. ``trials``: the taken
    facts by method, shared between the choices of one answer."""
    if METHOD in facts or METHOD not in snap["dimensions"] or not snap.get("properties_by_choice"):
        return []
    method = own_method(iri, snap)
    if method is None:
        return []
    trials = {} if trials is None else trials
    if method not in trials:
        from recipekg.reason.derive import derive  # here: only a query without a method reads it

        given = {n: f for n, f in facts.items() if not f.derived}
        trials[method] = derive({**given, METHOD: Facts(METHOD, "categorical", values={method})}, snap)
    trial = trials[method]
    return [(a, trial, _taken(method, a, facts, trial, snap)) for a in backend.naming(iri, trial)
            if a.side == "against" and a.ev["match"] == "full"]


def _taken(method: str, a, facts: dict, trial: dict, snap: dict) -> dict:
    """``{"dimension", "value", "derived"}``: the method taken and the values the rule reads
    that taking it derives (the base's share of the GPUs' memory), as constraints show them."""
    from recipekg.reason.answers import constraints_json

    read = sorted({c["dimension"] for c in a.ev["conditions"]} - {METHOD})
    changed = {d: trial[d] for d in read if d in trial and trial[d].intervals and trial[d] != facts.get(d)}
    derived = [{k: c[k] for k in ("dimension", "op", "value", "unit") if k in c} for c in constraints_json(changed)]
    return {"dimension": METHOD, "value": snap["nodes"][method]["id"], "derived": derived}
