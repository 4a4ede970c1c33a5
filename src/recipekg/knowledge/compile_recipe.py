"""What a ``recipe`` answer needs from the graph, compiled into containers of the snapshot:

- ``hyperparameters``: the registry (``rkg:Hyperparameter``, ontology/hyperparameters.ttl),
  name → label, unit, recipe section, order, the regime it needs and the choices it belongs to;
- ``settings``: constant → the hyperparameter it sets (``rkg:sets`` a registered one), the
  choices it belongs to (``owners``: ``<choice> rkg:hyperparameter <constant>`` or, the way an
  extension says it of a bundled choice, ``<constant> rkg:appliesTo <choice>``), its
  conditions, the scale it was published for (``scope``: ``rkg:scopeCondition``, which only a
  run known to be outside it fails) and the named value (``rkg:valueNode``) if any;
- ``regimes``: family → the regimes it is trained in (``rkg:trainedWith``);
- ``training_methods``: approach → the training method plan sizes for it (``rkg:asMethod``);
- ``trains_weights``: method → whether it updates weights, where the KB says (``rkg:trainsWeights``;
  false for inference; a method it says nothing of trains);
- ``method_layouts``: method → the parallel layouts its trainers run (``rkg:parallelLayout``: approach
  IRIs; a method the KB says nothing of gets every layout plan knows);
- ``fixed_by``: named value → {hyperparameter: value} it fixes by its definition
  (``rkg:fixesHyperparameter``/``rkg:fixedValue``: a constant schedule's final ratio, 1);
- ``recipe_sections``: choice → the recipe section it is shown in (``rkg:recipeSection``);
- ``sectioned_kinds``: the kinds whose choices are parts of one run, by section (``rkg:bySection``
  on the kind's class): an answer's runner-ups are the pick's section's (reason/answers.py);
- ``failure_modes``: failure mode → the conditions under which it can occur (none: always);
- ``choice_conditions``: choice → the conditions under which a recipe shows it.

    >>> snap["hyperparameters"]["beta2"]["section"]
    'optimizer'
"""

from __future__ import annotations

from recipekg.knowledge.terms import RDF, RDFS, RKG, SKOS


def compile_recipe(ix) -> dict:
    """The snapshot's recipe containers from the graph's index (:class:`compiler.Index`): each
    keyed by the node it describes, so an extension's node is a new entry of its own (and a
    change to a bundled one is a change: knowledge/isolation.py)."""
    registry = {h: ix.text(h, SKOS.notation) for h in ix.instances(RKG.Hyperparameter) if ix.text(h, SKOS.notation)}
    hyper = {name: {"iri": h, "label": ix.text(h, RDFS.label), "unit": ix.text(h, RKG.unitLabel),
                    "section": ix.text(h, RKG.recipeSection), "order": ix.number(h, RKG.order),
                    "needs_regime": sorted(ix.iris(h, RKG.needsRegime)), "applies_to": sorted(ix.iris(h, RKG.appliesTo)),
                    "definition": ix.text(h, SKOS.definition),
                    "group": registry.get(ix.one(h, SKOS.broader), registry[h]),
                    "coupled_with": sorted(registry[x] for x in ix.iris(h, RKG.coupledWith) if x in registry)}
             for h, name in sorted(registry.items())}
    owners: dict[str, set] = {}
    for s in ix.spo:  # <choice> rkg:hyperparameter <constant>, or <constant> rkg:appliesTo <choice>
        for c in ix.iris(s, RKG.hyperparameter):
            owners.setdefault(c, set()).add(s)
    for c in ix.instances(RKG.Constant):
        if ix.one(c, RKG.sets) in registry:
            owners.setdefault(c, set()).update(ix.iris(c, RKG.appliesTo))
    settings = {c: {"hyperparameter": registry[ix.one(c, RKG.sets)], "owners": sorted(found),
                    "conditions": ix.iris(c, RKG.condition), "scope": ix.iris(c, RKG.scopeCondition),
                    "value_node": ix.one(c, RKG.valueNode)}
                for c, found in sorted(owners.items()) if ix.one(c, RKG.sets) in registry}
    return {"hyperparameters": hyper, "settings": dict(sorted(settings.items())),
            "regimes": _by(ix, RKG.trainedWith),
            "training_methods": {s: ix.one(s, RKG.asMethod) for s in sorted(ix.spo) if ix.one(s, RKG.asMethod)},
            "trains_weights": {m: ix.text(m, RKG.trainsWeights) == "true" for m in sorted(ix.instances(RKG.TrainingMethod))
                               if ix.text(m, RKG.trainsWeights) is not None},
            "method_layouts": {m: sorted(ix.iris(m, RKG.parallelLayout)) for m in sorted(ix.instances(RKG.TrainingMethod))
                               if ix.iris(m, RKG.parallelLayout)},
            "fixed_by": {s: {registry[h]: ix.number(s, RKG.fixedValue)} for s in sorted(ix.spo)
                         if (h := ix.one(s, RKG.fixesHyperparameter)) in registry and ix.number(s, RKG.fixedValue) is not None},
            "recipe_sections": {s: ix.text(s, RKG.recipeSection) for s in sorted(ix.spo)
                                if ix.text(s, RKG.recipeSection) and s not in registry},
            "sectioned_kinds": sorted(ix.text(c, RKG.kindName) for c in ix.spo
                                      if ix.text(c, RKG.kindName) and ix.text(c, RKG.bySection) in ("true", "1")),
            "failure_modes": {f: ix.iris(f, RKG.condition) for f in sorted(ix.instances(RKG.FailureMode))},
            # the trainers a recipe's configurations are written for (its format's name: id) and
            # the device types each runs on (none stated: not checked)
            "trainers": {t: {"id": ix.text(t, SKOS.notation), "devices": ix.iris(t, RKG.runsOnDevice)}
                         for t in sorted(ix.instances(RKG.Trainer)) if ix.text(t, SKOS.notation)},
            "choice_conditions": {s: ix.iris(s, RKG.condition) for s in sorted(ix.spo) if ix.iris(s, RKG.condition)
                                  and not {RKG.Rule, RKG.Condition, RKG.Constant, RKG.FailureMode,
                                           RKG.ComputeTier} & set(ix.iris(s, RDF.type))}}


def _by(ix, prop: str) -> dict:
    return {s: sorted(ix.iris(s, prop)) for s in sorted(ix.spo) if ix.iris(s, prop)}
