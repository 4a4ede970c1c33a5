"""A recipe as a DeepSpeed JSON configuration (https://www.deepspeed.ai/docs/config-json/).

Only what the recipe holds goes in: plan's layout (ZeRO stage, offload, micro-batch and,
with the recipe's global batch, the accumulation steps), the precision the recipe picked,
its gradient-clipping norm, AdamW with its sourced settings and the warmup and schedule.
What the recipe does not source (a learning rate, say) is left out, so DeepSpeed takes the
optimizer the training script builds, and the notes say so; nothing is filled in with a
default of ours::

    >>> from recipekg.recipe.assemble import recipe
    >>> a = recipe(parse("recipe where architecture = llama and method = pretrain and params = 7B and hardware = h100 and gpus = 8")[0], snap)
    >>> config, notes = write(a)
    >>> config["zero_optimization"], config["bf16"], config["gradient_clipping"]
    ({'stage': 1}, {'enabled': True}, 1.0)
"""

from __future__ import annotations

import math

from recipekg.recipe.emit.common import (Nothing, given, named, precision_notes, unset_notes, section_values,
                                       setting)



def trainable(answer: dict) -> tuple[dict, dict]:
    """The recipe's context and plan's layout, or :class:`Nothing` when there is no
    gradient-descent run that fits to configure."""
    ctx = answer["context"]
    if not ctx["architecture"] and ctx["trains"]:
        raise Nothing("the architecture is not known, so neither is how the model is trained: give it "
                      "(architecture = decoder, ...)")
    if "gradient-descent" not in ctx["regimes"]:
        raise Nothing(f"{ctx['architecture'] or 'the model'} is not trained by gradient descent")
    if ctx["method"] == "inference":
        raise Nothing("an inference recipe trains nothing")
    if answer.get("plan") is None:
        raise Nothing(f"plan sized no run for {ctx['architecture'] or 'the model'} (the recipe's size section says "
                      "why), so no parallel layout to configure")
    if any(it.get("quantity") == "params" and it.get("needs") for s in answer["sections"] for it in s["items"]):
        raise Nothing("the model to fine-tune is not sized, and plan's layout is for the largest model these GPUs "
                      "hold, not for it: give it (model = ... or params = ...)")
    layout = (answer["plan"].get("fit") or {}).get("layout")
    if not layout:
        raise Nothing("plan found no parallel layout that fits (see the recipe's memory section)")
    return ctx, layout


def write(answer: dict) -> tuple[dict, list[str]]:
    ctx, layout = trainable(answer)
    if ctx["method"] in ("lora", "qlora"):
        raise Nothing(f"method = {ctx['method']} is configured for Hugging Face Trainer and PEFT (--emit hf-peft)")
    notes: list[str] = unset_notes(answer, "DeepSpeed")
    layout = sized_micro_batch(answer, layout, notes)
    config = {"train_micro_batch_size_per_gpu": layout["micro_batch"],
              "gradient_accumulation_steps": accumulation(answer, layout, notes),
              "zero_optimization": {"stage": layout["zero"]}}
    if layout["offload"] == "cpu":
        config["zero_optimization"]["offload_optimizer"] = {"device": "cpu"}
    precision = next((p for v in section_values(answer, "precision") if (p := named("deepspeed", "precision", v))), None)
    if precision:
        config[precision] = {"enabled": True}
        if precision == "fp16":
            notes.append("fp16: DeepSpeed scales the loss dynamically (its default loss_scale, 0), the loss "
                         "scaling fp16 mixed precision needs (Micikevicius et al. 2018)")
    else:
        notes.append("no precision in the recipe: DeepSpeed trains in fp32")
    notes += precision_notes(answer, "deepspeed", precision, "DeepSpeed")
    clip = clip_norm(answer, notes)
    if clip is not None:
        config["gradient_clipping"] = clip
    per_step = config["train_micro_batch_size_per_gpu"] * config["gradient_accumulation_steps"] * layout["data_parallel"]
    config["train_batch_size"] = per_step
    _model_parallel(layout, notes)
    config.update(_optimizer(answer, ctx, notes, per_step))
    return config, notes


def _model_parallel(layout: dict, notes: list[str]) -> None:
    """Say where plan's tensor and pipeline degrees go: DeepSpeed's configuration has no key for
    them (its launcher's model-parallel unit, Megatron-DeepSpeed's, sets them), and its
    ``train_batch_size`` (micro-batch × accumulation × plan's data-parallel copies) makes
    DeepSpeed refuse a launch that counts every GPU as a data-parallel copy, whose batch and
    steps would be the degrees' multiple of the recipe's.

    >>> notes = []
    >>> _model_parallel({"tensor_parallel": 2, "pipeline_parallel": 1, "data_parallel": 1024}, notes)
    >>> notes[0][:96]
    'tensor-parallel = 2: DeepSpeed takes it from the model-parallel unit of its launcher (Megatron-D'
    """
    degrees = {k: layout.get(k.replace("-", "_")) or 1 for k in ("tensor-parallel", "pipeline-parallel")}
    given = [f"{k} = {v}" for k, v in degrees.items() if v > 1]
    if not given:
        return
    flags = " and ".join(f"--{k.replace('-parallel', '-model-parallel-size')} {v}" for k, v in degrees.items() if v > 1)
    notes.append(f"{' and '.join(given)}: DeepSpeed takes {'it' if len(given) == 1 else 'them'} from the model-parallel "
                 f"unit of its launcher (Megatron-DeepSpeed: {flags}), not from this file; train_batch_size is "
                 f"micro-batch × accumulation × plan's {layout['data_parallel']:,} data-parallel copies, so DeepSpeed "
                 f"refuses a launch that counts every GPU as a copy")


def global_batch(answer: dict) -> float | None:
    """The recipe's global batch in sequences: its batch in examples, or its batch in tokens
    over plan's sequence length."""
    examples = setting(answer, "batch-size")
    if examples is not None:
        return examples
    tokens = setting(answer, "batch-tokens")
    seq = _plan_value(answer, "seq_length")
    return tokens / seq if tokens is not None and seq else None


def sized_micro_batch(answer: dict, layout: dict, notes: list[str]) -> dict:
    """Plan's layout with the micro-batch a trainer runs: where plan found room for more than
    its one sequence per GPU (``micro_batch_room``), the largest number of sequences within that
    room dividing a data-parallel copy's share of the recipe's global batch, so the batch runs
    in as few accumulation steps as memory allows (a micro-batch of one, 512 steps, for a model
    using a sixth of the GPU was the configuration before). Plan's layout unchanged without a
    sourced global batch or with a step fused into the backward pass (one step, no accumulation).

    >>> answer = {"sections": [{"items": [{"hyperparameter": "batch-size", "value": 512}]}], "plan": None}
    >>> sized_micro_batch(answer, {"micro_batch": 1, "data_parallel": 1, "micro_batch_room": 20}, [])["micro_batch"]
    16
    >>> sized_micro_batch(answer, {"micro_batch": 1, "data_parallel": 8, "micro_batch_room": 3}, [])["micro_batch"]
    2
    """
    from recipekg.plan.layout import divisors

    room, batch = layout.get("micro_batch_room"), global_batch(answer)
    if not room or batch is None or given(answer, "optimizer-step") == "in-backward":
        return layout
    share = int(batch // layout["data_parallel"])
    if share <= layout["micro_batch"]:
        return layout
    micro = divisors(share, room)[-1] if share > 0 else 1
    if micro <= layout["micro_batch"]:
        return layout
    dp = layout["data_parallel"]
    who = "the GPU takes" if dp == 1 else f"each of the {dp:,} data-parallel GPUs takes"
    notes.append(f"micro-batch {micro}: {who} {share:,} "
                 f"sequences of the global batch, {share // micro:,} micro-batch{'es' * (share // micro != 1)} of "
                 f"{micro}; plan's layout fits up to {room:,} sequences per GPU (its memory figures are for one)")
    return {**layout, "micro_batch": micro}


def accumulation(answer: dict, layout: dict, notes: list[str]) -> int:
    """Accumulation steps that make micro-batch × data-parallel GPUs × steps the global batch
    (one when the optimizer step is fused into the backward pass, which accumulates nothing)."""
    batch = global_batch(answer)
    per_step = layout["micro_batch"] * layout["data_parallel"]
    if given(answer, "optimizer-step") == "in-backward":
        if batch is not None and batch != per_step:
            notes.append(f"one accumulation step: a step fused into the backward pass (optimizer-step = in-backward) "
                         f"accumulates no gradients, so the global batch is {per_step:g} sequence{'s' * (per_step != 1)} (micro-batch × "
                         f"data-parallel GPUs), not the recipe's {batch:g}")
        return 1
    if batch is None:
        notes.append("no sourced global batch: one accumulation step (the batch is micro-batch × data-parallel GPUs)")
        return 1
    steps = max(1, round(batch / per_step))
    if steps * per_step != batch:
        notes.append(f"global batch {steps * per_step:g} sequences: the recipe's {batch:g} rounded to a whole number "
                     f"of accumulation steps of {per_step:g}")
    return steps


def clip_norm(answer: dict, notes: list[str]) -> float | None:
    """The recipe's gradient-clipping norm, unless the optimizer step is fused into the
    backward pass (clipping by the global norm needs every gradient before any step)."""
    clip = setting(answer, "gradient-clip-norm")
    if clip is not None and given(answer, "optimizer-step") == "in-backward":
        notes.append(f"no gradient clipping: clipping by the global norm ({clip:g}) needs every gradient before any "
                     "step, which a step fused into the backward pass (optimizer-step = in-backward) does not have")
        return None
    return clip


def _optimizer(answer: dict, ctx: dict, notes: list[str], per_step: int) -> dict:
    section_values(answer, "optimizer")   # (an extension's pick or setting there is said in the notes)
    if ctx["optimizer"] not in ("adamw", "adam"):
        notes.append(f"optimizer {ctx['optimizer']}: left to the training script (the config names AdamW only)")
        return {}
    lr = setting(answer, "learning-rate")
    if lr is None:
        notes.append("no sourced learning rate: the optimizer and scheduler are left to the training script")
        return {}
    params = {"lr": lr}
    b1, b2 = setting(answer, "beta1"), setting(answer, "beta2")
    if b1 is not None and b2 is not None:
        params["betas"] = [b1, b2]
    for key, name in (("eps", "epsilon"), ("weight_decay", "weight-decay")):
        if (v := setting(answer, name)) is not None:
            params[key] = v
    out = {"optimizer": {"type": "AdamW", "params": params}}
    scheduler = _scheduler(answer, lr, notes, per_step)
    if scheduler:
        out["scheduler"] = scheduler
    return out


def _scheduler(answer: dict, lr: float, notes: list[str], per_step: int) -> dict | None:
    kind, warmup, share = setting(answer, "lr-schedule"), setting(answer, "warmup-steps"), setting(answer, "warmup-ratio")
    scheduler = named("deepspeed", "lr-schedule", kind)
    if scheduler is None or warmup is None and share is None:
        notes.append("no sourced schedule with its warmup: the scheduler is left to the training script")
        return None
    steps = total_steps(answer, per_step)
    if steps is None and (kind != "constant" or warmup is None):
        notes.append("no total number of steps (tokens over the batch): the scheduler is left out")
        return None
    if warmup is None and steps is not None:   # (a share of the steps: Pythia's 1%)
        warmup = round(share * steps)
        notes.append(f"warmup_num_steps {warmup:,}: the recipe's warmup share ({share:g}) of the {steps:,} steps")
    if steps is not None and warmup >= steps:   # (QA8 M1: 2,000 warmup steps in a run of 1,303)
        notes.append(f"no scheduler: the recipe's warmup of {warmup:,.0f} steps is not shorter than the run's "
                     f"{steps:,} steps, so the learning rate would never reach its peak; set a shorter warmup")
        return None
    params = {"warmup_num_steps": int(warmup)}
    if steps is not None and kind != "constant":
        params["total_num_steps"] = steps
        notes.append(f"total_num_steps {steps:,}: plan's tokens over the configured global batch of {per_step:,} "
                     "sequences")
    if kind == "cosine":
        final = setting(answer, "final-lr-ratio")
        if final is not None:
            params["cos_min_ratio"] = final
    else:
        params["warmup_max_lr"] = lr
    notes.append("warmup shape: DeepSpeed's default (the sources give the number of warmup steps only)")
    return {"type": scheduler, "params": params}


def total_steps(answer: dict, sequences: int) -> int | None:
    """Optimizer steps of the run: plan's tokens over the global batch the configuration runs
    (``sequences`` per step of plan's sequence length), so the schedule ends where the run does
    even when the recipe's batch was rounded to whole accumulation steps (2,300.67 sequences of
    the DeepSeek law run as 2,048: 238,419 steps for 2T tokens, not the law's 217,328).

    >>> answer = {"plan": {"quantities": [{"name": "tokens", "value": 2e12}, {"name": "seq_length", "value": 4096}]}}
    >>> total_steps(answer, 2048)
    238419
    """
    tokens, seq = _plan_value(answer, "tokens"), _plan_value(answer, "seq_length")
    return math.ceil(tokens / (sequences * seq)) if tokens and seq and sequences else None


def _plan_value(answer: dict, name: str):
    plan = answer.get("plan") or {}
    return next((q["value"] for q in plan.get("quantities", ()) if q["name"] == name), None)
