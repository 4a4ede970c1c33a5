"""The quantities of the layout found for a method other than ZeRO's full training: LoRA and
QLoRA (frozen base, adapters), ZeRO-Offload (optimizer on the CPU) and inference (weights,
KV cache, the decode bound). Each is a KB formula of ``kb/methods.ttl`` or a constant times a
count, with its sources::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> from recipekg.plan.layout import search_layout
    >>> ledger = Ledger(KBView(snap))
    >>> q = "plan where params = 7B and method = inference and hardware = rtx-4090 and seq-length = 4096"
    >>> found = search_layout(ledger, read_inputs(parse(q)[0], snap), Q.point(7e9))
    >>> found["fits"], show(ledger.values["weights"], "bytes"), show(ledger.values["kv_cache"], "bytes")
    (True, '14 GB', '2.28 GB')
    >>> show(ledger.values["decode_tokens_per_second"], "tokens/s")
    '61.9 tokens/s'
"""

from __future__ import annotations

from recipekg.formula.expr import Q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger
from recipekg.plan.layout_record import part, record_headroom, record_per_gpu
from recipekg.plan.methods import ADAPTER_OFFLOAD, adapter_env, adapter_formula, attention_window, describe_method, kv_cache, servable
from recipekg.plan.shape import optimizer_state_bytes
from recipekg.knowledge.terms import RKG

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only
    from recipekg.contracts.plan import PerGpuPart


def record_method(ledger: Ledger, memo, best: dict, inputs: Inputs) -> None:
    """Record the quantities of ``best`` (a layout of :class:`~recipekg.plan.evaluator.Evaluator`)."""
    method = memo.method
    ledger.note(describe_method(method, memo.shape, memo.options.kv_bytes))
    if method.id == "inference":
        _inference(ledger, memo, best, inputs)
        return
    if method.offload and method.trains_all:
        _offload(ledger, memo)
    else:
        _adapters(ledger, memo)
    _per_gpu(ledger, memo, best)
    record_per_gpu(ledger, memo, best, _state_parts(ledger, memo, best))


def _state_parts(ledger: Ledger, memo, best: dict) -> list[PerGpuPart]:
    """The model states per GPU in two parts: the weights kept on the GPU (the frozen base, or
    the 16-bit weights of ZeRO-Offload) and what the trained adapters add."""
    f = memo.states_formula(best["zero"])
    env = memo.states_env(best["tp"], best["pp"], best["dp"])
    if memo.adapters is None:
        return [part("weights", best["states"], f.id)]
    if memo.method.offloads_at(best["zero"]):
        return [part("weights", best["states"], ADAPTER_OFFLOAD, "no model states: offloaded to CPU memory")]
    base, _ = ledger.compute(f, dict(env, adapter_params=Q.point(0)))
    return [part("weights", base, f.id, "frozen base weights"),
            part("adapters", best["states"] - base, f.id, "adapters (weights, gradients, optimizer states)")]


def _whole(memo, adapters: Q | None = None) -> tuple[Q, dict]:
    """The method's model-states formula on one GPU (``adapters`` in place of the adapters)."""
    env = memo.states_env(1, 1, 1)
    if adapters is not None:
        env["adapter_params"] = adapters
    return memo.ledger.compute(memo.states_formula(0), env)


def _per_gpu(ledger: Ledger, memo, best: dict) -> None:
    f = memo.states_formula(best["zero"])
    q, env = ledger.compute(f, memo.states_env(best["tp"], best["pp"], best["dp"]))
    if memo.method.offloads_at(best["zero"]):
        _offloaded(ledger, memo, q, best["dp"])
        return
    ledger.add("model_states_per_gpu", q, formula=f, env=env, constants=_master(memo, f))


def _master(memo, f) -> list:
    """The master weights' constant, for a model-states formula that counts them (its term is
    a quantity plan sets from ``master-weights``, so the formula does not name the constant)."""
    return list(memo.options.master_constants) if "master_weight_bytes_per_param" in f.data["expression"] else []


def _offloaded(ledger: Ledger, memo, shard: Q, dp: int) -> None:
    """FSDP's CPU offload of an adapter run: no model state per GPU, each GPU's shard in CPU memory."""
    f = memo.formula(ADAPTER_OFFLOAD)
    cpu, env = ledger.compute(f, {"model_states_per_gpu": shard, "data_parallel": Q.point(dp)})
    ledger.add("model_states_per_gpu", Q.point(0), label="model states kept on each GPU (none: offloaded to the CPU)",
               derivation=f"FSDP's CPU offload keeps each GPU's {show(shard, 'bytes')} shard in CPU memory")
    ledger.add("cpu_memory", cpu, formula=f, env=env)
    ledger.note(f"offload = cpu: {show(cpu, 'bytes')} of sharded model states live in CPU memory over all the "
                f"hosts, the states alone (not the processes' other host memory)", f.data)


def _times(ledger: Ledger, name: str, per: Q, count: Q, what: str, label: str, constants: list) -> Q:
    q = per * count
    ledger.add(name, q, label=label, constants=constants,
               derivation=f"{show(per, 'bytes/param')} × {show(count, what)} = {show(q, 'bytes')}")
    return q


def _state_constants(ledger: Ledger, memo) -> list:
    """The KB constants behind the optimizer's bytes per parameter."""
    return optimizer_state_bytes(Ledger(ledger.kb, ledger.where), memo.inputs)[1]


def _adapters(ledger: Ledger, memo) -> None:
    """LoRA / QLoRA: the adapters, the frozen base, the adapters' gradients and states."""
    kb, method = ledger.kb, memo.method
    f = adapter_formula(kb, method, memo.shape)
    q, env = ledger.compute(f, adapter_env(method, memo.shape))
    ledger.add("adapter_params", q, formula=f, env=env)
    frozen, env = _whole(memo, Q.point(0))
    ledger.add("weights", frozen, formula=memo.states_formula(0), env=env,
               label=f"frozen base weights ({_frozen_kind(memo)})",
               derivation=f"the model-states formula without adapters: {show(frozen, 'bytes')}")
    grads, constants = ((memo.adapter_bytes[1], memo.adapter_bytes[2]) if memo.adapter_bytes else
                        (memo.options.grad_bytes, list(memo.options.grad_constants)))
    _times(ledger, "gradients", grads, memo.adapters, "adapter parameters", "gradients (the adapters' only)", constants)
    _times(ledger, "optimizer_states", memo.states, memo.adapters, "adapter parameters",
           "optimizer states (the adapters' only)", _state_constants(ledger, memo))
    whole, env = _whole(memo)
    ledger.add("model_states", whole, formula=memo.states_formula(0), env=env,
               constants=_master(memo, memo.states_formula(0)),
               label="model states (whole model): frozen base and trained adapters")


def _frozen_kind(memo) -> str:
    """How the frozen base is stored, in words (QLoRA's 16-bit embedding and output matrices)."""
    if memo.method.id != "qlora":
        return "bf16"
    kept = memo.embeddings is not None and memo.embeddings.high > 0
    return "4-bit NF4 with its constants" + ("; the input embedding and output layer in 16 bits" if kept else "")


def _offload(ledger: Ledger, memo) -> None:
    """ZeRO-Offload: the 16-bit weights on the GPU, the rest in CPU memory."""
    kb = ledger.kb
    weights, env = _whole(memo)
    ledger.add("weights", weights, formula=memo.states_formula(0), env=env,
               label="weights (16-bit, on the GPU)")
    master = memo.options.master_constants[0]
    _times(ledger, "gradients", memo.options.grad_bytes, memo.params, "parameters", "gradients (on the CPU)",
           list(memo.options.grad_constants))
    _times(ledger, "optimizer_states", memo.states, memo.params, "parameters", "optimizer states (on the CPU)",
           _state_constants(ledger, memo))
    f = memo.formula("offloaded-states")
    cpu, env = ledger.compute(f, {"params": memo.params, "optimizer_state_bytes_per_param": memo.states,
                                  "gradient_bytes_per_param": memo.options.grad_bytes,
                                  "master_weight_bytes_per_param": memo.options.master_bytes})
    ledger.add("cpu_memory", cpu, formula=f, env=env, constants=[master])
    ledger.add("model_states", weights + cpu, label="model states (whole model, GPU and CPU)",
               derivation=f"{show(weights, 'bytes')} on the GPUs + {show(cpu, 'bytes')} on the CPUs")
    ledger.note(f"offload = cpu: {show(cpu, 'bytes')} of gradients, fp32 master weights and optimizer states "
                f"live in CPU memory, one copy over all the hosts; the KB has no host-memory figure to check "
                f"it against", memo.formula("offloaded-states").data)


def _inference(ledger: Ledger, memo, best: dict, inputs: Inputs) -> None:
    """Inference: the weights, the KV cache, the memory per GPU and the prefill and decode bounds."""
    kb, method, shape = ledger.kb, memo.method, memo.shape
    weights, env = _whole(memo)
    ledger.add("weights", weights, formula=memo.states_formula(0), env=env, constants=list(method.weight_constants))
    ledger.add("model_states", weights, label="model states (the weights only: no gradients or "
               "optimizer states at inference)", derivation=f"the weights, {show(weights, 'bytes')}")
    sequences = memo.sequences(best["dp"])
    kv, env = kv_cache(ledger, shape, memo.options.kv_bytes, sequences)
    ledger.add("kv_cache", kv, formula=memo.formula("kv-cache"), env=env,
               label="KV cache (one copy of the model: its sequences served at once)",
               constants=list(memo.options.kv_constants))
    _per_gpu(ledger, memo, best)
    record_headroom(ledger, memo)
    f = memo.formula("inference-memory-per-gpu")
    q, env = ledger.compute(f, {"model_states_per_gpu": best["states"], "kv_cache": kv, "headroom": best["headroom"],
                                "tensor_parallel": Q.point(best["tp"]), "pipeline_parallel": Q.point(best["pp"])})
    parts = [part("weights", best["states"], memo.states_formula(0).id),
             part("kv_cache", best["activations"], "kv-cache", "KV cache"),
             part("headroom", best["headroom"], "inference-memory-per-gpu", "headroom (framework)")]
    ledger.add("memory_per_gpu", q, formula=f, env=env, per_gpu_parts=parts)
    ledger.note("inference: no gradients, optimizer states or stored activations; no training figure (tokens, "
                "FLOPs, training memory, GPU-hours) is a figure of serving, so none is given")
    bw, source = _bandwidth(kb, inputs)
    if bw is None:
        ledger.note("no bandwidth for the GPU: add hardware or bandwidth = 3.35TB/s for the decode-speed bound")
        return
    _speed(ledger, memo, best, inputs, weights, kv, sequences, bw, source)


def _weights_read(ledger: Ledger, memo, inputs: Inputs, weights: Q, active: Q, sequences: Q) -> Q:
    """What a mixture of experts' decoding step reads: at least the active share; with a named
    model's expert counts, up to every expert its sequences route to when routing is uniform
    (``formula:weights-read-per-step-routed``: 16 sequences of Mixtral read 99% of it)."""
    f = memo.formula("weights-read-per-step")
    least, env = ledger.compute(f, {"weights": weights, "active_params": active, "params": memo.params})
    model = inputs.model or {}
    if not (model.get("experts") and model.get("experts_per_token")) or sequences.high <= 1:
        ledger.add("weights_read", least, formula=f, env=env,
                   label="weights a decoding step reads at least (the active parameters')")
        return least
    routed_f = memo.formula("weights-read-per-step-routed")
    routed, renv = ledger.compute(routed_f, {"weights": weights, "active_params": active, "params": memo.params,
                                             "experts": Q.point(model["experts"]), "sequences": sequences,
                                             "experts_per_token": Q.point(model["experts_per_token"])})
    q = Q.span(min(least.low, routed.low), max(least.high, routed.high), routed.value)
    ledger.add("weights_read", q, formula=routed_f, env=renv,
               label="weights a decoding step reads: the active share at least, every expert its sequences "
                     "route to when routing is uniform",
               derivation=f"{routed_f.data['expression']} with {show(sequences)} sequences at once: "
                          f"{show(routed, 'bytes')}; the active share alone ({f.data['expression']}): "
                          f"{show(least, 'bytes')}: {show(q, 'bytes')}")
    return q


def _speed(ledger: Ledger, memo, best: dict, inputs: Inputs, weights: Q, kv: Q, sequences: Q, bw: Q,
           source: dict | None) -> None:
    """The decode bound (tokens/s over every copy, seconds per step) and the prefill bound."""
    tp, extra = Q.point(best["tp"]), [source] if source else []
    active = inputs.active_params or memo.params
    if active.high < memo.params.low:  # a mixture of experts: a step reads at least the active share
        weights = _weights_read(ledger, memo, inputs, weights, active, sequences)
    f = memo.formula("decode-tokens-per-second")
    q, env = ledger.compute(f, {"micro_batch": sequences, "tensor_parallel": tp, "bandwidth": bw, "weights": weights,
                                "kv_cache": kv, "data_parallel": Q.point(best["dp"])})
    ledger.add("decode_tokens_per_second", q, formula=f, env=env, extra_sources=extra,
               label="decode speed, upper bound from memory bandwidth (every copy of the model)")
    f = memo.formula("decode-seconds-per-token")
    q, env = ledger.compute(f, {"tensor_parallel": tp, "bandwidth": bw, "weights": weights, "kv_cache": kv})
    ledger.add("decode_seconds_per_token", q, formula=f, env=env, extra_sources=extra,
               label="time per decoding step, lower bound (one token for each sequence)")
    kb = ledger.kb
    fp8 = inputs.precision is not None and kb.node_id(inputs.precision) == "fp8" and inputs.hardware is not None \
        and servable(kb, "fp8", inputs.hardware)
    # fp8 weights are served with fp8 matrix multiplies where the GPU has them (its fp8 peak): a
    # lower bound on the time stays one at the higher peak
    peak = inputs.peak_flops.value if inputs.peak_flops else kb.fp8_peak(inputs.hardware) if fp8 \
        else kb.peak(inputs.hardware)
    if not peak:
        ledger.note("no peak FLOP/s for the GPU: give peak-flops = 989T for the prefill bound")
        return
    f = memo.formula("prefill-seconds")
    shape = memo.shape
    q, env = ledger.compute(f, {"active_params": active, "seq_length": shape.seq_length, "micro_batch": sequences,
                                "attention_window": attention_window(ledger, shape),
                                "layers": shape.layers, "hidden": shape.hidden, "tensor_parallel": tp,
                                "peak_flops": Q.point(peak), "bandwidth": bw, "weights": weights})
    ledger.add("prefill_seconds", q, formula=f, env=env, extra_sources=extra,
               label=f"prefill (time to the first token) of {show(shape.seq_length)}-token prompts, lower bound"
                     + (", at the GPU's fp8 peak" if fp8 and not inputs.peak_flops else ""))


def _bandwidth(kb, inputs: Inputs) -> tuple[Q | None, dict | None]:
    """The memory bandwidth per GPU: the query's, else the hardware's figure."""
    if inputs.bandwidth is not None and "bandwidth" in inputs.constraints:
        return inputs.bandwidth, None
    if inputs.hardware is None:
        return inputs.bandwidth, None
    value = kb.snap["hardware"].get(inputs.hardware, {}).get(RKG.bandwidthBytesPerSecond)
    return (Q.point(value), kb.snap["nodes"][inputs.hardware]) if value else (None, None)

