"""The few lines at the top of a plan answer, the verdict and what to change first: a missed
time budget (with the GPUs that would meet it), the fit and what would make it fit, what the
answer needs to be asked; then the size, the memory, the time, the energy and cost, the tier.

    >>> (answer,) = kb.query("plan where params = 7B and hardware = h100 and gpus = 8 and time = 1 week")
    >>> for line in answer["summary"]:
    ...     print(line)
    misses the time budget: 21.6–53 days on 8 GPUs against 7 days; 25–61 GPUs would meet it (feasibility.gpus_for_time, at the same MFU)
    on 8 GPUs of NVIDIA H100 SXM (80 GB each): fits with ZeRO stage 1 over 8 data-parallel GPUs, no recomputation: 48.7–50.2 GB of the 80 GB per GPU at one sequence per GPU (up to 4 fit: micro-batch = 4)
    7B parameters → 140B tokens (20 tokens/param, Chinchilla-optimal training), 5.88e21 FLOPs of training compute
    hyperparameters: peak learning rate 0.000593, batch 3.86M tokens (DeepSeek LLM's laws against the compute); published recipes nearest in size: Llama 2 7B 0.0003 with 4M tokens
    training memory: 126–140 GB in all by the reference's rule of thumb; model states 112 GB (ZeRO's count)
    time: 4,150–10,200 GPU-hours on h100 at MFU 0.18–0.43, counting the attention's 4.8e20 FLOPs at 2,048 tokens (8% of the model FLOPs) → 21.6–53 days on 8 GPUs
    energy: 3,197–7,828 kWh (GPU power × GPU-hours × PUE)
    compute tier: 8 GPUs for 7 days: the flowchart's tier 'Multi-GPU (4-8), 1-7 days'
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.plan.beyond import beyond_lines
from recipekg.plan.figures import show
from recipekg.plan.fit import Fit
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger
from recipekg.plan.sizing import Strategy
from recipekg.plan.timing import Timing
from recipekg.plan.utilisation import FASTEST, others_words
from recipekg.record import Record


class Findings(Record):
    """What the steps after sizing found, for the summary."""

    strategy: Strategy
    fit: Fit | None
    recommendations: list[dict]
    feasibility: list[dict]
    timing: Timing
    tier: dict | None
    method: str = "pretrain"
    ask_text: str = ""                  # the tokens asked for, and why (a fine-tune's, a run no law sizes)


def summary(ledger: Ledger, inputs: Inputs, found: Findings) -> list[str]:
    """A few lines that answer the user's questions, the verdict and what to change first."""
    return _verdict(ledger, inputs, found) + _other_shape(inputs) + _details(ledger, inputs, found) + _unused(inputs)


def _other_shape(inputs: Inputs) -> list[str]:
    """Under the verdict: an architecture the shape's rule of thumb is not for (a ResNet) has
    its memory counted with a transformer's activations, which the warnings say in full."""
    return [f"the activations and micro-batch above come from a shape architecture = {inputs.other_shape} "
            "does not have (see the warnings): only its model states (weights, gradients, optimizer) "
            "are its own"] if inputs.other_shape else []


def _unused(inputs: Inputs) -> list[str]:
    """The constraints plan does not read, said where the answer starts (every constraint
    counts: one that changes nothing is named, not dropped silently; the note says it too).

    >>> (answer,) = kb.query("plan where params = 7B and gpus = 8 and batch-size = 1024 and symptom = loss-spike")
    >>> answer["summary"][-1]
    'not used by plan: batch-size, symptom (no figure of a plan is computed from them; recommend and recipe read them)'
    """
    unused = inputs.unused()
    return [f"not used by plan: {', '.join(unused)} (no figure of a plan is computed from "
            f"{'it' if len(unused) == 1 else 'them'}; recommend and recipe read {'it' if len(unused) == 1 else 'them'})"
            ] if unused else []


def _verdict(ledger: Ledger, inputs: Inputs, found: Findings) -> list[str]:
    """A missed time budget, the fit and what would make it fit, the question to answer."""
    lines, t = [], found.timing
    if t.budget_met is False and t.wall is not None:
        more = ledger.values.get("gpus_for_time")
        enough = (f": it keeps to it from an MFU of {t.mfu_for_time.high:.2f} (feasibility.mfu_for_time; published "
                  f"runs {_mfu_text(t.mfu)}, median {t.mfu.value:.2f})" if t.mfu_for_time and t.mfu else "")
        lines.append(f"{'may miss' if enough else 'misses'} the time budget: {show(t.wall, 'hours')} on "
                     f"{show(inputs.gpus or Q.point(1), 'GPUs')} against {show(inputs.time_budget, 'hours')}{enough}"
                     + _more_gpus(ledger, more))
    elif t.budget_met and t.wall is not None and not t.backwards and inputs.time_budget and inputs.gpus:
        rest = (f"; the whole budget would train {show(t.budget_tokens, 'tokens')} at the same MFU"
                if t.budget_tokens else "")  # (a budget mostly left over says so first: QA round 3, q15)
        lines.append(f"keeps to the time budget: {show(t.wall, 'hours')} on {show(inputs.gpus, 'GPUs')} against "
                     f"{show(inputs.time_budget, 'hours')}{rest}")
    fit = found.fit.json if found.fit else None
    if fit:
        hw = fit["hardware"]["label"] if fit.get("hardware") else "GPU"
        on = inputs.gpus or Q.point(fit["gpus"])  # (no count given: the GPUs the fit was checked on, a budget's)
        where = f"of {hw} ({show(inputs.gpu_memory, 'bytes')} each{_packages(fit['hardware'], on)})" \
            if fit.get("hardware") else f"of {show(inputs.gpu_memory, 'bytes')}"
        lines.append(f"on {show(on, 'GPUs')} {where}{' (the fewest the time budget needs)' * (inputs.gpus is None and fit['gpus'] > 1)}: "
                     f"{fit['text']}")
    if fit and not fit["fits"] and found.recommendations:
        lines.append(_to_make_it_fit(found.recommendations))
    if found.ask_text:
        lines.append(found.ask_text)
    return lines


def _packages(hardware: dict, gpus: Q) -> str:
    """For hardware software sees as several GPUs per package (an MI250X: its two dies), what a
    GPU is and how many packages the GPUs are; nothing for the rest."""
    n = hardware.get("devices_per_package", 1)
    if n == 1:
        return ""
    whole = gpus.low == gpus.high and gpus.low % n == 0
    return (f": a GPU here is one of the {n} dies of one {hardware['label']}, as software sees them"
            + (f"; {show(gpus, 'GPUs')} are {gpus.low / n:,.0f} modules" if whole else ""))


def _details(ledger: Ledger, inputs: Inputs, found: Findings) -> list[str]:
    kb, v = ledger.kb, ledger.values
    if found.method == "inference":  # serving: no training figure is computed
        lines = [f"{show(v['params'], 'parameters')}{_which_model(inputs)} served (method = inference)"]
    elif found.ask_text:
        trained = "trained" if found.method == "pretrain" else "fine-tuned"
        lines = [f"{show(v['params'], 'parameters')}{_which_model(inputs)} {trained} (method = {found.method})"]
    else:
        lines = [_size_line(ledger, inputs, found)]
    if "effective_tokens" in v:
        epochs = v.get("epochs") or inputs.epochs  # (given: not a computed value of the ledger's)
        lines.append(f"repeated data: {show(epochs, 'epochs') + ' ' if epochs is not None else ''}"
                     f"worth {show(v['effective_tokens'], 'tokens')} of fresh data by the data-constrained law "
                     f"(Muennighoff et al.); the reference's formula says "
                     f"{show(v['effective_tokens_reference'], 'tokens')}"
                     + (f", its 85% guidance {show(v['effective_tokens_guidance'], 'tokens')}"
                        if "effective_tokens_guidance" in v else ""))
    lines += beyond_lines(v, kb, inputs.model)
    lines += _memory_lines(ledger, inputs, found)
    if found.feasibility:
        lines.append(f"on {kb.label(inputs.hardware)}: " + "; ".join(r["label"] for r in found.feasibility))
    if found.method == "inference":
        return lines
    if found.ask_text:
        return lines + _tier_line(found)
    lines.append(_time_line(ledger, inputs, found.timing))
    if "energy" in v:
        lines.append(f"energy: {show(v['energy'], 'kWh')} (GPU power × GPU-hours × PUE)"
                     + (f"; cost {show(v['cost'], 'USD')}" if "cost" in v else "")
                     + (f"; emissions {show(v['co2'], 'kg CO2e')}" if "co2" in v else ""))
    return lines + _tier_line(found)


def _size_line(ledger: Ledger, inputs: Inputs, found: Findings) -> str:
    v, back = ledger.values, found.timing.backwards
    if found.method in ("full-fine-tune", "lora", "qlora"):
        return (f"{show(v['params'], 'parameters', ledger.given('params') and not inputs.params_from_model)}"
                f"{_which_model(inputs)} fine-tuned (method = {found.method}) on "
                + ("at most " if inputs.from_examples else "")
                + f"{show(v['tokens'], 'tokens', ledger.given('tokens'))}"
                + (f" (the examples × the sequence length × {show(inputs.epochs)} epoch"
                   f"{'' if inputs.epochs.high == 1 else 's'}: a bound)" if inputs.from_examples else "")
                + f": {show(v['flops'], 'FLOPs')}")
    return (f"{show(v['params'], 'parameters', ledger.given('params') and not inputs.params_from_model)}"
            f"{_which_model(inputs)} → {show(v['tokens'], 'tokens', ledger.given('tokens'))} "
            f"({show(v['tokens_per_param'], 'tokens/param')}, {found.strategy.json['label']}), "
            f"{show(v['flops'], 'FLOPs')} of training compute"
            + (f" from {show(inputs.gpus, 'GPUs')} × {show(inputs.time_budget, 'hours')}, planned backwards"
               if back else "")
            + (f" (from the {show(v['active_params'], 'active parameters', True)})" if "active_params" in v else ""))


def _streams(v: dict) -> str:
    """For a decode rate over several sequences at once, that it is their sum, and each one's
    (the sequences a step serves: the rate times the time of a step).

    >>> _streams({"decode_tokens_per_second": Q.point(2161.0), "decode_seconds_per_token": Q.point(0.01481)})
    ' in all, 67.52 tokens/s for each of 32 sequences at once'
    >>> _streams({"decode_tokens_per_second": Q.point(67.5), "decode_seconds_per_token": Q.point(0.01481)})
    ''
    """
    rate, step = v.get("decode_tokens_per_second"), v.get("decode_seconds_per_token")
    if rate is None or step is None or not step.value:
        return ""
    n = round(rate.value * step.value)
    return f" in all, {show(Q.point(1 / step.value), 'tokens/s')} for each of {n:,} sequences at once" if n > 1 else ""


def _memory_lines(ledger: Ledger, inputs: Inputs, found: Findings) -> list[str]:
    kb, v, method = ledger.kb, ledger.values, found.method
    if method in ("pretrain", "full-fine-tune"):
        return [f"training memory: {show(v['memory'], 'bytes')} in all by the reference's rule of thumb"
                + (f" ({kb.label(inputs.optimizer)} optimizer)" if inputs.optimizer else "")
                + (f"; model states {show(v['model_states'], 'bytes')} (ZeRO's count"
                   + (", optimizer on the CPU" if "cpu_memory" in v else "") + ")" if "model_states" in v else "")]
    if method == "inference" and "kv_cache" in v:
        return [f"serving: weights {show(v['weights'], 'bytes')}, KV cache {show(v['kv_cache'], 'bytes')} per copy"
                + (f"; decode at most {show(v['decode_tokens_per_second'], 'tokens/s')}{_streams(v)} (memory "
                   f"bandwidth, {show(v['decode_seconds_per_token'], 'seconds')} per step at least)"
                   if "decode_tokens_per_second" in v else "")
                + (f"; prefill at least {show(v['prefill_seconds'], 'seconds')} (compute)" if "prefill_seconds" in v
                   else "")]
    if "model_states" in v:
        return [f"method = {method}: model states {show(v['model_states'], 'bytes')}"
                + (f" ({show(v['adapter_params'], 'parameters')} of adapters trained on the frozen base)"
                   if "adapter_params" in v else " (the weights)")]
    return []


def _tier_line(found: Findings) -> list[str]:
    if not found.tier:
        return []
    return [f"compute tier: {found.tier['text']}"]  # (says what it is from: the GPUs and time, or the compute)


def _which_model(inputs: Inputs) -> str:
    """`` (Llama 2 70B)`` when the parameters are a named configuration's."""
    return f" ({inputs.model['label']})" if inputs.params_from_model else ""


def _to_make_it_fit(recs: list[dict]) -> str:
    """The changes that are each enough, cheapest first, as the query would say them."""
    enough = [change_text(r) for r in recs if r["enough"] and r["id"] != "combined"]
    combined = next((r for r in recs if r["id"] == "combined"), None)
    return ("to make it fit: " + (", or ".join(enough) + " (each enough on its own)" if enough else
                                  "no single memory saving is enough"
                                  + (f"; all together: {combined['verdict']}" if combined else ""))
            + ("; for fine-tuning, QLoRA's 4-bit base is far smaller" if any(
                r.get("applies_to") == "fine-tuning" and r.get("enough") is None and r.get("verdict") == "fits"
                for r in recs) else ""))


def _more_gpus(ledger: Ledger, more: Q | None) -> str:
    """What more GPUs would do for a missed time budget: the count that would meet it, or, when
    that is more than one batch spreads over (``gpus_batch_cap``), that the budget is out of reach."""
    if more is None:
        return ""
    cap = ledger.values.get("gpus_batch_cap")
    if cap is not None and more.low > cap.high:
        return (f"; out of reach as planned: at the same MFU it would take {show(more, 'GPUs')}, more than the "
                f"{show(cap, 'GPUs')} one batch of {show(ledger.values['batch_tokens'], 'tokens')} spreads over "
                f"(feasibility.gpus_for_time, gpus_batch_cap)")
    return f"; {show(more, 'GPUs')} would meet it (feasibility.gpus_for_time, at the same MFU)"


def change_text(r: dict) -> str:
    """``lora-rank = 16`` for a remedy that says its change, else its label."""
    change = r.get("change") or {}
    shown = [f"{k} = {v:,.0f}" if isinstance(v, (int, float)) and k != "params" else
             f"params = {show(Q.point(v))}" if k == "params" else f"{k} = {v}"
             for k, v in change.items() if v is not None]
    freed = [k for k, v in change.items() if v is None]
    if freed:
        shown.append("without " + ", ".join(freed))
    return " and ".join(shown) if shown else r["label"]


def _mfu_text(mfu: Q) -> str:
    """An MFU or its range to two decimals.

    >>> _mfu_text(Q.span(0.1384, 0.43, 0.147)), _mfu_text(Q.point(0.4))
    ('0.14–0.43', '0.40')
    """
    return f"{mfu.low:.2f}–{mfu.high:.2f}" if mfu.is_range and mfu.high - mfu.low >= 0.01 else f"{mfu.value:.2f}"


def _attention_text(ledger: Ledger) -> str:
    """``, counting the attention's 1.03e20 FLOPs at 32,768 tokens (66% of the model FLOPs)``; a
    sliding window that caps what each position attends to is said beside the sequence length."""
    attention, flops, seq = (ledger.values.get(n) for n in ("attention_flops", "flops", "seq_length"))
    if attention is None or flops is None or seq is None or not attention.value:
        return ""
    share = attention.value / (attention.value + flops.value)
    window = getattr(ledger.shape, "window", None)
    windowed = (f" with a sliding window of {show(window)}" if window is not None and window.value < seq.value
                else "")
    return (f", counting the attention's {show(attention, 'FLOPs')} at {show(seq)} tokens{windowed} ({share:.0%} of "
            f"the model FLOPs)")


def _time_line(ledger: Ledger, inputs: Inputs, t: Timing) -> str:
    if t.gpu_hours is None:
        return "time: " + ledger.entry("gpu_hours")["derivation"]
    entry = ledger.entry("mfu") or {}
    on = entry.get("measured_on") or ()
    kin = others_words(ledger, t.hardware, on) if t.hardware else "other GPUs"
    fastest = kin == FASTEST
    if fastest:
        kin = f"{', '.join(on)}, {kin}"
    mfu = _mfu_text(t.mfu) + (f" (published runs on {kin}: too few on {ledger.kb.node_id(t.hardware)}"
                              f"{' or its architecture' if fastest else ''})"
                              if entry.get("same_peak") is False and t.hardware else "")
    attention = _attention_text(ledger)
    if t.backwards:
        peak = t.backwards["peak"]
        return (f"time: {show(inputs.gpus, 'GPUs')} × {show(t.wall, 'hours')} = {show(t.gpu_hours, 'GPU-hours')} "
                f"on {ledger.kb.node_id(t.hardware) if t.hardware else 'your GPU'}"
                f"{'' if peak in ('bf16', 'given') else ' (' + peak + ' peak)'} at MFU {mfu} → "
                f"{show(ledger.values['flops'], 'FLOPs')} of training" + attention)
    ends = [f"{show(t.gpus_needed, 'GPUs')} for the {show(inputs.time_budget, 'hours')} budget"] \
        if t.gpus_needed is not None else []
    if not (ends and inputs.gpus is None):  # (with the budget's GPUs, one GPU's years say nothing)
        ends.insert(0, f"{show(t.wall, 'hours')} on {show(inputs.gpus or Q.point(1), 'GPUs')}"
                    + (f" {t.past_batch}" if t.past_batch else ""))
    return (f"time: {show(t.gpu_hours, 'GPU-hours')} on {ledger.kb.node_id(t.hardware) if t.hardware else 'your GPU'} "
            f"at MFU {mfu}{attention} → " + "; ".join(ends)
            + (f"; the whole {show(inputs.time_budget, 'hours')} budget would train {show(t.budget_tokens, 'tokens')}"
               if t.budget_tokens is not None else ""))
