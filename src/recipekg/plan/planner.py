"""``plan [where ...]``: size a training run from the KB's formulas and constants.

    >>> a = plan(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> [q["name"] for q in a["quantities"]][:4]
    ['params', 'tokens', 'flops', 'tokens_per_param']
    >>> a["fit"]["verdict"], a["tier"]["id"]
    ('fits', 'cluster-weeks')

Every number comes from the KB: formulas are looked up by their output and the names they
read (``rkg:expression``), constants by symbol, hardware figures by property, table rows
from the ``rkg:ComputeEstimate`` facts. The only numbers in the code are unit conversions
(3600 s/h, 8 bits/byte) and the definition of a relative change (``x × (1 + change)``, the
unit of the KB's technique effects). Each quantity carries its formula (id and expression),
the papers behind the formula and its constants, the section of the reference, and a
derivation with the numbers plugged in. Ranges (the KB's low/high constants) flow through as
``low``/``high``; ``value`` is the point estimate (the midpoint where the KB gives only a
range).

The steps, in order, each a module of this package; each records its quantities and notes
in the plan's :class:`~recipekg.plan.ledger.Ledger` and returns what later steps need:

1. :mod:`~recipekg.plan.inputs`: the statement's values, checked;
2. :mod:`~recipekg.plan.sizing`: the strategy (or the ``tokens-per-param`` given);
   :mod:`~recipekg.plan.backwards`: with only GPUs, a time and a peak, the compute they give
   at the MFU; then params, tokens and FLOPs (one or two given, the rest by the strategy's
   ratio) → :class:`~recipekg.plan.sizing.Sizes`;
3. :mod:`~recipekg.plan.data`: epochs and effective tokens of repeated data;
4. :mod:`~recipekg.plan.memory`: training memory and its breakdown → ``Memory``;
5. :mod:`~recipekg.plan.fit`: fit on the GPUs, replicated and FSDP-sharded → ``Fit``;
   :mod:`~recipekg.plan.savings`: what each memory saving brings when it does not fit;
   the hardware's model-size rules;
6. :mod:`~recipekg.plan.timing`: MFU, GPU-hours, wall time, GPUs for a time budget → ``Timing``;
7. :mod:`~recipekg.plan.tier`: the compute tier and its advice;
8. :mod:`~recipekg.plan.bandwidth`: the ridge point and the bandwidth-bound verdict;
9. :mod:`~recipekg.plan.summary`: the answer's first lines.
"""

from __future__ import annotations

from recipekg.plan.backwards import plan_backwards
from recipekg.plan.bandwidth import bandwidth
from recipekg.plan.data import repetition
from recipekg.plan.fit import check_fit, feasibility
from recipekg.plan.inputs import read_inputs
from recipekg.plan.kbview import KBView
from recipekg.plan.ledger import Ledger
from recipekg.plan.memory import training_memory
from recipekg.plan.savings import recommend
from recipekg.plan.sizing import choose_strategy, follow_ratio, size
from recipekg.plan.summary import Findings, summary
from recipekg.plan.tier import compute_tier
from recipekg.plan.timing import train_time
from recipekg.query.ast import Plan
from recipekg.reason.answers import constraints_json

#: The quantity names the contract fixes; they are always present (value null if unknown).
FIXED = ("params", "tokens", "flops", "memory", "gpu_hours", "wall_time")

_FIRST = ("params", "tokens", "flops")   # the quantities listed first, in this order


def plan(stmt: Plan, snap: dict) -> dict:
    """The answer to a ``plan`` statement (the JSON the spec describes, plus more fields)."""
    kb = KBView(snap)
    inputs = read_inputs(stmt, snap)
    ledger = Ledger(kb, stmt.pos)
    strategy = choose_strategy(kb, inputs.facts, inputs.tokens_per_param)
    back = plan_backwards(ledger, inputs)
    sizes = size(ledger, inputs, strategy, back.flops if back else None)
    strategy = follow_ratio(ledger, strategy, sizes)
    repetition(ledger, inputs, sizes)
    memory = training_memory(ledger, inputs, sizes.params)
    fit = check_fit(ledger, inputs, sizes.params, memory)
    recommendations = recommend(ledger, inputs, sizes.params, memory, fit)
    rules = feasibility(kb, inputs, sizes.params)
    timing = back.timing if back else train_time(ledger, inputs, sizes)
    tier = compute_tier(ledger, inputs, sizes.params, timing)
    bw = bandwidth(ledger, inputs.hardware)
    unused = inputs.unused()
    if unused:
        ledger.note("not used by plan: " + ", ".join(unused))
    first = {n: i for i, n in enumerate(_FIRST)}
    ledger.quantities.sort(key=lambda q: first.get(q["name"], len(first)))
    found = Findings(strategy, fit, recommendations, rules, timing, tier)
    return {
        "statement": "plan", "query": stmt.text.strip(),
        "constraints": [c for c in constraints_json(inputs.facts)
                        if not (c["dimension"] == "tier" and c.get("derived_from"))],
        "summary": summary(ledger, inputs, found),
        "strategy": strategy.json, "backwards": timing.backwards,
        "hardware": kb.hardware_json(inputs.hardware),
        "quantities": ledger.quantities,
        "fit": fit.json if fit else None, "recommendations": recommendations, "feasibility": rules,
        "tier": tier, "bandwidth": bw,
        "notes": ledger.notes, "warnings": ledger.warnings,
    }
