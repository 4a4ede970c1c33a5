"""A LoRA or QLoRA recipe as Hugging Face configurations: the keyword arguments of
``transformers.TrainingArguments``, of ``peft.LoraConfig`` and, for QLoRA, of
``transformers.BitsAndBytesConfig`` (one JSON object with the three)::

    args = TrainingArguments(**cfg["training_arguments"])
    lora = LoraConfig(**cfg["lora_config"])
    bnb = BitsAndBytesConfig(**cfg["bnb_config"])          # QLoRA only

When plan's layout shards the base over several GPUs (FSDP: ZeRO stage 3 in its layout), the
training arguments turn FSDP on (``fsdp``, ``fsdp_config``) and QLoRA's 4-bit weights are stored
in a float type FSDP can shard (``bnb_4bit_quant_storage``)::

    >>> from recipekg.recipe.assemble import recipe
    >>> a = recipe(parse("recipe where model = llama-2-70b and method = qlora and hardware = a100-40gb and gpus = 2")[0], snap)
    >>> config, notes = write(a)
    >>> config["training_arguments"]["fsdp"], config["bnb_config"]["bnb_4bit_quant_storage"]
    (True, 'bfloat16')

As for DeepSpeed, only what the recipe holds goes in; the rest is the libraries' defaults and
the notes say which. The optimizer is TrainingArguments' default unless the recipe has a
sourced optimizer variant (QLoRA's paged AdamW: ``optim``), named as :data:`common.NAMES` says::

    >>> from recipekg.recipe.assemble import recipe
    >>> a = recipe(parse("recipe where model = llama-2-7b and method = qlora and hardware = rtx-4090 and gpus = 1")[0], snap)
    >>> config, notes = write(a)
    >>> config["lora_config"]["r"], config["bnb_config"]["bnb_4bit_quant_type"], config["training_arguments"]["optim"]
    (64, 'nf4', 'paged_adamw_32bit')
"""

from __future__ import annotations

import math

from recipekg.recipe.emit.common import Nothing, named, precision_notes, unset_notes, section_values, setting
from recipekg.recipe.emit.deepspeed import clip_norm, sized_micro_batch, trainable

#: QLoRA's storage of the frozen base: 4-bit NormalFloat with double quantization and bf16
#: compute (Dettmers et al. 2023, Sections 3 and 4; the KB's method-qlora).
QLORA_BNB = {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True,
             "bnb_4bit_compute_dtype": "bfloat16"}


def write(answer: dict) -> tuple[dict, list[str]]:
    ctx, layout = trainable(answer)
    if ctx["method"] not in ("lora", "qlora"):
        elsewhere = "" if "deepspeed" in (answer.get("no_configs") or {}) else ": --emit deepspeed writes its configuration"
        raise Nothing(f"method = {ctx['method']} trains every weight{elsewhere}")
    notes: list[str] = unset_notes(answer, "Hugging Face Trainer")
    layout = sized_micro_batch(answer, layout, notes)
    if "lora-embeddings-norms" in section_values(answer, "approach"):
        notes.append("LoRA with trainable embeddings and normalization layers is not set here: list the model's "
                     "embedding and normalization modules in the LoraConfig's modules_to_save (their names are the "
                     "model's own)")
        notes += _rope_note(answer)
    config = {"training_arguments": _training_arguments(answer, layout, notes),
              "lora_config": _lora(answer, ctx, notes)}
    if ctx["method"] == "qlora":
        config["bnb_config"] = dict(QLORA_BNB, bnb_4bit_compute_dtype=_compute_dtype(answer, notes))
        notes.append("bnb_config: QLoRA's 4-bit NormalFloat base with double quantization (Dettmers et al. 2023)")
    if sharded(layout):
        _fsdp(config, ctx["method"], notes, layout.get("offload") == "cpu")
    elif config["training_arguments"]["activation_checkpointing"]:   # (QA8 M3: transformers 4 has another name)
        notes.append("activation_checkpointing: transformers 5's TrainingArguments field (its help: 'Enable "
                     "activation checkpointing to trade compute for memory'); gradient_checkpointing is its "
                     "deprecated alias there, and transformers 4's only name for it")
    return config, notes


def sharded(layout: dict) -> bool:
    """Whether plan's layout shards the frozen base and the adapters (FSDP: stage 3 over
    several data-parallel GPUs, or with its shards offloaded to the CPU)."""
    return layout["zero"] == 3 and (layout["data_parallel"] > 1 or layout.get("offload") == "cpu")


def _fsdp(config: dict, method: str, notes: list[str], offload: bool = False) -> None:
    """FSDP in TrainingArguments (``fsdp`` and ``fsdp_config``, transformers' documented keys),
    with its own activation checkpointing in place of the training argument; for QLoRA the
    4-bit weights stored in the compute type, which FSDP can shard (``bnb_4bit_quant_storage``:
    bitsandbytes' FSDP-QLoRA guide); with ``offload`` FSDP's CPU offload (``cpu_offload``, the
    key transformers' TrainingArguments documents: 'Offload parameters and gradients to CPU')."""
    args = config["training_arguments"]
    checkpointing = args.pop("activation_checkpointing")
    args["fsdp"] = True
    args["fsdp_config"] = {"auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "activation_checkpointing": checkpointing}
    if offload:
        args["fsdp_config"]["cpu_offload"] = True
        notes.append("fsdp_config cpu_offload: plan's layout keeps the sharded weights, gradients and optimizer "
                     "states in CPU memory (offload = cpu; the PEFT guide's fsdp_offload_params: true)")
    notes.append("fsdp: plan's layout shards the frozen base and the adapters over the data-parallel GPUs (FSDP, "
                 "the PEFT documentation's 'Use PEFT and FSDP'); launch with accelerate or torchrun; FSDP's own "
                 "activation checkpointing (fsdp_config) replaces the training argument, as transformers advises")
    if method == "qlora":
        bnb = config["bnb_config"]
        # bf16 storage with bf16 compute; float32 with fp16 compute (the PEFT guide: fp16 mixed precision needs it)
        bnb["bnb_4bit_quant_storage"] = "bfloat16" if bnb["bnb_4bit_compute_dtype"] == "bfloat16" else "float32"
        notes.append(f"bnb_4bit_quant_storage: {bnb['bnb_4bit_quant_storage']}, a float type FSDP can shard "
                     "(bitsandbytes' FSDP-QLoRA guide); load the model with the same dtype so that every layer "
                     "is wrapped alike")


def _compute_dtype(answer: dict, notes: list[str]) -> str:
    """QLoRA's bf16 compute, or fp16 on hardware whose tensor cores run no bf16 (the derived
    ``tensor-precision`` of the recipe's constraints: a T4, a V100)."""
    tensor = next((c["value"] for c in answer.get("constraints") or () if c["dimension"] == "tensor-precision"), None)
    if isinstance(tensor, list) and "bf16" not in tensor and "fp16" in tensor:
        notes.append("bnb_4bit_compute_dtype: float16, as the hardware's tensor cores run no bf16 (its datasheet, "
                     "tensor-precision from hardware); QLoRA's own setting is bf16")
        return "float16"
    return QLORA_BNB["bnb_4bit_compute_dtype"]


def _training_arguments(answer: dict, layout: dict, notes: list[str]) -> dict:
    from recipekg.recipe.emit.deepspeed import accumulation

    args = {"per_device_train_batch_size": layout["micro_batch"],
            "gradient_accumulation_steps": accumulation(answer, layout, notes),
            "activation_checkpointing": layout["recompute"] != "none"}
    precision = section_values(answer, "precision")
    if any(v in ("bf16", "bf16-training") for v in precision):
        args["bf16"] = True
    elif any(v in ("fp16", "fp16-mixed-precision") for v in precision):
        args["fp16"] = True
    written = "bf16" if args.get("bf16") else "fp16" if args.get("fp16") else None
    notes += precision_notes(answer, "hf-peft", written, "Trainer")
    for key, name in (("learning_rate", "learning-rate"), ("weight_decay", "weight-decay"), ("adam_beta1", "beta1"),
                      ("adam_beta2", "beta2"), ("adam_epsilon", "epsilon"), ("num_train_epochs", "epochs")):
        if (v := setting(answer, name)) is not None:
            args[key] = v
        elif key in ("learning_rate", "num_train_epochs"):
            notes.append(f"no sourced {name}: TrainingArguments' default")
    if (clip := clip_norm(answer, notes)) is not None:
        args["max_grad_norm"] = clip
    if (schedule := named("hf-peft", "lr-schedule", setting(answer, "lr-schedule"))) is not None:
        args["lr_scheduler_type"] = schedule
    _optim(args, setting(answer, "optimizer-variant"), notes)
    warmup = setting(answer, "warmup-steps")
    ratio = setting(answer, "warmup-ratio")
    if warmup is not None or ratio is not None:
        args["warmup_steps"] = int(warmup) if warmup is not None else ratio
    if warmup is None and ratio is not None:  # (a share of the steps: transformers 5 reads a float below 1 so)
        notes.append(f"warmup_steps = {ratio} is a share of the training steps in transformers 5, which "
                     f"deprecated warmup_ratio (huggingface/transformers#41326); transformers 4 reads it as "
                     f"{ratio} steps: there, pass warmup_ratio = {ratio} instead")
    return args


def _optim(args: dict, variant, notes: list[str]) -> None:
    """TrainingArguments' ``optim`` for the recipe's optimizer variant, only when the KB gives
    one (QLoRA's paged AdamW); otherwise TrainingArguments' own default."""
    if variant is None:
        return
    if (optim := named("hf-peft", "optimizer-variant", variant)) is None:
        notes.append(f"optim: TrainingArguments has no name for the optimizer variant {variant}: its default")
    else:
        args["optim"] = optim


def _lora(answer: dict, ctx: dict, notes: list[str]) -> dict:
    config = {}
    for key, name in (("r", "lora-rank"), ("lora_alpha", "lora-alpha"), ("lora_dropout", "lora-dropout")):
        if (v := setting(answer, name)) is not None:
            config[key] = int(v) if key == "r" else v
        else:
            notes.append(f"no sourced {name}: PEFT's default")
    targets = setting(answer, "lora-targets")
    if (modules := named("hf-peft", "lora-targets", targets)) is not None:
        config["target_modules"] = modules
        if targets in ("query-value", "attention"):
            notes.append("target_modules: the attention's projections by their LLaMA-style module names")
    if (task := named("hf-peft", "family", _family(answer))) is not None:
        config["task_type"] = task
    return config


def _rope_note(answer: dict) -> list[str]:
    """The position scaling a context extension needs, as LongLoRA's code sets it: the model
    configuration's rope_scaling, linear, by the stretch rounded up (not a training argument)."""
    stretch = next((c["value"] for c in answer["constraints"] if c["dimension"] == "context-stretch"), None)
    value = stretch[-1] if isinstance(stretch, list) else stretch
    if not isinstance(value, (int, float)) or value <= 1:
        return []
    factor = math.ceil(value - 1e-9)
    return [f"the model's configuration, not set here: rope_scaling = {{\"type\": \"linear\", \"factor\": {factor}}} "
            f"(the sequence over the trained context rounded up, as LongLoRA's code scales the positions)"]


def _family(answer: dict) -> str | None:
    """decoder or encoder-decoder, from the recipe's architecture item's regime context."""
    return answer["context"].get("family")
