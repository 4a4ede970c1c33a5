"""What the configuration writers share: reading a recipe answer's values, and the
exception for a recipe with nothing to configure.

    >>> answer = {"sections": [{"name": "stability", "items": [{"hyperparameter": "gradient-clip-norm", "value": 1.0}]}]}
    >>> setting(answer, "gradient-clip-norm"), setting(answer, "learning-rate")
    (1.0, None)
"""

from __future__ import annotations


#: The one registry of what each format calls the KB's named values: format → hyperparameter
#: (or ``family``, the recipe context's) → the value's notation in the KB → the trainer's own
#: name (transformers' ``OptimizerNames`` and ``SchedulerType``, PEFT's module and task names,
#: DeepSpeed's scheduler types). A value a format has no name for stays out of its
#: configuration: the library's default, said in the notes.
NAMES = {
    "deepspeed": {
        "lr-schedule": {"cosine": "WarmupCosineLR", "linear": "WarmupDecayLR", "constant": "WarmupLR"},
        "precision": {"bf16-training": "bf16", "bf16": "bf16", "fp16-mixed-precision": "fp16", "fp16": "fp16",
                      "fp8-training": "bf16", "fp8": "bf16"},
    },
    "hf-peft": {
        "lr-schedule": {"cosine": "cosine", "linear": "linear", "constant": "constant_with_warmup"},
        "optimizer-variant": {"paged-adamw-32bit": "paged_adamw_32bit"},
        "lora-targets": {"all-linear": "all-linear", "query-value": ["q_proj", "v_proj"],
                         "attention": ["q_proj", "k_proj", "v_proj", "o_proj"]},
        "family": {"decoder": "CAUSAL_LM", "encoder-decoder": "SEQ_2_SEQ_LM"},
    },
}


def named(fmt: str, name: str, value):
    """What format ``fmt`` calls ``value`` of ``name`` (:data:`NAMES`); None when it has no name for it.

    >>> named("hf-peft", "optimizer-variant", "paged-adamw-32bit"), named("deepspeed", "lr-schedule", "step")
    ('paged_adamw_32bit', None)
    """
    return NAMES[fmt].get(name, {}).get(value) if isinstance(value, str) else None


class Nothing(Exception):
    """The recipe has nothing to configure this trainer with (the message says why)."""


#: The key of the list a writer's reads of extension items are kept in, on the copy of the
#: answer :func:`recipekg.recipe.emit.configs` hands it (hostile round 7, H: a configuration
#: took an extension's values, or lost a bundled one it ruled out, naming it nowhere).
READ = "_extension_reads"


def _read(answer: dict, it: dict) -> None:
    """Keep ``it`` among the writer's reads when an extension gave it or ruled it out."""
    reads = answer.get(READ)
    if reads is not None and it.get("origin") and it not in reads:
        reads.append(it)


def setting(answer: dict, name: str):
    """The value of hyperparameter ``name`` in the recipe (None when unsourced or absent)."""
    for section in answer["sections"]:
        for it in section["items"]:
            if it.get("hyperparameter") == name and not it.get("unsourced"):
                _read(answer, it)
                return it["value"]
    return None


def given(answer: dict, dim: str):
    """The value the query gave plan's ``dim`` (None when not given or not planned).

    >>> given({"plan": {"constraints": [{"dimension": "optimizer-step", "op": "=", "value": "in-backward"}]}}, "optimizer-step")
    'in-backward'
    """
    plan = answer.get("plan") or {}
    return next((c["value"] for c in plan.get("constraints", ()) if c["dimension"] == dim and c["op"] == "="), None)


def unset_notes(answer: dict, fmt: str) -> list[str]:
    """What the query asked of the training loop that this format's configuration does not set."""
    notes = []
    if given(answer, "master-weights") == "bf16":
        notes.append(f"master-weights = bf16 (pure bf16, no fp32 master copy) is not set by the {fmt} configuration: "
                     "load and train the weights in bf16 in the training script")
    if given(answer, "optimizer-step") == "in-backward":
        notes.append(f"optimizer-step = in-backward (the optimizer step fused into the backward pass) is not set by the "
                     f"{fmt} configuration: the training script registers it (PyTorch's post-accumulate-grad hooks)")
    return notes


def section_values(answer: dict, name: str) -> list:
    """The values of a section's items (the ids of the choices it lists)."""
    section = next(s for s in answer["sections"] if s["name"] == name)
    for it in section["items"]:
        _read(answer, it)
    return [it["value"] for it in section["items"] if not it.get("unsourced")]


def precision_notes(answer: dict, fmt: str, written: str | None, label: str) -> list[str]:
    """The recipe's precision items the configuration does not set as themselves (QA round 10,
    C04: FP8 training, the recipe's first precision, became DeepSpeed's bf16 unsaid): each item
    ahead of the one written, and the one written when the format calls it another precision.

    >>> answer = {"sections": [{"name": "precision", "items": [{"what": "FP8 training", "value": "fp8-training"},
    ...                                                         {"what": "bf16 training", "value": "bf16-training"}]}]}
    >>> precision_notes(answer, "deepspeed", "bf16", "DeepSpeed")
    ["FP8 training, the recipe's precision, is not set by the DeepSpeed configuration, which has no key for it: it trains in bf16 (FP8 runs through the model's own code, NVIDIA Transformer Engine's layers)"]
    """
    section = next((s for s in answer["sections"] if s["name"] == "precision"), None)
    out = []
    for it in section["items"] if section else ():
        if it.get("unsourced") or not isinstance(it.get("value"), str):
            continue
        if it["value"] in (written, f"{written}-training", f"{written}-mixed-precision"):
            break
        name = named(fmt, "precision", it["value"])
        how = (" (FP8 runs through the model's own code, NVIDIA Transformer Engine's layers)"
               if it["value"].startswith("fp8") else "")
        out.append(f"{it['what']}, the recipe's precision, is not set by the {label} configuration, which has no key "
                   f"for it: it trains in {written or 'fp32'}{how}")
        if name is not None and name == written:
            break   # (written as another precision: what follows is not read)
    return out


def extension_notes(reads: list[dict]) -> list[str]:
    """A note for each item an extension gave a configuration, or ruled out of it.

    >>> extension_notes([{"what": "max norm", "text": "1000", "value": 1000.0, "origin": {"file": "t.ttl", "line": 3}},
    ...                  {"what": "bf16 training", "text": "ruled out", "value": None, "origin": {"file": "t.ttl", "line": 9}}])
    ["max norm 1000, read for this configuration: the extension t.ttl's (line 3), not the KB's", 'bf16 training: ruled out by the extension t.ttl (line 9), not by the KB: the configuration leaves it out']
    """
    out = []
    for it in reads:
        where = f"the extension {it['origin']['file']}"
        line = it["origin"].get("line")
        if it.get("value") is None:
            out.append(f"{it['what']}: ruled out by {where} (line {line}), not by the KB: the configuration leaves it out")
        else:
            out.append(f"{it['what']} {it['text']}, read for this configuration: {where}'s (line {line}), not the KB's")
    return out
