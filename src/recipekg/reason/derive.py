"""Facts the query implies: hardware → its memory and bandwidth; gpus + time → compute tier;
params + GPU memory (+ gpus) → the share of memory a training run needs (a KB formula).

Which dimensions derive from the hardware is data (``rkg:derivedVia`` in the ontology); a
dimension whose values are defined by conditions on others (``derived_from``: compute tiers,
KB nodes with conditions on gpus and time) is derived from those, and one a KB formula computes
(``derived_by``) from the dimensions the formula reads::

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> facts = resolve_constraints(parse("plan where gpus = 1 and time < 1 day")[0].constraints, snap)
    >>> sorted(derive(facts, snap)["tier"].values)
    ['https://w3id.org/recipekg/id/single-gpu-short']

Where no value holds, the values the query misses narrowly are kept (``Facts.near``): eight
GPUs for two weeks is no tier of the flowchart, but the time misses the 4-8 GPU tier's week by
a factor of 2 only::

    >>> facts = resolve_constraints(parse("plan where gpus = 8 and time = 2 weeks")[0].constraints, snap)
    >>> derive(facts, snap)["tier"].near
    {'https://w3id.org/recipekg/id/multi-gpu-week': ('time', 336.0, 168.0)}
"""

from __future__ import annotations

import math

from recipekg.knowledge.derived import once, table
from recipekg.reason.conditions import FAILED, HELD, status
from recipekg.reason.facts import Facts, constraint_json, derived_formula, for_method, measured
from recipekg.reason.implied import data_of_models, implied, say


def derive(facts: dict[str, Facts], snap: dict) -> dict[str, Facts]:
    facts = dict(facts)
    implied(facts, snap)
    _from_model(facts, snap)
    for name in snap.get("sized_dimensions", ()):  # (params from a FLOPs budget)
        if name not in facts:
            _sized(name, snap["dimensions"][name], facts, snap)
    _from_hardware(facts, snap)
    for name in snap.get("derived_dimensions", ()):  # those a formula computes first, in order
        dim = snap["dimensions"][name]
        if name in facts:
            continue
        if dim.get("derived_by"):
            if not_for_method(dim, facts, snap):
                facts[name] = Facts(name, dim["kind"], intervals=[], derived="method")  # no value: no rule on it holds
            elif all(i in facts or i in dim.get("open_inputs", ()) for i in dim["derived_from"]):
                _from_formula(name, dim, facts, snap)
        elif set(dim["derived_from"]) & set(facts):
            _from_conditions(name, dim, facts, snap)
    _mark_extensions(facts, snap)
    return facts


def _mark_extensions(facts: dict[str, Facts], snap: dict) -> None:
    """A derived constraint on a dimension an extension added carries its origin, as every
    answer marks what an extension contributed (hostile round 5, 054: ``team-open = ... (from
    gpus)`` stood unmarked in every answer giving the GPUs)."""
    for name, f in facts.items():
        origin = f.derived and snap["dimensions"].get(name, {}).get("origin")
        for c in f.constraints if origin else ():
            c.setdefault("origin", origin)


def _from_model(facts: dict[str, Facts], snap: dict) -> None:
    """A named model configuration's size is the model size the query means when it gives
    none (``model = llama-3-70b``), so that every statement, not plan alone, reasons with it:
    the conditions read the size it is published as (``rkg:nominalParams``: 70B, in the
    reference's 30-70B class), the formulas the count of its weights (``rkg:params``, from the
    published shape: 70.55B), which the constraint's note gives.

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> facts = derive(resolve_constraints(parse("recommend x where model = llama-3-70b")[0].constraints, snap), snap)
    >>> p = facts["params"]
    >>> p.derived, p.intervals[0][0] / 1e9, round(p.counted[0][0] / 1e9, 2), p.constraints[0]["note"]
    ('architecture', 70.0, 70.55, 'the size Llama 3 70B is published as; its weights count 70.55B')
    """
    arch = facts.get("architecture")
    if arch is None or not arch.values or "params" not in snap["dimensions"]:
        return
    models = [snap["models"].get(v, {}) for v in sorted(arch.values)]
    data_of_models(facts, models, snap)
    if any(not m.get("params") for m in models):  # a family or an architecture: no one size
        return
    dim = snap["dimensions"]["params"]
    if "params" in facts:  # given: read as given, said where the model's size disagrees
        sizes = [m.get("nominal_params") or m["params"] for m in models] + [m["params"] for m in models]
        say(facts, "params", _disagrees(facts["params"], "architecture", arch, sizes, dim, snap))
        return
    nominal = sorted({m.get("nominal_params") or m["params"] for m in models})
    counted = sorted({m["params"] for m in models})
    four = [float(f"{v:.4g}") for v in nominal]  # (a size without a nominal one: four digits, "68.98B")
    shown = constraint_json(dim, "=", four[0]) if len(four) == 1 else constraint_json(dim, "in", four)
    if nominal != counted:
        shown["note"] = _nominal_note(models)
    facts["params"] = Facts("params", dim["kind"], intervals=[(v, True, v, True) for v in nominal],
                            derived="architecture", constraints=[shown],
                            counted=[(v, True, v, True) for v in counted] if nominal != counted else None)


def _sized(name: str, dim: dict, facts: dict[str, Facts], snap: dict) -> None:
    """A dimension the query does not give, from a budget it gives instead (``sized_by``: the
    model size from a FLOPs budget, by 6ND with the tokens given, else at Chinchilla's
    compute-optimal ratio): the first of its formulas whose inputs the query gives, as the range
    it computes; the constraint's note names the formula, the assumption the value rests on.

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> def params(text):
    ...     p = derive(resolve_constraints(parse(f"recommend x where {text}")[0].constraints, snap), snap)["params"]
    ...     return p.derived, [round(x / 1e9, 2) for x in (p.intervals[0][0], p.intervals[0][2])]
    >>> params("flops = 1e21"), params("flops = 1.2e21 and tokens = 100B")
    (('flops', [2.89, 2.89]), ('flops and tokens', [2.0, 2.0]))

    It sizes a model to pretrain (the method's default): a fine-tune adapts a model of its own size::

    >>> "params" in derive(resolve_constraints(parse("recommend x where flops = 1e18 and method = lora")[0].constraints, snap), snap)
    False
    """
    from recipekg.formula.expr import Q

    default = snap["dimensions"].get("method", {}).get("default")
    if default and not for_method({"for_methods": [default]}, facts, snap):
        return  # (a budget sizes a model to pretrain: a LoRA run's model is the one it adapts)
    for iri, inputs in dim.get("sized_by") or ():
        record = snap["formulas"].get(iri)
        if record is None or not all(_span(facts.get(i)) for i in inputs):
            continue
        q = _evaluated(record, {i.replace("-", "_"): Q.span(*measured(facts[i])) for i in inputs}, snap)
        if q is None:
            continue
        low, high = _tidy(q.low), _tidy(q.high)
        if not (0 < smallest(dim) <= low <= high < math.inf):
            continue  # (a budget that buys less than one parameter sizes nothing)
        shown = constraint_json(dim, "=", low) if low == high else constraint_json(dim, "between", [low, high])
        shown["note"] = (f"what {' and '.join(inputs)} give{'s' if len(inputs) == 1 else ''} by the formula "
                         f"'{record['label']}' ({record['id']}); give {name} for another")
        facts[name] = Facts(name, dim["kind"], intervals=[(low, True, high, True)], derived=" and ".join(inputs),
                            constraints=[shown])
        return


def _disagrees(given: Facts, by: str, source: Facts, figures: list[float], dim: dict, snap: dict) -> dict | None:
    """Mark a number the user gave where what another of their constraints says of it (the
    hardware's memory bandwidth, a named model's size) lies outside it: ``bandwidth = 25Gb/s``
    with ``hardware = a100`` (2.039 TB/s of memory bandwidth: the network's is no dimension of
    the KB), ``params = 7B`` with ``model = llama-3-70b``. The answer reads the value as given
    and says so (``implied_otherwise``, with the figures and their unit); nothing is dropped.

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> facts = derive(resolve_constraints(parse("recommend x where hardware = a100 and bandwidth = 25Gb/s")[0].constraints, snap), snap)
    >>> facts["bandwidth"].constraints[0]["implied_otherwise"]
    [{'dimension': 'hardware', 'value': ['a100'], 'implies': [], 'figures': [2039000000000.0], 'unit': 'bytes/s'}]
    """
    if given.derived or not given.intervals:
        return None
    if any(lo <= v <= hi for x in figures for v in (x, _tidy(x)) for lo, _, hi, _ in given.intervals):
        return None  # (a figure as the user would write it, to four digits, agrees: 8.03B for 8,030,261,248)
    return {"dimension": by, "value": sorted(snap["nodes"][v]["id"] for v in source.values or () if v in snap["nodes"]),
            "implies": [], "figures": sorted({_tidy(x) for x in figures}), "unit": constraint_json(dim, "=", figures[0]).get("unit") or ""}


def _nominal_note(models: list[dict]) -> str:
    """What the published size of named models is, beside the count of their weights."""
    counts = ", ".join(dict.fromkeys(f"{m['params'] / 1e9:.4g}B" for m in models))  # (every model is over 1B)
    labels = " and ".join(m["label"] for m in models)
    return (f"the size {labels} is published as; its weights count {counts}" if len(models) == 1 else
            f"the sizes {labels} are published as; their weights count {counts}")


def _from_formula(name: str, dim: dict, facts: dict[str, Facts], snap: dict) -> None:
    """The value of a dimension a KB formula computes from others (``derived_by``: the training
    memory of a full copy of the model against one GPU's memory, from params and gpu-memory),
    as the range the formula gives over the inputs' ranges (each input's span, its constants'
    ranges); an input without a finite positive span derives nothing (an open input the query
    does not give, ``rkg:openInput``, ranges over its dimension's values), nor a formula for other
    training methods than the query's (``rkg:forMethod``: the rule of thumb trains every weight),
    nor, for a query without a method, one for other methods than the default (pretraining); a
    formula for the given method counts the method among what the value comes from.

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> facts = derive(resolve_constraints(parse("plan where params = 7B and hardware = h100")[0].constraints, snap), snap)
    >>> facts["replica-memory"].intervals, facts["replica-memory"].derived
    ([(1.575, True, 1.75, True)], 'params and hardware')
    >>> derive(resolve_constraints(parse("plan where params = 7B and hardware = h100 and method = qlora")[0].constraints, snap), snap)["replica-memory"].intervals
    []
    >>> [("serving-memory" in derive(resolve_constraints(parse(f"recommend x where params = 70B and hardware = l40s{m}")[0].constraints, snap), snap))
    ...  for m in ("", " and method = inference")]
    [False, True]

    A dimension with a formula per method takes the query's (the frozen base: 16 bits for
    LoRA, 4 bits and its constants for QLoRA), and none without a method (pretraining)::

    >>> def base(m):
    ...     facts = derive(resolve_constraints(parse(f"recommend x where params = 70B and hardware = rtx-4090 and gpus = 1{m}")[0].constraints, snap), snap)
    ...     return facts["base-memory"].constraints[0]["value"] if "base-memory" in facts else None
    >>> base(" and method = lora"), base(" and method = qlora"), base("")
    (5.833, 1.505, None)
    """
    from recipekg.errors import FormulaError
    from recipekg.formula.expr import Q

    record = derived_formula(dim, facts, snap)
    if record is None:
        return
    method = facts.get("method")  # a formula for the given method comes from it too (its bytes per parameter)
    env, sources = {}, ["method"] if record.get("for_methods") and method is not None and not method.derived else []
    for i in dim["derived_from"]:
        f = facts.get(i)
        if f is None:  # an open input the query does not give: every value its dimension allows
            env[i.replace("-", "_")] = Q.span(smallest(snap["dimensions"][i]), math.inf)
            continue
        if not _span(f):
            return
        env[i.replace("-", "_")] = Q.span(*measured(f))
        sources += [s for s in (f.derived.split(" and ") if f.derived else [i]) if s not in sources]
    try:
        for figure, by in dim.get("derived_through") or ():  # the model's shape, in order
            _figure(figure, by, env, sources, facts, snap)
    except (FormulaError, LookupError):
        return  # (a figure no one gives)
    if (q := _evaluated(record, env, snap)) is None:
        return
    low, high = _tidy(q.low), _tidy(q.high)
    if not math.isfinite(low) or not math.isfinite(high):
        return
    shown = constraint_json(dim, "=", low) if low == high else constraint_json(dim, "between", [low, high])
    facts[name] = Facts(name, dim["kind"], intervals=[(low, True, high, True)], derived=" and ".join(sources),
                        constraints=[shown])


def _evaluated(record: dict, env: dict, snap: dict):
    """Formula ``record`` on the inputs of ``env`` with its constants and unit conversions, as a
    ``Q``; None for one that divides by a range through zero or reads a constant without a value."""
    from recipekg.errors import FormulaError
    from recipekg.formula.expr import CONVERSIONS, Q, const_q, evaluate, formula_of

    env = {**env, **{c["symbol"]: const_q(c) for c in map(snap["constants"].get, record["constants"]) if c},
           **{n: Q.point(v) for n, v in CONVERSIONS.items() if n in record["names"]}}
    try:
        return evaluate(formula_of(record), env)
    except (FormulaError, LookupError):
        return None


def smallest(dim: dict) -> float:
    """The smallest value an open input ranges from: its dimension's positive minimum, or 1 for
    a count (a run has at least one GPU) and 0 otherwise.

    >>> smallest({"kind": "count", "min": 0.0}), smallest({"kind": "ratio", "min": 0.5})
    (1.0, 0.5)
    """
    low = dim.get("min") or 0.0
    return low if low > 0 else (1.0 if dim.get("kind") == "count" else 0.0)


def not_for_method(dim: dict, facts: dict[str, Facts], snap: dict) -> bool:
    """Whether every formula deriving ``dim`` is for other training methods than the one the
    query gives: the frozen base of a LoRA fine-tune has no value for ``method = pretrain``, nor
    a served model's weights for a training method. Such a dimension gets a fact with no value
    (``intervals == []``: a condition on it fails, as the SPARQL query reads an empty range), so
    that a rule on it neither waits for it nor asks for it; a value the user gives is theirs.
    A query that gives no method may mean any (pretraining is only what plan assumes): there
    such a dimension stays not given.

    >>> from recipekg.reason.resolve import resolve_constraints
    >>> def derived(text):
    ...     return derive(resolve_constraints(parse(text)[0].constraints, snap), snap)
    >>> facts = derived("recommend x where params = 70B and gpus = 2 and method = pretrain")
    >>> facts["serving-memory"].intervals, facts["base-load"].intervals, "memory-load" in facts
    ([], [], False)
    >>> "serving-memory" in derived("recommend x where params = 70B and gpus = 2")
    False
    """
    method = facts.get("method")
    if method is None or not method.values:
        return False  # (no method, or only methods ruled out: some method may be the query's)
    known = table(snap, "dimensions not for a method")  # (what the snapshot and the methods alone say)
    key = (dim["name"], frozenset(method.values))
    found = known.get(key)
    if found is None:
        records = [snap["formulas"].get(i) for i in dim.get("derived_by_all") or [dim["derived_by"]]]
        found = not any(r is None or not r.get("for_methods") for r in records) and \
            all(not method.values & set(r["for_methods"]) for r in records)
        if len(known) < KEPT_VERDICTS:  # (bounded: a query may list any methods)
            known[key] = found
    return found


#: How many (dimension, methods) verdicts of :func:`not_for_method` a snapshot keeps.
KEPT_VERDICTS = 4096


def _span(f: Facts | None) -> bool:
    """Whether ``f`` gives a finite positive range (what a formula can read)."""
    return f is not None and bool(f.intervals) and 0 < f.intervals[0][0] <= f.intervals[-1][2] < math.inf


def _figure(figure: str, by: str, env: dict, sources: list, facts: dict[str, Facts], snap: dict) -> None:
    """A model figure a formula reads (``layers``, ``hidden``) into ``env``: the query's value, else
    the named model configurations' (their range), else the rule of thumb's formula ``by`` on what
    ``env`` holds (``layers`` from ``params``), as plan takes the model's shape; what it was read
    from joins ``sources``.

    >>> from recipekg.formula.expr import Q
    >>> from recipekg.reason.resolve import resolve_constraints
    >>> def figures(text):
    ...     facts = derive(resolve_constraints(parse(text)[0].constraints, snap), snap)
    ...     env, sources = {"params": Q.point(facts["params"].intervals[0][0])}, []
    ...     for figure, by in snap["dimensions"]["sequence-checkpoints"]["derived_through"]:
    ...         _figure(figure, by, env, sources, facts, snap)
    ...     return {k: round(env[k].low) for k in ("layers", "hidden")}, sources
    >>> figures("recommend x where model = llama-3-8b")
    ({'layers': 32, 'hidden': 4096}, ['architecture'])
    >>> figures("recommend x where params = 8B")
    ({'layers': 34, 'hidden': 4403}, [])
    >>> figures("recommend x where params = 8B and layers = 32")
    ({'layers': 32, 'hidden': 4096}, ['layers'])
    """
    from recipekg.formula.expr import Q, const_q, evaluate, formula_of

    given = facts.get(figure)
    arch = facts.get("architecture")
    name = figure.replace("-", "_")  # the formulas' and the configurations' name (kv-heads: kv_heads)
    configured = [snap["models"].get(v, {}).get(name) for v in sorted(arch.values or ())] if arch else []
    if _span(given) and not given.derived:
        env[name] = Q.span(given.intervals[0][0], given.intervals[-1][2])
        found = figure
    elif configured and all(configured):
        env[name] = Q.span(min(configured), max(configured))
        found = "architecture"
    elif not by:
        raise LookupError(figure)  # (a figure without a rule of thumb: the vocabulary of a model not named)
    else:
        record = snap["formulas"][by]
        env.update((c["symbol"], const_q(c)) for c in map(snap["constants"].get, record["constants"]) if c)
        env[name] = evaluate(formula_of(record), env)
        return
    if found not in sources:
        sources.append(found)


def _tidy(x: float) -> float:
    """``x`` to 4 significant figures (a rule of thumb's estimate, without float noise).

    >>> _tidy(0.7875000000000001), _tidy(52.49999)
    (0.7875, 52.5)
    """
    return float(f"{x:.4g}") if math.isfinite(x) else x


def _from_hardware(facts: dict[str, Facts], snap: dict) -> None:
    hw = facts.get("hardware")
    if hw is None or hw.values is None:
        return
    for name, dim, prop in once(snap, "derived via hardware", _via_hardware):
        figures = [snap["hardware"].get(h, {}).get(prop) for h in sorted(hw.values)]
        if any(v is None for v in figures):
            continue  # e.g. a bf16 peak the vendor has not published
        if name in facts:
            if dim["kind"] != "categorical":
                say(facts, name, _disagrees(facts[name], "hardware", hw, figures, dim, snap))
            continue
        if dim["kind"] == "categorical":  # what every named accelerator has (its tensor cores' precisions)
            _named_via(name, dim, figures, facts, snap)
            continue
        distinct = sorted(set(figures))
        shown = constraint_json(dim, "=", distinct[0]) if len(distinct) == 1 else constraint_json(dim, "in", distinct)
        facts[name] = Facts(name, dim["kind"], intervals=[(v, True, v, True) for v in distinct],
                            derived="hardware", constraints=[shown])


def _named_via(name: str, dim: dict, figures: list, facts: dict[str, Facts], snap: dict) -> None:
    """A categorical dimension derived from the hardware: the values every accelerator named
    holds at once (``all_of``: an H100 runs bf16, fp16 and fp8)."""
    common = set(figures[0]).intersection(*figures[1:])
    if common:
        ids = sorted(snap["nodes"].get(v, {}).get("id", v) for v in common)
        facts[name] = Facts(name, dim["kind"], values=common, all_of=True, derived="hardware",
                            constraints=[constraint_json(dim, "all of", ids)])


def _via_hardware(snap: dict) -> list[tuple[str, dict, str]]:
    """The dimensions derived from the hardware's figures, with the figure each reads, in the
    snapshot's order (made once per snapshot: :mod:`recipekg.knowledge.derived`)."""
    return [(name, dim, dim["derived_via"]) for name, dim in snap["dimensions"].items() if dim.get("derived_via")]


def _from_conditions(name: str, dim: dict, facts: dict[str, Facts], snap: dict) -> None:
    """The values of ``dim`` whose conditions the facts meet (all of them: a run can be in two
    overlapping tiers), or those they rule out: :func:`_defined`, kept per snapshot for the facts
    it reads (ask's and the boundaries' trials derive a tier again from the same GPUs and time a
    dozen times an answer; Facts are never changed once made, so one is shared)."""
    read = once(snap, "dimensions the defining conditions read", _read_by_definitions)
    key = (name, *(_fact_key(facts.get(d)) for d in read.get(name, dim["derived_from"])))
    kept = table(snap, "facts derived from defining conditions")
    found = kept.get(key, kept)  # (the dict itself: not kept yet; read once, so another thread may clear it)
    if found is kept:
        found = _defined(name, dim, facts, snap)
        if len(kept) >= _KEPT_DERIVED:
            kept.clear()
        kept[key] = found
    if found is not None:
        facts[name] = found


#: How many facts :func:`_from_conditions` keeps per snapshot (a web server answers many queries).
_KEPT_DERIVED = 4096


def _read_by_definitions(snap: dict) -> dict[str, list[str]]:
    """Each dimension defined by conditions on others: the dimensions it is derived from and
    every one its values' conditions read (an extension's tier may read another)."""
    out = {}
    for name, dim in snap["dimensions"].items():
        if dim.get("derived_from") and not dim.get("derived_by"):
            mine = set(dim["values"].values())
            read = {snap["conditions"][c]["dimension"] for iri, t in snap["tiers"].items() if iri in mine
                    for c in t["conditions"] if c in snap["conditions"]}
            out[name] = sorted(read | set(dim["derived_from"]))
    return out


def _fact_key(f: Facts | None) -> tuple | None:
    """What of a fact a defining condition can read, as a key (None: not given)."""
    if f is None:
        return None
    return (f.dimension, f.kind, None if f.values is None else frozenset(f.values), frozenset(f.excluded),
            None if f.intervals is None else tuple(map(tuple, f.intervals)), f.derived, f.all_of,
            tuple(sorted(f.near.items())), None if f.counted is None else tuple(map(tuple, f.counted)))


def _defined(name: str, dim: dict, facts: dict[str, Facts], snap: dict) -> Facts | None:
    """The fact :func:`_from_conditions` derives for ``dim`` (None when no value holds or fails)."""
    held, failed, mine = set(), set(), set(dim["values"].values())
    near: dict[str, tuple[str, float, float]] = {}
    for iri, defined in snap["tiers"].items():
        if iri not in mine:
            continue
        conds = [snap["conditions"][c] for c in defined["conditions"]]
        statuses = [status(c, facts, snap) for c in conds]
        if statuses and all(s == HELD for s in statuses):
            held.add(iri)
        elif FAILED in statuses:
            failed.add(iri)
            if (miss := _narrowly(conds, statuses, facts)) is not None:
                near[iri] = miss
    # what it is derived from here: the dimensions of its definition the query gives (a tier
    # the GPUs alone rule out is from the GPUs, not "from gpus and time" with no time given)
    derived = " and ".join(d for d in dim["derived_from"] if d in facts) or " and ".join(dim["derived_from"])
    if held:
        shown = (constraint_json(dim, "=", _ids(held, snap)[0]) if len(held) == 1 else
                 constraint_json(dim, "all of", _ids(held, snap)))
        return Facts(name, dim["kind"], values=held, all_of=True, derived=derived, constraints=[shown])
    if failed:
        shown = constraint_json(dim, "not in", _ids(failed, snap))
        if failed == mine:  # (16 GPUs: between the 4-8 GPU tiers and the 32+ GPU ones)
            shown["note"] = f"the {derived} given fall in none of the KB's {len(mine)} {name}s"
        return Facts(name, dim["kind"], excluded=failed, derived=derived, near=near, constraints=[shown])
    return None


def _narrowly(conds: list[dict], statuses: list[str], facts: dict[str, Facts]) -> tuple[str, float, float] | None:
    """``(dimension, value, threshold)`` when every condition holds but one numeric condition
    the query misses by less than a factor of 2 (:func:`recipekg.reason.situation.near_miss`):
    the value defined by ``conds`` is near the query (8 GPUs for 2 weeks, against the tier of
    4-8 GPUs for 1-7 days: the time misses 1 week by a factor of 2)."""
    from recipekg.reason.situation import near_miss

    failed = [c for c, s in zip(conds, statuses) if s == FAILED]
    if len(failed) != 1 or any(s not in (HELD, FAILED) for s in statuses):
        return None
    f = facts.get(failed[0]["dimension"])
    hit = near_miss(failed[0], f.intervals) if f is not None and f.intervals else None
    return (failed[0]["dimension"], *hit) if hit else None


def _ids(iris, snap) -> list[str]:
    return sorted(snap["nodes"][i]["id"] for i in iris)
