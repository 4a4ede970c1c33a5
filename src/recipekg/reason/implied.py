"""What a given value implies of the dimensions a query does not give: ``task = summarization``
is done on text (``rkg:impliesValue``, what the value is), and a named choice's ``given-by-naming``
properties give what a source says naming it means (Llama 2 7B's weights are released: a query
naming it has a pretrained model, pretrained = yes, with the property's sources). A value the
query gives otherwise is read as given, and the answer says what was implied."""

from __future__ import annotations

from recipekg.knowledge.derived import once, table
from recipekg.reason.answers import sources_json
from recipekg.reason.facts import Facts, constraint_json


def implied(facts: dict[str, Facts], snap: dict) -> None:
    """The values a given value implies of a dimension the query does not give (``rkg:
    impliesValue``: summarization is done on text), when every value given for its dimension
    implies one there (``task in (ner, summarization)``: text; ``task in (ner, forecasting)``:
    nothing).

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend x where task = summarization")[0].constraints, snap)
    >>> facts["data"].constraints, facts["data"].derived
    ([{'dimension': 'data', 'op': '=', 'value': 'text'}], 'task')

    A named model whose makers released its weights has a pretrained model, said with the source::

    >>> (c,) = facts_of(parse("recommend x where model = mistral-7b")[0].constraints, snap)["pretrained"].constraints
    >>> c["value"], c["note"], [(s["id"], s["role"], s["where"]) for s in c["sources"]]
    ('yes', "Mistral 7B's pretrained weights are released", [('jiang2023', 'states', 'abstract')])
    """
    nodes = snap["nodes"]
    by_class = once(snap, "dimension of each value class", _dimension_of_classes)
    known = table(snap, "what each value implies")  # (filled as values are given: the same for every query)

    def dim_of(w: str) -> str:  # (reads the implied value's node only: not every value's)
        return next((by_class[t] for t in nodes.get(w, {}).get("types", ()) if t in by_class), "")

    for name, f in list(facts.items()):
        if f.derived or not f.values or f.kind != "categorical":
            continue
        each = {v: known[v] if v in known else known.setdefault(v, _implications(v, snap)) for v in sorted(f.values)}
        targets = {dim_of(w) for found in each.values() for w in found}
        for target in sorted(targets):
            sets = [{w for w in found if dim_of(w) == target} for found in each.values()]
            if not target or not all(sets):
                continue  # (some value given implies nothing there: nothing is implied)
            values = set().union(*sets)
            props = [p for found in each.values() for w in values for p in found.get(w, ())]
            if target in facts:
                if said := _contradicted(facts[target], name, f, values, nodes):
                    _because(said, props, snap)
                elif says_no_more(facts[target], values, nodes):
                    facts[target] = copy_fact(facts[target], implied=name)
                say(facts, target, said)
            else:
                facts[target] = implied_fact(target, values, props, name, snap)


def implied_fact(target: str, values: set[str], props: list[str], by: str, snap: dict) -> Facts:
    """The fact ``values`` of dimension ``target``, implied by ``by`` through the properties
    ``props`` (their labels its note, their sources its sources)."""
    dim, nodes = snap["dimensions"][target], snap["nodes"]
    ids = sorted(nodes[w]["id"] for w in values)
    shown = constraint_json(dim, "=", ids[0]) if len(ids) == 1 else constraint_json(dim, "in", ids)
    _because(shown, props, snap)
    return Facts(target, dim["kind"], values=set(values), derived=by, constraints=[shown], implied=by)


def data_of_models(facts: dict[str, Facts], models: list[dict], snap: dict) -> None:
    """The data a named model reads (``rkg:dataModality``: a language model reads text) is the
    data the query means when it gives none, so that advice for images or time series does not
    reach Llama 3 8B (audit 14/10); every model named must read it.

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> from recipekg.reason.derive import derive
    >>> facts = derive(resolve_constraints(parse("recommend x where model = llama-3-8b")[0].constraints, snap), snap)
    >>> [snap["nodes"][v]["id"] for v in facts["data"].values], facts["data"].derived
    (['text'], 'architecture')
    """
    dim = snap["dimensions"].get("data")
    if dim is None or not models or any(not m.get("data") for m in models):
        return
    common = set(models[0]["data"]).intersection(*(m["data"] for m in models[1:]))
    if "data" in facts:  # (given too: saying no more than the model, it is the model's data)
        if common and says_no_more(facts["data"], common, snap["nodes"]):
            facts["data"] = copy_fact(facts["data"], implied="architecture")
        return
    if common:
        ids = sorted(snap["nodes"][v]["id"] for v in common)
        facts["data"] = Facts("data", dim["kind"], values=common, derived="architecture", implied="architecture",
                              constraints=[constraint_json(dim, "=", ids[0]) if len(ids) == 1
                                           else constraint_json(dim, "in", ids)])


def _implications(value: str, snap: dict) -> dict[str, tuple]:
    """What a given value implies of other dimensions: each implied value → the properties
    that give it (none for what the value is, ``rkg:impliesValue``: summarization is done on
    text; a ``given-by-naming`` property of the value for what a source says naming it gives:
    Llama 2 7B's weights are published, so a query naming it has a pretrained model)."""
    out: dict[str, tuple] = {w: () for w in snap["nodes"].get(value, {}).get("implies", ())}
    props = snap.get("choice_properties") or {}
    for p in (snap.get("properties_by_choice") or {}).get(value, ()):
        gives = (props.get(p) or {}).get("gives")
        for w in gives["values"] if gives else ():
            out[w] = (*out.get(w, ()), p)
    return out


def _because(shown: dict, props: list[str], snap: dict) -> None:
    """Say on an implied constraint, or on what a given one disagrees with (``shown``), the
    properties it comes from: their labels as its note, their sources (and an extension's origin)."""
    found = [snap["choice_properties"][p] for p in dict.fromkeys(props)]
    if found:
        shown["note"] = "; ".join(p["label"] for p in found)
        ids = list(dict.fromkeys(s for p in found for s in p["sources"]))
        shown["sources"] = sources_json({"sources": ids, "citations": {k: v for p in found for k, v in
                                                                       p["citations"].items()}}, snap)
        if origin := next((p["origin"] for p in found if p.get("origin")), None):
            shown["origin"] = origin


def _contradicted(given: Facts, by: str, source: Facts, implied: set[str], nodes: dict) -> dict | None:
    """Mark ``given``'s constraints where none of its values agrees with what ``source`` (of
    dimension ``by``) implies there (the same value, a broader or a narrower one): ``task =
    forecasting`` is done on time series, and ``data = tabular`` says otherwise. The answer
    reads the value as given and says so (``implied_otherwise``); nothing is dropped."""
    if given.derived or not given.values:
        return None

    def agrees(v: str) -> bool:
        up = set(nodes.get(v, {}).get("ancestors", ()))
        return any(v == w or w in up or v in nodes.get(w, {}).get("ancestors", ()) for w in implied)

    if any(agrees(v) for v in given.values):
        return None
    return {"dimension": by, "value": sorted(nodes[v]["id"] for v in source.values if v in nodes),
            "implies": sorted(nodes[w]["id"] for w in implied)}


def say(facts: dict[str, Facts], name: str, said: dict | None) -> None:
    """Note ``said`` (if any) on the constraints of ``facts[name]``, in a new Facts with new
    constraint dicts: the query's own are shared with every trial a ranking derives again (``ask``
    tries ``hardware = dgx-spark``), whose notes must not reach the answer (a gpu-memory the user
    gave was said to disagree with a DGX Spark they never named)."""
    if said is None:
        return
    f = facts[name]
    facts[name] = copy_fact(f, constraints=[c if said in c.get("implied_otherwise", ()) else
                                        {**c, "implied_otherwise": [*c.get("implied_otherwise", ()), said]}
                                        for c in f.constraints])


def copy_fact(f: Facts, **changed) -> Facts:
    """``f`` with some fields changed (a new Facts: the query's own are shared with every trial)."""
    fields = {"values": f.values, "excluded": f.excluded, "intervals": f.intervals, "constraints": f.constraints,
              "derived": f.derived, "all_of": f.all_of, "near": f.near, "counted": f.counted, "implied": f.implied}
    return Facts(f.dimension, f.kind, **{**fields, **changed})


def says_no_more(given: Facts, implied: set[str], nodes: dict) -> bool:
    """Whether every value ``given`` holds is one ``implied`` holds too, or broader (``data =
    text`` with ``task = summarization``): then it says nothing the implying value does not, and
    rules on it use that value only in part, as when it is left implied (the answer is the
    same for both queries). A narrower value (``data = video`` where the task implies visual
    data) says more, and stays the user's own."""
    return bool(given.values) and not given.derived and all(
        any(v == w or v in nodes.get(w, {}).get("ancestors", ()) for w in implied) for v in given.values)


def _dimension_of_classes(snap: dict) -> dict[str, str]:
    """Each categorical dimension's value class → the dimension's name; a bundled dimension's
    before an extension's of the same class (hostile 8 C: an extension's ``modality2`` on
    ``rkg:DataModality`` took over what every task implies, and bundled rules on ``data`` stopped
    firing)::

        >>> dims = {"data": {"value_class": "M"}, "modality2": {"value_class": "M", "origin": {"file": "x"}}}
        >>> _dimension_of_classes({"dimensions": dims})
        {'M': 'data'}
    """
    out: dict[str, str] = {}
    for name, d in sorted(snap["dimensions"].items(), key=lambda item: item[1].get("origin") is not None):
        if d.get("value_class"):
            out.setdefault(d["value_class"], name)
    return out

