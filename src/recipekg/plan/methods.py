"""What a plan sizes the memory for (``method``), and the memory each method keeps per GPU.

``pretrain`` and ``full-fine-tune`` train every weight (ZeRO's model states, with
``offload = cpu`` only the 16-bit weights on the GPU); ``lora`` and ``qlora`` freeze the base
(16-bit or 4-bit) and train adapters whose size follows from ``lora-rank`` (the paper's rank
when not given) and the model's shape; ``inference`` keeps the weights at the plan's precision
and a KV cache. Every formula is ``kb/methods.ttl``'s, read by id::

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> m = read_method(ledger, read_inputs(parse("plan where params = 65B and method = qlora")[0], snap))
    >>> m.id, m.rank.value, m.trains_all, m.state_formula
    ('qlora', 64.0, False, 'model-states-qlora')
    >>> m = read_method(ledger, read_inputs(parse("plan where params = 7B and pretrained = yes")[0], snap))
    >>> m.id, m.zero_stages, m.recompute_modes
    ('full-fine-tune', (0, 1, 2, 3), ('none', 'selective', 'full'))
    >>> m = read_method(ledger, read_inputs(parse("plan where params = 7B and method = inference and precision = int4")[0], snap))
    >>> m.id, m.weight_bytes.value, m.zero_stages, m.recompute_modes
    ('inference', 0.5, (0,), ('none',))
"""

from __future__ import annotations

from recipekg.formula.expr import Q, const_q
from recipekg.plan.figures import show
from recipekg.plan.inputs import Inputs
from recipekg.plan.ledger import Ledger
from recipekg.record import Record
from recipekg.plan.shape import whole_number

TRAINS_ALL = ("pretrain", "full-fine-tune")
#: adapter method → (its adapter-count formula, its model-states formula, its default rank, its
#: model-states formula sharded by FSDP)
ADAPTERS = {"lora": ("lora-adapter-params", "model-states-lora", "c_lora_default_rank", "model-states-lora-sharded"),
            "qlora": ("qlora-adapter-params", "model-states-qlora", "c_qlora_default_rank", "model-states-qlora-sharded")}
#: a parallel layout of the KB (``rkg:parallelLayout``: approach id) → what the layout search
#: tries with it: ``zero`` (the ZeRO stages: 0 a copy on each GPU, 3 every state sharded),
#: ``tp`` and ``pp`` (tensor and pipeline parallelism allowed)
LAYOUT_DEGREES = {"ddp": ("zero", 0), "fsdp": ("zero", 3), "tensor-parallelism": ("tp", True),
                  "pipeline-parallelism": ("pp", True)}
#: an adapter run's model states with ``offload = cpu`` on a sharded layout (FSDP's CPU offload)
ADAPTER_OFFLOAD = "model-states-fsdp-offload"
#: the quantity of a precision's bits per weight at inference (the KB's constants of it, each
#: ``rkg:appliesTo`` its precision: int8, int4, fp8)
WEIGHT_BITS = "weight-bits"
#: the 16-bit precisions inference weights are taken in when the query gives no width the KB
#: has (bf16, or fp16 on hardware without bf16 tensor cores); their widths are the KB's
HALF = ("bf16", "fp16")
#: the precisions a training run's time is read in (a peak of the hardware's for each: fp8's own)
TRAINED_IN = (*HALF, "fp32", "fp8")
METHODS = ("pretrain", "full-fine-tune", "lora", "qlora", "inference")


class Method(Record):
    """The method, whether the optimizer is offloaded, the adapters' rank and, for inference,
    the bytes per weight with the constants behind them."""

    id: str
    offload: bool = False
    rank: Q | None = None
    weight_bytes: Q | None = None
    weight_constants: tuple = ()
    #: the parallel layouts the KB says the method's trainers run (approach ids; empty: every one)
    layouts: tuple = ()

    @property
    def trains_all(self) -> bool:
        return self.id in TRAINS_ALL

    @property
    def state_formula(self) -> str | None:
        """The model-states formula (None: ZeRO's, by stage)."""
        if self.id in ADAPTERS:
            return ADAPTERS[self.id][1]
        if self.id == "inference":
            return "inference-weights"
        return "model-states-offload" if self.offload else None

    def states_formula_at(self, zero: int) -> str | None:
        """The model-states formula of a layout at ZeRO stage ``zero``: an adapter method's
        sharded one at stage 3 (FSDP), else :attr:`state_formula`."""
        if zero == 3 and self.id in ADAPTERS:
            return ADAPTERS[self.id][3]
        return self.state_formula

    def offloads_at(self, zero: int) -> bool:
        """Whether a layout at ZeRO stage ``zero`` keeps no model state on the GPU: an adapter
        run's FSDP with ``offload = cpu`` (formula ADAPTER_OFFLOAD: the shards in CPU memory)."""
        return self.offload and zero == 3 and self.id in ADAPTERS

    @property
    def sharded(self) -> bool:
        """Whether the method's frozen base is sharded at stage 3 (FSDP of a frozen base)."""
        return self.id in ADAPTERS and 3 in self.zero_stages

    def allows(self, what: str) -> bool:
        """Whether the layout search may use tensor (``tp``) or pipeline (``pp``) parallelism:
        always for a method the KB lists no layouts for, else only where it lists them."""
        return not self.layouts or any(LAYOUT_DEGREES.get(a) == (what, True) for a in self.layouts)

    @property
    def zero_stages(self) -> tuple:
        """The ZeRO stages the layout search tries: the KB's layouts for the method (a copy on
        each GPU, FSDP), else frozen or served weights are not sharded, and ZeRO-Offload builds
        on stage 2."""
        listed = sorted({LAYOUT_DEGREES[a][1] for a in self.layouts if LAYOUT_DEGREES.get(a, ("",))[0] == "zero"})
        if listed and self.offload and not self.trains_all:
            return (3,)                 # FSDP's CPU offload moves the sharded states
        if listed and not self.offload:
            return tuple(listed)
        if not self.trains_all:
            return (0,)
        return (2,) if self.offload else (0, 1, 2, 3)

    @property
    def recompute_modes(self) -> tuple:
        return ("none",) if self.id == "inference" else ("none", "selective", "full")


def method_id(kb, inputs: Inputs) -> str:
    """The method's id: the query's, else full-fine-tune for ``pretrained = yes``, else pretrain."""
    if inputs.method is not None:
        return kb.node_id(inputs.method)
    if inputs.pretrained is not None and kb.node_id(inputs.pretrained) == "yes":
        return "full-fine-tune"
    return "pretrain"


def read_method(ledger: Ledger, inputs: Inputs, mid: str | None = None) -> Method:
    """The plan's method (or ``mid``), noting what was assumed."""
    kb = ledger.kb
    quiet = mid is not None
    mid = mid or method_id(kb, inputs)
    note = (lambda *a, **k: None) if quiet else ledger.note
    if not quiet and inputs.method is None and mid == "full-fine-tune":
        note("pretrained = yes: the memory is a full fine-tune's (method = full-fine-tune; method = lora or "
             "qlora trains adapters instead)")
    offload = inputs.offload is not None and kb.node_id(inputs.offload) == "cpu"
    layouts = method_layouts(kb, mid)
    if offload and mid not in TRAINS_ALL and not offloads_sharded(mid, layouts):
        note(f"offload = cpu is not used with method = {mid}: ZeRO-Offload moves the optimizer of a "
             f"run that trains every weight, and FSDP's CPU offload the sharded states of a layout the "
             f"KB lists FSDP for", warn=True)
        offload = False
    if offload and mid in ADAPTERS:
        note("offload = cpu: FSDP's CPU offload keeps each GPU's shard of the frozen base and of the adapters "
             "in CPU memory; the time does not count the copies between CPU and GPU (the KB has no figure for "
             "them)", kb.by_id(ADAPTER_OFFLOAD).data)
    rank = None
    if mid in ADAPTERS:
        given = whole_number(inputs, "lora-rank")
        c = kb.constant(ADAPTERS[mid][2])
        rank = Q.point(given) if given is not None else const_q(c)
        if given is None:
            whose = "the QLoRA authors' training script's" if mid == "qlora" else "the LoRA paper's (GPT-3 figures)"
            note(f"lora-rank not given: rank {show(rank)} assumed, {whose}", c)
    weight_bytes, consts = _weight_bytes(ledger, inputs, mid, note)
    return Method(mid, offload, rank, weight_bytes, tuple(consts), layouts)


def offloads_sharded(mid: str, layouts: tuple) -> bool:
    """Whether ``offload = cpu`` applies to adapter method ``mid``: the KB lists a layout for its
    trainers that shards every state (FSDP, stage 3), whose shards FSDP can offload to the CPU."""
    return mid in ADAPTERS and any(LAYOUT_DEGREES.get(a) == ("zero", 3) for a in layouts)


def method_layouts(kb, mid: str) -> tuple:
    """The parallel layouts the KB says method ``mid``'s trainers run (``rkg:parallelLayout``:
    approach ids, sorted); () when it lists none."""
    table = kb.snap.get("method_layouts") or {}
    iri = next((m for m in table if kb.node_id(m) == mid), None)
    return tuple(sorted(kb.node_id(a) for a in table[iri])) if iri else ()


def _weight_bytes(ledger: Ledger, inputs: Inputs, mid: str, note) -> tuple[Q | None, list]:
    """Bytes per weight at inference, by the plan's precision (bf16 when none is given)."""
    kb = ledger.kb
    pid = kb.node_id(inputs.precision) if inputs.precision else None
    bits = kb.constants_for(inputs.precision, WEIGHT_BITS) if inputs.precision else []
    if mid != "inference":
        if bits and pid not in TRAINED_IN:
            note(f"precision = {pid} is for weights at inference (method = inference); training here keeps "
                 f"16-bit weights", warn=True)
        return None, []
    if not bits:
        half = kb.peak_precision(inputs.hardware) if inputs.hardware else None   # fp16 where no bf16 tensor cores
        half = half if half in HALF else "bf16"
        bits = [width(kb, half)]
        said = [_said(kb, p) for p in quantized_precisions(kb) if servable(kb, p, inputs.hardware)]
        quantized = f"{', '.join(said[:-1])} or {said[-1]}" if len(said) > 1 else "".join(said)
        note(("precision not given" if pid is None else f"the KB has no inference figure for precision = {pid}")
             + f": weights in {half} ({bits[0]['value']:g} bits each) assumed"
             + (f", as {kb.label(inputs.hardware)} has no bf16 tensor cores" if half != "bf16" else "")
             + (f"; precision = {quantized} for quantized weights" if quantized else ""), bits[0])
    elif not servable(kb, pid, inputs.hardware):
        note(f"precision = fp8: {kb.label(inputs.hardware)} has no fp8 tensor cores in the KB (its datasheet "
             f"gives no fp8 rate): the weights are counted at one byte, but nothing here says how it serves "
             f"them, and the prefill bound reads its 16-bit peak", kb.snap["nodes"][inputs.hardware], warn=True)
    q, _ = ledger.compute(kb.by_id("weight-bytes-from-bits"), {"weight_bits_per_param": const_q(bits[0])})
    return q, [bits[0]]


def width(kb, precision: str) -> dict:
    """The KB's constant of the bits a weight takes in ``precision`` (an id: ``bf16``)."""
    return next(c for c in kb.constants_of_quantity(WEIGHT_BITS) if _precision_iri(kb, precision) in c["applies_to"])


def _precision_iri(kb, precision: str) -> str | None:
    """The IRI of the precision dimension's value ``precision`` (an id), None for no value:
    constants are matched by IRI, never by a local name another namespace can repeat
    (hostile round 9, 001-003: a constant for ``rule:bf16`` was read as bf16's)."""
    return kb.snap["dimensions"].get("precision", {}).get("values", {}).get(precision)


def _precision_id(kb, entity: str) -> str | None:
    """The id of the precision dimension's value whose IRI is ``entity``, None for any other IRI."""
    values = kb.snap["dimensions"].get("precision", {}).get("values", {})
    return kb.node_id(entity) if entity in values.values() else None


def servable(kb, pid: str | None, hardware: str | None) -> bool:
    """Whether the hardware computes in precision ``pid`` as the KB knows it: fp8 on a GPU with an
    fp8 peak (its FP8 checkpoints are served so), any other precision anywhere; True without a GPU."""
    return pid != "fp8" or not hardware or bool(kb.fp8_peak(hardware))


def _said(kb, precision: str) -> str:
    """A quantized precision as a note names it, with the extension that gives its bits when one
    does (hostile extensions, round 6, 017: "int4 or bf16 for quantized weights", unmarked)."""
    figure = next((c for c in kb.constants_of_quantity(WEIGHT_BITS) if _precision_iri(kb, precision) in c["applies_to"]), {})
    voice = kb.voice(figure, "")
    if not voice:
        return precision
    bits = figure["value"]
    return f"{precision} ({voice}: {bits:g} bit{'' if bits == 1 else 's'})"


def quantized_precisions(kb) -> dict[str, float]:
    """The precisions the KB gives fewer bits per weight than bf16's → those bits, most bits
    first (fp8 8, int8 8, int4 4)."""
    found = {}
    for c in kb.constants_of_quantity(WEIGHT_BITS):
        for entity in c["applies_to"]:
            if (pid := _precision_id(kb, entity)) is not None:
                found.setdefault(pid, c["value"])   # (the first, as width reads it)
    full = width(kb, "bf16")["value"]
    return {p: found[p] for p in sorted(found, key=lambda p: (-found[p], p)) if found[p] < full}


def adapter_params(ledger: Ledger, method: Method, shape) -> Q | None:
    """The adapters' parameter count (None for a method without adapters)."""
    if method.id not in ADAPTERS:
        return None
    q, _ = ledger.compute(adapter_formula(ledger.kb, method, shape), adapter_env(method, shape))
    return q


def _states_read(kb, method: Method, name: str) -> bool:
    """Whether the method's model-states formulas (a copy per GPU, and sharded) read ``name``."""
    return any(name in kb.by_id(f).parsed.names for f in {method.state_formula, method.states_formula_at(3)} if f)


def embedding_params(ledger: Ledger, method: Method, shape, model: dict | None) -> Q | None:
    """The weights of the input embedding and the output layer (``formula:embedding-params``),
    for a method whose model-states formula counts them apart (QLoRA's 4-bit quantization
    leaves them in 16 bits); None for the others. A configuration gives how many such matrices
    it has (two untied, one tied), else 1 to 2; without a vocabulary they are 0 and said to be
    counted with the rest (QA round 8, M7)."""
    if not _states_read(ledger.kb, method, "embedding_params"):
        return None
    if shape.vocab is None:
        ledger.note("vocab not known: the input embedding and the output layer, which 4-bit quantization keeps "
                    "in 16 bits, are counted at 4 bits with the rest (a lower bound); give vocab or a model")
        return Q.point(0)
    matrices = (model or {}).get("embedding_matrices")
    if matrices is None:
        ledger.note("whether the input embedding and the output layer share one matrix (tied) is not known: "
                    "1 to 2 vocabulary × hidden matrices counted")
    f = ledger.kb.formula("embedding_params", "vocab", "hidden")
    env = {"vocab": shape.vocab, "hidden": shape.hidden,
           "embedding_matrices": Q.point(matrices) if matrices else Q.span(1, 2)}
    q, used = ledger.compute(f, env)
    ledger.add("embedding_params", q, formula=f, env=used)
    return q


def adapter_bytes(ledger: Ledger, method: Method, inputs: Inputs, grad_bytes: Q, grad_constants) -> tuple | None:
    """``(weight bytes, gradient bytes, constants)`` per adapter parameter, for a method whose
    model-states formula reads them (QLoRA's): bf16 weights with the run's gradients, as QLoRA's
    script trains them, or fp32 both when the run computes in fp16 (``precision = fp16``, or a GPU
    without bf16 tensor cores): automatic mixed precision keeps trainable weights in fp32 (PEFT's
    troubleshooting guide; QA round 9, C04: a T4's QLoRA counted its adapters at 2 bytes). None
    for the other methods."""
    kb = ledger.kb
    if not _states_read(kb, method, "adapter_weight_bytes_per_param"):
        return None
    given = kb.node_id(inputs.precision) if inputs.precision else None
    half = given if given in (*HALF, "fp32") else kb.peak_precision(inputs.hardware) if inputs.hardware else None
    if half in ("fp16", "fp32"):
        w, g = kb.constant("c_master_weight_bytes_per_param"), kb.constant("c_gradient_bytes_per_param_fp32")
        why = (f"precision = {given}" if given == half else f"{kb.label(inputs.hardware)} trains in fp16 (it has no bf16)")
        ledger.note(f"{why}: the adapters are kept in fp32, 4 bytes per weight and per gradient, "
                    + ("as automatic mixed precision in fp16 needs its trainable weights" if half == "fp16" else
                       "as every weight of an fp32 run is") + " (not QLoRA's bf16 adapters)",
                    kb.by_id(method.state_formula).data)
        return const_q(w), const_q(g), [w, g]
    return const_q(kb.constant("c_weight_bytes_per_param_bf16")), grad_bytes, \
        [kb.constant("c_weight_bytes_per_param_bf16"), *grad_constants]


def adapter_formula(kb, method: Method, shape):
    """The method's adapter formula; for adapters on the MLP of a mixture of experts (the
    configuration's ``experts``), the one that counts every expert's matrices."""
    f = kb.by_id(ADAPTERS[method.id][0])
    if getattr(shape, "experts", None) is not None and "mlp_matrices" in f.parsed.names:
        f = kb.find("adapter_params", "experts", *f.parsed.names) or f
    return f


def adapter_env(method: Method, shape) -> dict:
    """What the adapter formulas read: the rank and the block's shape (its key-value heads, the
    MLP's width and matrices: three for a gated MLP; the experts of a mixture of experts)."""
    env = {"lora_rank": method.rank, "hidden": shape.hidden, "layers": shape.layers, "heads": shape.heads,
           "kv_heads": kv_heads(shape)}
    for name in ("ffn_hidden", "mlp_matrices", "experts"):
        if getattr(shape, name, None) is not None:
            env[name] = getattr(shape, name)
    return env


def kv_heads(shape) -> Q:
    """The shape's key-value heads: ``kv_heads`` where the shape has them, else every head."""
    got = getattr(shape, "kv_heads", None)
    if got is None:
        return shape.heads
    return got if isinstance(got, Q) else Q.point(float(got))


def attention_window(ledger: Ledger, shape) -> Q:
    """The tokens each position attends to: a sliding window (given, or the configuration's:
    Mistral 7B's 4,096), else the whole sequence (``formula:attention-window-whole-sequence``)."""
    window = getattr(shape, "window", None)
    if window is None:
        window = ledger.compute(ledger.kb.by_id("attention-window-whole-sequence"), {"seq_length": shape.seq_length})[0]
    return window


def kv_cache(ledger: Ledger, shape, kv_bytes: Q, sequences: Q | None = None) -> tuple[Q, dict]:
    """The KV cache of ``sequences`` (the shape's micro-batch when not given) at ``kv_bytes``
    per value, and the names it was computed from."""
    f = ledger.kb.by_id("kv-cache")
    return ledger.compute(f, {"layers": shape.layers, "kv_heads": kv_heads(shape), "hidden": shape.hidden,
                              "heads": shape.heads, "seq_length": shape.seq_length, "kv_bytes_per_value": kv_bytes,
                              "attention_window": attention_window(ledger, shape),
                              "micro_batch": sequences if sequences is not None else shape.micro_batch})


def states_env(method: Method, params: Q, states: Q, adapters: Q | None, tp: int, pp: int, dp: int,
               embeddings: Q | None = None) -> dict:
    """What a model-states formula reads, for this method and layout (``embeddings``: the
    weights it keeps in 16 bits, :func:`embedding_params`; none unless given)."""
    env = {"params": params, "optimizer_state_bytes_per_param": states, "tensor_parallel": Q.point(tp),
           "pipeline_parallel": Q.point(pp), "data_parallel": Q.point(dp), "embedding_params": embeddings or Q.point(0),
           "adapter_weight_bytes_per_param": Q.point(0), "adapter_gradient_bytes_per_param": Q.point(0)}
    if adapters is not None:
        env["adapter_params"] = adapters
    if method.weight_bytes is not None:
        env["weight_bytes_per_param"] = method.weight_bytes
    return env


def describe_method(method: Method, shape, kv_bytes: Q | None = None) -> str:
    """What the answer says it assumed for the method."""
    if method.id == "inference":
        kvh = kv_heads(shape) if getattr(shape, "kv_heads", None) is not None else None
        heads = (f"{show(kvh)} key-value heads" if kvh is not None else
                 f"key-value heads = heads ({show(shape.heads)}; give kv-heads for a GQA/MQA model)")
        served = shape.served if getattr(shape, "served", None) is not None else shape.micro_batch
        cache = f"a {show(kv_bytes, 'bytes')}-per-value KV cache" if kv_bytes is not None else "a KV cache"
        return (f"method = inference: weights at {show(method.weight_bytes, 'bytes/param')}, {cache} of "
                f"{show(shape.seq_length)} tokens × {show(served)} sequence(s) served at once, {heads}")
    if method.id in ADAPTERS:
        return (f"method = {method.id}: frozen base in {'4-bit NF4' if method.id == 'qlora' else 'bf16'}, "
                f"rank {show(method.rank)} adapters trained, activations as for training"
                + ("; with FSDP the sharded weights offloaded to CPU memory" if method.offload else ""))
    return (f"method = {method.id}: every weight trained"
            + ("; optimizer states, fp32 master weights and gradients offloaded to the CPU" if method.offload else ""))
