"""The sections of a recipe, each a list of items read from the answers it composes.

The items (:mod:`recipekg.recipe.items`) come from one function per section
(:mod:`recipekg.recipe.parts`) and, for the optimizer, hyperparameters and stability
sections, from the KB's settings (:mod:`recipekg.recipe.settings`): a sourced setting, plan's
fitted value, or an unsourced item saying so::

    >>> from recipekg.recipe.assemble import recipe
    >>> a = recipe(parse("recipe where architecture = llama and method = pretrain and params = 7B")[0], snap)
    >>> [i["text"] for i in a["sections"][5]["items"] if i.get("hyperparameter") == "lr-schedule"]
    ['cosine decay']
"""

from __future__ import annotations

from recipekg.knowledge.view import SnapshotView
from recipekg.reason.answers import origin_json, sources_json
from recipekg.recipe import parts
from recipekg.recipe.items import item, unsourced
from recipekg.recipe.settings import applying, closure, cohere, relevant, waiting

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from typing import Any

    from recipekg.contracts.common import Unused
    from recipekg.contracts.plan import PlanBody
    from recipekg.contracts.recipe import Alternative, Context, Item, RecipeAsk, Section

#: The sections of a recipe, in order (the contract's names).
SECTIONS = ("architecture", "approach", "size", "data", "optimizer", "hyperparameters", "precision",
            "stability", "parallelism", "memory", "time", "cost", "risks")


def sections(ctx, plan: PlanBody | None, snap: dict) -> list[Section]:
    """Every section of the recipe, in :data:`SECTIONS` order."""
    settings = applying(ctx.nodes(), ctx.facts, snap)
    cohere(settings, snap, frozenset(n for n in snap["hyperparameters"] if given_value(n, ctx.facts) is not None))
    waits = waiting(ctx.given_nodes(), ctx.facts, snap)  # (another choice's settings for other runs: noise)
    groups = relevant(ctx.nodes(), ctx.regimes, snap)
    out: list[Section] = []
    for name in SECTIONS:
        items: list[Item] = getattr(parts, name)(ctx, plan, snap)
        if name in ("optimizer", "hyperparameters", "stability") and ctx.trains:
            items += setting_items(name, groups, settings, ctx, plan, snap, waits)
        out.append({"name": name, "items": items})
    set_apart(out, snap)
    warmup_share(out, plan)
    return out


def warmup_share(sections: list[Section], plan: PlanBody | None) -> None:
    """A warmup sourced as a number of steps, said as the share of this run's steps it is
    (plan's tokens over the recipe's global batch in tokens): QA round 5, Q37: LLaMA's 2,000
    steps were given for a run of about 12,000, a sixth of it, without saying so.

    >>> items = [{"hyperparameter": "warmup-steps", "value": 2000.0, "unit": "steps", "text": "2,000 steps"},
    ...          {"hyperparameter": "batch-tokens", "value": 5e5, "unit": "tokens", "text": "500k tokens"}]
    >>> warmup_share([{"name": "hyperparameters", "items": items}], {"quantities": [{"name": "tokens", "value": 6e9}]})
    >>> items[0]["text"]
    "2,000 steps (17% of this run's 12,000 steps: plan's tokens over the global batch)"
    """
    items: dict[str, Any] = {it.get("hyperparameter") or "": it for s in sections for it in s["items"]}
    warmup, batch = items.get("warmup-steps"), items.get("batch-tokens")
    found: Any = plan or {}
    quantities: list[Any] = list(found.get("quantities") or ())
    tokens = next((q["value"] for q in quantities if q["name"] == "tokens"), None)
    count, per_step = (warmup or {}).get("value"), (batch or {}).get("value")
    if not (warmup and isinstance(count, float) and isinstance(per_step, float) and isinstance(tokens, float)
            and warmup.get("unit") == "steps" and per_step > 0 and tokens >= per_step):
        return
    steps = tokens / per_step
    warmup["text"] += f" ({count / steps:.0%} of this run's {steps:,.0f} steps: plan's tokens over the global batch)"


def set_apart(sections: list[Section], snap: dict) -> None:
    """Mark the values of coupled hyperparameters (``rkg:coupledWith``: LoRA's alpha with its
    rank, target layers and learning rate) that no source of the others gave (audit 14/24: rank 4
    and alpha 32 from LoRA's runs on two projections, on QLoRA's every linear layer): each such
    item gets ``apart``, the coupled values it was not published with and their shared source.
    The user's own values are theirs to couple.

    >>> items = [{"hyperparameter": h, "text": t, "what": h, "sources": [{"id": src}]}
    ...          for h, t, src in (("lora-alpha", "32", "hu"), ("lora-rank", "4", "hu"), ("lora-targets", "all", "qlora"))]
    >>> set_apart([{"name": "hyperparameters", "items": items}], snap)
    >>> items[2]["apart"], "apart" in items[0]
    ({'from': ['lora-alpha', 'lora-rank'], 'labels': ['LoRA alpha', 'LoRA rank'], 'sources': ['hu']}, False)
    """
    items = {it["hyperparameter"]: it for s in sections for it in s["items"]
             if it.get("hyperparameter") and not it.get("unsourced") and not it.get("needs") and it.get("from") != "given"
             and it["sources"]}  # (a value waiting for the query is not yet the recipe's)
    for name, h in snap["hyperparameters"].items():
        members = [items[m] for m in [name, *h.get("coupled_with", ())] if m in items]
        if len(members) < 2:
            continue
        ids = [{src["id"] for src in it["sources"]} for it in members]
        shared = max(sorted(set().union(*ids)), key=lambda i: sum(i in x for x in ids))
        if all(shared in x for x in ids):
            continue
        with_it = sorted(it["hyperparameter"] for it, x in zip(members, ids) if shared in x)
        labels = [snap["hyperparameters"][m]["label"] for m in with_it]
        for it, x in zip(members, ids):
            if shared not in x:
                it["apart"] = {"from": with_it, "labels": labels, "sources": [shared]}


def setting_items(section: str, groups: list[str], settings: dict, ctx, plan, snap: dict,
                  waits: dict | None = None) -> list[Item]:
    """The items of one section's hyperparameters: a sourced setting, plan's fitted value
    for it, a setting waiting for what the query does not give (``waits``: :func:`waiting`), or
    unsourced."""
    hyper = snap["hyperparameters"]
    out: list[Item] = []
    for group in groups:
        if hyper[group]["section"] != section:
            continue
        members = [n for n, h in hyper.items() if h["group"] == group]
        found = [setting_item(n, settings[n], snap) for n in members if n in settings]
        found += [i for n in members if (i := own_item(n, ctx.architecture, planned_item(n, plan, snap), snap))
                  is not None]
        found = found or [i for n in members if (i := fixed_item(n, settings, snap)) is not None]
        if given := [i for n in members if (i := given_item(n, found, ctx.facts, snap)) is not None]:
            found = given   # the user's own value, the KB's beside it
        if found:
            out.append(one_value(found))
        elif pending := [waiting_item(n, chosen, snap) for n in members if (chosen := (waits or {}).get(n))]:
            out.append(pending[0])
        else:
            missing = unsourced(hyper[group]["label"], _no_setting(group, ctx, snap))
            missing["hyperparameter"] = group
            out.append(missing)
    return out


def waiting_item(name: str, chosen: dict, snap: dict) -> Item:
    """Hyperparameter ``name`` as a setting gives it once the query says what its conditions
    read and it does not (``chosen["waits"]``): the value, on those conditions, with its source,
    and ``needs`` those dimensions; no value a trainer would read, since it may not hold.

    >>> from recipekg.reason.resolve import facts_of
    >>> from recipekg.recipe.settings import waiting
    >>> facts = facts_of(parse("recipe where method = qlora and params = 7B")[0].constraints, snap)
    >>> w = waiting(["https://w3id.org/recipekg/id/method-qlora"], facts, snap)
    >>> it = waiting_item("gradient-clip-norm", w["gradient-clip-norm"], snap)
    >>> it["value"], it["text"], it["needs"]
    (None, '0.3 (global L2 norm) if architecture = transformer', ['architecture'])
    """
    const = snap["constants"][chosen["constant"]]
    owner = snap["nodes"].get(chosen["owner"], {}).get("label", chosen["owner"])
    label = snap["hyperparameters"][name]["label"]
    value = chosen["label"] or _number(chosen["value"], chosen["unit"], label)
    each = [chosen, *chosen.get("also", ())]  # (settings of the same value, each on its own conditions)
    conditions = " or ".join(" and ".join(c["label"] for c in x["waits"]) for x in each)
    needs = sorted({c["dimension"] for x in each for c in x["waits"]})
    why = (f"{const['text']} (a setting of {owner}, for {conditions}: give {', '.join(needs)} to settle it; "
           "no configuration sets it until then)")
    sources = list({s["id"]: s for x in each for s in sources_json(snap["constants"][x["constant"]], snap)}.values())
    return item(label, None, f"{value} if {conditions}", why, sources, hyperparameter=name,
                setting=const["id"], unit=chosen["unit"], needs=needs, **origin_json(const))


#: Which of a group's values leads the recipe: the user's, the named model's own published
#: recipe, plan's law (fitted with the other hyperparameters of its budget), then a setting.
_LEAD = {"given": 0, "published recipe": 1, "plan": 2}


def one_value(found: list[Item]) -> Item:
    """One item for a group of hyperparameters, whatever gave it values: the leading one
    (:data:`_LEAD`), the others and their alternatives beside it as its alternatives. A recipe
    has one global batch: DeepSeek LLM's law's 9.2M tokens and LLaMA's 4M were two items, and the
    configuration's steps read one while the text showed both (audit 14/21).

    >>> law = {"what": "global batch in tokens (law)", "value": 9.2e6, "text": "9.2M", "from": "plan", "sources": [],
    ...        "alternatives": [{"value": 4e6, "text": "4M (Llama 2 7B)", "setting": "recipe-llama2-7b", "sources": []}]}
    >>> llama = {"what": "global batch in tokens", "value": 4e6, "text": "4M", "setting": "llama-batch-tokens",
    ...          "sources": [], "alternatives": []}
    >>> lead = one_value([llama, law])
    >>> lead["value"], [a["setting"] for a in lead["alternatives"]]
    (9200000.0, ['recipe-llama2-7b', 'llama-batch-tokens'])
    """
    lead, *rest = sorted(found, key=lambda i: (_LEAD.get(i.get("from") or "", 3), i["what"]))
    if not rest:
        return lead
    alternatives = list(lead.get("alternatives") or ())
    seen = {a.get("setting") for a in alternatives} | {lead.get("setting") or lead.get("from")}
    for i in rest:
        key, value = i.get("setting") or i.get("from") or "", i.get("value")
        if isinstance(value, (int, float, str)) and key not in seen:
            seen.add(key)
            alternatives.append({"value": value, "text": f"{i['text']} ({_whose(i)})", "setting": key,
                                 "sources": i["sources"], **origin_json(i)})
        for a in i.get("alternatives") or ():
            if a.get("setting") not in seen:
                seen.add(a.get("setting"))
                alternatives.append(a)
    return {**lead, "alternatives": alternatives}


def _whose(i: Item) -> str:
    """What gave an item its value, for its line among alternatives: a setting's owner
    ("a setting of Decoder-only transformer"), else what the item is."""
    why = i.get("why") or ""
    if i.get("setting") and why.endswith(")") and " (a setting of " in why:
        return why.rsplit(" (", 1)[1][:-1]
    return i["what"]


def given_value(name: str, facts: dict) -> float | None:
    """The one number the query gives hyperparameter ``name`` (``lora-rank = 16``), else None."""
    f = facts.get(name)
    if f is None or f.derived or not f.intervals or len(f.intervals) != 1 or f.intervals[0][0] != f.intervals[0][2]:
        return None
    return f.intervals[0][0]


def given_item(name: str, found: list[Item], facts: dict, snap: dict) -> Item | None:
    """Hyperparameter ``name`` as the user gave it, where it is a dimension of the query
    (``batch-size = 64``, ``epochs = 3``, ``lora-rank = 16``): the recipe and the configurations
    it emits take it, with the KB's sourced or planned values for its group as alternatives
    (audit 12/18-19: a batch of 64 was "not used" and the emitted configuration trained at 4).
    None when the query does not give one number for it."""
    value = given_value(name, facts)
    if value is None:
        return None
    f = facts[name]
    hyper = snap["hyperparameters"][name]
    alternatives = [{"value": i["value"], "text": f"{i['text']} ({i['what']})", "setting": i.get("setting") or i.get("from", ""),
                     "sources": i["sources"], **origin_json(i)} for i in found if i.get("value") is not None]
    return item(hyper["label"], value, _number(value, hyper["unit"], hyper["label"]),
                f"given: {f.constraints[0].get('text') or name}", [], hyperparameter=name, unit=hyper["unit"],
                alternatives=alternatives, **{"from": "given"})


def setting_item(name: str, chosen: dict, snap: dict) -> Item:
    const = snap["constants"][chosen["constant"]]
    owner = snap["nodes"].get(chosen["owner"], {}).get("label", chosen["owner"])
    label = snap["hyperparameters"][name]["label"]
    text = chosen["label"] or _number(chosen["value"], chosen["unit"], label)
    more = {"alternatives": [{"value": a["value"], "text": a["label"] or _number(a["value"], a["unit"], label),
                              "setting": snap["constants"][a["constant"]]["id"],
                              "sources": sources_json(snap["constants"][a["constant"]], snap),
                              **origin_json(snap["constants"][a["constant"]])}
                             for a in chosen["alternatives"]]}
    why = f"{const['text']} (a setting of {owner})"
    if cohered := chosen.get("cohered"):   # (settings.cohere: taken with its coupled values, over a narrower one)
        labels = [snap["hyperparameters"][m]["label"] for m in cohered["with"]]
        why += (f"; the {', '.join(labels[:-1]) + ' and ' if len(labels) > 1 else ''}{labels[-1]} here come from "
                f"{cohered['source']} too, so it is taken over "
                f"{more['alternatives'][0]['text']}, which no source published with them")
    return item(snap["hyperparameters"][name]["label"], chosen["value"], text, why, sources_json(const, snap),
                hyperparameter=name, setting=const["id"], unit=chosen["unit"], **more, **origin_json(const))


def fixed_item(name: str, settings: dict, snap: dict) -> Item | None:
    """Hyperparameter ``name`` as another setting's named value fixes it by its definition
    (``rkg:fixesHyperparameter``: a constant schedule ends at its peak, final ratio 1), sourced
    by the setting that chose that value; None when no chosen value fixes it."""
    for chosen in settings.values():
        node = snap["settings"][chosen["constant"]]["value_node"]
        value = snap["fixed_by"].get(node, {}).get(name) if node else None
        if value is None:
            continue
        const, about = snap["constants"][chosen["constant"]], snap["nodes"][node]
        hyper = snap["hyperparameters"][name]
        setter = snap["hyperparameters"][snap["settings"][chosen["constant"]]["hyperparameter"]]
        meaning = about.get("definition") or ""
        why = (f"fixed by the {setter['label']}, {about['label']}" + (f": {meaning[:1].lower()}{meaning[1:].rstrip('.')}"
               if meaning else "") + f" ({const['text'].rstrip('.')})")
        return item(hyper["label"], value, _number(value, hyper["unit"], hyper["label"]), why, sources_json(const, snap),
                    hyperparameter=name, unit=hyper["unit"], **{"from": setter["label"]}, **origin_json(const))
    return None


def planned_item(name: str, plan: PlanBody | None, snap: dict) -> Item | None:
    """plan's value for a hyperparameter it computes (its quantity of the same name), if any,
    with the two published recipes nearest in size beside it (the law's checks)."""
    if plan is None:
        return None
    key = name.replace("-", "_")
    q = next((q for q in plan["quantities"] if q["name"] == key and q["value"] is not None), None)
    if q is None:
        return None
    params = next((p["value"] for p in plan["quantities"] if p["name"] == "params" and p["value"]), None)
    return item(q["label"], q["value"], _number(q["value"], q["unit"]), q["derivation"], q["sources"],
                hyperparameter=name, unit=q["unit"], alternatives=published(key, params, q["unit"], snap),
                **{"from": "plan"})


def own_item(name: str, model: str | None, planned: Item | None, snap: dict) -> Item | None:
    """The value a named model configuration was itself trained with (its published recipe,
    :func:`recipekg.plan.beyond.own_recipe`) in place of plan's law (``planned``): Llama 2 70B's
    1.5e-4, the law's value beside it as an alternative; ``planned`` when it names no such model."""
    from recipekg.plan.beyond import own_recipe

    key = name.replace("-", "_")
    own = own_recipe(snap, model)
    if planned is None or own is None or own.get(key) is None:
        return planned
    law = {"value": planned["value"], "text": f"{planned['text']} ({planned['what']})", "setting": "plan",
           "sources": planned["sources"]}
    return item(planned["what"].split(" (")[0], own[key], _number(own[key], planned.get("unit")),
                f"{own['text']} (the named model's own, in place of {planned['what']}: {planned['text']})",
                sources_json(own, snap), hyperparameter=name, unit=planned.get("unit"),
                alternatives=[law] + [a for a in planned.get("alternatives", ()) if a["setting"] != own["id"]],
                **{"from": "published recipe"}, **origin_json(own))


def published(key: str, params: float | None, unit: str | None, snap: dict) -> list[Alternative]:
    """The two published recipes (``rkg:Fact`` with the value ``key``) nearest to ``params``
    in size, as alternatives: the points the law is checked against."""
    import math

    points = [f for f in snap["facts"].values() if f.get(key) is not None and f.get("params")]
    if not params or not points:
        return []
    # at the same distance the bundled recipe first; an extension's, when nearer, says so (its origin)
    points.sort(key=lambda f: (abs(math.log(f["params"] / params)), f.get("origin") is not None, f["id"]))
    return [{"value": f[key], "text": f"{_number(f[key], unit)} ({f['label'].removeprefix('Published recipe: ')})",
             "setting": f["id"], "sources": sources_json(f, snap), **origin_json(f)} for f in points[:2]]


def _no_setting(group: str, ctx, snap: dict) -> str:
    hyper = snap["hyperparameters"][group]
    view = SnapshotView(snap)  # type: ignore[arg-type]
    arch = view.label(ctx.architecture) if ctx.architecture else "this architecture"
    method = f" ({view.label(ctx.method).lower()})" if ctx.method else ""
    return f"the KB holds no sourced {hyper['label']} for {arch}{method}; set it from your own tuning"


def _number(value, unit: str | None, label: str = "") -> str:
    """A setting's value with its unit, the unit left out where it only names the quantity
    (LoRA rank 64, not "64 rank").

    A whole number below a million keeps every digit (a published batch of 32,768 is not 32,770):

    >>> _number(64.0, "rank", "LoRA rank"), _number(0.1, "decoupled, per step"), _number(2000.0, "steps")
    ('64', '0.1 (decoupled, per step)', '2,000 steps')
    >>> _number(32768.0, "examples per step")
    '32,768 (examples per step)'
    """
    from recipekg.render.numbers import num

    whole = isinstance(value, (int, float)) and abs(value) < 1e6 and value == int(value)
    text = f"{int(value):,}" if whole else num(value) if isinstance(value, (int, float)) else str(value)
    if not unit or unit == "dimensionless" or unit.split()[0].lower() in label.lower().split():
        return text
    return f"{text} ({unit})" if " " in unit and not unit.startswith("×") else f"{text} {unit}"


def context_json(ctx, snap: dict) -> Context:
    """What the recipe is about, as the answer shows it."""
    view = SnapshotView(snap)  # type: ignore[arg-type]

    def name(iri: str | None) -> str | None:
        return view.node_id(iri) if iri else None

    families = [n for n in closure([ctx.architecture], snap) if n in snap["nodes"]
                and "https://w3id.org/recipekg/ns#ArchitectureFamily" in view.node(n)["types"]] if ctx.architecture else []
    return {"architecture": name(ctx.architecture), "architecture_from": ctx.architecture_from,
            "family": name(families[0]) if families else None,
            "regimes": [name(r) for r in ctx.regimes], "method": name(ctx.method) if ctx.method else None,
            "method_from": ctx.method_from if ctx.method_from in ("given", "default", "none", "pretrained") else name(ctx.method_from),
            "optimizer": name(ctx.optimizer), "trains": ctx.trains}


def unused(facts: dict, rankings: dict, unread: list[str] | None, sections: list | None = None) -> list[Unused]:
    """The constraints no part of the recipe used: those every ranking lists as unused, plan
    (when it answered) did not read (``unread``; None: plan did not answer) and no item of the
    ``sections`` takes as given (a batch size the user set)."""
    taken = {i["hyperparameter"] for s in sections or () for i in s["items"] if i.get("from") == "given"
             and i.get("hyperparameter")}
    lists: list = [[u for u in a.get("unused") or () if u["dimension"] not in taken] if a.get("unused") is not None
                   else None for a in rankings.values()]
    if any(x is None for x in lists):
        return []
    common: list = [u for u in lists[0] if all(any(v["dimension"] == u["dimension"] for v in other) for other in lists[1:])]
    if unread is not None:
        common = [u for u in common if u["dimension"] in unread]
    return common


def asks(rankings: dict) -> list[RecipeAsk]:
    """The questions the rankings the recipe read ask, in their order, once per dimension with
    the kinds whose rankings ask it and every choice it would change: what would settle a tie
    the recipe took first by id, or an approach no rule decides (QA7 F2: for 5k audio clips the
    tie of AST and a spectrogram CNN turns on ``pretrained``, which the recipe never asked).

    >>> q = lambda d, *c: {"dimension": d, "text": f"give {d}", "would_change": list(c)}
    >>> r = {"architecture": {"ask": [q("pretrained", "ast")]}, "approach": {"ask": [q("pretrained"), q("params")]}}
    >>> [(a["dimension"], a["kinds"], a["would_change"]) for a in asks(r)]
    [('pretrained', ['architecture', 'approach'], ['ast']), ('params', ['approach'], [])]
    """
    out: dict[str, Any] = {}
    for kind, answer in rankings.items():
        for q in answer.get("ask") or ():
            seen = out.setdefault(q["dimension"], {**q, "would_change": [], "kinds": []})
            seen["kinds"] += [kind] if kind not in seen["kinds"] else []
            seen["would_change"] += [c for c in q["would_change"] if c not in seen["would_change"]]
    return list(out.values())
