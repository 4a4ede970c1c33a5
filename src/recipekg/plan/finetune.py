"""A fine-tuning plan (``method = full-fine-tune``, ``lora``, ``qlora``) times the tokens of
the fine-tuning run it is given; without them it asks for them, and its tokens, FLOPs,
GPU-hours and wall time are missing with that reason instead of sizing a pretraining run::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where model = llama-2-7b and method = lora and hardware = a100")[0], snap)
    >>> needs_tokens("lora", inputs)
    True
    >>> sizes = unsized(ledger, inputs)
    >>> [(q["name"], q["value"]) for q in ledger.quantities]
    [('params', 6738415616.0), ('tokens', None), ('flops', None), ('tokens_per_param', None)]
    >>> ask_tokens("lora")["dimension"]
    'tokens'
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs, facts_q
from recipekg.plan.ledger import Ledger
from recipekg.plan.sizing import Sizes, record_given
from recipekg.plan.timing import Timing

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import Ask

FINE_TUNES = ("full-fine-tune", "lora", "qlora")
WHY = "no fine-tuning tokens given: give tokens = 1B (the tokens the fine-tuning run reads) to time it"


def needs_tokens(method: str, inputs: Inputs) -> bool:
    """A fine-tuning plan with nothing to size its run from (tokens, FLOPs, or data × epochs)."""
    return (method in FINE_TUNES and inputs.tokens is None and inputs.flops is None
            and not (inputs.unique_tokens is not None and inputs.epochs is not None))


def from_examples(ledger: Ledger, inputs: Inputs) -> Inputs:
    """A fine-tune that gives its examples and sequence length (one value or one finite range
    each) and no tokens: at most samples × seq-length unique tokens an epoch (the KB's
    ``unique-tokens-from-examples``), over the epochs given or one, so that the run is timed at
    that bound; ``inputs`` as they are otherwise (the tokens are asked for).

        >>> from recipekg.plan.inputs import read_inputs
        >>> from recipekg.plan.kbview import KBView
        >>> ledger = Ledger(KBView(snap))
        >>> inputs = read_inputs(parse("plan where model = mistral-7b and method = qlora and examples = 20k "
        ...                            "and seq-length = 4k")[0], snap)
        >>> bound = from_examples(ledger, inputs)
        >>> bound.unique_tokens.value, bound.epochs.value, needs_tokens("qlora", bound)
        (80000000.0, 1.0, False)
    """
    samples, seq = _one_range(inputs, "samples"), _one_range(inputs, "seq-length")
    f = ledger.kb.find("unique_tokens", "samples", "seq_length")
    if f is None or samples is None or seq is None:
        return inputs
    unique, env = ledger.compute(f, {"samples": samples, "seq_length": seq})
    ledger.add("unique_tokens", unique, formula=f, env=env, label="the examples' tokens an epoch, at most")
    epochs = inputs.epochs or Q.point(1)
    ledger.note(f"no tokens given: the {show(samples)} examples of at most {show(seq, 'tokens')} read at most "
                f"{show(unique, 'tokens')} an epoch, and the plan is timed at that bound over "
                + (f"the {show(epochs)} epochs given" if inputs.epochs else "one epoch (give epochs = 3 for more)")
                + "; shorter examples packed together read fewer (give tokens = ... for the count)", f.data)
    return inputs.with_data(unique, epochs)


def _one_range(inputs: Inputs, dim: str) -> Q | None:
    """A positive number or one finite range the query gives ``dim``, else None (a bound alone
    bounds nothing here)."""
    f = inputs.facts.get(dim)
    if f is None or f.derived or not f.intervals or len(f.intervals) != 1:
        return None
    q = facts_q(f)
    return q if 0 < q.low <= q.high < float("inf") else None


def unsized(ledger: Ledger, inputs: Inputs, missing: bool = True) -> Sizes:
    """The model's size only: tokens, FLOPs and their ratio recorded as missing (``missing``;
    a serving plan has none to miss)."""
    record_given(ledger, inputs, None, False, ledger.kb.formula("epochs", "tokens", "unique_tokens"))
    for name in ("tokens", "flops", "tokens_per_param") if missing else ():
        ledger.add(name, None, label=name, derivation=WHY, missing=WHY)
    return Sizes(inputs.params, None, None, False, None)


#: The dimensions that size, time or price a training run: a serving plan reads none of them.
TRAINING_DIMENSIONS = ("tokens", "flops", "tokens-per-param", "unique-tokens", "epochs", "inference-tokens", "mfu",
                       "time", "price", "carbon-intensity")


def serving_unused(ledger: Ledger, inputs: Inputs) -> None:
    """Say which of the training run's dimensions a serving plan (method = inference) leaves unused."""
    given = [d for d in TRAINING_DIMENSIONS if d in inputs.constraints]
    if given:
        ledger.note(f"not used by a serving plan (method = inference): {', '.join(given)}, which size, time or "
                    f"price a training run; method = pretrain (or a fine-tune) plans one", warn=True)


def method_flops(ledger: Ledger, inputs: Inputs, sizes: Sizes, method: str) -> Sizes:
    """The training FLOPs by the KB's formula for the plan's method (``rkg:forMethod``: with a
    frozen base, LoRA and QLoRA, about 4 per base parameter and token, not 6), once the
    layout has counted the adapters; ``sizes`` as they were when the KB has none for the
    method, or the FLOPs were given or planned backwards.

        >>> from recipekg.plan.inputs import read_inputs
        >>> from recipekg.plan.kbview import KBView
        >>> ledger = Ledger(KBView(snap))
        >>> ledger.method = "lora"
        >>> inputs = read_inputs(parse("plan where params = 7B and tokens = 100M and method = lora")[0], snap)
        >>> ledger.values["adapter_params"] = Q.point(4e6)
        >>> sizes = Sizes(inputs.params, inputs.tokens, Q.point(4.2e18), False, None)
        >>> method_flops(ledger, inputs, sizes, "lora").flops.value
        2.8024e+18
    """
    f = ledger.kb.for_method("flops", method)
    if f is None or sizes.flops is None or sizes.tokens is None or inputs.flops is not None or inputs.backwards:
        return sizes
    if inputs.active_params is not None:
        ledger.note(f"a mixture of experts with method = {method}: the FLOPs count every active parameter's "
                    f"weight gradients (6 per active parameter), as the KB has no frozen-base count for experts",
                    f.data, warn=True)
        return sizes
    adapters = ledger.values.get("adapter_params")
    if adapters is None:
        adapters = Q.point(0)
        ledger.note("the adapters could not be counted (no layout was checked): the FLOPs leave out their share "
                    "(6 per adapter parameter and token)", f.data)
    flops, env = ledger.compute(f, {"params": sizes.params, "tokens": sizes.tokens, "adapter_params": adapters})
    ledger.quantities[:] = [q for q in ledger.quantities if q["name"] != "flops"]
    ledger.add("flops", flops, formula=f, env=env)
    ledger.note(f"method = {method}: the frozen base needs no weight gradients, so the FLOPs are the forward pass "
                f"and the backward pass through the activations, about 4 per parameter and token, not the 6 of "
                f"training every weight; the KB's derivation from the mechanism its sources state (no source "
                f"writes the formula)", f.data)
    return Sizes(sizes.params, sizes.tokens, flops, sizes.from_data, sizes.table_row, sizes.implied)


def untimed(ledger: Ledger, hardware: str | None) -> Timing:
    """GPU-hours and wall time recorded as missing, for the same reason."""
    for name in ("gpu_hours", "wall_time"):
        ledger.add(name, None, label=name, derivation=WHY, missing=WHY)
    return Timing(hardware)


def ask_tokens(method: str, outside: str | None = None, examples: bool = False) -> Ask:
    """The question the answer asks (the shape of recommend's ``ask``); ``outside``: why plan
    has no ratio to size the tokens by (the sizing laws are not for the query's data);
    ``examples``: the query gives the examples of a fine-tune, whose sequence length would bound
    the tokens (:func:`from_examples`)."""
    why = outside or "plan does not time a pretraining run for a fine-tuning question"
    bound = (", or the sequence length (seq-length = 2k: the examples given read at most examples × seq-length "
             "tokens an epoch)" if examples and method in FINE_TUNES else "")
    return {"dimension": "tokens", "would_change": ["tokens", "flops", "gpu_hours", "wall_time", "energy", "cost"],
            "text": f"to time the {method} run, give the tokens it reads (tokens = 1B: examples × tokens per example "
                    f"× epochs){bound}; {why}"}


def outside_laws(outside: list[dict], facts: dict, snap: dict) -> str:
    """Why plan has no sizing law for the query: the data the properties ruling out every sizing
    strategy say they were fitted on, against the query's."""
    fitted = sorted({v for c in outside for v in (c["property"].get("value") or ())})
    dim = outside[0]["dimension"]
    given = facts.get(dim)
    theirs = " or ".join(sorted(snap["nodes"].get(v, {}).get("label", v) for v in (given.values or ()))) \
        if given else ""
    theirs = theirs or "the query's"
    laws = "plan's sizing laws (compute-optimal and inference-optimal tokens per parameter)"
    tests = {p["id"]: p["test"] for p in snap["choice_properties"].values()}
    if all(tests.get(c["property"]["id"]) == "none-of" for c in outside):
        # (a task they are not for, a classifier: what they do not do, not what they were fitted on)
        return f"{laws} are not for {dim} = {theirs}: {outside[0]['property']['label']}"
    return f"{laws} were fitted on {' or '.join(fitted)} {dim}, not on {theirs}"
