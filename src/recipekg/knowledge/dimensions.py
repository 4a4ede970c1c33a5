"""Dimensions and conditions compiled for the query path: each ``rkg:Dimension`` as plain data
(its kind, spellings, unit, bounds, values, what it is derived from and how), the order the
reasoner derives the derived ones in, and each ``rkg:Condition`` with its bounds.

A dimension a KB formula computes (``rkg:derivedBy``) is derived from the dimensions the
formula reads, the names that are not its constants' symbols; one whose formula is missing or
reads a name no dimension has derives nothing, nor do dimensions whose formulas read each other::

    >>> dims = {n: {"derived_by": f, "derived_from": []} for n, f in (("a", "F"), ("b", "G"), ("x", None))}
    >>> formulas = {"F": {"expression": "a = x * c_k", "names": ["c_k", "x"], "constants": ["K"]},
    ...             "G": {"expression": "b = a / 2", "names": ["a"], "constants": []}}
    >>> derived_order(dims, formulas, {"K": {"symbol": "c_k"}}), dims["b"]["derived_from"]
    (['a', 'b'], ['a'])
    >>> formulas["F"]["names"] = ["b"]  # a reads b, b reads a: neither is derived
    >>> derived_order(dims, formulas, {}), dims["a"]["derived_by"]
    ([], None)
"""

from __future__ import annotations

from recipekg.formula.expr import CONVERSIONS
from recipekg.knowledge.terms import QUDT, RDFS, RKG, SKOS, local_name

#: A dimension's kind (``rkg:dimensionKind``) by the name answers give it.
KIND_NAMES = {RKG.Categorical: "categorical", RKG.Count: "count", RKG.Duration: "duration",
              RKG.Bytes: "bytes", RKG.Ratio: "ratio"}


def compile_dimensions(ix, nodes: dict) -> dict:
    """Each dimension by name (``skos:notation``), as the reasoner and the word list read it."""
    dims = {}
    for d in ix.instances(RKG.Dimension):
        name = ix.text(d, SKOS.notation) or local_name(d)
        kind = KIND_NAMES.get(ix.one(d, RKG.dimensionKind), "categorical")
        value_class = ix.one(d, RKG.valueClass)
        dims[name] = {
            "iri": d, "name": name, "label": ix.text(d, RDFS.label), "kind": kind,
            "aliases": ix.texts(d, SKOS.altLabel), "definition": ix.text(d, SKOS.definition),
            "question": ix.text(d, RKG.question), "example": ix.text(d, SKOS.example),
            "min": ix.number(d, RKG.minValue), "max": ix.number(d, RKG.maxValue),
            "derived_via": ix.one(d, RKG.derivedVia), "plan_only": ix.text(d, RKG.planOnly) == "true",
            # a demand against a capacity (rkg:capacityShare): a threshold on it is no band, never near
            "capacity": ix.text(d, RKG.capacityShare) == "true",
            # the value a statement that gives none is read with, where a formula asks (rkg:defaultValue)
            "default": ix.one(d, RKG.defaultValue),
            # the dimensions its values are defined on (rkg:derivedFrom: a tier's gpus and time), by name
            "derived_from": sorted(ix.text(s, SKOS.notation) or local_name(s) for s in ix.iris(d, RKG.derivedFrom)),
            # the formula that computes it from other dimensions (rkg:derivedBy; its inputs: derived_order),
            # and every formula that does, for different training methods (rkg:forMethod): the reasoner
            # takes the first the query's method admits
            "derived_by": min(ix.iris(d, RKG.derivedBy), default=None),
            "derived_by_all": sorted(ix.iris(d, RKG.derivedBy)),
            # the formulas that give it from a budget given instead (rkg:sizedBy), each [formula IRI,
            # the dimensions it reads], the one reading the most first: sizing()
            "sized_by": sorted(ix.iris(d, RKG.sizedBy)),
            # the dimension whose values run a value given of it (rkg:runsOn: precision on tensor-precision), by name
            "runs_on": next((ix.text(t, SKOS.notation) or local_name(t) for t in ix.iris(d, RKG.runsOn)), None),
            # the model figures that formula reads through a rule of thumb (layers from params): derived_order
            "derived_through": [], "open_inputs": [],
            "problem_fact": ix.text(d, RKG.problemFact) == "true",
            "order": ix.number(d, RKG.order), "value_class": value_class,
            "unit": local_name(ix.one(d, QUDT.unit)) if ix.one(d, QUDT.unit) else None,
            "values": _value_names(ix, value_class, nodes) if value_class else {},
        }
    return dims


def derived_order(dims: dict, formulas: dict, constants: dict, configured: frozenset = frozenset()) -> list[str]:
    """The dimensions derived from others, in the order to derive them: those a formula computes
    (``derived_by``) first, each after the ones it reads, then those whose values are defined by
    conditions (a tier). A formula's names that are not its constants' symbols (nor a unit
    conversion: ``bits_per_byte``) are the dimensions it is derived from (``gpu_memory``:
    ``gpu-memory``), its ``derived_from``; a formula that is
    missing, or reads a name that is no dimension, derives nothing (``derived_by`` None: ``recipekg
    validate`` says why). A name that is a model figure a rule of thumb computes (a plan-only
    dimension one KB formula outputs: ``layers`` from ``params``) is derived through that formula
    (:func:`through`): what it reads is derived from instead, and ``derived_through`` lists each
    such figure with its formula, in the order to compute them; a plan-only figure no formula
    computes but a named model's configuration holds (``configured``: the vocabulary) is listed
    with none, read from the query or the configuration only."""
    by_formula: dict[str, list[str]] = {}
    for name, d in dims.items():
        f = formulas.get(d["derived_by"] or "")
        figures: dict[str, str] = {}
        inputs = through(f, formulas, constants, dims, figures, configured=configured) if f is not None else []
        if f is None or f.get("error") or not inputs or any(n not in dims or n == name for n in inputs):
            d["derived_by"], d["derived_by_all"] = None, []
            continue
        d["derived_from"], d["derived_through"] = inputs, [[k, v] for k, v in figures.items()]
        d["open_inputs"] = [i for i in inputs if i in f.get("open_inputs", ())]  # (rkg:openInput)
        d["derived_by_all"] = [g for g in d.get("derived_by_all") or [d["derived_by"]]
                               if _same_inputs(formulas.get(g), inputs, figures, formulas, constants, dims, configured)]
        by_formula[name] = inputs
    ordered: list[str] = []
    while True:  # those whose inputs are given or derived before them; a cycle derives nothing
        ready = sorted(n for n, ins in by_formula.items() if n not in ordered
                       and all(i not in by_formula or i in ordered for i in ins))
        if not ready:
            break
        ordered += ready
    for name in set(by_formula) - set(ordered):
        dims[name]["derived_by"], dims[name]["derived_from"], dims[name]["derived_through"] = None, [], []
        dims[name]["derived_by_all"] = []
    return ordered + sorted(n for n, d in dims.items() if d["derived_from"] and not d["derived_by"])


def sizing(dims: dict, formulas: dict, constants: dict) -> None:
    """Each dimension's ``sized_by`` as ``[formula IRI, [the dimensions it reads]]``, the formula
    reading the most first (then by IRI): a formula must compute the dimension (its output is
    the dimension's name) from other dimensions only, else it sizes nothing.

    >>> dims = {"params": {"sized_by": ["F", "G", "H"]}, "flops": {}, "tokens": {}}
    >>> formulas = {"F": {"output": "params", "expression": "params = flops * c_k", "names": ["flops", "c_k"], "constants": ["K"]},
    ...             "G": {"output": "params", "expression": "params = flops / tokens", "names": ["flops", "tokens"], "constants": []},
    ...             "H": {"output": "params", "expression": "params = x", "names": ["x"], "constants": []}}
    >>> sizing(dims, formulas, {"K": {"symbol": "c_k"}}); dims["params"]["sized_by"]
    [['G', ['flops', 'tokens']], ['F', ['flops']]]
    """
    for name, d in dims.items():
        found = []
        for iri in d.get("sized_by") or ():
            f = formulas.get(iri)
            if f is None or f.get("error") or f.get("output") != name.replace("-", "_"):
                continue
            symbols = {constants[c]["symbol"] for c in f.get("constants", ()) if c in constants}
            inputs = sorted(n.replace("_", "-") for n in f.get("names", ()) if n not in symbols and n not in CONVERSIONS)
            if inputs and all(i in dims and i != name for i in inputs):
                found.append([iri, inputs])
        d["sized_by"] = sorted(found, key=lambda x: (-len(x[1]), x[0]))


def _same_inputs(g: dict | None, inputs: list, figures: dict, formulas: dict, constants: dict, dims: dict,
                 configured: frozenset = frozenset()) -> bool:
    """Whether formula ``g`` (another of a dimension's, for other methods) reads what the first
    one does: the same dimensions, through the same model figures (else it derives nothing:
    ``recipekg validate`` says so)."""
    if g is None or g.get("error"):
        return False
    own: dict[str, str] = {}
    return sorted(through(g, formulas, constants, dims, own, configured=configured)) == sorted(inputs) and own == figures


def through(f: dict, formulas: dict, constants: dict, dims: dict, figures: dict, seen: tuple = (),
            configured: frozenset = frozenset()) -> list[str]:
    """The dimensions formula ``f`` reads, in the order its expression names them; a model figure
    a rule of thumb computes (a plan-only dimension that exactly one formula without
    ``rkg:forMethod`` outputs) is replaced by what that formula reads, and put in ``figures``
    (figure → formula IRI, each after the figures it needs): the reasoner takes it from the query
    or a named model's configuration, else from that formula.

    >>> dims = {"s": {}, "p": {}, "l": {"plan_only": True}}
    >>> formulas = {"L": {"expression": "l = p * c_k", "output": "l", "names": ["p", "c_k"], "constants": ["K"]},
    ...             "F": {"expression": "y = s * l", "names": ["s", "l"], "constants": []}}
    >>> figures = {}
    >>> through(formulas["F"], formulas, {"K": {"symbol": "c_k"}}, dims, figures), figures
    (['s', 'p'], {'l': 'L'})
    """
    symbols = {constants[c]["symbol"] for c in f.get("constants", ()) if c in constants}
    text = f.get("expression") or ""
    out: list[str] = []
    for n in sorted(f.get("names", ()), key=text.find):
        name = n.replace("_", "-")
        if n in symbols or n in CONVERSIONS:
            continue
        rule = _rule_of_thumb(name, dims, formulas) if name not in seen else None
        if rule is None and dims.get(name, {}).get("plan_only") and n in configured:
            figures[name] = ""  # (the query's or a named configuration's only: no rule of thumb)
            continue
        found = [name] if rule is None else through(formulas[rule], formulas, constants, dims, figures, (*seen, name),
                                                    configured=configured)
        out += [i for i in found if i not in out]
        if rule is not None:
            figures[name] = rule
    return out


def _rule_of_thumb(name: str, dims: dict, formulas: dict) -> str | None:
    """The one formula that computes plan-only dimension ``name`` for every method and model, if
    any (one for a kind of model, ``rkg:appliesTo``: a mixture of experts' layers, is plan's)."""
    if not dims.get(name, {}).get("plan_only"):
        return None
    found = [iri for iri, f in formulas.items() if (f.get("output") or "").replace("_", "-") == name
             and not f.get("for_methods") and not f.get("applies_to") and not f.get("error")]
    return found[0] if len(found) == 1 else None


def _value_names(ix, value_class: str, nodes: dict) -> dict[str, str]:
    """Every accepted spelling of a dimension's values → the value's IRI (ids win over aliases)."""
    names: dict[str, str] = {}
    members = [v for v in ix.instances_of(value_class) if v in nodes]
    for v in members:
        for alias in nodes[v]["aliases"]:
            names.setdefault(alias, v)
    for v in members:
        names[nodes[v]["id"]] = v
    return dict(sorted(names.items()))


#: The bound properties of a numeric condition: property -> (side, inclusive). A condition
#: has at most one lower (``min``) and one upper (``max``) bound (docs/authoring.md).
BOUND_PROPERTIES = {RKG.minInclusive: ("min", True), RKG.minExclusive: ("min", False),
                    RKG.maxInclusive: ("max", True), RKG.maxExclusive: ("max", False)}


def compile_conditions(ix, dims: dict) -> dict:
    """Conditions: values, or bounds with their inclusivity (``min_inclusive`` is true only
    for a lower bound that is given and included; likewise ``max_inclusive``)."""
    by_iri = {d["iri"]: name for name, d in dims.items()}
    out = {}
    for c in ix.instances(RKG.Condition):
        out[c] = {"label": ix.text(c, RDFS.label), "dimension": by_iri.get(ix.one(c, RKG.dimension)),
                  "values": ix.iris(c, RKG.value), "min": None, "min_inclusive": False,
                  "max": None, "max_inclusive": False}
        for prop, (side, inclusive) in BOUND_PROPERTIES.items():
            value = ix.number(c, prop)
            if value is not None and out[c][side] is None:  # both given (invalid): inclusive
                out[c][side], out[c][side + "_inclusive"] = value, inclusive
    return out
