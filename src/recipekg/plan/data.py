"""Data repetition: epochs over the unique data, and what the repeated tokens are worth by
Muennighoff et al.'s fitted data-constrained law, with the reference's effective-data formula and
its 85% guidance beside it (they disagree with each other and with the law, which supersedes them).

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.sizing import choose_strategy, size
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 1B and epochs = 2")[0], snap)
    >>> sizes = size(ledger, inputs, choose_strategy(ledger.kb, inputs.facts))
    >>> repetition(ledger, inputs, sizes)
    >>> [q["name"] for q in ledger.quantities][-4:]
    ['unique_tokens', 'effective_tokens', 'effective_tokens_reference', 'effective_tokens_guidance']
    >>> ledger.values["unique_tokens"].value
    10000000000.0
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs
from recipekg.plan.kbview import KBFormula
from recipekg.plan.ledger import Ledger
from recipekg.plan.quantities import PRETRAINING
from recipekg.plan.sizing import Sizes
from recipekg.render import numbers as units


def repetition(ledger: Ledger, inputs: Inputs, sizes: Sizes) -> None:
    """Record epochs or the unique tokens needed, and the effective tokens, when the query
    gives ``epochs`` or ``unique-tokens``."""
    if inputs.unique_tokens is None and inputs.epochs is None:
        return
    epochs_f = ledger.kb.formula("epochs", "tokens", "unique_tokens")
    unique, epochs = _unique_and_epochs(ledger, inputs, sizes, epochs_f)
    if epochs.high <= 1:
        ledger.note(f"{show(unique, 'tokens')} of unique data cover the {show(sizes.tokens, 'tokens')} the plan "
                    f"trains on: no token is repeated, so the effective tokens are the tokens"
                    + (" (unique-tokens exceed the tokens: the extra data is not used)" if unique.low > sizes.tokens.high
                       else ""), epochs_f.data, warn=unique.low > sizes.tokens.high)
        return
    _effective_tokens(ledger, unique, epochs, sizes.tokens)


def _unique_and_epochs(ledger: Ledger, inputs: Inputs, sizes: Sizes, epochs_f: KBFormula) -> tuple[Q, Q]:
    """The unique tokens and epochs of the plan: given, or the one not given from the other."""
    tokens = sizes.tokens
    if sizes.from_data:
        return inputs.unique_tokens, inputs.epochs
    if inputs.unique_tokens is not None:
        unique = inputs.unique_tokens
        epochs, env = ledger.compute(epochs_f, {"tokens": tokens, "unique_tokens": unique})
        ledger.add("epochs", epochs, formula=epochs_f, env=env)
        if inputs.epochs is not None and f"{inputs.epochs.value:.2g}" != f"{epochs.value:.2g}":
            ledger.note(f"with {show(unique, 'tokens')} of unique data the plan's {show(tokens, 'tokens')} "
                        f"are {show(epochs)} epochs, not the {show(inputs.epochs)} given; the plan uses "
                        f"{show(epochs)}", epochs_f.data, warn=True)
        return unique, epochs
    epochs = inputs.epochs
    unique = ledger.solve(epochs_f.parsed, "unique_tokens", {"epochs": epochs, "tokens": tokens})
    ledger.add("unique_tokens", unique, formula=epochs_f, label="unique tokens needed",
               derivation=f"{epochs_f.data['expression']}, solved for unique_tokens: "
                          f"{show(tokens, 'tokens')} / {show(epochs)} epochs = {show(unique, 'tokens')}")
    return unique, epochs


def _effective_tokens(ledger: Ledger, unique: Q, epochs: Q, tokens: Q) -> None:
    """Effective tokens by Muennighoff et al.'s fitted law, with the reference's formula and its
    85% guidance beside it as the reference's (the law supersedes both), and the paper's warnings."""
    kb = ledger.kb
    law = kb.by_id("data-constrained-effective-data")
    if ledger.method not in (None, *PRETRAINING):   # the quantities are pretraining's (plan/quantities.py)
        ledger.note(f"{show(epochs)} epochs of fine-tuning data (method = {ledger.method}): the data-constrained "
                    f"law and the reference's effective-data formula describe repeated pretraining data, so "
                    f"neither is applied here", law.data)
        return
    eff, env = ledger.compute(law, {"unique_tokens": unique, "epochs": epochs})
    ledger.add("effective_tokens", eff, formula=law, env=env,
               label="effective tokens by the data-constrained law (Muennighoff et al.)")
    reference_f = kb.by_id("effective-data")
    ref, renv = ledger.compute(reference_f, {"unique_tokens": unique, "epochs": epochs})
    ledger.add("effective_tokens_reference", ref, formula=reference_f, env=renv,
               label="effective tokens by the reference's formula")
    max_epochs = _constant(kb, "max-useful-epochs")
    within = max_epochs is None or epochs.high <= max_epochs["value"]
    guide_f = kb.find("effective_tokens", "tokens")
    if guide_f is not None:
        g, genv = ledger.compute(guide_f, {"tokens": tokens})
        ledger.add("effective_tokens_guidance", g, formula=guide_f, env=genv,
                   label="effective tokens by the reference's 85% guidance", applies=within)
    ledger.note(f"the data-constrained law (Muennighoff et al.) values the {show(tokens, 'tokens')} as "
                f"{show(eff, 'tokens')} of fresh data; the reference's own formula D × (1 − e^(−epochs)) gives "
                f"{show(ref, 'tokens')} and its 85% guidance another figure: both are the reference's, shown beside "
                f"the law that revises them", law.data, reference_f.data, *([guide_f.data] if guide_f else []))
    _epoch_warnings(ledger, epochs, max_epochs, within)


def _epoch_warnings(ledger: Ledger, epochs: Q, max_epochs: dict | None, within: bool) -> None:
    """The paper's regimes: up to ~4 epochs nearly as good as new data, worthless at ~40."""
    worthless = _constant(ledger.kb, "repetition-worthless-epochs")
    if worthless is not None and epochs.high >= worthless["value"]:
        ledger.note(f"{show(epochs)} epochs: Muennighoff et al. find repeating data worthless at about "
                    f"{units.grouped(worthless['value'])} epochs (more compute no longer lowers the loss); find more "
                    f"unique data or train a smaller model", worthless, warn=True)
    elif not within:
        beyond = [f for f in ledger.kb.snap["facts"].values()
                  if f["section"] == max_epochs["section"] and "beyond" in f["id"]]
        ledger.note(f"{show(epochs)} epochs is more than {units.grouped(max_epochs['value'])}: past about four "
                    f"epochs each repetition is worth visibly less than fresh data (the law above says how much); "
                    f"more unique data or a smaller model would do better", max_epochs, *beyond, warn=True)
    elif max_epochs is not None:
        ledger.note(f"{show(epochs)} epochs is within the ~{units.grouped(max_epochs['value'])} epochs over which "
                    f"repeated data is nearly as good as unique data", max_epochs)


def _constant(kb, constant_id: str) -> dict | None:
    return kb.constant_by_id(constant_id)
