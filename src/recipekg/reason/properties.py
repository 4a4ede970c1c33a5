"""Choices with properties: each property of a choice (its own and its families') checked
against the user's constraints, with the code that evaluates a rule's conditions.

A property the constraints contradict excludes the choice (a strict one) or puts a note on it
(``rkg:strict false``); one they fit counts towards the choice's specificity; one whose
dimension they do not give says nothing::

    >>> from recipekg.reason.resolve import facts_of
    >>> bert = snap["rule_index"]["choices"]["bert"]
    >>> facts = facts_of(parse("recommend x where seq-length = 32k")[0].constraints, snap)
    >>> [(c["property"]["id"], c["verdict"]) for c in checks(bert, "architecture", facts, snap)]
    [('bert-longest-input', 'contradicts')]
    >>> facts = facts_of(parse("recommend x where seq-length = 256 and data = text")[0].constraints, snap)
    >>> sorted(c["verdict"] for c in checks(bert, "architecture", facts, snap))
    ['fits', 'fits']

The tests (``at-most``, ``at-least``, ``one-of``, ``none-of``) are data of the ontology
(``rkg:test`` of the property's aspect); a ``none-of`` property (what a technique already is,
an architecture an optimizer does badly on) is contradicted when the constraint names its
value, the others when the constraint rules their check out.
"""

from __future__ import annotations

from recipekg.reason.answers import shown_constraint, source_json, sources_json
from recipekg.reason.conditions import FAILED, HELD, NOT_GIVEN, PARTLY, status
from recipekg.reason.scoring import MATCHES

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import Excluded, Property, PropertyRef
    from recipekg.contracts.recommend import OpenCondition

CONTRADICTS, FITS, NOTE = "contradicts", "fits", "note"


def properties_of(iri: str, snap: dict, kind: str | None = None) -> list[tuple[str, str | None]]:
    """``(property IRI, via)`` for the choice's own properties, those of every choice of its
    kind (``kind``, else each of its kinds) and its ancestors' (``via`` names the ancestor a
    property comes from, None for the choice's own and its kind's)."""
    by_choice = snap.get("properties_by_choice") or {}
    by_kind = snap.get("properties_by_kind") or {}
    node = snap["nodes"].get(iri, {})
    kinds = [kind] if kind else node.get("kinds", ())
    out: list[tuple[str, str | None]] = [(p, None) for p in by_choice.get(iri, ())]
    out += [(p, None) for k in kinds for p in by_kind.get(k, ())]
    for ancestor in node.get("ancestors", ()):
        out += [(p, ancestor) for p in by_choice.get(ancestor, ())]
    return out


def checks(iri: str, kind: str, facts: dict, snap: dict, only: str | None = None) -> list[dict]:
    """The verdict of each property of ``iri`` (as a choice of ``kind``) that the constraints
    speak to: ``contradicts`` (strict: the choice is excluded), ``note`` (a non-strict
    property the constraints go past) or ``fits``; with ``only``, those of that verdict."""
    props = snap.get("choice_properties") or {}
    out = []
    for piri, via in properties_of(iri, snap, kind):
        prop = props.get(piri)
        if prop is None or prop["check"] is None or (prop["for_kinds"] and kind not in prop["for_kinds"]):
            continue
        if any(status(snap["conditions"][c], facts, snap) != HELD for c in prop["when"] if c in snap["conditions"]):
            continue
        st = status(prop["check"], facts, snap)
        if st == NOT_GIVEN or facts[prop["check"]["dimension"]].intervals == []:
            continue  # (no value for the query's method: a LoRA base's share says nothing of pretraining)
        against = HELD if prop["test"] == "none-of" else FAILED
        agrees = FAILED if prop["test"] == "none-of" else HELD
        verdict = (CONTRADICTS if prop["strict"] else NOTE) if st == against else FITS if st == agrees else None
        if verdict and (only is None or verdict == only):
            out.append({"property": property_json(piri, prop, snap, via, iri if prop.get("of_kind") else None),
                        "verdict": verdict,
                        "dimension": prop["check"]["dimension"], "of_kind": bool(prop.get("of_kind")),
                        "when": [snap["conditions"][c]["dimension"] for c in prop["when"] if c in snap["conditions"]]})
    return out


def open_conditions(iri: str, kind: str, facts: dict, snap: dict) -> list[OpenCondition]:
    """The properties saying what ``iri`` is for (a strict ``one-of`` test naming one value: the
    architecture, data, task, method or precision it applies to) that the constraints leave
    open: their dimension not given, or given as a value that does not say (``architecture =
    decoder`` for expert parallelism, which is for mixtures of experts, and some decoders are).
    A choice ranked on other advice applies only if they hold, which the answer says beside it
    (``applies_if``). A choice the user made (their optimizer, the approach that is their
    method) needs no such line: what it applies to is theirs to know; nor does a property
    naming several values (every training method), which says little when open, nor one every
    choice of the kind has (an optimizer is for a model fitted by gradient descent), nor one
    restating the method a choice is (QLoRA is the qlora method).

    >>> from recipekg.reason.resolve import facts_of
    >>> ep = snap["rule_index"]["choices"]["expert-parallelism"]
    >>> facts = facts_of(parse("recommend x where params = 176B and gpus = 384")[0].constraints, snap)
    >>> [(c["property"]["id"], c["given"]) for c in open_conditions(ep, "approach", facts, snap)]
    [('expert-parallel-for-moe', False)]
    >>> facts = facts_of(parse("recommend x where model = llama-3-70b")[0].constraints, snap)
    >>> open_conditions(ep, "approach", facts, snap)
    []
    """
    from recipekg.reason.facts import chosen

    props = snap.get("choice_properties") or {}
    out: list[OpenCondition] = []
    if iri in chosen(facts, snap):
        return out
    for piri, via in properties_of(iri, snap, kind):
        prop = props.get(piri)
        if (prop is None or prop["check"] is None or not prop["strict"] or prop["test"] != "one-of"
                or len(prop["value"]) != 1 or (prop["for_kinds"] and kind not in prop["for_kinds"])
                or prop.get("of_kind")):  # (every choice of the kind has it: nothing beside one of them)
            continue
        if any(status(snap["conditions"][c], facts, snap) != HELD for c in prop["when"] if c in snap["conditions"]):
            continue
        if snap["training_methods"].get(iri) in prop["check"]["values"]:
            continue  # (what the choice is: QLoRA is the qlora method)
        dim = prop["check"]["dimension"]
        if (dim not in facts or facts[dim].intervals != []) and status(prop["check"], facts, snap) in (NOT_GIVEN, PARTLY):
            out.append({"property": property_json(piri, prop, snap, via), "dimension": dim, "given": dim in facts})
    return out


def property_json(piri: str, prop: dict, snap: dict, via: str | None = None, choice: str | None = None) -> Property:
    """A property as answers show it: id, aspect, value (and unit), its text, caveat, sources,
    and the family it comes from (``via``). A property of every choice of a kind shown for one
    (``choice``) names that choice's own papers first, as the method's: Lion is fitted by gradient
    descent by its own paper, not only by Adam's, which the kind's property cites (QA round 6, F12)."""
    sources = sources_json(prop, snap)
    if choice is not None:
        cited = {s["id"] for s in sources}
        own = [source_json(p, snap, "method") for p in snap["nodes"].get(choice, {}).get("papers", ())]
        sources = [s for s in own if s["id"] not in cited] + sources
    out: Property = {"id": prop["id"], "label": prop["label"], "aspect": prop["aspect"]["label"], "value": prop["value"],
           "text": prop["text"], "sources": sources}
    if prop["aspect"].get("unit"):
        out["unit"] = prop["aspect"]["unit"]
    if prop.get("caveat"):
        out["caveat"] = prop["caveat"]
    if via:
        node = snap["nodes"].get(via, {})
        out["via"] = {"id": node.get("id", via), "label": node.get("label", via)}
    if prop.get("origin"):  # an extension's property (on a bundled choice, or every choice of a kind)
        out["origin"] = prop["origin"]
    return out


def excluded_json(iri: str, contradictions: list[dict], facts: dict, snap: dict) -> Excluded:
    """A choice the constraints rule out: id, label, why (the property's text), the property
    and its sources, and the constraint it contradicts (``because_of``)."""
    node = snap["nodes"][iri]
    first = contradictions[0]
    prop = first["property"]
    given = facts.get(first["dimension"])
    why = prop["text"]
    if first.get("family"):  # every member the same rules name is ruled out: the family goes with them
        names = [snap["nodes"][snap["rule_index"]["choices"][c["family"]]]["label"] for c in contradictions]
        why = f"Every {node['label']} this advice names is ruled out ({', '.join(dict.fromkeys(names))}). {why}"
    ref: PropertyRef = {"id": prop["id"], "label": prop["label"], "aspect": prop["aspect"], "value": prop["value"]}
    if "unit" in prop:
        ref["unit"] = prop["unit"]
    if "caveat" in prop:
        ref["caveat"] = prop["caveat"]
    if "via" in prop:
        ref["via"] = prop["via"]
    out: Excluded = {"id": node["id"], "label": node["label"], "iri": iri, "why": why, "property": ref,
                     "sources": prop["sources"],
                     "because_of": [shown_constraint(c) for c in given.constraints] if given else []}
    if len(contradictions) > 1:
        out["also"] = [c["property"]["id"] for c in contradictions[1:]]
    if "origin" in prop:
        out["origin"] = prop["origin"]
    return out


def applies_if(entry: dict, kind: str, facts: dict, snap: dict, parts: dict) -> list[OpenCondition]:
    """What a matching entry (and its ranked parts) is for that the constraints leave open
    (:func:`open_conditions`); none for an entry advised against or
    waiting, whose use is not advised here."""
    if entry["group"] != MATCHES or entry["score"] <= 0:
        return []
    out = open_conditions(entry["iri"], kind, facts, snap)
    for part in parts.get(entry["iri"], ()):
        node = snap["nodes"][part]
        for c in open_conditions(part, kind, facts, snap):
            c["part"] = {"id": node["id"], "label": node["label"]}
            out.append(c)
    return out


def parts_of(results: list[dict], snap: dict) -> dict[str, list[str]]:
    """Each combination among ``results``' nodes (``part_of``) → its parts ranked there."""
    out: dict[str, list[str]] = {}
    for r in results:
        for combination in snap["nodes"][r["iri"]].get("part_of", ()):
            out.setdefault(combination, []).append(r["iri"])
    return out
