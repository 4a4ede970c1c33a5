"""Configurations a trainer reads, written from a recipe answer: one writer per format.

Each writer takes the recipe answer and returns ``(config, notes)``: the configuration as
plain JSON data (only values the recipe holds, each from a sourced item or plan's layout)
and what it left out or assumed; or raises :class:`Nothing` when the recipe has nothing to
configure that trainer with (a tree ensemble has no DeepSpeed run). The formats:

- ``deepspeed``: a DeepSpeed JSON configuration (ZeRO stage and offload, bf16/fp16,
  gradient clipping, micro-batch and accumulation, AdamW and its warmup-cosine schedule);
  checked in the tests with DeepSpeed's own ``DeepSpeedConfig``;
- ``hf-peft``: a Hugging Face ``TrainingArguments`` with the PEFT ``LoraConfig`` (and the
  ``BitsAndBytesConfig`` of QLoRA) for a LoRA or QLoRA recipe; checked in the tests by
  constructing the three classes.

    >>> from recipekg.recipe.assemble import recipe
    >>> a = recipe(parse("recipe where data = tabular and rows = 30k")[0], snap)
    >>> a["configs"], a["no_configs"]["deepspeed"]
    ({}, 'gradient-boosted-trees is not trained by gradient descent')
"""

from __future__ import annotations

from recipekg.errors import UsageError
from recipekg.recipe.emit.common import Nothing


def _writers() -> dict:
    from recipekg.recipe.emit import deepspeed, hf

    return {"deepspeed": deepspeed.write, "hf-peft": hf.write}


#: The formats ``--emit`` takes, in the order answers list them.
FORMATS = ("deepspeed", "hf-peft")


def configs(answer: dict) -> tuple[dict, dict]:
    """Every configuration the recipe can be written as (format → ``{"config", "notes"}``), and
    why it cannot be written as each other format (format → the reason)."""
    out, why_not = {}, {}
    for name, write in _writers().items():
        try:
            config, notes = write(answer)
        except Nothing as exc:
            why_not[name] = str(exc)
            continue
        out[name] = {"config": config, "notes": notes}
    return out, why_not


def emitted(answer: dict, fmt: str) -> dict:
    """The configuration of format ``fmt`` for ``answer``, or a UsageError saying why there is none."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown configuration format '{fmt}'", expected=["one of " + ", ".join(FORMATS)])
    if answer.get("statement") != "recipe":
        raise UsageError(f"--emit writes the configuration of a recipe, not of a {answer.get('statement')} answer")
    try:
        return _writers()[fmt](answer)[0]
    except Nothing as exc:
        raise UsageError(f"nothing to emit as {fmt}: {exc}") from None
