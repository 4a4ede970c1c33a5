"""One function per recipe section (named after it): the items it reads from the rankings,
``plan`` and the KB. The hyperparameter settings of the optimizer, hyperparameters and
stability sections are added by :func:`recipekg.recipe.sections.sections`.

    >>> from recipekg.recipe.assemble import recipe
    >>> a = recipe(parse("recipe where data = tabular and rows = 30k")[0], snap)
    >>> [i["text"] for i in a["sections"][4]["items"]]     # optimizer: trees have none
    ['does not apply']
"""

from __future__ import annotations

from recipekg.plan.quantities import in_section
from recipekg.reason.answers import origin_json
from recipekg.recipe.items import item, unsourced
from recipekg.recipe.picks import no_pick, pick_item, ranked_items, reason_caveat, reason_origin
from recipekg.recipe.settings import sized_by_formulas

_DESCENT = "https://w3id.org/recipekg/id/gradient-descent"


def _not_applicable(what: str, ctx, snap: dict) -> dict:
    arch = snap["nodes"][ctx.architecture]["label"] if ctx.architecture else "the model"
    regime = ", ".join(snap["nodes"][r]["label"] for r in ctx.regimes) or "no known regime"
    return item(what, None, "does not apply", f"{arch} is fitted by {regime}, not by a gradient-based optimizer", [])


def _serving(what: str, ctx, snap: dict, dims: tuple[str, ...] = ()) -> dict:
    """The item of a training section in a recipe whose method trains no weight (inference:
    ``rkg:trainsWeights false``), with the method's definition as why, naming the constraints
    on ``dims`` the user gave that it therefore does not use."""
    method = snap["nodes"][ctx.method]
    given = [d for d in dims if d in ctx.facts and not ctx.facts[d].derived]
    why = (f"the given {', '.join(given)} not used: " if given else "") + f"method = {method['id']} trains no weight"
    return item(what, None, "does not apply", why + (f": {method['definition']}" if method.get("definition") else ""),
                [], **{"from": "constraints" if ctx.method_from == "given" else "recommend approach"})


def _papers(node: dict, snap: dict) -> list[dict]:
    """The papers that introduced a choice, as sources (role: method)."""
    from recipekg.reason.answers import source_json

    return [source_json(p, snap, "method") for p in node["papers"]]


def architecture(ctx, plan, snap: dict) -> list[dict]:
    answer = ctx.rankings["architecture"]
    if ctx.architecture_from == "given":
        node = snap["nodes"][ctx.architecture]
        return [item("architecture", node["id"], node["label"], f"given: architecture = {node['id']}",
                     _papers(node, snap), **{"from": "constraints"}, **_past_properties(ctx, snap))]
    if ctx.architecture is None:
        return [no_pick("architecture", answer, "architecture")] + ruled_out(answer, "architecture")
    if ctx.architecture_from.startswith("assumed"):
        node = snap["nodes"][ctx.architecture]
        return [item("architecture", node["id"], node["label"], f"{ctx.architecture_from}; give the architecture to plan "
                     "another", [], **{"from": "plan"})] + ruled_out(answer, "architecture")
    return [pick_item("architecture", answer, "architecture")] + ruled_out(answer, "architecture")


def _past_properties(ctx, snap: dict) -> dict:
    """A given architecture's properties the constraints go past or contradict (TabPFN, evaluated
    up to 10,000 rows, for 50,000), as the item's caveat: the recipe still follows the user's
    choice, and says what its sources say of it."""
    from recipekg.reason.properties import CONTRADICTS, NOTE, checks

    past = [c for c in checks(ctx.architecture, "architecture", ctx.facts, snap) if c["verdict"] in (NOTE, CONTRADICTS)]
    if not past:
        return {}
    return {"caveat": " ".join(c["property"]["text"] for c in past)}


def ruled_out(answer: dict, kind: str, said: tuple[str, ...] = ()) -> list[dict]:
    """The choices of a ranking a property of theirs rules out for these constraints (BERT's 512
    tokens at seq-length = 32k), each with the property's sources; not those ruled out by the
    dimensions ``said`` alone, which an item of the section states already."""
    return [item("ruled out", e["id"], e["label"], e["why"], e["sources"],
                 **{"from": f"recommend {kind}"}, **origin_json(e)) for e in answer.get("excluded", ())
            if not said or not {c["dimension"] for c in e["because_of"]} <= set(said)]


def approach(ctx, plan, snap: dict) -> list[dict]:
    answer = ctx.rankings["approach"]
    where, methods = snap["recipe_sections"], snap["training_methods"]
    picked = [r for r in answer["results"] if r["group"] == "matches" and r["score"] > 0
              and where.get(r["iri"], "approach") == "approach"
              and methods.get(r["iri"], ctx.method) == ctx.method]  # never one that trains another way
    # a given method is the section's item: approaches that are other methods (LoRA in a pretraining recipe) are not news
    out = ruled_out(answer, "approach", ("method",) if ctx.method_from == "given" else ())
    if picked:
        r = picked[0]
        reason = r["because"][0] if r["because"] else {"text": "", "sources": []}
        out.append(item("approach", r["id"], r["label"], reason["text"], reason["sources"],
                        **{"from": "recommend approach"}))
    if ctx.method is None:
        return out
    method = snap["nodes"][ctx.method]
    if ctx.method_from == "given":
        why, source = f"given: method = {method['id']}", "constraints"
    elif ctx.method_from == "default":
        why, source = "no approach that matches names a training method: plan's default, pretraining", "plan"
    elif ctx.method_from == "pretrained":
        why, source = ("no approach that matches names a training method, and pretrained = yes: plan's default for "
                       "a pretrained model, a full fine-tune (method = lora or qlora trains adapters instead)"), "plan"
    else:
        why = f"what the approach {snap['nodes'][ctx.method_from]['label']} trains: method = {method['id']}"
        source = "recommend approach"
    out.append(item("method", method["id"], method["label"], why, [], **{"from": source}))
    return out + ranked_items(ctx, "technique", "approach", snap)   # how the method trains (LoRA with its embeddings)


# ------------------------------------------------------------------ from plan

def _quantity(plan: dict | None, name: str) -> dict | None:
    if plan is None:
        return None
    return next((q for q in plan["quantities"] if q["name"] == name and q["value"] is not None), None)


def _quantity_items(plan: dict | None, section: str, trains: bool = True) -> list[dict]:
    """The items of plan's quantities that the registry lists in ``section``
    (:mod:`recipekg.plan.quantities`), in its order; without a training run's figures when
    the method trains nothing (``trains`` false: inference). A quantity plan could not compute
    is an item too, "not computed" with what it needs (``missing``: the GPU has no peak in
    the KB, no GPU-hours to price), never left out without a word."""
    out = []
    for known in (q for q in in_section(section) if trains or not q.training):
        name = known.name
        q = _quantity(plan, name)
        if q is not None:
            out.append(item(q["label"], q["value"], quantity_text(q), q["derivation"], q["sources"],
                            quantity=name, unit=q["unit"], **{"from": "plan"}))
        elif (gap := _missing(plan, name)) is not None:
            label = known.label if gap["label"] == name else gap["label"]
            last = out[-1] if out else None
            if last is not None and last["value"] is None and last["why"] == gap["missing"]:  # one reason, said once
                last["what"] += f"; {label}"
                continue
            out.append(item(label, None, f"not computed: {gap['missing']}", gap["missing"], [],
                            quantity=name, unit=gap.get("unit"), **{"from": "plan"}))
    return out


def _missing(plan: dict | None, name: str) -> dict | None:
    """Plan's quantity ``name`` when it could not be computed (with why: ``missing``)."""
    return next((q for q in plan["quantities"] if q["name"] == name and q["value"] is None and q.get("missing")),
                None) if plan is not None else None


def quantity_text(q: dict) -> str:
    """A plan quantity as its table shows it (its range where it has one)."""
    from recipekg.render.numbers import quantity_value

    return quantity_value(q)


#: The constraints each plan section checks the run against, said unchecked when plan sizes none.
_CHECKS = {"memory per GPU": ("hardware", "gpu-memory", "gpus"), "training time": ("time", "gpus", "hardware"),
           "cost": ("price",)}


def _no_plan(what: str, ctx, snap: dict) -> dict:
    arch = snap["nodes"][ctx.architecture]["label"] if ctx.architecture else "this architecture"
    if ctx.architecture and not sized_by_formulas(ctx.architecture, snap):
        given = [c["text"] for d in _CHECKS.get(what, ()) if d in ctx.facts and not ctx.facts[d].derived
                 for c in ctx.facts[d].constraints if c.get("text")]
        return unsourced(what, f"plan's formulas (6 × parameters × tokens) are for transformers; the KB has no "
                               f"sourced compute or memory model for {arch}"
                               + (f", so there is no {what} to check {' and '.join(given)} (given) against"
                                  if given else ""))
    why = ctx.unplanned or ("nothing to size from: give params = 7B, tokens = 140B, flops = 1e21, or gpus with a "
                            "time and the hardware")
    return item(what, None, "not sized", why, [],
                needs=["params", "tokens", "flops", "gpus"], **{"from": "plan"})


def size(ctx, plan, snap: dict) -> list[dict]:
    if plan is None:
        return [_no_plan("model size", ctx, snap)] + ranked_items(ctx, "approach", "size", snap)
    if plan.get("method") not in (None, "pretrain"):  # a given model, fine-tuned or served: no sizing law
        from recipekg.render.plan import given_model_sizing

        items = _quantity_items(plan, "size", ctx.trains)
        if ctx.size_unknown:
            items = [_bound(it, plan) if it.get("quantity") == "params" else it for it in items]
        return [item("strategy", None, "the model's own size", given_model_sizing(plan["method"]), [],
                     **{"from": "plan"})] + items
    strategy = plan["strategy"]
    why = strategy.get("why") or strategy["label"]
    sources = (strategy.get("because") or [{}])[0].get("sources", [])
    items = [item("strategy", strategy["id"], strategy["label"], why, sources, **{"from": "plan"})]
    return items + _quantity_items(plan, "size")


def _bound(params: dict, plan: dict) -> dict:
    """A run of a given model (fine-tune, serving) that names none: plan's size is the largest
    model these GPUs hold, a bound, not the model's size, which the user gives."""
    return dict(params, text=f"not given (up to {params['text']} fit these GPUs)", needs=["params"],
                why=f"method = {plan['method']} trains or serves a given pretrained model, whose size no law "
                    f"chooses: give model = ... or params = ...; {params['why']}")


def data(ctx, plan, snap: dict) -> list[dict]:
    if not ctx.trains:
        return [_serving("training data", ctx, snap, ("tokens", "unique-tokens", "epochs"))]
    return _quantity_items(plan, "data") + ranked_items(ctx, "technique", "data", snap)


def optimizer(ctx, plan, snap: dict) -> list[dict]:
    if ctx.architecture and not ctx.gradient_descent:
        return [_not_applicable("optimizer", ctx, snap)]
    if not ctx.trains:
        return [_serving("optimizer", ctx, snap, ("optimizer",))]
    answer = ctx.rankings["optimizer"]
    if ctx.optimizer_from == "given":
        node = snap["nodes"][ctx.optimizer]
        return [item("optimizer", node["id"], node["label"], f"given: optimizer = {node['id']}", _papers(node, snap),
                     **{"from": "constraints"})]
    if answer["decision"]["pick"] is None:
        return [no_pick("optimizer", answer, "optimizer")]
    return [pick_item("optimizer", answer, "optimizer")]


def hyperparameters(ctx, plan, snap: dict) -> list[dict]:
    return [] if ctx.trains else [_serving("hyperparameters", ctx, snap)]


def precision(ctx, plan, snap: dict) -> list[dict]:
    given = ctx.facts.get("precision")
    if given is not None and given.values and given.constraints:
        names = ", ".join(sorted(snap["nodes"][v]["id"] for v in given.values))
        return [item("precision", names, names, f"given: precision = {names}", [], **{"from": "constraints"})]
    if ctx.architecture and not ctx.gradient_descent:
        return []
    if not ctx.trains:  # the ranked techniques are training precisions: the weights' precision is plan's
        return _served_weights(plan)
    return ranked_items(ctx, "technique", "precision", snap) + _training_loop(ctx, plan, snap)


#: plan's training-loop choices a recipe shows when the query makes them: dimension, value, text,
#: and the plan quantity whose sources say what it costs and saves.
LOOP = (("master-weights", "bf16", "pure bf16: no fp32 master copy, the optimizer's states in bf16", "master_weights"),
        ("optimizer-step", "in-backward", "the optimizer step fused into the backward pass: each gradient freed once "
         "its parameter steps; no gradient accumulation and no clipping by the global norm", "gradients"))


def _training_loop(ctx, plan, snap: dict) -> list[dict]:
    """The query's pure bf16 or fused optimizer step, as plan counted them."""
    out = []
    for dim, value, text, quantity in LOOP:
        f = ctx.facts.get(dim)
        if f is None or not f.constraints or not f.values or not any(snap["nodes"][v]["id"] == value for v in f.values):
            continue
        q = _quantity(plan, quantity)
        out.append(item(dim, value, text, f"given: {dim} = {value}" + (f"; plan counts {q['derivation']}" if q else ""),
                        q["sources"] if q else [], **{"from": "constraints"}))
    return out


def _served_weights(plan: dict | None) -> list[dict]:
    """The bits per weight plan serves the model at (its weights over its parameters), with the
    weights' derivation; precision = int8 or int4 changes it."""
    weights, params = _quantity(plan, "weights"), _quantity(plan, "params")
    if weights is None or params is None or not isinstance(params["value"], (int, float)) or not params["value"]:
        return []
    bits = round(8 * weights["value"] / params["value"], 2)
    return [item("weights", bits, f"{bits:g}-bit weights", f"{weights['derivation']} (precision = int8 or int4 for "
                 f"quantized weights)", weights["sources"], quantity="weights", unit="bits per weight", **{"from": "plan"})]


def stability(ctx, plan, snap: dict) -> list[dict]:
    if ctx.architecture and not ctx.gradient_descent:
        return []
    if not ctx.trains:
        return [_serving("stability", ctx, snap)]
    return ranked_items(ctx, "technique", "stability", snap)


def parallelism(ctx, plan, snap: dict) -> list[dict]:
    out = []
    fit = (plan or {}).get("fit") or {}
    layout = fit.get("layout")
    if layout:
        text = (f"ZeRO stage {layout['zero']}, tensor-parallel {layout['tensor_parallel']}, pipeline-parallel "
                f"{layout['pipeline_parallel']}, data-parallel {layout['data_parallel']}, micro-batch "
                f"{layout['micro_batch']}" + (f" (up to {layout['micro_batch_room']:,} fit)" if layout.get("micro_batch_room") else "")
                + f", recomputation {layout['recompute']}, offload {layout['offload']}")
        q = _quantity(plan, "memory_per_gpu")
        out.append(_unsized("layout", f"{text}, {fit.get('text', '')}", plan) if ctx.size_unknown else
                   item("layout", layout, text, fit.get("text", ""), q["sources"] if q else [], **{"from": "plan"}))
        layout = None if ctx.size_unknown else layout
    return out + [_against_layout(it, layout) for it in ranked_items(ctx, "approach", "parallelism", snap)]


def _unsized(what: str, bound: str, plan: dict) -> dict:
    """A layout or memory of a run of a given model that names none: plan's is the bound's."""
    return item(what, None, "not sized: give the model to fine-tune (model = ... or params = ...)",
                f"method = {plan['method']} trains or serves a given pretrained model whose size the query does "
                f"not give; plan's {what} is for the largest model these GPUs hold, not for it: {bound}",
                [], needs=["params"], **{"from": "plan"})


def _against_layout(it: dict, layout: dict | None) -> dict:
    """A parallel approach recommend advises, said beside the plan's layout when the layout
    that fits shards otherwise (FSDP, ZeRO stage 3, where ZeRO stage 1 already fits)."""
    from recipekg.plan.methods import LAYOUT_DEGREES

    degree = LAYOUT_DEGREES.get(it["value"])
    if not layout or not degree or degree[0] != "zero" or layout.get("zero") == degree[1]:
        return it
    zero = layout["zero"]  # the stages shard more as they go up: 1 the optimizer states, 3 every state
    return dict(it, why=f"{it['why']} The plan's layout above fits with ZeRO stage {zero}, which shards "
                        f"{'less' if zero < degree[1] else 'more'} than {it['text']} (stage {degree[1]}).")


def memory(ctx, plan, snap: dict) -> list[dict]:
    if plan is None:
        return [_no_plan("memory per GPU", ctx, snap)]
    items = _quantity_items(plan, "memory", ctx.trains)
    fit = plan.get("fit") or {}
    if ctx.size_unknown:
        bound = "; ".join(f"{it['what']}: {it['text']}" for it in items[:1])
        return [_unsized("memory per GPU", bound, plan)] + (ranked_items(ctx, "technique", "memory", snap) if ctx.trains else [])
    if fit.get("text"):
        items.insert(0, item("fits", fit.get("fits"), fit.get("verdict", ""), fit["text"], [], **{"from": "plan"}))
    if fit.get("fits") is False and (fixes := _to_fit(plan)):
        items.insert(1, fixes)
    return items + (ranked_items(ctx, "technique", "memory", snap) if ctx.trains else [])


def _to_fit(plan: dict) -> dict | None:
    """The changes plan finds each enough to make a run that does not fit fit (its
    ``recommendations``: CPU offload, more GPUs, a smaller model, ...), cheapest first, as the
    query would say them; None when none is enough alone."""
    from recipekg.plan.summary import change_text

    enough = [r for r in plan.get("recommendations") or () if r.get("enough") and r["id"] != "combined"]
    if not enough:
        return None
    changes = [change_text(r) for r in enough]
    return item("to make it fit", changes, ", or ".join(changes) + " (each enough on its own)",
                "; ".join(f"{change_text(r)}: {r['text']}" for r in enough), [], **{"from": "plan"})


def time(ctx, plan, snap: dict) -> list[dict]:
    if plan is None:
        return [_no_plan("training time", ctx, snap)]
    if not ctx.trains:
        return _quantity_items(plan, "time", False) or [_serving("training time", ctx, snap)]
    return _quantity_items(plan, "time") + _budget(plan) + ranked_items(ctx, "technique", "time", snap)


def _budget(plan: dict) -> list[dict]:
    """The time budget's verdict, as plan gives it (kept to, with what the whole budget would
    train; may be missed, from which MFU it is met; missed, with the GPUs that would meet it)."""
    feas = plan.get("feasibility") or {}
    if not isinstance(feas, dict) or not feas.get("text") or feas.get("time_budget") is None:
        return []
    wall = _quantity(plan, "wall_time")
    return [item("time budget", feas["time_budget"], feas["text"], "plan's feasibility: the wall-clock time "
                 "against the budget given", wall["sources"] if wall else [], unit="hours", **{"from": "plan"})]


def cost(ctx, plan, snap: dict) -> list[dict]:
    if plan is None:
        return [_no_plan("cost", ctx, snap)]
    if not ctx.trains:  # plan's energy and cost are a training run's
        return [_serving("training energy and cost", ctx, snap)]
    items = _quantity_items(plan, "cost")
    if not any(i["quantity"] == "cost" and i["value"] is not None for i in items):  # no price is sourced
        items = [i for i in items if i["quantity"] != "cost"]
        items.append(unsourced("cost", "the KB holds no price per GPU-hour: give price = 2.5 (USD per GPU-hour)"))
    return items


def risks(ctx, plan, snap: dict) -> list[dict]:
    """The failure modes that can occur in this run (their conditions hold, or they have
    none) and the fix ``recommend fix`` gives for each."""
    if ctx.architecture and not ctx.gradient_descent:
        return []
    if not ctx.trains:  # the failure modes the KB knows are a training run's (loss spikes, divergence)
        return [_serving("training failures", ctx, snap)]
    from recipekg.query.ast import Constraint, Name
    from recipekg.reason.conditions import HELD, status

    out = []
    for mode, conditions in snap["failure_modes"].items():
        node = snap["nodes"][mode]
        if node.get("no_advice") or any(status(snap["conditions"][c], ctx.facts, snap) != HELD for c in conditions):
            continue
        pos = ctx.stmt.pos
        answer = ctx.recommend("fix", Constraint(Name("symptom", pos), "=", (Name(node["id"], pos),), pos))
        decision = answer["decision"]
        if decision["pick"] is None:
            continue
        steps = (decision.get("procedure") or {}).get("steps") or [decision["pick"]]
        labels = {r["id"]: r["label"] for r in answer["results"]}
        first = next(r for r in answer["results"] if r["id"] == steps[0])
        reason = first["because"][0] if first["because"] else {"text": "", "sources": []}
        out.append(item(node["label"], steps, ", then ".join(labels[s] for s in steps),
                        f"watch for {node['label'].lower()}: {reason['text']}",
                        reason["sources"], **{"from": f"recommend fix where symptom = {node['id']}"},
                        **reason_origin(node, reason)))  # (the failure mode an extension adds, or its fix)
    return out
