"""The KB's sourced settings of a recipe's hyperparameters: which apply, and which one wins.

A setting is a constant that ``rkg:sets`` a hyperparameter of the registry
(ontology/hyperparameters.ttl) and hangs off a choice with ``rkg:hyperparameter``; its
``rkg:condition``\\ s say where it was published for. For the recipe's context (its
architecture, optimizer, method and techniques, with their broader families) a setting
applies when it hangs off one of them and every condition holds under the recipe's facts;
the most specific wins (more held conditions, then the narrower choice it hangs off), the
others that apply stay as alternatives. A setting's scope (``rkg:scopeCondition``: the scale it
was published for) leaves it out only when the run is known to fall outside it::

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recipe where architecture = llama and method = pretrain")[0].constraints, snap)
    >>> chosen = applying(["https://w3id.org/recipekg/id/llama", "https://w3id.org/recipekg/id/adamw"], facts, snap)
    >>> chosen["beta2"]["constant"].rsplit("/", 1)[-1], chosen["weight-decay"]["value"]
    ('adamw-beta2-llm', 0.1)

Which hyperparameters a recipe must say something about (:func:`relevant`) follows from the
registry: those its regime and context need; one the KB has no setting for is said to be
unsourced, never guessed.
"""

from __future__ import annotations

from recipekg.reason.conditions import FAILED, HELD, NOT_GIVEN, status


def closure(nodes: list[str], snap: dict) -> list[str]:
    """``nodes`` and every broader node of them, narrowest first, each once."""
    out: list[str] = []
    for n in nodes:
        for x in [n, *snap["nodes"].get(n, {}).get("ancestors", ())]:
            if x not in out:
                out.append(x)
    return out


def sized_by_formulas(architecture: str | None, snap: dict) -> bool:
    """Whether plan's training-FLOPs formulas are for ``architecture`` (their ``rkg:appliesTo``,
    through its broader families: the Transformer's 6ND, a mixture of experts' 6 N_active D)."""
    if architecture is None:
        return False
    targets = {t for f in snap["formulas"].values() if f["output"] == "flops" for t in f.get("applies_to", ())}
    return bool(targets & set(closure([architecture], snap)))


def applying(context: list[str], facts: dict, snap: dict) -> dict[str, dict]:
    """Hyperparameter name → the winning setting among those that apply (see the module)."""
    found: dict[str, list[dict]] = {}
    for c, s, node, depth in _settings_of(context, snap):
        statuses = [status(snap["conditions"][x], facts, snap) for x in s["conditions"]]
        if FAILED in statuses or any(st != HELD for st in statuses) or _outside(s, facts, snap):
            continue
        found.setdefault(s["hyperparameter"], []).append(_candidate(c, node, s, len(statuses), depth, snap))
    return {name: _best(candidates) for name, candidates in found.items()}


def cohere(chosen: dict[str, dict], snap: dict, given: frozenset = frozenset()) -> None:
    """Coupled hyperparameters (``rkg:coupledWith``) from one source where the KB holds such a
    set: a member whose winning setting the source most of the others share did not give takes
    that source's setting among its alternatives, the winner becoming an alternative (QA7 F6:
    LoRA's rank 4, alpha 32 and learning rate 2e-4 with LoRA's own query and value projections,
    not QLoRA's every linear layer, which plan's adapter count for ``method = lora`` does not
    count). A member no setting of that source exists for keeps its winner, and the recipe
    says it was not published with the others (:func:`recipekg.recipe.sections.set_apart`).
    A member the query gives (``given``: ``lora-rank = 16``) is the user's, no source's: the
    others cohere without it::

        >>> from recipekg.reason.resolve import facts_of
        >>> facts = facts_of(parse("recipe where architecture = llama and method = lora")[0].constraints, snap)
        >>> context = ["https://w3id.org/recipekg/id/llama", "https://w3id.org/recipekg/id/method-lora"]
        >>> chosen = applying(context, facts, snap)
        >>> chosen["lora-targets"]["value"], chosen["lora-rank"]["value"]
        ('all-linear', 4.0)
        >>> cohere(chosen, snap)
        >>> chosen["lora-targets"]["value"], [a["value"] for a in chosen["lora-targets"]["alternatives"]]
        ('query-value', ['all-linear'])
        >>> chosen["lora-targets"]["cohered"]["with"]
        ['lora-alpha', 'learning-rate', 'lora-rank']
        >>> chosen = applying(context, facts, snap)
        >>> cohere(chosen, snap, given=frozenset({"lora-rank"}))
        >>> chosen["lora-targets"]["cohered"]["with"]
        ['lora-alpha', 'learning-rate']
    """
    def sources(candidate: dict) -> set:
        return set(snap["constants"][candidate["constant"]]["sources"])

    for name, h in snap["hyperparameters"].items():
        members = [m for m in (name, *h.get("coupled_with", ())) if m in chosen and m not in given]
        if len(members) < 2:
            continue
        ids = [sources(chosen[m]) for m in members]
        shared = max(sorted(set().union(*ids)), key=lambda i: sum(i in x for x in ids))
        for m, x in zip(members, ids):
            best = chosen[m]
            alternative = next((a for a in best["alternatives"] if shared not in x and shared in sources(a)), None)
            if alternative is not None:
                rest = [a for a in best["alternatives"] if a is not alternative]
                demoted = {k: v for k, v in best.items() if k != "alternatives"}
                others = [o for o in members if o != m and shared in sources(chosen[o])]
                chosen[m] = dict(alternative, alternatives=[demoted, *rest], cohered={"with": others, "source": shared})


def waiting(context: list[str], facts: dict, snap: dict) -> dict[str, dict]:
    """Hyperparameter name → the best setting that would apply once the query gives what some
    of its conditions read and it does not (every other condition holding, the run not outside
    its scope), with ``waits``: those conditions. QLoRA's gradient clipping at 0.3 is for a
    transformer: a QLoRA recipe that names no architecture waits for it rather than having no
    sourced value::

        >>> from recipekg.reason.resolve import facts_of
        >>> facts = facts_of(parse("recipe where method = qlora and params = 7B")[0].constraints, snap)
        >>> w = waiting([snap["rule_index"]["choices"]["adamw"], "https://w3id.org/recipekg/id/method-qlora"], facts, snap)
        >>> w["gradient-clip-norm"]["value"], [c["dimension"] for c in w["gradient-clip-norm"]["waits"]]
        (0.3, ['architecture'])
    """
    found: dict[str, list[dict]] = {}
    for c, s, node, depth in _settings_of(context, snap):
        conds = [snap["conditions"][x] for x in s["conditions"]]
        statuses = [status(x, facts, snap) for x in conds]
        if NOT_GIVEN not in statuses or any(st not in (HELD, NOT_GIVEN) for st in statuses) or _outside(s, facts, snap):
            continue
        candidate = _candidate(c, node, s, statuses.count(HELD), depth, snap)
        candidate["waits"] = [x for x, st in zip(conds, statuses) if st == NOT_GIVEN]
        found.setdefault(s["hyperparameter"], []).append(candidate)
    # settings of other values waiting as well (AdamW's beta2 for a decoder, another for a ConvNeXt):
    # which holds depends on what the query leaves open, so none of them is the recipe's to show
    out = {}
    for name, candidates in found.items():
        best = _best(candidates)
        if not best["alternatives"]:  # (``also``: the others of the same value, on their conditions)
            out[name] = dict(best, also=[c for c in candidates if c is not candidates[0]])
    return out


def _settings_of(context: list[str], snap: dict):
    """``(constant, setting, the node it hangs off, that node's depth)`` for every setting of the
    context's nodes and their broader families, narrowest node first."""
    depth = {n: len(snap["nodes"].get(n, {}).get("ancestors", ())) for n in closure(context, snap)}
    owned: dict[str, list[str]] = {}
    for c, s in snap["settings"].items():
        for owner in s["owners"]:
            owned.setdefault(owner, []).append(c)
    for node in depth:
        for c in owned.get(node, ()):
            yield c, snap["settings"][c], node, depth[node]


def _best(candidates: list[dict]) -> dict:
    """The most specific candidate (more held conditions, then the narrower node it hangs off),
    with the others of another value as its alternatives."""
    candidates.sort(key=lambda x: (-x["held"], -x["depth"], x["constant"]))
    best, rest = candidates[0], candidates[1:]
    return dict(best, alternatives=[r for r in rest if r["value"] != best["value"]])


def _outside(setting: dict, facts: dict, snap: dict) -> bool:
    """Whether the run is known to fall outside the scale the setting was published for (a
    scope condition failed: Llama 2-Chat's SFT settings for a run of billions of tokens); a
    scope the query says nothing of holds."""
    return any(status(snap["conditions"][x], facts, snap) == FAILED for x in setting.get("scope") or ()
               if x in snap["conditions"])


def _candidate(c: str, node: str, s: dict, held: int, depth: int, snap: dict) -> dict:
    const = snap["constants"][c]
    named = s["value_node"]
    shown = snap["nodes"].get(named) or {"id": named.rsplit("/", 1)[-1], "label": None} if named else None
    value = shown["id"] if shown else const["value"]
    return {"constant": c, "owner": node, "value": value, "low": const["low"], "high": const["high"],
            "unit": const["unit"], "label": shown["label"] if shown else None,
            "held": held, "depth": depth}


def relevant(context: list[str], regimes: list[str], snap: dict) -> list[str]:
    """The hyperparameter groups a recipe must cover, in the registry's order: those whose
    regime the architecture is trained in (or that need none) and whose choices (if any)
    are in the context."""
    nodes = set(closure(context, snap))
    out = []
    for name, h in sorted(snap["hyperparameters"].items(), key=lambda kv: (kv[1]["order"] or 0, kv[0])):
        if h["needs_regime"] and not set(h["needs_regime"]) & set(regimes):
            continue
        if h["applies_to"] and not set(h["applies_to"]) & nodes:
            continue
        if h["group"] not in out:
            out.append(h["group"])
    return out


def regimes_of(architecture: str | None, snap: dict) -> list[str]:
    """The regimes an architecture is trained in, through its broader families."""
    if architecture is None:
        return []
    regimes = snap["regimes"]
    return sorted({r for n in closure([architecture], snap) for r in regimes.get(n, ())})
