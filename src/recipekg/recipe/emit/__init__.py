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
from recipekg.knowledge.terms import RKG
from recipekg.recipe.emit.common import READ, Nothing, extension_notes


def _writers() -> dict:
    from recipekg.recipe.emit import deepspeed, hf

    return {"deepspeed": deepspeed.write, "hf-peft": hf.write}


#: The formats ``--emit`` takes, in the order answers list them.
FORMATS = ("deepspeed", "hf-peft")


def configs(answer: dict, refused: dict | None = None) -> tuple[dict, dict]:
    """Every configuration the recipe can be written as (format → ``{"config", "notes"}``), and
    why it cannot be written as each other format (format → the reason); ``refused``: the
    formats known not to apply already (:func:`off_device`), with their reasons."""
    out, why_not = {}, dict(refused or {})
    for name, write in _writers().items():
        if name in why_not:
            continue
        seen = {**answer, "no_configs": why_not, READ: []}  # (a writer may point to another format, if that one applies)
        try:
            config, notes = write(seen)
        except Nothing as exc:
            why_not[name] = str(exc)
            continue
        out[name] = {"config": config, "notes": notes + extension_notes(seen[READ])}
        if seen[READ]:   # (what extensions contributed to it, or took out of it)
            out[name]["origins"] = [it["origin"] for it in seen[READ]]
    return out, why_not


def off_device(hardware: set[str] | None, snap: dict) -> dict[str, str]:
    """The formats whose trainer does not run on the device the hardware is addressed as (the
    KB's ``rkg:runsOnDevice`` and ``rkg:deviceType``), each with why: a DeepSpeed configuration
    is not a recipe for a TPU. A trainer or a hardware that states no device is not checked, nor
    a trainer no format of :data:`FORMATS` writes for, nor an extension's trainer: the formats are
    the bundled code's, and an extension does not take a configuration away (hostile round 9, 004).

    >>> tpu = {"https://w3id.org/recipekg/id/tpu-v5p"}
    >>> print(off_device(tpu, snap)["deepspeed"])  # doctest: +NORMALIZE_WHITESPACE
    DeepSpeed runs on CUDA device (torch.cuda) [deepspeed-accelerators], not on Google Cloud TPU v5p
    (per chip), an XLA device (PyTorch/XLA, JAX) [pytorch-xla-docs]
    >>> off_device({"https://w3id.org/recipekg/id/h100"}, snap), off_device(None, snap)
    ({}, {})
    """
    out: dict[str, str] = {}
    nodes = snap["nodes"]
    for hw in sorted(hardware or ()):
        devices = snap["hardware"].get(hw, {}).get(RKG.deviceType) or []
        for iri, trainer in snap["trainers"].items():
            if (trainer["id"] not in FORMATS or not devices or not trainer["devices"] or nodes.get(iri, {}).get("origin")
                    or set(devices) & set(trainer["devices"])):
                continue
            runs = " or ".join(nodes[d]["label"] for d in trainer["devices"])
            device = nodes[devices[0]]
            out.setdefault(trainer["id"], f"{nodes[iri]['label']} runs on {runs} [{', '.join(nodes[iri]['sources'])}], "
                                          f"not on {nodes[hw]['label']}, an {device['label']} "
                                          f"[{', '.join(device['sources'])}]")
    return out


def emitted(answer: dict, fmt: str) -> dict:
    """The configuration of format ``fmt`` for ``answer``, or a UsageError saying why there is none."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown configuration format '{fmt}'", expected=["one of " + ", ".join(FORMATS)])
    if answer.get("statement") != "recipe":
        raise UsageError(f"--emit writes the configuration of a recipe, not of a {answer.get('statement')} answer")
    if fmt in (answer.get("no_configs") or {}):
        raise UsageError(f"nothing to emit as {fmt}: {answer['no_configs'][fmt]}")
    try:
        return _writers()[fmt](answer)[0]
    except Nothing as exc:
        raise UsageError(f"nothing to emit as {fmt}: {exc}") from None
