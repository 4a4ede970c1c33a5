"""recommend's compute check: plan's time for the run the advice decides on.

Where a ``recommend`` answer decides on a way to train that plan sizes a run for (its pick or
the pick alongside it is an approach with a training method, ``rkg:asMethod``: train from
scratch is pretraining), or an ``explain`` answer explains one, and the statement gives a time
budget, GPUs, their hardware (or peak) and what plan sizes a run from (params, a named model's
size, tokens or FLOPs), the answer carries
what ``plan`` finds for the same constraints and that method (``compute_check``): whether the
run keeps to the budget and the GPUs that would. The flowchart's tiers are rules of thumb
("four to eight GPUs for up to a week pretrain models of up to about 3B parameters"); plan's
arithmetic for 3B on 8 A100s in 5 days says 9.9-20 days, and the answer says both::

    >>> from recipekg.reason.recommend import recommend
    >>> a = recommend(parse("recommend approach where params = 3B and gpus = 8 and hardware = a100 "
    ...                     "and time = 5 days")[0], snap)
    >>> c, read = compute_check(parse("recommend approach where params = 3B and gpus = 8 and hardware = a100 "
    ...                               "and time = 5 days")[0], a, snap)
    >>> c["approach"], c["method"], c["meets_time_budget"], c["gpus_for_time"]
    ('train-from-scratch', 'pretrain', False, 33)
    >>> sorted(read)
    ['gpus', 'hardware', 'params', 'time']
"""

from __future__ import annotations

from recipekg.errors import RecipeKGError
from recipekg.query.ast import Constraint, Explain, Name, Plan, Recommend

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.explain import ExplainBody
    from recipekg.contracts.recommend import ComputeCheck, RecommendBody

#: What plan sizes a run from (one of them given, or a named model's size), and what a time check needs besides.
_SIZES = ("params", "tokens", "flops")
_NEEDED = ("time", "gpus")
_PEAK = ("hardware", "peak-flops")


def add_compute_check(stmt: Recommend | Explain, answer: RecommendBody | ExplainBody, snap: dict) -> None:
    """Add :func:`compute_check`'s verdict to ``answer`` (``compute_check``); the constraints
    plan read for it are used then, so ``unused`` no longer names them ("no optimizer advice
    depends on time", beside a check that reads the time)."""
    found = compute_check(stmt, answer, snap)
    if found is None:
        return
    check, read = found
    answer["compute_check"] = check
    answer["unused"] = [u for u in answer["unused"] if u["dimension"] not in read]


def compute_check(stmt: Recommend | Explain, answer: RecommendBody | ExplainBody,
                  snap: dict) -> tuple[ComputeCheck, set[str]] | None:
    """plan's verdict on the time budget for the run ``answer`` decides on (or explains, or
    of the method given), with the given dimensions plan read for it; None when the statement
    does not give what plan times a run from, the answer is about no approach plan sizes and no
    method is given, or plan finds no verdict (a time it cannot compute, a fine-tune whose
    dataset size is not given)."""
    given = {c["dimension"] for c in answer["constraints"] if not c.get("derived_from")}
    sized = {c["dimension"] for c in answer["constraints"]} & set(_SIZES)  # (a model named gives its size)
    if not (sized and given >= set(_NEEDED) and given & set(_PEAK)):
        return None
    constraints, methods = stmt.constraints, snap["dimensions"]["method"]["values"]
    if "method" in given:  # the user's own run: checked whatever the advice decides
        approach, method = None, next(c["value"] for c in answer["constraints"] if c["dimension"] == "method")
        label = f"the {snap['nodes'][methods[method]]['label']} given"
    else:
        approach = _approach(answer, snap)
        if approach is None:
            return None
        method = snap["nodes"][snap["training_methods"][approach]]["id"]
        constraints += (Constraint(Name("method", stmt.pos), "=", (Name(method, stmt.pos),), stmt.pos),)
        label = snap["nodes"][approach]["label"]
    text = "plan" + _where(stmt.text) + ("" if "method" in given else f" and method = {method}")
    from recipekg.plan.planner import planned

    try:
        plan, unread = planned(Plan(constraints, stmt.pos, text), snap)
    except RecipeKGError:
        return None  # (plan cannot answer these constraints: the user's own plan says why)
    feasibility = plan.get("feasibility") or {}
    if feasibility.get("meets_time_budget") is None or not feasibility.get("text"):
        return None
    tokens = next((q["value"] for q in plan["quantities"] if q["name"] == "tokens"), None)
    strategy = (plan.get("strategy") or {}).get("label") if method == "pretrain" else None
    how = ", ".join(x for x in (strategy, f"{_count(tokens)} tokens" if tokens else None) if x)
    check: ComputeCheck = {
        "query": text, "approach": snap["nodes"][approach]["id"] if approach else None, "method": method,
        "meets_time_budget": feasibility["meets_time_budget"], "gpus_for_time": feasibility.get("gpus_for_time"),
        "text": f"{label}, as plan sizes it{f' ({how})' if how else ''}: {feasibility['text']}"}
    return check, given - set(unread)


def _approach(answer: RecommendBody | ExplainBody, snap: dict) -> str | None:
    """The IRI of the approach the answer decides on that plan sizes a run for: the pick, or
    a pick alongside it (another part of the run), or the choice explained; None when none is one."""
    methods = snap["training_methods"]
    if answer["statement"] == "explain":
        iri = answer["choice"]["iri"]  # type: ignore[typeddict-item]
        return iri if iri in methods else None
    decision = answer["decision"]  # type: ignore[typeddict-item]
    picks = [decision.get("pick"), *(e.get("pick") for e in decision.get("alongside") or ())]
    iris = {r["id"]: r["iri"] for r in answer["results"]}  # type: ignore[typeddict-item]
    return next((iris[p] for p in picks if p in iris and iris[p] in methods), None)


def _where(text: str) -> str:
    """The statement's ``where ...`` part, without its ``top n``.

    >>> _where("recommend approach where params = 3B and time = 5 days top 3")
    ' where params = 3B and time = 5 days'
    >>> _where("explain train-from-scratch where params = 3B and time = 5 days")
    ' where params = 3B and time = 5 days'
    """
    at = text.lower().find(" where ")
    body = text[at:].rstrip() if at >= 0 else ""
    words = body.rsplit(None, 2)
    return words[0] if len(words) == 3 and words[1].lower() == "top" and words[2].isdigit() else body


def _count(value: float) -> str:
    from recipekg.render.numbers import count

    return count(value)
