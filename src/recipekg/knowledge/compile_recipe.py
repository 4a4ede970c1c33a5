"""What a ``recipe`` answer needs from the graph, compiled into the snapshot's ``recipe``:

- ``hyperparameters``: the registry (``rkg:Hyperparameter``, ontology/hyperparameters.ttl),
  name → label, unit, recipe section, order, the regime it needs and the choices it belongs to;
- ``settings``: choice → the constants that set its hyperparameters (``rkg:hyperparameter``
  whose constant ``rkg:sets`` a registered hyperparameter), each constant with the
  hyperparameter's name, its conditions and the named value (``rkg:valueNode``) if any;
- ``regimes``: family → the regimes it is trained in (``rkg:trainedWith``), and
  ``needs_regime``: hyperparameter or formula → the regimes it needs;
- ``methods``: approach → the training method plan sizes for it (``rkg:asMethod``);
- ``sections``: choice → the recipe section it is shown in (``rkg:recipeSection``);
- ``failure_modes``: failure mode → the conditions under which it can occur (none: always);
- ``choice_conditions``: choice → the conditions under which a recipe shows it.

    >>> snap["recipe"]["hyperparameters"]["beta2"]["section"]
    'optimizer'
"""

from __future__ import annotations

from recipekg.knowledge.terms import RDF, RDFS, RKG, SKOS


def compile_recipe(ix) -> dict:
    """The snapshot's ``recipe`` part from the graph's index (:class:`compiler.Index`)."""
    registry = {h: ix.text(h, SKOS.notation) for h in ix.instances(RKG.Hyperparameter) if ix.text(h, SKOS.notation)}
    hyper = {name: {"iri": h, "label": ix.text(h, RDFS.label), "unit": ix.text(h, RKG.unitLabel),
                    "section": ix.text(h, RKG.recipeSection), "order": ix.number(h, RKG.order),
                    "needs_regime": sorted(ix.iris(h, RKG.needsRegime)), "applies_to": sorted(ix.iris(h, RKG.appliesTo)),
                    "definition": ix.text(h, SKOS.definition),
                    "group": registry.get(ix.one(h, SKOS.broader), registry[h])}
             for h, name in sorted(registry.items())}
    settings: dict[str, list] = {}
    setting = {}
    for s in ix.spo:
        for c in ix.iris(s, RKG.hyperparameter):
            target = ix.one(c, RKG.sets)
            if target in registry:
                settings.setdefault(s, []).append(c)
                setting[c] = {"hyperparameter": registry[target], "conditions": ix.iris(c, RKG.condition),
                              "value_node": ix.one(c, RKG.valueNode)}
    return {"hyperparameters": hyper, "settings": {k: sorted(v) for k, v in sorted(settings.items())},
            "setting": dict(sorted(setting.items())),
            "regimes": _by(ix, RKG.trainedWith), "needs_regime": _by(ix, RKG.needsRegime),
            "methods": {s: ix.one(s, RKG.asMethod) for s in sorted(ix.spo) if ix.one(s, RKG.asMethod)},
            "sections": {s: ix.text(s, RKG.recipeSection) for s in sorted(ix.spo)
                         if ix.text(s, RKG.recipeSection) and s not in registry},
            "failure_modes": {f: ix.iris(f, RKG.condition) for f in sorted(ix.instances(RKG.FailureMode))},
            "choice_conditions": {s: ix.iris(s, RKG.condition) for s in sorted(ix.spo) if ix.iris(s, RKG.condition)
                                  and not {RKG.Rule, RKG.Condition, RKG.Constant, RKG.FailureMode,
                                           RKG.ComputeTier} & set(ix.iris(s, RDF.type))}}


def _by(ix, prop: str) -> dict:
    return {s: sorted(ix.iris(s, prop)) for s in sorted(ix.spo) if ix.iris(s, prop)}
