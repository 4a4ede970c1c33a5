"""The attention's own FLOPs, which 6 · N · D leaves out and MFU counts (PaLM's 6N + 12LHQT per
token, ``formula:training-attention-flops``): a training run's time is its model FLOPs, the
training FLOPs and these, at the MFU; the published runs' MFUs are implied on the same count,
from the shape and sequence length each trained with (``kb/runs.ttl``).

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.sizing import choose_strategy, size
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where model = llama-2-7b and tokens = 2T and seq-length = 32768")[0], snap)
    >>> sizes = size(ledger, inputs, choose_strategy(ledger.kb, inputs.facts))
    >>> q = attention_flops(ledger, inputs, sizes)
    >>> show(q, "FLOPs"), round(q.value / sizes.flops.value, 2)   # 2 · 32 · 32,768 · 4,096 / 6.74B
    ('1.03e23 FLOPs', 1.27)

The shape is the plan's (the layout search's), else the one the layout search would take (the
query's, a named configuration's, or the rule of thumb's, with the sequence length given,
the architecture's longest input or GPT-3's context), recorded with its sources so the answer
shows what the time rests on.
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.plan.figures import show
from recipekg.plan.ledger import Ledger

#: At most this many rounds of :func:`budget_split`, which stops once the FLOPs move by less
#: than :data:`SETTLED` of themselves (the layers and width, whole numbers, stop changing first).
ROUNDS = 12
SETTLED = 1e-9

#: The parts of the shape the attention FLOPs read, as the ledger names them.
SHAPE_NAMES = ("layers", "hidden", "seq_length")


def attention_flops(ledger: Ledger, inputs, sizes, record: bool = True) -> Q:
    """The run's attention FLOPs (recorded as ``attention_flops`` unless ``record`` is false),
    from its shape and tokens."""
    shape = ledger.shape or _shape(ledger, inputs, sizes.params)
    from recipekg.plan.methods import attention_window

    f = ledger.kb.by_id("training-attention-flops")
    q, env = ledger.compute(f, {"layers": shape.layers, "attention_width": shape.hidden,
                                "seq_length": shape.seq_length, "attention_window": attention_window(ledger, shape),
                                "tokens": sizes.tokens})
    if record:
        share = q.value / sizes.flops.value if sizes.flops and sizes.flops.value else None
        ledger.add("attention_flops", q, formula=f, env=env,
                   derivation=(f"{f.data['label']}: {f.data['expression']} with layers = {show(shape.layers)}, "
                               f"attention width = hidden = {show(shape.hidden)} (heads × head size), "
                               f"seq_length = {show(shape.seq_length)}"
                               + (f", attention_window = {show(shape.window)}" if shape.window is not None else "")
                               + f" and tokens = {show(sizes.tokens, 'tokens')}: {show(q, 'FLOPs')}"
                               + (f", {share:.0%} of the training FLOPs {show(sizes.flops, 'FLOPs')}"
                                  if share is not None else "")))
    return q


def _shape(ledger: Ledger, inputs, params: Q):
    """The shape the layout search would take, found on a scratch ledger; its layers, hidden
    size and sequence length recorded in the plan's with their derivations and sources."""
    from recipekg.plan.shape import model_shape

    scratch = Ledger(ledger.kb, ledger.where)
    scratch.method = ledger.method
    shape = model_shape(scratch, inputs, params)
    for name in SHAPE_NAMES:
        entry = scratch.entry(name)
        if entry is not None and ledger.entry(name) is None:
            ledger.quantities.append(entry)
            ledger.values[name] = scratch.values[name]
    ledger.shape = shape
    return shape


def run_attention_flops(ledger: Ledger, run: dict) -> Q:
    """A published run's attention FLOPs from its layers, attention width and the sequence
    length it trained at (0 when the KB has not all three: its MFU is then 6 · N · D's)."""
    if not all(run.get(k) for k in ("layers", "attention_width", "seq_length", "tokens")):
        return Q.point(0.0)
    seq = Q.point(run["seq_length"])
    return ledger.compute(ledger.kb.by_id("training-attention-flops"),
                          {"layers": Q.point(run["layers"]), "attention_width": Q.point(run["attention_width"]),
                           "seq_length": seq, "attention_window": seq, "tokens": Q.point(run["tokens"])})[0]


def budget_split(ledger: Ledger, inputs, strategy, total: Q) -> tuple[Q, float]:
    """The training FLOPs of a budget of ``total`` model FLOPs (planning backwards), and the
    attention's share of the model FLOPs at its point: the budget sized as training FLOPs alone
    (on a scratch ledger), the attention's share at that size taken off at each end of the
    range, until the size settles (the share, 2·layers·s·width/params of the training FLOPs,
    moves little as the model grows: a few rounds)."""
    from recipekg.plan.sizing import size

    flops, share = total, (0.0, 0.0, 0.0)
    for _ in range(ROUNDS):
        scratch = Ledger(ledger.kb, ledger.where)
        scratch.method = ledger.method
        sizes = size(scratch, inputs, strategy, flops)
        attention = attention_flops(scratch, inputs, sizes, record=False)
        share = tuple(a / (f + a) for a, f in zip(_ends(attention), _ends(sizes.flops)))
        before, flops = flops, Q(*(t * (1.0 - x) for t, x in zip(_ends(total), share)))
        if abs(flops.value - before.value) <= SETTLED * flops.value:
            break
    return flops, share[0]


def _ends(q: Q) -> tuple[float, float, float]:
    return q.value, q.low, q.high
