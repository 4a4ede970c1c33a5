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

from recipekg.plan.inputs import Inputs
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


def unsized(ledger: Ledger, inputs: Inputs) -> Sizes:
    """The model's size only: tokens, FLOPs and their ratio recorded as missing."""
    record_given(ledger, inputs, None, False, ledger.kb.formula("epochs", "tokens", "unique_tokens"))
    for name in ("tokens", "flops", "tokens_per_param"):
        ledger.add(name, None, label=name, derivation=WHY, missing=WHY)
    return Sizes(inputs.params, None, None, False, None)


def untimed(ledger: Ledger, hardware: str | None) -> Timing:
    """GPU-hours and wall time recorded as missing, for the same reason."""
    for name in ("gpu_hours", "wall_time"):
        ledger.add(name, None, label=name, derivation=WHY, missing=WHY)
    return Timing(hardware)


def ask_tokens(method: str) -> Ask:
    """The question the answer asks (the shape of recommend's ``ask``)."""
    return {"dimension": "tokens", "would_change": ["tokens", "flops", "gpu_hours", "wall_time", "energy", "cost"],
            "text": f"to time the {method} run, give the tokens it reads (tokens = 1B: examples × tokens per example "
                    f"× epochs); plan does not time a pretraining run for a fine-tuning question"}
