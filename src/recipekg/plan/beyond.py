"""Scaling knowledge beyond the reference (issue 25): inference-aware sizing and the learning
rate and batch size of a pretraining run, each from a fitted law of the KB
(``kb/scaling-fits.ttl``).

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.sizing import choose_strategy, size
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 7B and inference-tokens = 2T")[0], snap)
    >>> sizes = size(ledger, inputs, choose_strategy(ledger.kb, inputs.facts))
    >>> beyond(ledger, inputs, sizes, "pretrain")
    >>> [q["name"] for q in ledger.quantities][-5:]
    ['inference_optimal_params', 'inference_optimal_tokens', 'total_flops_saved', 'learning_rate', 'batch_tokens']
    >>> ledger.values["inference_optimal_params"].value < 7e9 < ledger.values["inference_optimal_tokens"].value / 20
    True

**Inference-aware sizing** (Sardana et al.): the plan's model sets the quality, its loss under
Chinchilla's parametric fit (Approach 3); among the models of that loss, the one with the least
lifetime compute (training plus ``inference-tokens`` of serving) is found by a golden-section
search over log-parameters with a fixed number of steps, each step solving the loss formula for
the training tokens. **Learning rate and batch size** come from DeepSeek LLM's laws against the
plan's training FLOPs. Every constant is the KB's; the search's step count and bracket are
numerical settings, not claims.
"""

from __future__ import annotations

import math

from recipekg.formula.expr import Q, evaluate, solve
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs, outside_scope
from recipekg.plan.kbview import KBView
from recipekg.plan.ledger import Ledger
from recipekg.plan.sizing import Sizes

#: The search: golden-section steps over log-parameters, and its bracket around the plan's
#: model (a thousandth of it to ten times it). Numerical settings; they bound the work.
_STEPS, _BRACKET = 90, (math.log(1e-3), math.log(10.0))
_GOLDEN = (math.sqrt(5) - 1) / 2


def beyond(ledger: Ledger, inputs: Inputs, sizes: Sizes, method: str) -> None:
    """Record the inference-optimal model (with ``inference-tokens``) and, for pretraining,
    the learning rate and batch size."""
    if inputs.inference_tokens is not None:
        inference_sizing(ledger, inputs, sizes)
    if method == "pretrain":
        hyperparameters(ledger, inputs, sizes)


# ---------------------------------------------------------------- inference-aware sizing

def inference_sizing(ledger: Ledger, inputs: Inputs, sizes: Sizes) -> None:
    kb = ledger.kb
    loss_f, life_f = kb.by_id("chinchilla-parametric-loss"), kb.by_id("lifetime-flops")
    n0, d0, demand = sizes.params.value, sizes.tokens.value, inputs.inference_tokens.value
    quality = _point(evaluate(loss_f.parsed, {**kb.constants_in(loss_f), "params": Q.point(n0),
                                              "tokens": Q.point(d0)}))
    cost = _lifetime(kb, loss_f, life_f, quality)
    base = cost(n0, demand, d0)
    best_n = _minimise(lambda n: cost(n, demand), n0)
    best_d = _tokens_for(kb, loss_f, quality, best_n)
    if best_d is None or not math.isfinite(base):
        ledger.out_of_scale("beyond Chinchilla's fit: no model reaches the plan's quality")
    saved = max(0.0, 1 - cost(best_n, demand) / base)
    fact = kb.fact("inference-aware-sizing")
    assumption = (f"same quality = the same pretraining loss under Chinchilla's parametric fit as the plan's "
                  f"{show(sizes.params, 'parameters')} on {show(sizes.tokens, 'tokens')} "
                  f"({quality:.4f} nats/token on the fit's data)")
    how = (f"minimise {life_f.data['expression'].split('=', 1)[1].strip()} with inference_tokens = "
           f"{show(inputs.inference_tokens, 'tokens')} over the models of that loss")
    extra = [life_f.data, *([fact] if fact else [])]
    ledger.add("inference_optimal_params", Q.point(best_n), formula=loss_f, extra_sources=extra,
               label="inference-optimal model size (same quality, least training + inference compute)",
               derivation=f"{how}: {show(Q.point(best_n), 'parameters')}", assumption=assumption)
    ledger.add("inference_optimal_tokens", Q.point(best_d), formula=loss_f, extra_sources=extra,
               label="training tokens of the inference-optimal model",
               derivation=f"{loss_f.data['expression']}, solved for tokens at loss {quality:.4f} and params = "
                          f"{show(Q.point(best_n), 'parameters')}: {show(Q.point(best_d), 'tokens')} "
                          f"({best_d / best_n:,.0f} tokens/param)", assumption=assumption)
    ledger.add("total_flops_saved", Q.point(saved), formula=life_f, extra_sources=[loss_f.data, *extra[1:]],
               label="lifetime compute saved against the plan's model (fraction)",
               derivation=f"1 − lifetime FLOPs of the inference-optimal model / the plan's model's = 1 − "
                          f"{show(Q.point(cost(best_n, demand)), 'FLOPs')} / {show(Q.point(base), 'FLOPs')} = "
                          f"{saved:.3f}", assumption=assumption)
    ledger.note(f"inference-aware sizing assumes {assumption}; Sardana et al. size for a quality and a demand "
                f"this way", loss_f.data, *extra)
    _sizing_caveats(ledger, kb, loss_f, quality, (n0, d0, best_n, best_d, base), cost, inputs)


def _sizing_caveats(ledger: Ledger, kb: KBView, loss_f, quality: float, found: tuple, cost, inputs: Inputs) -> None:
    """What the answer leans on: the fit's own compute-optimal point, its fitted range, MoE."""
    n0, d0, best_n, best_d, base = found
    alone_n = _minimise(lambda n: cost(n, 0.0), n0)
    alone = 1 - cost(alone_n, 0.0) / cost(n0, 0.0, d0)
    if round(alone * 100) >= 1:  # shown only when it rounds to a whole percent
        alone_d = _tokens_for(kb, loss_f, quality, alone_n)
        ledger.note(f"even with no inference, Chinchilla's fit would reach the plan's quality with "
                    f"{alone:.0%} less training compute ({show(Q.point(alone_n), 'parameters')} on "
                    f"{show(Q.point(alone_d), 'tokens')}, {alone_d / alone_n:,.0f} tokens/param): the published "
                    f"constants put the compute-optimal ratio above the 20 tokens/param the paper itself uses, so "
                    f"part of the saving is that disagreement, not the inference demand",
                    kb.constant("c_chinchilla_loss_alpha"), warn=True)
    for symbol, value, unit in (("c_chinchilla_fit_params", best_n, "parameters"),
                                ("c_chinchilla_fit_tokens", best_d, "tokens")):
        c = kb.constant(symbol)
        if not c["low"] <= value <= c["high"]:
            ledger.note(f"extrapolated: {show(Q.point(value), unit)} lies outside the "
                        f"{show(Q.span(c['low'], c['high']), unit)} Chinchilla's fit was made on", c, warn=True)
    if inputs.active_params is not None:
        moe = kb.fact("moe-no-sourced-law")
        ledger.note("a mixture of experts: the loss fit is of dense models and the KB has no sourced law for "
                    "active against total parameters; the sizing above treats the total as a dense model's",
                    *([moe] if moe else []), warn=True)


def _lifetime(kb: KBView, loss_f, life_f, quality: float):
    """``cost(params, demand, tokens=None)``: lifetime FLOPs, the tokens (when not given) those
    that reach ``quality`` at that size; infinity where no token count does."""
    constants = kb.constants_in(life_f)

    def cost(n: float, demand: float, tokens: float | None = None) -> float:
        d = tokens if tokens is not None else _tokens_for(kb, loss_f, quality, n)
        if d is None:
            return math.inf
        env = {**constants, "params": Q.point(n), "tokens": Q.point(d), "inference_tokens": Q.point(demand)}
        return _point(evaluate(life_f.parsed, env))

    return cost


def _tokens_for(kb: KBView, loss_f, quality: float, params: float) -> float | None:
    """The training tokens at which a model of ``params`` reaches ``quality`` (None: none does)."""
    env = {**kb.constants_in(loss_f), "params": Q.point(params), "loss": Q.point(quality)}
    q = solve(loss_f.parsed, "tokens", env)
    return q.value if q is not None and math.isfinite(q.value) else None


def _minimise(f, n0: float) -> float:
    """Golden-section search of ``f`` over log-parameters in the bracket around ``n0``: a fixed
    number of steps (bounded work, deterministic)."""
    lo, hi = math.log(n0) + _BRACKET[0], math.log(n0) + _BRACKET[1]
    a, b = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    fa, fb = f(math.exp(a)), f(math.exp(b))
    for _ in range(_STEPS):  # infeasible (infinite) costs lie at small sizes: they push the bracket up
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - _GOLDEN * (hi - lo)
            fa = f(math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + _GOLDEN * (hi - lo)
            fb = f(math.exp(b))
    return math.exp((lo + hi) / 2)


def _point(q: Q) -> float:
    return q.value


# ---------------------------------------------------------------- learning rate and batch size

def hyperparameters(ledger: Ledger, inputs: Inputs, sizes: Sizes) -> None:
    """Peak learning rate and batch tokens from the compute budget (DeepSeek LLM's laws), for
    the architectures the laws are for (``rkg:appliesTo``: decoder-only language models), or
    one the query does not name; another architecture gets a note instead (a ViT is not one)."""
    kb = ledger.kb
    law = kb.by_id("learning-rate-from-compute")
    if other := _outside_scope(kb, law, inputs):
        ledger.note(f"no learning-rate or batch law: DeepSeek LLM's laws were fitted on decoder-only language "
                    f"models, and {other} is not one; its published recipes give them where the KB holds one",
                    law.data)
        return
    if data := _data_outside(kb, law, inputs):
        ledger.note(f"no learning-rate or batch law: DeepSeek LLM's laws were fitted on decoder-only language "
                    f"models, and the KB recommends none for {data}; give the architecture "
                    f"(architecture = ...) for its published recipes", law.data)
        return
    for name, formula_id, label in (
            ("learning_rate", "learning-rate-from-compute", "peak learning rate (DeepSeek LLM's law)"),
            ("batch_tokens", "batch-tokens-from-compute", "global batch in tokens (DeepSeek LLM's law)")):
        f = kb.by_id(formula_id)
        q, env = ledger.compute(f, {"flops": sizes.flops})
        ledger.add(name, q, formula=f, env=env, label=label)
    fit = kb.constant("c_hyperparameter_law_fit_compute")
    flops = sizes.flops
    if not (fit["low"] <= flops.low and flops.high <= fit["high"]):
        ledger.note(f"extrapolated: the learning-rate and batch laws were fitted on "
                    f"{show(Q.span(fit['low'], fit['high']), 'FLOPs')}; this plan's "
                    f"{show(flops, 'FLOPs')} lie outside (the paper itself chose its 7B and 67B runs' hyperparameters "
                    f"with them); docs/research/hyperparameters.md checks them against published recipes", fit,
                    warn=flops.high > 1e25 or flops.low < fit["low"])
    own = _own_recipe(kb, inputs.model)
    if own is not None:
        ledger.note(f"{inputs.model['label']} was itself trained at peak learning rate {show(Q.point(own['learning_rate']))} "
                    f"with {show(Q.point(own['batch_tokens']), 'tokens')} per batch (its published recipe); the laws "
                    "above are the estimate for a model without one", own)
    elif near := kb.recipes_near(sizes.params.value):
        lr = ledger.values["learning_rate"].value
        ledger.note("the published pretraining recipes nearest in size set the peak learning rate at "
                    + "; ".join(f"{_recipe_name(f)}: {show(Q.point(f['learning_rate']))} "
                                f"(the law gives {lr / f['learning_rate']:.1f}× that), "
                                f"{show(Q.point(f['batch_tokens']), 'tokens')} per batch" for f in near)
                    + "; the law, fitted on DeepSeek's own runs, sets a higher rate than every other published recipe the KB holds "
                      "(docs/research/hyperparameters.md)", *near)
    if inputs.active_params is not None:
        moe = kb.fact("moe-no-sourced-law")
        ledger.note("a mixture of experts: the learning-rate and batch laws were fitted on dense models; they are "
                    "applied here to the FLOPs of the active parameters, which no source in the KB checks",
                    *([moe] if moe else []), warn=True)


def _data_outside(kb: KBView, formula, inputs: Inputs) -> str | None:
    """The user's data, as words, when no architecture is given and the KB's rules that
    recommend one ``formula`` applies to (or a narrower one: GPT, Llama) for some data all
    ask for other data (``data = images``: the decoder's rules are for text); else None
    (data not given, or no such rule reads the data)."""
    from recipekg.reason.conditions import FAILED, status

    data, snap = inputs.facts.get("data"), kb.snap
    if data is None or not data.values or inputs.facts.get("architecture") is not None:
        return None
    index, read = snap["rule_index"], False
    scope = list(formula.data.get("applies_to") or ())
    for node in scope + [n for s in scope for n in index["narrower"].get(s, ())]:
        for r in index["by_target"].get(node, ()):
            rule = snap["rules"][r]
            conditions = [snap["conditions"][c] for c in rule["conditions"]] if node in rule["recommends"] else []
            for cond in (c for c in conditions if c["dimension"] == "data"):
                if status(cond, inputs.facts, snap) != FAILED:
                    return None
                read = True
    return " or ".join(sorted(snap["nodes"].get(v, {}).get("label", v) for v in data.values)) if read else None


def _outside_scope(kb: KBView, formula, inputs: Inputs) -> str | None:
    """The label of the query's architecture when it is outside what ``formula`` applies to
    (none of its values is one of them, narrower or broader: a transformer may be a decoder),
    else None (within it, or no architecture given)."""
    facts = inputs.facts.get("architecture")
    return outside_scope(facts.values or set() if facts else set(), set(formula.data.get("applies_to") or ()), kb.snap)


def _recipe_name(fact: dict) -> str:
    """A published recipe's run, from its label ("Published recipe: OPT-175B" → "OPT-175B")."""
    return fact["label"].removeprefix("Published recipe: ")


def _own_recipe(kb: KBView, model: dict | None) -> dict | None:
    """The published recipe of the named model configuration ``model`` (:func:`own_recipe`)."""
    if model is None:
        return None
    iri = next((i for i, m in kb.snap["models"].items() if m is model or m.get("id") == model.get("id")), None)
    return own_recipe(kb.snap, iri)


def _extension_mark(f: dict) -> str:
    """`` [extension FILE, line N]`` after what an extension added (hostile 8 C), else ``""``."""
    o = f.get("origin")
    return f" [extension {o['file']}, line {o['line']}]" if o else ""


def own_recipe(snap: dict, model: str | None) -> dict | None:
    """The published recipe of the model configuration ``model`` (IRI): a fact that ``rkg:appliesTo``
    it with a learning rate and a batch, if the KB has one (plan's note, the recipe's settings)."""
    if not model:
        return None
    found = [f for f in snap["facts"].values() if model in f["about"] and f.get("learning_rate") and f.get("batch_tokens")]
    # the bundled recipe before an extension's (hostile 8 C: `fact:aaa-…` sorted first and replaced Llama 2 7B's)
    return min(found, key=lambda f: f.get("origin") is not None, default=None)


# ---------------------------------------------------------------- summary

def beyond_lines(v: dict, kb: KBView | None = None, model: dict | None = None) -> list[str]:
    """The answer's first lines for what this module recorded (``v``: the ledger's values), with
    the named ``model``'s own published learning rate and batch beside the laws'."""
    lines = []
    if "inference_optimal_params" in v:
        lines.append(f"inference-aware: the same quality for the least training + inference compute is "
                     f"{show(v['inference_optimal_params'], 'parameters')} on "
                     f"{show(v['inference_optimal_tokens'], 'tokens')}, "
                     f"{v['total_flops_saved'].value:.0%} less lifetime compute (Sardana et al.)")
    if "learning_rate" in v:
        own = _own_recipe(kb, model) if kb is not None else None
        near = kb.recipes_near(v["params"].value) if kb is not None and not own and "params" in v else []
        lines.append(f"hyperparameters: peak learning rate {show(v['learning_rate'])}, batch "
                     f"{show(v['batch_tokens'], 'tokens')} (DeepSeek LLM's laws against the compute)"
                     + (f"; {model['label']}'s own: {show(Q.point(own['learning_rate']))}, "
                        f"{show(Q.point(own['batch_tokens']), 'tokens')}" + _extension_mark(own) if own and model else "")
                     + ("; published recipes nearest in size: " + ", ".join(
                         f"{_recipe_name(f)} {show(Q.point(f['learning_rate']))} with "
                         f"{show(Q.point(f['batch_tokens']), 'tokens')}" + _extension_mark(f) for f in near) if near else ""))
    return lines
