"""Choice properties compiled for the query path (ontology/recipekg.ttl, "choice properties").

Each ``rkg:ChoiceProperty`` becomes plain data: the choice it is about, its aspect (label,
unit, the dimension checked and the test), its value, the sourced text, and ``check``, a
condition-shaped dict the reasoner evaluates with the same code as a rule's conditions
(:func:`recipekg.reason.conditions.status`)::

    >>> prop = snap["choice_properties"]["https://w3id.org/recipekg/fact/bert-longest-input"]
    >>> prop["test"], prop["value"], prop["check"]["dimension"], prop["check"]["max"]
    ('at-most', 512.0, 'seq-length', 512.0)

The tests turn a value into a check: ``at-most`` (a bound the constraint must not pass),
``at-least`` (a bound it must reach), ``one-of`` (the values the choice is for) and
``none-of`` (the values the choice already is or does badly with); ``given-by-naming`` is no
check but what a query naming the choice has (``gives``: Llama 2 7B's published weights are a
pretrained model), which :mod:`recipekg.reason.implied` takes as a derived constraint. An aspect
with ``rkg:via`` checks the dimension's values through one of their properties: "needs fp8
tensor cores" is the hardware whose ``rkg:supportsPrecision`` holds fp8, or that states no precision at all;
"not for hardware with bf16 tensor cores" (``none-of``) is the hardware that states bf16.
The snapshot holds them in four containers: ``choice_properties`` (iri → property),
``properties_by_choice`` (choice → its own properties; the reasoner adds its ancestors'),
``properties_by_kind`` (kind → the properties of every choice of that kind, ``rkg:propertyOfKind``:
read with a choice's own, never copied to each, so a KB of many choices reads no more) and
``properties_by_dimension`` (dimension → the properties that check it), so that an
extension's property is an entry of its own and its choice's list grows by it
(knowledge/isolation.py, ``GROWS``).
"""

from __future__ import annotations

from recipekg.knowledge.terms import RDF, RDFS, RKG, local_name

GIVEN_BY_NAMING = "given-by-naming"  # (no check: what naming the choice gives, reason/implied.py reads it)
TESTS = {RKG.AtMost: "at-most", RKG.AtLeast: "at-least", RKG.OneOf: "one-of", RKG.NoneOf: "none-of",
         RKG.GivenByNaming: GIVEN_BY_NAMING}


def compile_properties(ix, dimensions: dict, nodes: dict, sources_of) -> dict:
    """Three containers of the snapshot from the index ``ix`` of the merged graph
    (``sources_of(ix, iri)`` gives a claim's sources): ``choice_properties`` (iri → property),
    ``properties_by_choice`` and ``properties_by_dimension`` (the properties of each choice,
    and those that check each dimension)."""
    dims_by_iri = {d["iri"]: name for name, d in dimensions.items()}
    props, by_choice, by_dimension, by_kind = {}, {}, {}, {}
    for p in ix.instances(RKG.ChoiceProperty):
        aspect = ix.one(p, RKG.aspect)
        aspect = aspect if isinstance(aspect, str) else None
        dim = dims_by_iri.get(ix.one(aspect, RKG.checks)) if aspect else None
        test = TESTS.get(ix.one(aspect, RKG.test)) if aspect else None
        number, values = ix.number(p, RKG.value), ix.iris(p, RKG.value)
        of = ix.one(p, RKG.propertyOf)
        kind = ix.text(ix.one(p, RKG.propertyOfKind), RKG.kindName) if ix.one(p, RKG.propertyOfKind) else None
        props[p] = {
            "id": local_name(p), "label": ix.text(p, RDFS.label), "of": of if isinstance(of, str) else None,
            "of_kind": kind,
            "aspect": {"label": ix.text(aspect, RDFS.label) if aspect else None,
                       "unit": ix.text(aspect, RKG.unitLabel) if aspect else None},
            "test": test, "dimension": dim,
            "value": number if number is not None else [nodes.get(v, {}).get("id", local_name(v)) for v in values],
            "check": None if test == GIVEN_BY_NAMING else
            _check(ix, dim, test, number, values, ix.one(aspect, RKG.via) if aspect else None, nodes),
            "when": ix.iris(p, RKG.when), "strict": ix.text(p, RKG.strict) not in ("false", "0"),
            # (a property of every choice of a kind is checked where they rank as that kind: QK-norm,
            # a fix and a technique, is no fix when it ranks as a technique)
            "for_kinds": sorted({ix.text(k, RKG.kindName) for k in ix.iris(p, RKG.forKind) if ix.text(k, RKG.kindName)}
                                | ({kind} if kind else set())),
            "text": ix.text(p, RKG.text), "caveat": ix.text(p, RDFS.comment), **sources_of(ix, p),
        }
        if props[p]["of"]:
            by_choice.setdefault(props[p]["of"], []).append(p)
        if kind:  # a property of every choice of a kind: read with each one's own (not copied to each)
            by_kind.setdefault(kind, []).append(p)
        if props[p]["check"]:
            by_dimension.setdefault(props[p]["check"]["dimension"], []).append(p)
        elif test == GIVEN_BY_NAMING and dim and values:  # what a query naming the choice has (not checked)
            props[p]["gives"] = {"dimension": dim, "values": sorted(values)}
    return {"choice_properties": props, "properties_by_choice": by_choice, "properties_by_dimension": by_dimension,
            "properties_by_kind": by_kind}


def _stated(ix, s: str, via, nodes: dict | None) -> set[str]:
    """What ``s`` states through ``via``, else what its ancestors (``skos:broader``) state: a
    family's regime holds for its members (XGBoost is fitted by boosting as gradient-boosted
    trees are)."""
    own = set(ix.iris(s, via))
    if own or not nodes:
        return own
    return {v for a in nodes.get(s, {}).get("ancestors", ()) for v in ix.iris(a, via)}


def _check(ix, dim: str | None, test: str | None, number: float | None, values: list[str], via,
           nodes: dict | None = None) -> dict | None:
    """The condition a property's test evaluates (None when the property is incomplete: an
    aspect without a dimension or test, a bound without a number; such a property is never
    checked and ``recipekg validate`` reports it). A ``one-of`` check also holds the values'
    members (what is ``skos:broader`` them), so that a constraint broader than a member is not
    ruled out: expert parallelism is for mixtures of experts, and a decoder-only model may be
    one (Mixtral), where a dense named model (Llama 3 70B) is not."""
    if dim is None or test is None:
        return None
    cond = {"dimension": dim, "values": [], "min": None, "min_inclusive": False, "max": None, "max_inclusive": False}
    if test in ("at-most", "at-least"):
        if number is None:
            return None
        side = "max" if test == "at-most" else "min"
        cond[side], cond[side + "_inclusive"] = number, True
        return cond
    if not values:
        return None
    if via:  # the dimension's values that have one of these through ``via`` (one-of: or state nothing)
        holders = [s for s, props in ix.spo.items() if via in props]
        members = {s for c in {t for h in holders for t in ix.iris(h, RDF.type)} for s in ix.instances(c)}
        wanted, unstated = set(values), test == "one-of"
        stated = {s: _stated(ix, s, via, nodes) for s in members}
        values = sorted(s for s, got in stated.items() if unstated and not got or wanted & got)
        if not values:
            return None
    if test == "one-of" and nodes:
        wanted = set(values)
        values = values + sorted(s for s, n in nodes.items() if s not in wanted and wanted & set(n.get("ancestors", ())))
    cond["values"] = values
    return cond

