"""Sizing: the strategy (which tokens-per-parameter ratio), then params, tokens and FLOPs,
each from the others by the KB's formulas, and what the ratio means.

    >>> from recipekg.plan.inputs import read_inputs
    >>> ledger, inputs = Ledger(KBView(snap)), read_inputs(parse("plan where flops = 1.2e20")[0], snap)
    >>> strategy = choose_strategy(ledger.kb, inputs.facts)
    >>> strategy.json["id"], strategy.ratio["value"]
    ('chinchilla-optimal-training', 20.0)
    >>> sizes = size(ledger, inputs, strategy)
    >>> sizes.params.value, sizes.tokens.value
    (1000000000.0, 20000000000.0)
    >>> [q["name"] for q in ledger.quantities]
    ['flops', 'params', 'tokens', 'tokens_per_param']

From any one of params, tokens, flops the other two, by the strategy's ratio; from two, the
third and the ratio; from ``unique-tokens`` and ``epochs``, the token budget.
"""

from __future__ import annotations

from recipekg.errors import KBError
from recipekg.formula.expr import Q, compose, const_q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs
from recipekg.plan.kbview import KBFormula, KBView, const_json
from recipekg.plan.ledger import Ledger
from recipekg.plan.quantities import PRETRAINING, unit_of
from recipekg.record import Record
from recipekg.reason.recommend import rank
from recipekg.render import numbers as units

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.plan import Strategy as StrategyJson

# KB ids plan refers to by name (ids, not numbers: what the KB says about them is read from it)
COMPUTE_OPTIMAL = "chinchilla-optimal-training"
GIVEN_RATIO = "tokens_per_param"   # the name formula:tokens-from-ratio reads a ratio the query gives by
INFERENCE_OPTIMAL = "inference-optimal-training"

#: The quantities a solved derivation shows with their units (the others by name).
_SHOWN = ("params", "active_params", "tokens", "flops", "memory", "gpu_hours", "wall_time")


class Strategy(Record):
    """How to size: the approach's IRI, its tokens-per-parameter constant, and its JSON."""

    iri: str
    ratio: dict
    json: StrategyJson


class Sizes(Record):
    """Params, tokens and FLOPs of the plan; ``from_data``: tokens are unique-tokens × epochs;
    ``table_row``: the row of the reference's FLOPs table with these params and tokens;
    ``implied``: the tokens-per-parameter ratio follows from numbers the user gave."""

    params: Q
    tokens: Q
    flops: Q
    from_data: bool
    table_row: dict | None
    implied: bool = False     # two of params, tokens, flops given: the ratio is the user's


def choose_strategy(kb: KBView, facts: dict, given: Q | None = None) -> Strategy:
    """Compute-optimal (Chinchilla) unless the KB's rules rank inference-optimal first; the
    ratio ``given`` (``tokens-per-param = 100``) instead, named by where it stands."""
    candidates = [iri for iri in (kb.iri(COMPUTE_OPTIMAL), kb.iri(INFERENCE_OPTIMAL))
                  if iri and kb.constants_for(iri, "tokens-per-param")]
    if not candidates:
        raise KBError("the KB has no tokens-per-parameter ratio for plan to size with")
    ranked = [r for r in rank("approach", facts, kb.snap, among=tuple(candidates)) if r["score"] > 0]
    iri = ranked[0]["iri"] if ranked else candidates[0]
    # the reasons are the rules that decide: one waiting for a constraint not given (samples) is no
    # reason; general advice is (an extension's unconditional rule chose inference-optimal sizing
    # under the default's sentence: hostile extensions, round 6, 026)
    because = [b for b in ranked[0]["because"] if b.get("match") in ("full", "general")][:2] if ranked else []
    ratio = kb.constants_for(iri, "tokens-per-param")[0]
    node = kb.snap["nodes"][iri]
    why = ("; ".join(r["text"] for r in because) if because else
           "no goal given: compute-optimal sizing, the reference's default scaling law" if iri == candidates[0] else
           f"{node['label']} ranks first among the sizing strategies")
    strategy = Strategy(iri, ratio, {"id": node["id"], "label": node["label"], "tokens_per_param": const_json(ratio),
                                     "why": why, "because": because})
    return strategy if given is None else _given_ratio(kb, strategy, given)


def strategies_outside(kb: KBView, facts: dict) -> list[dict]:
    """The properties that rule out every sizing strategy for the query's constraints (``data =
    images``: the tokens-per-parameter laws were fitted on text), one per strategy; [] when
    some strategy applies (or says nothing of them).

    >>> from recipekg.plan.inputs import read_inputs
    >>> facts = read_inputs(parse("plan where params = 86M and data = images")[0], snap).facts
    >>> sorted(c["dimension"] for c in strategies_outside(KBView(snap), facts))
    ['data', 'data']
    """
    from recipekg.reason.properties import CONTRADICTS, checks

    found = []
    for iri in (kb.iri(COMPUTE_OPTIMAL), kb.iri(INFERENCE_OPTIMAL)):
        if not iri:
            continue
        against = checks(iri, "approach", facts, kb.snap, only=CONTRADICTS)
        if not against:
            return []
        found.append(against[0])
    return found


def beyond_laws(strategy: Strategy, why: str) -> Strategy:
    """The strategy of a run no sizing law is for (:func:`strategies_outside`): the numbers
    given, unjudged (no regime named), ``why`` saying so."""
    js = {k: v for k, v in strategy.json.items() if k != "regime"}
    js.update(label="the numbers given (no sizing law for this data)", why=why, because=[])
    if not js.get("implied"):  # (no ratio: the tokens are asked for)
        js["tokens_per_param"] = {"id": None, "symbol": None, "label": "no tokens-per-parameter ratio for this data",
                                  "value": None, "low": None, "high": None, "unit": "tokens/param"}
    done: StrategyJson = js  # type: ignore[assignment]
    return Strategy(strategy.iri, strategy.ratio, done)


def _given_ratio(kb: KBView, rules: Strategy, given: Q) -> Strategy:
    """The strategy of a ratio the query gives, named by the regime it falls in."""
    kind = regime(kb, given)
    approach, label, meaning = _REGIMES[kind] if kind else (None, None, "")
    iri = (kb.iri(approach) if approach else None) or rules.iri
    node = kb.snap["nodes"][iri]
    ratio = {"id": None, "symbol": GIVEN_RATIO, "label": "tokens per parameter given in the query",
             "value": given.value, "low": given.low if given.is_range else None,
             "high": given.high if given.is_range else None, "unit": "tokens/param"}
    why = f"tokens-per-param = {show(given)} given" + (": " + _meaning(kb, meaning) if meaning else "")
    if iri != rules.iri or rules.json["because"]:
        why += f" (without it plan would size by {rules.json['label']})"
    return Strategy(iri, ratio, {"id": node["id"], "label": "Your ratio: " + _lower_first(label or node["label"]),
                                 "regime": kind, "given": True, "tokens_per_param": dict(ratio),
                                 "why": why, "because": []})


class _Formulas(Record):
    flops: KBFormula     # flops from params and tokens
    tokens: KBFormula    # tokens from params and the strategy's ratio
    epochs: KBFormula    # epochs from tokens and unique tokens
    ratio: dict          # the strategy's ratio by the name fs.tokens reads it


def size(ledger: Ledger, inputs: Inputs, strategy: Strategy, budget: Q | None = None) -> Sizes:
    """Params, tokens and FLOPs, recorded in the ledger with the tokens-per-parameter ratio;
    ``budget``: the FLOPs planning backwards found (already recorded)."""
    kb = ledger.kb
    moe = inputs.active_params is not None
    fs = _Formulas(kb.formula("flops", "active_params" if moe else "params", "tokens"),
                   kb.formula("tokens", "params", strategy.ratio["symbol"]),
                   kb.formula("epochs", "tokens", "unique_tokens"),
                   {strategy.ratio["symbol"]: const_q(strategy.ratio)})
    params, tokens, flops = inputs.params, inputs.tokens, inputs.flops or budget
    from_data = tokens is None and inputs.unique_tokens is not None and inputs.epochs is not None
    if from_data:
        tokens = ledger.solve(fs.epochs.parsed, "tokens",
                              {"epochs": inputs.epochs, "unique_tokens": inputs.unique_tokens})
    n_given = sum(x is not None for x in (params, tokens, flops))
    if n_given >= 2 and inputs.tokens_per_param is not None:
        fixed = [n for n, x in (("params", params), ("tokens", tokens), ("flops", flops)) if x is not None]
        ledger.note(f"tokens-per-param = {show(inputs.tokens_per_param)} not used: the {' and '.join(fixed)} "
                    f"given fix the ratio", warn=True)
    record_given(ledger, inputs, tokens, from_data, fs.epochs)
    if params is None and tokens is None:                         # a compute budget only
        params, tokens = _from_flops(ledger, flops, strategy.ratio, fs)
    elif tokens is None:                                           # params (and maybe flops)
        tokens = _tokens_from_params(ledger, params, flops, fs, inputs.active_params)
    elif params is None:                                           # tokens (and maybe flops)
        params = _params_from_tokens(ledger, tokens, flops, strategy.ratio, fs)
    per_token = {"active_params": inputs.active_params} if moe else {"params": params}
    if flops is None:
        flops, env = ledger.compute(fs.flops, {**per_token, "tokens": tokens})
        ledger.add("flops", flops, formula=fs.flops, env=env)
    elif n_given == 3:
        _check_given_flops(ledger, per_token, tokens, flops, fs.flops)
    sizes = Sizes(params, tokens, flops, from_data, _table_row(kb, params, tokens), implied=n_given >= 2)
    _show_table_figures(ledger, sizes.table_row)
    _ratio(ledger, strategy, params, tokens, remark=n_given >= 2)
    return sizes


def record_given(ledger: Ledger, inputs: Inputs, tokens: Q | None, from_data: bool, epochs_f: KBFormula) -> None:
    model = inputs.model
    if inputs.params_from_model:
        ledger.add("params", inputs.params, label="params", given=True, extra_sources=[model],
                   derivation=f"the weights of {model['label']}'s configuration, counted (model = {model['id']})")
    elif inputs.params is not None:
        ledger.add("params", inputs.params, label="params", given=True,
                   derivation=inputs.given_text("params"))
    if inputs.active_params is not None:
        from_model = "active-params" not in inputs.constraints
        ledger.add("active_params", inputs.active_params, label="active params", given=True,
                   extra_sources=[model] if from_model else [],
                   derivation=(f"the active parameters of {model['label']} (model = {model['id']})" if from_model
                               else inputs.given_text("active-params")))
        ledger.note(f"mixture of experts: FLOPs and time count the {show(inputs.active_params, 'parameters')} "
                    f"a token uses, memory all {show(inputs.params, 'parameters')}; the tokens-per-parameter "
                    f"ratio is taken over all of them", ledger.kb.formula("flops", "active_params", "tokens").data)
    if tokens is not None and from_data:
        ledger.add("tokens", tokens, formula=epochs_f, given=not inputs.from_examples,
                   label="training tokens: the unique tokens × the epochs",
                   derivation=f"{epochs_f.data['expression']}, solved for tokens: "
                              f"{show(inputs.unique_tokens, 'tokens')} × {show(inputs.epochs)} epochs = "
                              f"{show(tokens, 'tokens')}")
    elif tokens is not None:
        ledger.add("tokens", tokens, label="tokens", given=True, derivation=inputs.given_text("tokens"))
    if inputs.flops is not None:
        ledger.add("flops", inputs.flops, label="flops", given=True, derivation=inputs.given_text("flops"))


def _add_solved(ledger: Ledger, name: str, f: KBFormula, unknown: str, env: dict, q: Q) -> None:
    """Record ``name``, found by solving ``f`` for ``unknown`` with the values of ``env``."""
    shown = ", ".join(show(v, unit_of(k)) if k in _SHOWN else f"{k} = {show(v)}"
                      for k, v in env.items() if k != unknown and k not in f.parsed.names - set(_SHOWN))
    ledger.add(name, q, formula=f,
               derivation=f"{f.data['label']}: {f.data['expression']}, solved for {unknown} "
                          f"with {shown}: {show(q, unit_of(name))}")


def _from_flops(ledger: Ledger, flops: Q, ratio: dict, fs: _Formulas) -> tuple[Q, Q]:
    kb = ledger.kb
    direct = kb.find("params", "flops", ratio["symbol"])
    if direct is not None:
        params, env = ledger.compute(direct, {"flops": flops})
        ledger.add("params", params, formula=direct, env=env)
    else:                                                      # flops(params, ratio × params)
        composed = compose(fs.flops.parsed, "tokens", fs.tokens.parsed)
        params = ledger.solve(composed, "params", {**kb.constants_in(fs.flops), **kb.constants_in(fs.tokens),
                                                   **fs.ratio, "flops": flops})
        ledger.add("params", params, formula=fs.flops, constants=[ratio],
                   extra_sources=[fs.tokens.data],
                   derivation=f"{fs.flops.data['expression']} with {fs.tokens.data['expression']}, "
                              f"solved for params at {show(const_q(ratio), 'tokens/param')}: "
                              f"{show(params, 'parameters')}")
    if params.is_range and const_q(ratio).is_range and flops.is_range:   # the run's ends go together
        tokens = _paired_tokens(ledger, flops, ratio, fs)
    elif params.is_range and const_q(ratio).is_range:   # one budget: tokens = flops / (6 × params)
        tokens = ledger.solve(fs.flops.parsed, "tokens",
                              {**kb.constants_in(fs.flops), "params": params, "flops": flops})
        _add_solved(ledger, "tokens", fs.flops, "tokens", {"flops": flops, "params": params}, tokens)
    else:                 # one ratio: each end of params at it
        tokens, env = ledger.compute(fs.tokens, {"params": params, **fs.ratio})
        ledger.add("tokens", tokens, formula=fs.tokens, env=env)
    return params, tokens


def _paired_tokens(ledger: Ledger, flops: Q, ratio: dict, fs: _Formulas) -> Q:
    """The tokens of a run sized from a compute budget by a tokens-per-parameter ratio, both
    ranges: the ratio × the params solved at the same ends of both, since one run's params and
    tokens share one budget and one ratio (the least compute at the fewest tokens per parameter
    gives the fewest tokens: D = sqrt(C × k / 6) for 6ND). Dividing the compute by 6 × params
    over the params' range pairs ends no run has, outside the ratio's range (Q15 of the
    practitioner audit: 698B-5.41T for 100-200 tokens/param, against 1.23T-3.07T).

    >>> from recipekg.plan.planner import plan
    >>> a = plan(parse("plan where flops between 1e23 and 3e23 and tokens-per-param between 100 and 200")[0], snap)
    >>> tokens = next(x for x in a["quantities"] if x["name"] == "tokens")
    >>> round(tokens["low"] / 1e12, 2), round(tokens["high"] / 1e12, 2)  # sqrt(1e23 x 100 / 6), sqrt(3e23 x 200 / 6)
    (1.29, 3.16)
    """
    kb = ledger.kb
    composed = compose(fs.flops.parsed, "tokens", fs.tokens.parsed)
    (symbol, k), = fs.ratio.items()
    consts = {**kb.constants_in(fs.flops), **kb.constants_in(fs.tokens)}
    found = []
    for c, r in ((flops.value, k.value), *((c, r) for c in (flops.low, flops.high) for r in (k.low, k.high))):
        params = ledger.solve(composed, "params", {**consts, symbol: Q.point(r), "flops": Q.point(c)})
        found.append(ledger.compute(fs.tokens, {"params": params, symbol: Q.point(r)})[0].value)
    tokens = Q(found[0], min(found), max(found))
    ledger.add("tokens", tokens, formula=fs.tokens, extra_sources=[fs.flops.data],
               constants=[kb.constant(n) for n in sorted(fs.flops.parsed.names) if n in kb.by_symbol],
               derivation=f"{fs.tokens.data['expression']}, with params solved from {fs.flops.data['expression']} "
                          f"at the same ends of the compute ({show(flops, 'FLOPs')}) and the ratio "
                          f"({show(k, 'tokens/param')}), as one run has them: {show(tokens, 'tokens')}")
    return tokens


def _tokens_from_params(ledger: Ledger, params: Q, flops: Q | None, fs: _Formulas, active: Q | None = None) -> Q:
    if flops is None:
        tokens, env = ledger.compute(fs.tokens, {"params": params, **fs.ratio})
        ledger.add("tokens", tokens, formula=fs.tokens, env=env)
        return tokens
    per_token = {"active_params": active} if active is not None else {"params": params}
    tokens = ledger.solve(fs.flops.parsed, "tokens", {**ledger.kb.constants_in(fs.flops), **per_token, "flops": flops})
    _add_solved(ledger, "tokens", fs.flops, "tokens", {"flops": flops, **per_token}, tokens)
    return tokens


def _params_from_tokens(ledger: Ledger, tokens: Q, flops: Q | None, ratio: dict, fs: _Formulas) -> Q:
    kb = ledger.kb
    if flops is None:
        params = ledger.solve(fs.tokens.parsed, "params", {**kb.constants_in(fs.tokens), **fs.ratio, "tokens": tokens})
        _add_solved(ledger, "params", fs.tokens, "params", {"tokens": tokens, ratio["symbol"]: const_q(ratio)},
                    params)
        return params
    params = ledger.solve(fs.flops.parsed, "params", {**kb.constants_in(fs.flops), "tokens": tokens, "flops": flops})
    _add_solved(ledger, "params", fs.flops, "params", {"flops": flops, "tokens": tokens}, params)
    return params


def _check_given_flops(ledger: Ledger, per_token: dict, tokens: Q, flops: Q, flops_f: KBFormula) -> None:
    implied, _ = ledger.compute(flops_f, {**per_token, "tokens": tokens})
    if f"{implied.value:.2g}" != f"{flops.value:.2g}":
        counted = "active params" if "active_params" in per_token else "params"
        ledger.note(f"the given flops ({show(flops, 'FLOPs')}) differ from 6 × {counted} × tokens "
                    f"({show(implied, 'FLOPs')}); the plan uses the given figure", flops_f.data, warn=True)


def _table_row(kb: KBView, params: Q, tokens: Q) -> dict | None:
    """The row of the reference's FLOPs table with these params and tokens, if any."""
    if params.is_range or tokens.is_range:
        return None
    row = None
    for fact in sorted(kb.facts_of_type("ComputeEstimate"), key=lambda f: f["id"]):
        if fact.get("params") and fact.get("tokens") \
                and abs(fact["params"] - params.value) <= 1e-6 * fact["params"] \
                and abs(fact["tokens"] - tokens.value) <= 0.01 * fact["tokens"]:
            row = fact
    return row


def _show_table_figures(ledger: Ledger, row: dict | None) -> None:
    """The table row's tokens and FLOPs beside the formula's (not beside given figures)."""
    if row is None:
        return
    for q in ledger.quantities:
        if q["name"] in ("tokens", "flops") and row.get(q["name"]) is not None and not q.get("given"):
            q["table"] = {"fact": row["id"], "label": row["label"], "value": row[q["name"]],
                          "section": ledger.kb.section(row), "sources": ledger.kb.sources(row)}


def _ratio(ledger: Ledger, strategy: Strategy, params: Q, tokens: Q, remark: bool) -> None:
    f = ledger.kb.formula("tokens_per_param", "tokens", "params")
    if params.is_range and tokens.is_range:   # both follow from one ratio: report it, not a product of ranges
        ratio = const_q(strategy.ratio)
        ledger.add("tokens_per_param", ratio, formula=f, constants=[strategy.ratio],
                   derivation=f"{f.data['label']}: {show(ratio, 'tokens/param')}, the strategy's ratio")
    else:
        ratio, env = ledger.compute(f, {"tokens": tokens, "params": params})
        ledger.add("tokens_per_param", ratio, formula=f, env=env)
    if "active_params" in ledger.values:
        _dense_ratio_on_a_mixture(ledger, ratio, tokens, judged=remark)
    elif remark:
        _remark_on_ratio(ledger, ratio)


def _dense_ratio_on_a_mixture(ledger: Ledger, ratio: Q, tokens: Q, judged: bool) -> None:
    """A mixture of experts: the tokens-per-parameter ratios are dense models' fits (the KB's
    ``moe-no-sourced-law``), so the ratio is shown per total and per active parameter and no
    verdict (under- or over-trained) is drawn from it."""
    kb = ledger.kb
    chin = next(iter(kb.constants_for(kb.iri(COMPUTE_OPTIMAL), "tokens-per-param")), None)
    active = ledger.values["active_params"]
    per_active = Q(tokens.value / active.value, tokens.low / active.high, tokens.high / active.low)
    shown = f"{show(ratio, 'tokens')} per total parameter, {show(per_active, 'tokens')} per active one"
    ledger.note((f"a mixture of experts: the numbers given imply {shown}; " if judged else
                 f"a mixture of experts: sized at {shown}; ")
                + f"the compute-optimal {units.grouped(chin['value']) if chin else ''} tokens per parameter was "
                "fitted on dense models and no source in the KB says which count a mixture's optimum uses, so "
                + ("the plan draws no verdict (under- or over-trained) from either" if judged else
                   "the tokens are a dense model's count, not a mixture's checked optimum"),
                *[x for x in (chin, kb.fact("moe-no-sourced-law")) if x],
                warn=True)


def regime(kb: KBView, ratio: Q) -> str | None:
    """Where a tokens-per-parameter ratio stands against the KB's compute-optimal ratio and
    inference-optimal range: ``compute-optimal``, ``below-compute-optimal``, ``over-training``
    (between the two), ``inference-optimal`` or ``beyond-inference-optimal`` (None without a
    compute-optimal ratio in the KB)."""
    chin = next(iter(kb.constants_for(kb.iri(COMPUTE_OPTIMAL), "tokens-per-param")), None)
    inf = next(iter(kb.constants_for(kb.iri(INFERENCE_OPTIMAL), "tokens-per-param")), None)
    if chin is None:
        return None
    if _compute_optimal(kb, ratio.value, chin):
        return "compute-optimal"
    if ratio.value < chin["value"]:
        return "below-compute-optimal"
    if inf is None or ratio.value < inf["low"]:
        return "over-training"
    return "inference-optimal" if ratio.value <= inf["high"] else "beyond-inference-optimal"


def _compute_optimal(kb: KBView, ratio: float, chin: dict) -> bool:
    """Whether ``ratio`` is the compute-optimal one: about the KB's ratio (20, to two digits), or
    within the band Chinchilla's own projections span (``compute-optimal-band``: 20-22.4)."""
    band = next(iter(kb.constants_for(kb.iri(COMPUTE_OPTIMAL), "compute-optimal-band")), None)
    return units.grouped(ratio, 2) == units.grouped(chin["value"], 2) or \
        band is not None and band["low"] <= ratio <= band["high"]


#: What each regime is called (the reference's words: Chinchilla-optimal ~20, inference-optimal
#: 100-200, over-training "now standard practice for production"), and the KB approach it is.
_REGIMES = {
    "compute-optimal": (COMPUTE_OPTIMAL, None, "about the compute-optimal ratio"),
    "below-compute-optimal": (COMPUTE_OPTIMAL, "Below Chinchilla-optimal (under-trained)",
                              "fewer tokens per parameter than the compute-optimal {c}: the model is large "
                              "for its data"),
    "over-training": (INFERENCE_OPTIMAL, "Over-trained beyond Chinchilla-optimal (short of inference-optimal)",
                      "more than the compute-optimal {c} tokens per parameter, short of the "
                      "inference-optimal {inf}"),
    "inference-optimal": (INFERENCE_OPTIMAL, None, "in the inference-optimal range ({inf}): over-trained on "
                                                   "purpose, for a model that will be served"),
    "beyond-inference-optimal": (INFERENCE_OPTIMAL, "Over-training beyond inference-optimal",
                                 "beyond even the inference-optimal range ({inf}), over-trained past the "
                                 "reference's rule of thumb"),
}


def _lower_first(text: str) -> str:
    """``Over-trained ...`` → ``over-trained ...`` (a name such as ``Chinchilla`` stays)."""
    return text[:1].lower() + text[1:] if text[1:2].islower() and not text.startswith("Chinchilla") else text


def _meaning(kb: KBView, text: str) -> str:
    """A regime's meaning with the KB's compute- and inference-optimal ratios filled in."""
    chin = kb.constants_for(kb.iri(COMPUTE_OPTIMAL), "tokens-per-param")[0]
    inf = next(iter(kb.constants_for(kb.iri(INFERENCE_OPTIMAL), "tokens-per-param")), None)
    inf_text = f"{units.grouped(inf['low'])}–{units.grouped(inf['high'])} tokens/param" if inf else ""
    return text.format(c=units.grouped(chin["value"]), inf=inf_text)


def follow_ratio(ledger: Ledger, strategy: Strategy, sizes: Sizes) -> Strategy:
    """The strategy the numbers given imply, when they fix the ratio (two of params, tokens,
    flops): named by the regime of that ratio, not by the ratio the rules would size with."""
    kb, ratio = ledger.kb, ledger.values.get("tokens_per_param")
    kind = regime(kb, ratio) if sizes.implied and ratio is not None else None
    if kind is None:
        return strategy
    approach, label, meaning = _REGIMES[kind]
    iri = kb.iri(approach) or strategy.iri
    node = kb.snap["nodes"][iri]
    chin = kb.constants_for(kb.iri(COMPUTE_OPTIMAL), "tokens-per-param")[0]
    inf = next(iter(kb.constants_for(kb.iri(INFERENCE_OPTIMAL), "tokens-per-param")), None)
    inf_text = f"{units.grouped(inf['low'])}–{units.grouped(inf['high'])} tokens/param" if inf else ""
    given = " and ".join(n + (" (unique-tokens × epochs)" if n == "tokens" and sizes.from_data else "")
                         for n in ("params", "tokens", "flops") if ledger.given(n))
    why = (f"{given} given: they imply {show(ratio, 'tokens/param')}, "
           + meaning.format(c=units.grouped(chin["value"]), inf=inf_text))
    if iri != strategy.iri and strategy.json["because"]:
        why += f" (the rules would size by {strategy.json['label']})"
    if "active_params" in ledger.values:    # a mixture: no sourced optimum to judge the ratio by
        label = "per total parameter; no sourced optimum for a mixture of experts"
        why = (f"{given} given: they imply {show(ratio, 'tokens')} per total parameter; the compute- and "
               "inference-optimal ratios are dense models' fits (see the notes)")
        kind = None
    ratio_json = {"id": None, "symbol": None, "label": "tokens per parameter implied by the numbers given",
                  "value": ledger.entry("tokens_per_param")["value"], "low": ledger.entry("tokens_per_param")["low"],
                  "high": ledger.entry("tokens_per_param")["high"], "unit": "tokens/param"}
    return Strategy(iri, strategy.ratio, {"id": node["id"], "label": label or node["label"], "regime": kind,
                                          "implied": True, "tokens_per_param": ratio_json, "why": why,
                                          "because": []})


def _remark_on_ratio(ledger: Ledger, ratio: Q) -> None:
    """Where a ratio the user chose stands against compute- and inference-optimal: judgements
    of a pretraining run (a fine-tune's tokens are not weighed against them)."""
    kb = ledger.kb
    if ledger.method not in (None, *PRETRAINING):
        return
    chin = next(iter(kb.constants_for(kb.iri(COMPUTE_OPTIMAL), "tokens-per-param")), None)
    inf = next(iter(kb.constants_for(kb.iri(INFERENCE_OPTIMAL), "tokens-per-param")), None)
    if chin is None:
        return
    c, shown = chin["value"], show(ratio, "tokens/param")
    inf_range = f"{units.grouped(inf['low'])}–{units.grouped(inf['high'])} tokens/param" if inf else ""
    if _compute_optimal(kb, ratio.value, chin):
        band = next(iter(kb.constants_for(kb.iri(COMPUTE_OPTIMAL), "compute-optimal-band")), None)
        within = (f" (within the {units.grouped(band['low'])}–{units.grouped(band['high'])} tokens per parameter "
                  f"Chinchilla's own projections span)") if band and units.grouped(ratio.value, 2) != units.grouped(c, 2) else ""
        ledger.note(f"{shown}: about the compute-optimal ratio of {units.grouped(c)}{within}", chin, *([band] if within else []))
    elif ratio.high < c:
        ledger.note(f"{shown} is below the compute-optimal {units.grouped(c)} tokens per parameter: the model "
                    f"is large for its data, and for this compute a smaller model on more tokens would do "
                    f"better", chin, warn=True)
    elif inf is not None and inf["low"] <= ratio.value <= inf["high"]:
        ledger.note(f"{shown} is in the inference-optimal range ({inf_range}): over-trained on purpose, "
                    f"for a model that will be served", inf)
    elif inf is not None and ratio.value > inf["high"]:
        ledger.note(f"{shown} is beyond even the inference-optimal range ({inf_range})", inf, warn=True)
    else:
        ledger.note(f"{shown} is above the compute-optimal {units.grouped(c)} tokens per parameter"
                    + (f" but below the inference-optimal {inf_range}" if inf else ""),
                    chin, *([inf] if inf else []))
