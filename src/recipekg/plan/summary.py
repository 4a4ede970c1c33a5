"""The few lines at the top of a plan answer, in the order the user's questions come: size,
repeated data, memory, fit and what to do about it, hardware rules, time, tier.

    >>> (answer,) = kb.query("plan where params = 7B and hardware = h100 and gpus = 8")
    >>> for line in answer["summary"]:
    ...     print(line)
    7B parameters → 140B tokens (20 tokens/param, Chinchilla-optimal training), 5.88e21 FLOPs of training compute
    hyperparameters: peak learning rate 0.000593, batch 3.86M tokens (DeepSeek LLM's laws against the compute)
    training memory: 126–140 GB in all by the reference's rule of thumb; model states 112 GB (ZeRO's count)
    on 8 GPUs of NVIDIA H100 SXM (80 GB each): fits with ZeRO stage 1 over 8 data-parallel GPUs, no recomputation: 71 GB of the 80 GB per GPU
    time: 3,840–6,030 GPU-hours on h100 at MFU 0.27–0.43 → 20–31.4 days on 8 GPUs
    compute tier: Cluster (32+ GPUs), weeks (nearest)
"""

from __future__ import annotations

from recipekg.plan.expr import Q
from recipekg.plan.beyond import beyond_lines
from recipekg.plan.figures import show
from recipekg.plan.fit import Fit
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger
from recipekg.plan.sizing import Strategy
from recipekg.plan.timing import Timing
from recipekg.plan.record import Record


class Findings(Record):
    """What the steps after sizing found, for the summary."""

    strategy: Strategy
    fit: Fit | None
    recommendations: list[dict]
    feasibility: list[dict]
    timing: Timing
    tier: dict | None
    method: str = "pretrain"


def summary(ledger: Ledger, inputs: Inputs, found: Findings) -> list[str]:
    """A few lines that answer the user's questions, from the ledger's quantities."""
    kb, v = ledger.kb, ledger.values
    back = found.timing.backwards
    lines = [f"{show(v['params'], 'parameters', ledger.given('params'))}{_which_model(inputs, v)} → "
             f"{show(v['tokens'], 'tokens', ledger.given('tokens'))} "
             f"({show(v['tokens_per_param'], 'tokens/param')}, {found.strategy.json['label']}), "
             f"{show(v['flops'], 'FLOPs')} of training compute"
             + (f" from {show(inputs.gpus, 'GPUs')} × {show(inputs.time_budget, 'hours')}, planned backwards"
                if back else "")
             + (f" (from the {show(v['active_params'], 'active parameters', True)})" if "active_params" in v else "")]
    if found.method == "inference":  # serving: the training figures stay in the quantities, not here
        lines = [f"{show(v['params'], 'parameters', ledger.given('params'))}{_which_model(inputs, v)} served "
                 f"(method = inference; the tokens, FLOPs and GPU-hours listed below are those of "
                 f"training a model this size)"]
    if "effective_tokens" in v:
        lines.append(f"repeated data: {show(v['epochs'], 'epochs') if 'epochs' in v else ''} "
                     f"worth {show(v['effective_tokens'], 'tokens')} of fresh data by the data-constrained law "
                     f"(Muennighoff et al.); the reference's formula says "
                     f"{show(v['effective_tokens_reference'], 'tokens')}"
                     + (f", its 85% guidance {show(v['effective_tokens_guidance'], 'tokens')}"
                        if "effective_tokens_guidance" in v else ""))
    lines += beyond_lines(v)
    fit = found.fit.json if found.fit else None
    method = found.method
    if method in ("pretrain", "full-fine-tune"):
        lines.append(f"training memory: {show(v['memory'], 'bytes')} in all by the reference's rule of thumb"
                     + (f" ({kb.label(inputs.optimizer)} optimizer)" if inputs.optimizer else "")
                     + (f"; model states {show(v['model_states'], 'bytes')} (ZeRO's count"
                        + (", optimizer on the CPU" if "cpu_memory" in v else "") + ")" if "model_states" in v else ""))
    elif "model_states" in v:
        lines.append(f"method = {method}: model states {show(v['model_states'], 'bytes')}"
                     + (f" ({show(v['adapter_params'], 'parameters')} of adapters trained on the frozen base)"
                        if "adapter_params" in v else " (the weights)")
                     + (f", KV cache {show(v['kv_cache'], 'bytes')}" if "kv_cache" in v else "")
                     + (f"; decode at most {show(v['decode_tokens_per_second'], 'tokens/s')} (memory bandwidth)"
                        if "decode_tokens_per_second" in v else ""))
    if fit:
        hw = fit["hardware"]["label"] if fit.get("hardware") else "GPU"
        lines.append(f"on {show(inputs.gpus or Q.point(1), 'GPUs')} of {hw} ({show(inputs.gpu_memory, 'bytes')} "
                     f"each): {fit['text']}")
    if fit and not fit["fits"] and found.recommendations:
        lines.append(_to_make_it_fit(found.recommendations))
    if found.feasibility:
        lines.append(f"on {kb.label(inputs.hardware)}: " + "; ".join(r["label"] for r in found.feasibility))
    if found.method == "inference":
        return lines
    time = _time_line(ledger, inputs, found.timing)
    if found.method in ("full-fine-tune", "lora", "qlora") and inputs.tokens is None and inputs.flops is None:
        lines.append(time.replace("time: ", "time to pretrain a model this size (give tokens = 1B, say, for the "
                                  "fine-tuning run's own): ", 1))
        return lines
    lines.append(time)
    if found.tier:
        lines.append(f"compute tier: {found.tier['label']}" + ("" if found.tier["exact"] else " (nearest)"))
    return lines


def _which_model(inputs: Inputs, v: dict) -> str:
    """`` (Llama 2 70B)`` when the parameters are a named configuration's."""
    return f" ({inputs.model['label']})" if inputs.params_from_model else ""


def _to_make_it_fit(recs: list[dict]) -> str:
    enough = [r["label"] for r in recs if r["enough"] and r["id"] != "combined"]
    combined = next((r for r in recs if r["id"] == "combined"), None)
    return ("to make it fit: " + (", or ".join(enough) + " (each enough on its own)" if enough else
                                  "no single memory saving is enough"
                                  + (f"; all together: {combined['verdict']}" if combined else ""))
            + ("; for fine-tuning, QLoRA's 4-bit base is far smaller" if any(
                r.get("applies_to") == "fine-tuning" and r.get("base_fits") for r in recs) else ""))


def _time_line(ledger: Ledger, inputs: Inputs, t: Timing) -> str:
    if t.gpu_hours is None:
        return "time: " + ledger.entry("gpu_hours")["derivation"]
    mfu = f"{t.mfu.low:.2f}–{t.mfu.high:.2f}" if t.mfu.is_range and t.mfu.high - t.mfu.low >= 0.01 \
        else f"{t.mfu.value:.2f}"
    if t.backwards:
        peak = t.backwards["peak"]
        return (f"time: {show(inputs.gpus, 'GPUs')} × {show(t.wall, 'hours')} = {show(t.gpu_hours, 'GPU-hours')} "
                f"on {ledger.kb.node_id(t.hardware) if t.hardware else 'your GPU'}"
                f"{'' if peak in ('bf16', 'given') else ' (' + peak + ' peak)'} at MFU {mfu} → "
                f"{show(ledger.values['flops'], 'FLOPs')}")
    return (f"time: {show(t.gpu_hours, 'GPU-hours')} on {ledger.kb.node_id(t.hardware) if t.hardware else 'your GPU'} at MFU "
            f"{mfu} → {show(t.wall, 'hours')} on {show(inputs.gpus or Q.point(1), 'GPUs')}"
            + (f"; {show(t.gpus_needed, 'GPUs')} for the {show(inputs.time_budget, 'hours')} budget"
               if t.gpus_needed is not None else ""))
