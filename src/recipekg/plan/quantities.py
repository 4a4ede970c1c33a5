"""The registry of plan's quantities: every name a plan answer's ``quantities`` (and the parts
of a memory figure) can hold, with its unit, what it is, the step of plan that owns it and the
recipe section that shows it. Plan records a quantity only by a registered name, in its
unit (:meth:`recipekg.plan.ledger.Ledger.add`); the recipe lists its sections' quantities from
here; the published schema's quantity names and docs/plan-quantities.md (``python
tools/gen_quantities_doc.py``) are generated from it.

    >>> QUANTITIES["memory_per_gpu"].unit, QUANTITIES["memory_per_gpu"].step
    ('bytes', 'layout_record')
    >>> [q.name for q in in_section("time")]
    ['weights_read', 'decode_tokens_per_second', 'decode_seconds_per_token', 'prefill_seconds', 'attention_flops', 'mfu', 'gpu_hours', 'wall_time']
    >>> FIXED
    ('params', 'tokens', 'flops', 'memory', 'gpu_hours', 'wall_time')

A new quantity is one line here and the step that records it; the answer's JSON Schema, the
recipe and the documentation follow.
"""

from __future__ import annotations

from recipekg.record import Record

#: The methods plan sizes (``kb/methods.ttl``) and the groups a quantity or a note applies to.
METHODS = ("pretrain", "full-fine-tune", "lora", "qlora", "inference")
TRAINING = ("pretrain", "full-fine-tune", "lora", "qlora")     # a run that trains weights
ALL_WEIGHTS = ("pretrain", "full-fine-tune")                   # every weight trained
ADAPTERS = ("lora", "qlora")                                    # adapters on a frozen base
PRETRAINING = ("pretrain",)
SERVING = ("inference",)


class Quantity(Record):
    """A quantity plan can record: its ``name`` in answers, its ``unit`` (``units`` beside it:
    the others it may be given in), what it is (``label``), the step module that owns it,
    the recipe section that lists it (None: not listed), whether the contract fixes it (always
    in a plan answer), whether it is a part of another figure (``part_of``) and the methods it
    is a figure of (``methods``: a plan of another method does not record it, and lists a
    fixed one as not applying, :func:`not_applicable`)."""

    name: str
    unit: str
    label: str
    step: str
    section: str | None = None
    fixed: bool = False
    part_of: str | None = None
    units: tuple[str, ...] = ()
    methods: tuple[str, ...] = METHODS

    def __init__(self, name: str, unit: str, label: str, step: str, section: str | None = None, *,
                 fixed: bool = False, part_of: str | None = None, units: tuple[str, ...] = (),
                 methods: tuple[str, ...] = METHODS) -> None:
        # Record's, unrolled: the registry is made on every plan's start (frozen: past
        # __setattr__, by the dict's own item assignment, the cheapest)
        fields = self.__dict__
        fields["name"], fields["unit"], fields["label"], fields["step"] = name, unit, label, step
        fields["section"], fields["fixed"], fields["part_of"] = section, fixed, part_of
        fields["units"], fields["methods"] = units, methods

    @property
    def training(self) -> bool:
        """A figure of training only (a recipe for a method that trains no weight leaves it out)."""
        return "inference" not in self.methods


_Q = Quantity
#: Every quantity, in the order the recipe lists those of one section.
QUANTITIES: dict[str, Quantity] = {q.name: q for q in (
    # sizing: the model, its data and compute
    _Q("params", "parameters", "model size in parameters", "sizing", "size", fixed=True),
    _Q("active_params", "parameters", "parameters used per token (a mixture of experts)", "sizing"),
    _Q("tokens", "tokens", "training tokens", "sizing", "size", fixed=True, methods=TRAINING),
    _Q("tokens_per_param", "tokens/param", "training tokens per parameter", "sizing", "size", methods=TRAINING),
    _Q("flops", "FLOPs", "training compute", "sizing", "size", fixed=True, methods=TRAINING),
    # data: repeated data
    _Q("unique_tokens", "tokens", "unique tokens of the data", "data", "data", methods=TRAINING),
    _Q("epochs", "epochs", "epochs over the unique data", "data", "data", methods=TRAINING),
    _Q("effective_tokens", "tokens", "effective tokens of repeated data (the data-constrained law)", "data", "data", methods=PRETRAINING),
    _Q("effective_tokens_reference", "tokens", "effective tokens by the reference's formula", "data", methods=PRETRAINING),
    _Q("effective_tokens_guidance", "tokens", "effective tokens by the reference's guidance", "data", methods=PRETRAINING),
    # beyond the reference
    _Q("inference_optimal_params", "parameters", "inference-optimal model size", "beyond"),
    _Q("inference_optimal_tokens", "tokens", "training tokens of the inference-optimal model", "beyond", methods=TRAINING),
    _Q("total_flops_saved", "fraction", "lifetime compute saved by the inference-optimal model", "beyond"),
    _Q("learning_rate", "", "peak learning rate from the compute budget", "beyond", methods=PRETRAINING),
    _Q("batch_tokens", "tokens", "global batch in tokens from the compute budget", "beyond", methods=PRETRAINING),
    # the model's shape
    _Q("layers", "layers", "layers", "shape"),
    _Q("hidden", "hidden units", "hidden size", "shape"),
    _Q("heads", "heads", "attention heads", "shape"),
    _Q("kv_heads", "heads", "key-value heads", "shape"),
    _Q("vocab", "tokens", "vocabulary size", "shape"),
    _Q("seq_length", "tokens", "sequence length", "shape"),
    _Q("attention_window", "tokens", "sliding attention window", "shape"),
    _Q("ffn_hidden", "hidden units", "MLP width (intermediate size)", "shape"),
    _Q("ffn_matrices", "matrices", "MLP weight matrices (2 plain, 3 gated)", "shape"),
    # memory: the reference's rule of thumb
    _Q("memory", "bytes", "training memory (the reference's rule of thumb)", "memory", fixed=True, methods=ALL_WEIGHTS),
    _Q("memory_weights", "bytes", "weights, in the rule of thumb", "memory", part_of="memory", methods=ALL_WEIGHTS),
    _Q("memory_gradients", "bytes", "gradients, in the rule of thumb", "memory", part_of="memory", methods=ALL_WEIGHTS),
    _Q("memory_optimizer_states", "bytes", "optimizer states, in the rule of thumb", "memory", part_of="memory", methods=ALL_WEIGHTS),
    _Q("memory_activations", "bytes", "activations, in the rule of thumb", "memory", part_of="memory", methods=ALL_WEIGHTS),
    _Q("rule_of_thumb_per_gpu", "bytes", "training memory per GPU with FSDP (the reference's rule of thumb)", "fit", methods=ALL_WEIGHTS),
    # memory: the detailed model of the layout found
    _Q("memory_per_gpu", "bytes", "memory per GPU of the layout found", "layout_record", "memory"),
    _Q("model_states_per_gpu", "bytes", "model states per GPU", "layout_record", "memory"),
    _Q("activations", "bytes", "activations per GPU", "layout_record", "memory", methods=TRAINING),
    _Q("kv_cache", "bytes", "KV cache", "method_record", "memory", methods=SERVING),
    _Q("model_states", "bytes", "model states of the whole model", "layout_record"),
    _Q("weights", "bytes", "weights", "layout_record"),
    _Q("gradients", "bytes", "gradients", "layout_record", methods=TRAINING),
    _Q("master_weights", "bytes", "master weights (an fp32 copy; none in pure bf16)", "layout_record",
       methods=ALL_WEIGHTS),
    _Q("optimizer_states", "bytes", "optimizer states", "layout_record", methods=TRAINING),
    _Q("logits_activations", "bytes", "activations of the output layer and the loss", "layout_record", methods=TRAINING),
    _Q("rebuilt_layer_activations", "bytes", "what recomputation rebuilds of one layer at a time", "layout_record",
       methods=TRAINING),
    _Q("first_stage_activations", "bytes", "activations of the first pipeline stage", "layout_record", methods=TRAINING),
    _Q("last_stage_activations", "bytes", "activations of the last pipeline stage", "layout_record", methods=TRAINING),
    _Q("activations_worst_stage", "bytes", "activations of the pipeline stage that needs the most", "layout_record",
       methods=TRAINING),
    _Q("working_buffers_per_gpu", "bytes", "ZeRO-3's gathered layer per GPU", "layout_record"),
    _Q("headroom", "bytes", "memory kept free per GPU for the framework", "layout_record"),
    _Q("logits", "bytes", "output layer and logits, per GPU", "layout_record", part_of="memory_per_gpu", methods=TRAINING),
    _Q("rebuilt_layer", "bytes", "what recomputation rebuilds of one layer, per GPU", "layout_record", part_of="memory_per_gpu",
       methods=TRAINING),
    _Q("buffers", "bytes", "working buffers, per GPU", "layout_record", part_of="memory_per_gpu"),
    _Q("adapters", "bytes", "adapters with their gradients and optimizer states, per GPU", "method_record",
       part_of="memory_per_gpu", methods=ADAPTERS),
    _Q("adapter_params", "parameters", "adapter parameters (LoRA, QLoRA)", "method_record", methods=ADAPTERS),
    _Q("embedding_params", "parameters", "input embedding and output layer weights, kept in 16 bits (QLoRA)", "methods",
       methods=("qlora",)),
    _Q("cpu_memory", "bytes", "CPU memory of an offloaded run", "method_record", methods=TRAINING),
    # inference
    _Q("weights_read", "bytes", "weights a decoding step of a mixture of experts reads (its active share at least)",
       "method_record", "time", methods=SERVING),
    _Q("decode_tokens_per_second", "tokens/s", "decode speed, upper bound", "method_record", "time", methods=SERVING),
    _Q("decode_seconds_per_token", "seconds", "time per decoding step, lower bound", "method_record", "time", methods=SERVING),
    _Q("prefill_seconds", "seconds", "prefill time, lower bound", "method_record", "time", methods=SERVING),
    # time
    _Q("attention_flops", "FLOPs", "attention compute beyond 6·N·D", "attention", "time", methods=TRAINING),
    _Q("mfu", "fraction of bf16 peak", "model FLOPs utilisation", "timing", "time", units=("fraction of fp8 peak",), methods=TRAINING),
    _Q("gpu_hours", "GPU-hours", "GPU-hours", "timing", "time", fixed=True, methods=TRAINING),
    _Q("wall_time", "hours", "wall-clock training time", "timing", "time", fixed=True, methods=TRAINING),
    _Q("gpus_needed", "GPUs", "GPUs needed for the time budget", "timing", methods=TRAINING),
    _Q("gpus_for_time", "GPUs", "GPUs that would meet the time budget", "timing", methods=TRAINING),
    _Q("gpus_batch_cap", "GPUs", "the most GPUs one global batch spreads over", "timing", methods=TRAINING),
    _Q("mfu_for_time", "fraction of bf16 peak", "MFU that would meet the time budget", "timing",
       units=("fraction of fp8 peak",), methods=TRAINING),
    # energy and cost
    _Q("energy", "kWh", "training energy", "energy", "cost", methods=TRAINING),
    _Q("cost", "USD", "training cost", "energy", "cost", methods=TRAINING),
    _Q("co2", "kg CO2e", "training emissions", "energy", "cost", methods=TRAINING),
    # the hardware
    _Q("ridge_intensity", "FLOPs/byte", "the hardware's ridge point", "bandwidth"),
)}

#: The quantity names the contract fixes: always in a plan answer (value null if unknown).
FIXED = tuple(q.name for q in QUANTITIES.values() if q.fixed)


def in_section(section: str) -> list[Quantity]:
    """The quantities the recipe lists in ``section``, in order."""
    return [q for q in QUANTITIES.values() if q.section == section]


def unit_of(name: str, unit: str | None = None) -> str:
    """The unit quantity ``name`` is recorded in: ``unit`` when given (one of its units), else
    its own; a ValueError for a name the registry lacks or a unit the quantity is not in.

    >>> unit_of("flops"), unit_of("mfu", "fraction of fp8 peak")
    ('FLOPs', 'fraction of fp8 peak')
    """
    q = QUANTITIES.get(name)
    if q is None:
        raise ValueError(f"plan has no quantity {name!r}: add it to recipekg/plan/quantities.py")
    if unit is None or unit == q.unit:
        return q.unit
    if unit not in q.units:
        raise ValueError(f"quantity {name!r} is in {q.unit!r}, not {unit!r} (recipekg/plan/quantities.py)")
    return unit


#: Why a figure of a group of methods is not another method's: by the plan's method, then by the group.
_WHY_NOT = {
    "inference": "a serving plan trains no weight, so it has no training tokens, FLOPs, training memory or "
                 "GPU-hours; its figures are the weights, the KV cache and the prefill and decode bounds",
    ALL_WEIGHTS: "a figure of training every weight (the reference's 18–20 bytes per parameter, ZeRO's fp32 "
                 "master weights); adapters on a frozen base keep far less: memory_per_gpu is this run's memory",
    PRETRAINING: "a law fitted on pretraining runs, not on fine-tuning",
    ADAPTERS: "a figure of adapters on a frozen base (method = lora or qlora)",
}


def applies(name: str, method: str | None) -> bool:
    """Whether quantity ``name`` is a figure of a plan of ``method`` (None: any).

    >>> applies("memory", "lora"), applies("memory", "full-fine-tune"), applies("flops", "inference")
    (False, True, False)
    """
    return method is None or method in QUANTITIES[name].methods


def not_applicable(name: str, method: str) -> str:
    """Why quantity ``name`` is no figure of a plan of ``method`` (its answer's ``not_applicable``).

    >>> not_applicable("memory", "lora")[:60]
    'does not apply to method = lora: a figure of training every '
    """
    methods = QUANTITIES[name].methods
    why = (_WHY_NOT["inference"] if method == "inference" and "inference" not in methods
           else _WHY_NOT.get(methods) or "a figure of method = " + " or ".join(methods))
    return f"does not apply to method = {method}: {why}"
