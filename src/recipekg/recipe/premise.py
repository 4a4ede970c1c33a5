"""What the recipe's approach says of what the query leaves open (``rkg:startsFrom``).

A recipe ranks the architecture before the approach. When the query does not say whether a
pretrained model is available, the architecture is ranked without knowing it, and the approach
then settles on a run that starts from random weights (training from scratch) or from a
pretrained model (fine-tuning). The advice for the architecture depends on which (QA round 10,
C02: 2M images trained from scratch kept the ViT, where the advice for a ViT without a
pretrained model to start from is a ConvNeXt or CoAtNet). The approach's ``given-by-naming``
properties (its own or a broader approach's) say what its run starts from; the architecture is
ranked again with that premise, and the recipe takes the new ranking when its pick differs and
the approach ranked for the new pick settles on the same approach (otherwise the first stands:
nothing is re-decided in a loop). The premise is shown among the constraints, derived from the
approach, with the property's sources.
"""

from __future__ import annotations

from recipekg.query.ast import Constraint, Name


def premises(approach, facts: dict, snap: dict) -> dict[str, tuple[set[str], list[str]]]:
    """The dimensions the query does not give that the approach the recipe settles on (the
    first match of ``approach`` that stands for a training method, itself or a broader one)
    gives by its ``given-by-naming`` properties → (the values, the properties).

    >>> from recipekg.reason.recommend import recommend
    >>> from recipekg.recipe.assemble import as_recommend
    >>> stmt = parse("recipe where data = images and samples = 2M")[0]
    >>> ranked = recommend(as_recommend(stmt, "approach"), snap)
    >>> {d: sorted(snap["nodes"][v]["id"] for v in vs) for d, (vs, _) in premises(ranked, {}, snap).items()}
    {'pretrained': ['no']}
    """
    nodes, methods = snap["nodes"], snap["training_methods"]
    props = snap.get("choice_properties") or {}
    by_choice = snap.get("properties_by_choice") or {}
    for r in approach["results"]:
        if r["group"] != "matches" or r["score"] <= 0:
            continue
        line = [r["iri"], *nodes.get(r["iri"], {}).get("ancestors", ())]
        if not any(a in methods for a in line):
            continue
        out: dict[str, tuple[set[str], list[str]]] = {}
        for a in line:
            for p in by_choice.get(a, ()):
                gives = (props.get(p) or {}).get("gives")
                if gives and gives["dimension"] not in facts and gives["dimension"] not in out:
                    out[gives["dimension"]] = (set(gives["values"]), [p])
        return out
    return {}


def as_constraints(found: dict, stmt, snap: dict) -> tuple[Constraint, ...]:
    """The premises as constraints at the statement's position (what the rankings read)."""
    nodes, pos = snap["nodes"], stmt.pos
    return tuple(Constraint(Name(dim, pos), "=" if len(vs) == 1 else "in",
                            tuple(Name(nodes[v]["id"], pos) for v in sorted(vs)), pos)
                 for dim, (vs, _) in sorted(found.items()))
