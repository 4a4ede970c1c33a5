"""What a ``plan`` statement asks for: its numbers and names, read and checked once.

    >>> inputs = read_inputs(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> inputs.params.value, inputs.gpus.value, inputs.tokens is None
    (7000000000.0, 8.0, True)
    >>> inputs.given_text("gpus")
    'given in the query (gpus = 8)'
    >>> read_inputs(parse("plan where gpus = 8")[0], snap)
    Traceback (most recent call last):
    recipekg.errors.NothingToPlan: line 1, column 1: nothing to plan from: give a model size, a token count, a compute budget, GPUs with a time and the hardware, or the memory to fit in
    expected: params = 7B, tokens = 140B, flops = 1e21, unique-tokens = 50B and epochs = 4, gpus = 64 and time = 2 weeks and hardware = h100 or hardware = h100
"""

from __future__ import annotations

import math

from recipekg.errors import NothingToPlan, RangeError
from recipekg.formula.expr import SCALE, Q
from recipekg.record import Record
from recipekg.limits import WHOLE_NUMBERS, whole_number_problem
from recipekg.query.ast import Plan, Position
from recipekg.reason.facts import Facts
from recipekg.reason.resolve import facts_of, resolve_dimension
from recipekg.render import numbers as units

#: Dimensions plan reads; others are reported as not used.
USED = {"params", "tokens", "flops", "gpus", "time", "hardware", "gpu-memory", "bandwidth", "mfu",
        "epochs", "unique-tokens", "optimizer", "precision", "goal", "inference-budget", "tier", "prefer",
        "layers", "hidden", "heads", "seq-length", "micro-batch", "tensor-parallel", "pipeline-parallel", "zero",
        "recompute", "peak-flops", "tokens-per-param", "method", "lora-rank", "offload", "pretrained",
        "kv-heads", "vocab", "active-params", "inference-tokens", "ffn-hidden", "ffn-matrices",
        "attention", "grad-precision", "kv-precision", "master-weights", "optimizer-step", "headroom", "price",
        "carbon-intensity",
        "data"}  # (data: whether the learning-rate law's architecture is trained on it, plan/beyond.py)


class Inputs(Record):
    """The statement, its constraints by dimension, their facts, and the values plan reads
    (None when not given; numbers as :class:`Q`, names as IRIs)."""

    stmt: Plan
    constraints: dict
    facts: dict[str, Facts]
    params: Q | None
    tokens: Q | None
    flops: Q | None
    unique_tokens: Q | None
    epochs: Q | None
    gpus: Q | None
    mfu: Q | None
    time_budget: Q | None
    gpu_memory: Q | None
    hardware: str | None
    optimizer: str | None
    precision: str | None
    peak_flops: Q | None = None
    tokens_per_param: Q | None = None
    bandwidth: Q | None = None
    method: str | None = None
    offload: str | None = None
    pretrained: str | None = None
    params_from: str | None = None
    model: dict | None = None          # the named model configuration (``model = llama-2-70b``)
    active_params: Q | None = None     # parameters used per token (given, or the configuration's)
    params_from_model: bool = False    # params are the configuration's, not the query's
    inference_tokens: Q | None = None  # tokens to be served over the model's life (inference-aware sizing)
    price: Q | None = None             # USD per GPU-hour
    carbon_intensity: Q | None = None  # kg CO2e per kWh
    longest_input: dict | None = None  # the architecture's longest input (a choice property: BERT's 512 tokens)
    #: the architecture given, as words, when it is no kind of model the shape's rule of thumb is
    #: for (``rkg:shapeOf``: a transformer's; a ResNet): its shape and activations are not that rule's
    other_shape: str | None = None
    from_examples: bool = False        # unique_tokens bound by the examples and the sequence length, not given

    @property
    def backwards(self) -> bool:
        """Nothing to size from but GPUs, a time and a peak: plan from the compute they give."""
        return (not (self.params or self.tokens or self.flops or (self.unique_tokens and self.epochs))
                and bool(self.gpus and self.time_budget and (self.hardware or self.peak_flops)))

    def with_params(self, params: Q, how: str) -> "Inputs":
        """The same inputs with ``params`` set (a size found by memory, ``how``, not given)."""
        new = {"params": params, "params_from": how}
        return Inputs(**{f: new[f] if f in new else getattr(self, f) for f in self.fields})

    def with_gpus(self, gpus: Q) -> "Inputs":
        """The same inputs on ``gpus`` GPUs (the fewest a time budget needs, no count given)."""
        return Inputs(**{f: gpus if f == "gpus" else getattr(self, f) for f in self.fields})

    def with_data(self, unique_tokens: Q, epochs: Q) -> "Inputs":
        """The same inputs with the unique tokens the examples bound and the epochs (a
        fine-tune's examples × its sequence length, not given: :func:`recipekg.plan.finetune.from_examples`)."""
        new = {"unique_tokens": unique_tokens, "epochs": epochs, "from_examples": True}
        return Inputs(**{f: new[f] if f in new else getattr(self, f) for f in self.fields})

    def given_text(self, dim: str) -> str:
        """How the query gave ``dim``, as a derivation."""
        if dim == "params" and self.params_from:
            return self.params_from
        c = self.constraints[dim]
        return f"given in the query ({c.dimension.text} {c.op} {' and '.join(v.text for v in c.values)})"

    def unused(self) -> list[str]:
        """The dimensions of the query plan does not read (``architecture`` unless it names a
        model configuration)."""
        inference = self.method is not None and self.method.rsplit("/", 1)[-1] == "method-inference"
        return sorted(d for d in self.constraints if d not in USED
                      and not (d == "architecture" and (self.model or self.longest_input or self.other_shape))
                      and not (d == "samples" and self.from_examples)
                      and not (d == "batch-size" and inference))


def _longest_input(named: set, snap: dict) -> dict | None:
    """The longest input the one architecture named reads (its strict ``rkg:longestInput``
    property, or its family's: BERT's 512 positions), which a plan without seq-length assumes
    instead of GPT-3's context (audit 13/17: BERT-large was planned at 2,048 tokens)."""
    from recipekg.reason.properties import properties_of

    if len(named) != 1:
        return None
    found = [snap["choice_properties"][p] for p, _ in properties_of(next(iter(named)), snap)]
    return next((p for p in found if p.get("strict") and p.get("test") == "at-most"
                 and (p.get("check") or {}).get("dimension") == "seq-length" and p.get("value")), None)


def shape_scope(snap: dict) -> set[str]:
    """The kinds of model the rules of thumb for a model's layers give the shape of."""
    formulas = snap["formulas"]
    return {a for iri in snap["plan_index"]["formulas_by_output"].get("layers", ())
            for a in formulas[iri].get("shape_of") or ()}


def outside_scope(named: set, scope: set, snap: dict) -> str | None:
    """The labels of the architectures ``named`` when none is in ``scope``, narrower or broader
    (a transformer may be a decoder), else None (one is, or none named, or no scope).

    >>> outside_scope({"https://w3id.org/recipekg/id/resnet"}, {"https://w3id.org/recipekg/id/transformer"}, snap)
    'ResNet'
    >>> outside_scope({"https://w3id.org/recipekg/id/decoder"}, {"https://w3id.org/recipekg/id/transformer"}, snap)
    """
    if not scope or not named:
        return None
    nodes = snap["nodes"]

    def related(v: str) -> bool:
        return v in scope or bool(scope & set(nodes.get(v, {}).get("ancestors", ()))) \
            or any(v in nodes.get(s, {}).get("ancestors", ()) for s in scope)

    if any(related(v) for v in named):
        return None
    return " or ".join(sorted(nodes[v]["label"] for v in named if v in nodes)) or None


def read_inputs(stmt: Plan, snap: dict) -> Inputs:
    """The values of a plan statement; :class:`RangeError` for one plan cannot work with."""
    constraints: dict = {}
    for c in stmt.constraints:
        constraints.setdefault(resolve_dimension(c.dimension, snap)["name"], c)
    facts = facts_of(stmt.constraints, snap)
    if "pretrained" in facts and facts["pretrained"].derived:  # (weights a named model's makers released:
        del facts["pretrained"]  # a plan sizes the model's own pretraining unless pretrained or method is given)
    for dim in snap.get("sized_dimensions", ()):  # (a size from the budget: plan sizes by its strategy)
        if dim in facts and facts[dim].derived in {" and ".join(ins) for _, ins in snap["dimensions"][dim]["sized_by"]}:
            del facts[dim]

    def number(dim: str, budget: bool = False) -> Q | None:
        return _number(dim, stmt, constraints, facts, budget=budget)

    def one(dim: str) -> str | None:
        return _one(dim, stmt, constraints, facts)

    named = (facts["architecture"].values or set()) if "architecture" in facts else set()
    arch = one("architecture") if named & set(snap.get("models", {})) else None  # a family: not read
    given = number("params") if "params" in facts and facts["params"].derived != "architecture" else None
    model, params, from_model, active = _model_values(stmt, constraints, snap, arch, given, number("active-params"))
    inputs = Inputs(stmt, constraints, facts, params=params, tokens=number("tokens"),
                    flops=number("flops"), unique_tokens=number("unique-tokens"), epochs=number("epochs"),
                    gpus=_whole_q("gpus", stmt, constraints, facts, snap), mfu=number("mfu"),
                    time_budget=number("time", budget=True),
                    gpu_memory=number("gpu-memory"), hardware=one("hardware"), optimizer=one("optimizer"),
                    precision=one("precision"), peak_flops=number("peak-flops"), bandwidth=number("bandwidth"),
                    tokens_per_param=number("tokens-per-param"), method=one("method"), offload=one("offload"),
                    pretrained=one("pretrained"), model=model,
                    active_params=active, params_from_model=from_model, price=number("price"),
                    carbon_intensity=number("carbon-intensity"), inference_tokens=number("inference-tokens"),
                    longest_input=None if model else _longest_input(named, snap),
                    other_shape=outside_scope(named, shape_scope(snap), snap) if named and not model else None)
    for dim in BOUNDS:          # every count given is a whole number in its range, used or not
        if dim in facts and dim != "gpus":
            whole(dim, stmt, constraints, facts, snap)
    for dim, allowed in CHOICES.items():
        _choice(dim, allowed, stmt, constraints, facts, snap)
    if not (inputs.params or inputs.tokens or inputs.flops or inputs.backwards or inputs.gpu_memory) \
            and not (inputs.unique_tokens and inputs.epochs):
        p = stmt.pos
        keyword = Position(p.line, p.column, p.line, p.column + 4, p.start, p.start + 4)
        raise NothingToPlan.at(keyword, "nothing to plan from: give a model size, a token count, a compute budget, "
                                     "GPUs with a time and the hardware, or the memory to fit in",
                            expected=["params = 7B", "tokens = 140B", "flops = 1e21",
                                      "unique-tokens = 50B and epochs = 4",
                                      "gpus = 64 and time = 2 weeks and hardware = h100", "hardware = h100"])
    return inputs


def _model_values(stmt: Plan, constraints: dict, snap: dict, arch: str | None, params: Q | None,
                  active: Q | None) -> tuple[dict | None, Q | None, bool, Q | None]:
    """The named model configuration (None unless ``architecture`` names one), the params (the
    query's, else the configuration's), whether they are the configuration's, and the active
    params (the query's, else the configuration's); :class:`RangeError` for active params plan
    cannot use."""
    model = snap.get("models", {}).get(arch) if arch else None
    from_model = model is not None and params is None and bool(model.get("params"))
    if from_model:
        params = Q.point(model["params"])
    if active is None and model is not None and model.get("active_params"):
        active = Q.point(model["active_params"])
    if active is not None:
        c = constraints.get("active-params")
        where = c.pos if c is not None else stmt.pos
        if params is None:
            raise RangeError.at(where, "active-params needs params, the total: memory counts every parameter",
                                expected=["params = 47B and active-params = 13B", "model = mixtral-8x7b"])
        if active.high > params.low:
            raise RangeError.at(where, f"active-params ({units.num(active.high)}) cannot exceed params "
                                       f"({units.num(params.low)}): a token uses at most every parameter",
                                expected=["active-params <= params"])
    return model, params, from_model, active


def _number(dim: str, stmt: Plan, constraints: dict, facts: dict, *, budget: bool = False) -> Q | None:
    """A numeric dimension as a :class:`Q`: one value or one finite range, above zero.
    With ``budget``, an upper bound alone (``time < 1 week``) stands for that value."""
    f = facts.get(dim)
    if f is None or f.intervals is None:
        return None
    c = constraints.get(dim)
    where = c.pos if c is not None else stmt.pos
    if len(f.intervals) != 1:
        raise RangeError.at(where, f"plan needs one value or one range for '{dim}'",
                            expected=[f"{dim} = <value>", f"{dim} between <low> and <high>"])
    low, _, high, _ = f.intervals[0]
    if budget and not math.isfinite(low) and math.isfinite(high):
        low = high
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RangeError.at(where, f"plan needs a value for '{dim}', not only a bound",
                            expected=[f"{dim} = <value>", f"{dim} between <low> and <high>"])
    if low <= 0:
        shown = c.values[0].text if c is not None else units.num(low)
        raise RangeError.at(c.values[0].pos if c is not None else where,
                            f"'{dim}' must be greater than 0 to plan, not {shown}", expected=[f"{dim} > 0"])
    if low < SCALE[0] or high > SCALE[1]:
        c_pos = c.pos if c is not None else where
        raise RangeError.at(c_pos, f"'{dim}' is beyond the magnitudes plan computes with "
                                   f"({units.num(SCALE[0])} to {units.num(SCALE[1])} in base units)",
                            expected=[f"{dim} between {units.num(SCALE[0])} and {units.num(SCALE[1])}"])
    return Q.point(low) if low == high else Q.span(low, high)


#: The whole numbers plan reads (counts of physical things and layout degrees): the range each
#: must lie in (the error gives the dimension's example, ``skos:example`` in the ontology); the
#: product-safety limit of recipekg.limits, which validate applies to the KB's model figures too.
BOUNDS = WHOLE_NUMBERS


def whole(dim: str, stmt: Plan, constraints: dict, facts: dict, snap: dict | None = None) -> int | None:
    """The one whole number the query gives ``dim`` (None when not given); RangeError at the
    constraint for a range or a bound, at the value for a fraction or a number out of range.

    >>> s = parse("plan where params = 7B and gpus = 2.5")[0]
    >>> whole("gpus", s, {"gpus": s.constraints[1]}, facts_of(s.constraints, snap), snap)
    Traceback (most recent call last):
    recipekg.errors.RangeError: line 1, column 35: 'gpus' counts whole things: a whole number, not 2.5
    expected: gpus = 8
    """
    f = facts.get(dim)
    if f is None or not f.intervals:
        return None
    c = constraints.get(dim)
    where = c.pos if c is not None else stmt.pos
    low, _, high, _ = f.intervals[0]
    example = [(snap["dimensions"].get(dim, {}).get("example") if snap else None) or f"{dim} = 8"]
    if len(f.intervals) != 1 or low != high or not math.isfinite(low):
        raise RangeError.at(where, f"plan needs one whole number for '{dim}', not a range or a bound", expected=example)
    at = c.values[0].pos if c is not None and c.values else where
    if problem := whole_number_problem(dim, low, units.num(low)):
        raise RangeError.at(at, problem, expected=example)
    return int(low)


#: The values plan has figures for, per precision dimension beyond ``precision`` itself.
CHOICES = {"grad-precision": ("bf16", "fp16", "fp32"), "kv-precision": ("bf16", "fp16", "fp8", "int8"),
           "master-weights": ("bf16", "fp32")}


def _choice(dim: str, allowed: tuple, stmt: Plan, constraints: dict, facts: dict, snap: dict) -> None:
    """RangeError at the value when a precision dimension names one plan has no figure for."""
    f = facts.get(dim)
    if f is None or not f.values:
        return
    names = {snap["nodes"][iri]["id"] for iri in f.values}
    if names - set(allowed):
        c = constraints[dim]
        what = {"kv-precision": "KV-cache", "master-weights": "master-weight"}.get(dim, "gradient")
        raise RangeError.at(c.values[0].pos, f"plan has no {what} figure for {dim} = {', '.join(sorted(names))}",
                            expected=[f"{dim} = {p}" for p in allowed])


def _whole_q(dim: str, stmt: Plan, constraints: dict, facts: dict, snap: dict) -> Q | None:
    n = whole(dim, stmt, constraints, facts, snap)
    return None if n is None else Q.point(float(n))


def _one(dim: str, stmt: Plan, constraints: dict, facts: dict) -> str | None:
    """The one IRI a categorical dimension is set to (None when not set)."""
    f = facts.get(dim)
    if f is None or not f.values:
        return None
    if len(f.values) > 1:
        c = constraints.get(dim)
        raise RangeError.at(c.pos if c else stmt.pos, f"plan takes one {dim}, not several",
                            expected=[f"{dim} = <one {dim}>"])
    return next(iter(f.values))


def point_facts(name: str, kind: str, q: Q) -> Facts:
    """A value of the plan as the facts of a dimension, for the KB's rules and conditions."""
    return Facts(name, kind, intervals=[(q.low, True, q.high, True)], derived="plan")


def facts_q(f: Facts) -> Q:
    """The first interval of numeric facts as a :class:`Q`."""
    low, _, high, _ = f.intervals[0]
    return Q.span(low, high) if low != high else Q.point(low)
