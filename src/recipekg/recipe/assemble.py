"""Assemble a recipe from the answers the KB already gives, re-deciding nothing.

1. The constraints are resolved once (an error points into the recipe's own text).
2. ``recommend`` answers the architecture question for the same constraints, then the
   approach, optimizer and technique questions for them and the architecture (the one given,
   ``architecture``/``model``, or the pick); that architecture, the method given or the one
   the approach pick stands for (``rkg:asMethod``, else pretraining) and the optimizer pick
   make the recipe's context (:class:`Context`).
3. ``plan`` answers with the same constraints and that method, when the architecture is one
   plan's formulas are for (``rkg:appliesTo`` of the training-FLOPs formula) or the user gave
   a size; otherwise the size, memory, time and cost sections say why they are empty.
4. The sections (:mod:`recipekg.recipe.sections`) read those answers and the KB's settings.

    >>> a = recipe(parse("recipe where data = tabular and rows = 30k")[0], snap)
    >>> a["plan"] is None, a["sections"][0]["items"][0]["value"]
    (True, 'gradient-boosted-trees')
"""

from __future__ import annotations

from recipekg.errors import NothingToPlan
from recipekg.query.ast import Constraint, Name, Plan, Recipe, Recommend
from recipekg.reason.answers import constraints_json
from recipekg.reason.facts import Facts
from recipekg.reason.recommend import recommend
from recipekg.reason.resolve import facts_of
from recipekg.recipe.settings import closure, regimes_of, sized_by_formulas
from recipekg.recipe import sections as build

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from typing import Any

    from recipekg.contracts.plan import PlanBody
    from recipekg.contracts.recipe import RecipeBody
    from recipekg.contracts.recommend import RecommendBody

#: The kinds whose rankings a recipe reads, in the order they are answered.
KINDS = ("architecture", "approach", "optimizer", "technique")
#: The plan-sizing dimensions: giving one makes plan answer whatever the architecture.
_SIZING = ("params", "tokens", "flops", "architecture", "method", "unique-tokens")
_KB = "https://w3id.org/recipekg/id/"
_DEFAULT_METHOD, _FINE_TUNE = _KB + "method-pretrain", _KB + "method-full-fine-tune"
_ARCHITECTURE = "https://w3id.org/recipekg/ns#Architecture"


class Context:
    """What the recipe is about: the architecture, its regimes, the method, the optimizer,
    and the facts the settings are checked against (the user's, plus the architecture and
    method the recipe settled on)."""

    def __init__(self, stmt: Recipe, facts: dict, rankings: dict, snap: dict, backend=None):
        self.stmt, self.rankings, self.snap, self.backend = stmt, rankings, snap, backend
        self.architecture, self.architecture_from = _architecture(facts, rankings["architecture"], snap)
        self.regimes = regimes_of(self.architecture, snap)
        trained = self.gradient_descent or not self.regimes  # a loop of steps, or not known not to be
        self.method: str | None
        self.method, self.method_from = _method(facts, rankings["approach"], snap) if trained else (None, "none")
        if not self.regimes and self.method:  # (no architecture known: the method's regime, if it has one)
            self.regimes = regimes_of(self.method, snap)
        given = facts.get("optimizer")
        one = given is not None and given.values is not None and len(given.values) == 1
        self.optimizer_from = "given" if one else "ranking"
        self.optimizer = (next(iter(given.values)) if given is not None and given.values and one else
                          _pick_iri(rankings["optimizer"], snap)) if self.gradient_descent and self.trains else None
        self.facts = dict(facts)
        if self.architecture and "architecture" not in facts:
            self.facts["architecture"] = Facts("architecture", "categorical", values={self.architecture})
        if self.method:
            self.facts["method"] = Facts("method", "categorical", values={self.method})
        self.size_unknown = False   # a given model's run (fine-tune, serving) with no model: plan's size is a bound
        self.unplanned: str | None = None   # why plan sized nothing (its NothingToPlan), when it did not
        self.premise: tuple[Constraint, ...] = ()   # what the approach's run starts from (recipe/premise.py)

    def sized_by(self, plan: PlanBody | None) -> None:
        """The model size and tokens plan settled on (a given model's published size, or plan's
        own) are facts the settings are checked against when the user gave none: QLoRA's learning
        rate for ``model = llama-2-7b`` is its rate for models up to 13B, and LLaMA's 2,000
        warmup steps are for runs of 1T tokens and more, not plan's 2.5B for a 125M model."""
        if plan is None:
            return
        if plan.get("largest_models") and plan.get("method") not in (None, "pretrain"):
            self.size_unknown = True   # the largest model the GPUs hold, not the size of the model to fine-tune
            return
        for name in ("params", "tokens"):
            size = next((q["value"] for q in plan["quantities"] if q["name"] == name), None)
            if name not in self.facts and isinstance(size, (int, float)) and size > 0:
                self.facts[name] = Facts(name, "count", intervals=[(float(size), True, float(size), True)],
                                         derived="plan")

    def assumed_by(self, plan: PlanBody | None) -> None:
        """The architecture plan's laws are for, when the recipe has none: a run plan gave a
        learning rate or batch by a law fitted on one architecture only (DeepSeek LLM's, on
        decoder language models) is planned as that architecture's, so its settings are read
        for it too; ``architecture_from`` says it was assumed and by which law. The narrowest
        of the architectures those laws are for, when the others are broader ones of it; none
        when they disagree, or when the architecture ranking names architectures and neither it
        nor a narrower one is among them (an image run: the laws do not fit it)."""
        if self.architecture is not None or plan is None:
            return
        scoped: dict[str, list[str]] = {}
        for q in plan["quantities"]:  # (the hyperparameters plan computes: sections.planned_item's names)
            if q["name"].replace("_", "-") not in self.snap["hyperparameters"]:
                continue
            ref = q.get("formula")
            formula = self.snap["formulas"].get(ref["iri"], {}) if ref else {}
            for node in formula.get("applies_to") or () if q.get("value") is not None else ():
                if _ARCHITECTURE in self.snap["nodes"].get(node, {}).get("types", ()):
                    scoped.setdefault(node, []).append(q["label"])
        narrowest = [n for n in scoped if set(scoped) <= set(closure([n], self.snap))]
        named = [r["iri"] for r in self.rankings["architecture"]["results"]]
        if not narrowest or (named and not any(narrowest[0] in closure([r], self.snap) for r in named)):
            return  # (the constraints point to other architectures: images, audio)
        self.architecture = narrowest[0]
        self.architecture_from = "assumed: plan's " + " and ".join(scoped[self.architecture]) + " are for it"
        self.regimes = regimes_of(self.architecture, self.snap) or self.regimes
        self.facts["architecture"] = Facts("architecture", "categorical", values={self.architecture})
        # the optimizer and techniques ranked for it, as for a recipe that names it
        self._ranked_for(self._named("architecture", self.architecture))

    def settle_method(self, *more: Constraint) -> None:
        """The optimizer and techniques ranked again for the method the approach ranking settled
        on (``more``: the architecture the recipe picked), as for a recipe that names it: a LoRA
        run's optimizer is the adapters', not the one the rule of thumb's full-training memory
        calls for."""
        if self.method is None or self.method_from in ("given", "default", "none") or not self.trains:
            return
        self._ranked_for(*more, self._named("method", self.method))

    def _named(self, dimension: str, iri: str) -> Constraint:
        """``dimension = <iri's id>`` at the statement's position."""
        value = Name(self.snap["nodes"][iri]["id"], self.stmt.pos)
        return Constraint(Name(dimension, self.stmt.pos), "=", (value,), self.stmt.pos)

    def _ranked_for(self, *more: Constraint) -> None:
        """The optimizer and techniques ranked again with ``more``, and the optimizer the ranking
        picks (when the user named none)."""
        for kind in ("optimizer", "technique"):
            self.rankings[kind] = self.recommend(kind, *more)
        if self.optimizer_from == "ranking" and self.optimizer is not None:
            self.optimizer = _pick_iri(self.rankings["optimizer"], self.snap) or self.optimizer

    def recommend(self, kind: str, *more: Constraint) -> RecommendBody:
        """``recommend <kind>`` for the recipe's constraints and ``more``."""
        return recommend(as_recommend(self.stmt, kind, *self.premise, *more), self.snap, self.backend)

    @property
    def trains(self) -> bool:
        """Whether the recipe's method updates weights (inference does not: ``rkg:trainsWeights false``)."""
        return self.snap["trains_weights"].get(self.method, True) if self.method else True

    @property
    def gradient_descent(self) -> bool:
        return _KB + "gradient-descent" in self.regimes

    def given_nodes(self) -> list[str]:
        """The architecture, optimizer and method the query itself names (of :meth:`nodes`):
        those whose settings are the user's to settle when they wait for a condition."""
        return [n for n, how in ((self.architecture, self.architecture_from), (self.optimizer, self.optimizer_from),
                                 (self.method, self.method_from)) if n and how == "given"]

    def nodes(self) -> list[str]:
        """The choices whose settings the recipe reads, narrowest first."""
        techniques = [r["iri"] for r in self.rankings["technique"]["results"] if r["group"] == "matches" and r["score"] > 0]
        return [n for n in (self.architecture, self.optimizer, self.method) if n] + techniques


def recipe(stmt: Recipe, snap: dict, backend=None) -> RecipeBody:
    """The answer to a ``recipe`` statement (the JSON the spec describes); the rankings come
    from ``backend`` (the native rule index by default)."""
    facts = facts_of(stmt.constraints, snap)
    rankings: dict[str, RecommendBody] = {"architecture": recommend(as_recommend(stmt, "architecture"), snap, backend)}
    more = _picked_architecture(stmt, facts, rankings["architecture"], snap)
    rankings |= {kind: recommend(as_recommend(stmt, kind, *more), snap, backend) for kind in KINDS[1:]}
    ctx = Context(stmt, facts, rankings, snap, backend)
    asked = dict(rankings)
    if premised := _premised(stmt, facts, ctx, snap, backend):
        ctx, facts, more = premised
    ctx.settle_method(*more)
    plan, unread = _plan(stmt, ctx, facts, snap)
    ctx.sized_by(plan)
    ctx.assumed_by(plan)
    sections = build.sections(ctx, plan, snap)
    answer: Any = {"statement": "recipe", "query": stmt.text.strip(), "constraints": constraints_json(facts),
                   "context": build.context_json(ctx, snap), "sections": sections, "plan": plan}
    answer["unused"] = build.unused(facts, ctx.rankings, unread, sections)
    given = {"architecture": ctx.architecture_from, "optimizer": ctx.optimizer_from}  # (a choice given is not asked about)
    stood = {c.dimension.text for c in ctx.premise}  # (the question a premise stands in for is still the user's)
    questions: dict[str, Any] = {**ctx.rankings, "architecture": {"ask": [
        *(q for q in asked["architecture"].get("ask") or () if q["dimension"] in stood),
        *(ctx.rankings["architecture"].get("ask") or ())]}}
    answer["ask"] = build.asks({k: r for k, r in questions.items() if given.get(k) != "given"})
    from recipekg.recipe.emit import configs, off_device

    hardware = facts["hardware"].values if "hardware" in facts else None
    answer["configs"], answer["no_configs"] = configs(answer, off_device(hardware, snap))  # the writers read the recipe so far
    done: RecipeBody = answer
    return done  # api.answer stamps its as_of (reason/recency.py), as every answer's


def _premised(stmt: Recipe, facts: dict, ctx: Context, snap: dict, backend) -> tuple | None:
    """``(context, facts, more)`` ranked again for what the approach's run starts from, when
    the architecture was the ranking's and the premise changes its pick while the approach
    ranked for the new pick stays the same (recipe/premise.py); None otherwise."""
    from recipekg.recipe.premise import as_constraints, premises
    from recipekg.reason.implied import implied_fact

    found = premises(ctx.rankings["approach"], facts, snap) if ctx.architecture_from == "recommend architecture" else {}
    if not found:
        return None
    premise = as_constraints(found, stmt, snap)
    first = recommend(as_recommend(stmt, "architecture", *premise), snap, backend)
    if _pick_iri(first, snap) in (None, ctx.architecture):
        return None
    more = _picked_architecture(stmt, facts, first, snap)
    approach = recommend(as_recommend(stmt, "approach", *more), snap, backend)
    if premises(approach, facts, snap).keys() != found.keys() or _method(facts, approach, snap) != (ctx.method, ctx.method_from):
        return None  # (the new architecture's run settles otherwise: the first answer stands)
    rankings = {"architecture": first, "approach": approach,
                **{kind: recommend(as_recommend(stmt, kind, *premise, *more), snap, backend) for kind in KINDS[2:]}}
    facts = dict(facts) | {dim: implied_fact(dim, vs, props, "approach", snap) for dim, (vs, props) in found.items()}
    premised = Context(stmt, facts, rankings, snap, backend)
    premised.premise = premise
    return premised, facts, more


def as_recommend(stmt: Recipe, kind: str, *more: Constraint) -> Recommend:
    """The ``recommend <kind>`` statement with the recipe's constraints (and ``more``)."""
    return Recommend(Name(kind, stmt.pos), stmt.constraints + more, None, stmt.pos,
                     f"recommend {kind}" + stmt.text.strip()[len("recipe"):])


def _picked_architecture(stmt: Recipe, facts: dict, ranking: RecommendBody, snap: dict) -> tuple[Constraint, ...]:
    """``architecture = <pick>`` when the user gave no architecture and the ranking picked
    one: the other kinds are ranked for the architecture the recipe trains."""
    if "architecture" in facts or ranking["decision"]["pick"] is None:
        return ()
    return (Constraint(Name("architecture", stmt.pos), "=", (Name(ranking["decision"]["pick"], stmt.pos),), stmt.pos),)


def _architecture(facts: dict, ranking: RecommendBody, snap: dict) -> tuple[str | None, str]:
    given = facts.get("architecture")
    if given is not None and given.values and len(given.values) == 1:
        return next(iter(given.values)), "given"
    pick = _pick_iri(ranking, snap)
    return pick, "recommend architecture" if pick else "none"


def _pick_iri(answer: RecommendBody, snap: dict) -> str | None:
    pick = answer["decision"]["pick"]
    return next((r["iri"] for r in answer["results"] if r["id"] == pick), None)


def _method(facts: dict, approach: RecommendBody, snap: dict) -> tuple[str | None, str]:
    given = facts.get("method")
    if given is not None and given.values and len(given.values) == 1:
        return next(iter(given.values)), "given"
    methods, nodes = snap["training_methods"], snap["nodes"]
    for r in approach["results"]:
        if r["group"] != "matches" or r["score"] <= 0:
            continue
        if r["iri"] in methods:
            return methods[r["iri"]], r["iri"]
        if any(a in methods for a in nodes.get(r["iri"], {}).get("ancestors", ())):
            return None, "none"  # (a narrower way of its approach that trains otherwise: the head only is no full fine-tune)
    pretrained = facts.get("pretrained")
    if (pretrained is not None and not pretrained.derived and _FINE_TUNE in nodes
            and [nodes[v]["id"] for v in pretrained.values or ()] == ["yes"]):
        return _FINE_TUNE, "pretrained"  # (plan's default for pretrained = yes given: plan/methods.method_id)
    return _DEFAULT_METHOD, "default"


def _plan(stmt: Recipe, ctx: Context, facts: dict, snap: dict) -> tuple[PlanBody | None, list[str] | None]:
    """plan's answer for the same constraints and the recipe's method, with the dimensions it
    did not read; (None, None) when plan's formulas are not for this architecture and the user
    gave nothing to size."""
    sized = sized_by_formulas(ctx.architecture, snap)
    if ctx.architecture is not None and not sized or not (any(d in facts for d in _SIZING) or sized):
        return None, None  # (a CNN's or a tree ensemble's run is not sized by a transformer's formulas)
    from recipekg.plan.planner import planned

    constraints = stmt.constraints
    if "method" not in facts and ctx.method:
        method = snap["nodes"][ctx.method]["id"]
        constraints += (Constraint(Name("method", stmt.pos), "=", (Name(method, stmt.pos),), stmt.pos),)
    statement = Plan(constraints, stmt.pos, "plan" + stmt.text.strip()[len("recipe"):])
    try:
        return planned(statement, snap)
    except NothingToPlan as e:
        ctx.unplanned = e.message   # (why: what the recipe's sections say instead of plan's figures)
        return None, None
