"""The ``plan`` answer: the quantities of a training run, each with its formula, constants,
sources and derivation, the verdict on fit and time, and what would change it.

    >>> from recipekg.contracts import documents  # fills in the registries' names
    >>> from recipekg.contracts.schema import schema_of
    >>> "flops" in schema_of(QuantityName, {})["enum"]
    True
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from recipekg.contracts.common import Ask, Constraint, RankedReason, Range, Reason, Revision, Source, Stamp
from recipekg.contracts.schema import Names

#: A quantity's name: one of the registry's (plan/quantities.py).
QuantityName = Annotated[str, Names("quantity")]
Verdict = Literal["fits", "may fit", "does not fit"]
#: A pipeline stage the memory per GPU is bounded by (``only`` without a pipeline).
Stage = Literal["first", "last", "only"]
#: Which dense 16-bit peak of the hardware time is computed on.
PeakPrecision = Literal["bf16", "fp16"]


class FormulaRef(TypedDict):
    """The KB formula a quantity is computed by."""

    id: str
    iri: str
    label: str
    expression: str


class Constant(TypedDict):
    """A KB constant a quantity reads (or a ratio the query gives: no id)."""

    id: str | None
    symbol: str | None
    label: str
    value: float | None
    low: float | None
    high: float | None
    unit: str | None
    superseded_by: NotRequired[list[Revision]]


class Caveat(TypedDict):
    """A caveat of the formula or of one of its constants (``of``: its id)."""

    of: str
    text: str


class PartFormula(TypedDict):
    id: str
    expression: str


class MemoryPart(TypedDict):
    """A part of the training memory of the reference's rule of thumb, per parameter and in all."""

    name: QuantityName
    label: str
    value: float | None
    low: float | None
    high: float | None
    unit: str
    bytes_per_param: Range
    constants: list[Constant]
    sources: list[Source]
    formula: PartFormula
    derivation: str


class PartsSum(TypedDict):
    """The parts added up, per parameter and in all."""

    bytes_per_param: Range
    value: float | None
    low: float | None
    high: float | None


class PerGpuPart(TypedDict):
    """A part of the memory per GPU of the layout found."""

    name: QuantityName
    label: str
    value: float | None
    low: float | None
    high: float | None
    unit: str
    formula: str | None


class TableRow(TypedDict):
    """A row of the reference's FLOPs/GPU-hours table and the MFU it implies."""

    fact: str
    params: float
    flops: float
    gpu_hours: float
    mfu: float | None


class PublishedRun(TypedDict):
    """A published run's MFU the plan's MFU range is drawn from."""

    fact: str
    label: str
    mfu: float | None
    basis: str
    hardware: str
    params: float
    gpu_hours: NotRequired[float]
    #: the attention FLOPs its GPU-hours paid for, counted in its MFU (0: the KB has not its shape)
    attention_flops: NotRequired[float]


class TableFigure(TypedDict):
    """The reference table's figure beside the formula's."""

    fact: str
    label: str
    value: float
    hardware: NotRequired[str]
    #: The formula's value on the table's own hardware.
    formula_value_on_table_hardware: NotRequired[float | None]
    section: str | None
    sources: list[Source]


class QuantityMore(TypedDict, total=False):
    """The fields a plan step adds to a quantity beyond the ledger's own (``Ledger.add``'s ``**more``)."""

    #: The number was given in the query (or is a named configuration's): shown exactly.
    given: bool
    #: A whole number assumed in place of one not given (GPT-3's context), shown exactly.
    exact: bool
    #: Why the quantity has no value.
    missing: str
    #: Why the quantity is no figure of the plan's method (a fixed name kept without a value:
    #: a serving plan's training tokens, a LoRA plan's rule-of-thumb training memory).
    not_applicable: str
    parts: list[MemoryPart]
    bytes_per_param: Range | None
    parts_sum: PartsSum
    rows: list[TableRow]
    published: list[PublishedRun]
    #: The GPUs (hardware ids) the MFU's published points were measured on.
    measured_on: list[str]
    #: Whether those GPUs have the plan's GPU's compute: its dense 16-bit peak, or the compute
    #: the KB states it shares (``rkg:sameComputeAs``: the H200's is the H100's); else the
    #: points of other GPUs stand in (the KB has too few on the plan's).
    same_peak: bool
    hardware: str | None
    table: TableFigure
    per_gpu_parts: list[PerGpuPart]
    #: Which pipeline stage's activations the memory per GPU counts: the one that needs the most
    #: (``first``: p micro-batches of its layers; ``last``: its layers for one micro-batch, the
    #: output layer and the logits; ``only``: no pipeline, one stage).
    bounding_stage: Stage
    #: Whether the guidance applies to this run.
    applies: bool
    assumption: str


class Quantity(QuantityMore):
    """A quantity of the plan: its value and range, unit, formula, constants, sources, the
    reference's section and a derivation with the numbers plugged in."""

    name: QuantityName
    label: str
    value: float | None
    low: float | None
    high: float | None
    unit: str
    formula: FormulaRef | None
    constants: NotRequired[list[Constant]]
    caveats: NotRequired[list[Caveat]]
    sources: list[Source]
    derivation: str
    section: str | None
    superseded_by: NotRequired[list[Revision]]


class Strategy(TypedDict):
    """How the run is sized: the approach, its tokens-per-parameter ratio and why."""

    id: str
    label: str
    tokens_per_param: Constant
    why: str
    because: list[RankedReason]
    #: The regime a given (or implied) ratio falls in (None for a mixture of experts: the regimes are
    #: dense models' ratios).
    regime: NotRequired[str | None]
    given: NotRequired[bool]
    implied: NotRequired[bool]


class Backwards(TypedDict):
    """How planning backwards (GPUs × time × peak × MFU) found the compute."""

    text: str
    gpus: Range | None
    time_hours: Range | None
    hardware: str | None
    peak: str
    peak_flops_per_second: float | None
    mfu: Range | None
    gpu_hours: Range | None
    #: the training FLOPs (6·N·D) the budget sizes from: its model FLOPs less the attention's at that size
    flops: Range | None


class Hardware(TypedDict):
    """The KB's figures for the hardware, with their sources."""

    id: str
    label: str
    memory_bytes: float | None
    bandwidth_bytes_per_second: float | None
    bf16_peak_flops_per_second: float | None
    fp16_peak_flops_per_second: float | None
    fp8_peak_flops_per_second: float | None
    interconnect_bytes_per_second: float | None
    #: GPUs software sees in one package the vendor sells (an MI250X: 2, its dies); the
    #: figures above are per GPU, and ``gpus`` counts them.
    devices_per_package: int
    peak_used: PeakPrecision | None
    sources: list[Source]


class Over(TypedDict):
    """How far the need is over the memory (bytes; ``factor_*``: as a multiple of it)."""

    low: float | None
    high: float | None
    factor_low: NotRequired[float | None]
    factor_high: NotRequired[float | None]


class PlacementLayout(TypedDict):
    """A placement's layout: its ZeRO stage over every GPU as data parallel, no tensor or
    pipeline parallelism, at the least recomputation that fits (else the leanest)."""

    zero: int
    tensor_parallel: int
    pipeline_parallel: int
    data_parallel: int
    recompute: Literal["none", "selective", "full"]


class Placement(TypedDict):
    """One placement: a whole copy on every GPU (``replicated``, ZeRO stage 0) or every state
    sharded with FSDP (``sharded``, ZeRO stage 3). Counted by the memory model the verdict comes
    from (``formula`` memory-per-gpu-detailed, with its ``layout``) for a run training every
    weight with its states on the GPUs, the reference's rule-of-thumb figure beside it (``rule_of_thumb_need_per_gpu``); for an
    offloaded run or adapters, the reference's rule of thumb alone (``formula``
    fsdp-memory-per-gpu for the sharded one)."""

    verdict: Verdict
    over: Over | None
    need_per_gpu: Range | None
    formula: NotRequired[str]
    layout: NotRequired[PlacementLayout]
    rule_of_thumb_need_per_gpu: NotRequired[Range | None]
    text: str


class RuleOfThumb(TypedDict):
    verdict: Verdict
    text: str


class Layout(TypedDict):
    """A parallel layout: ZeRO stage, tensor, pipeline and data parallel degrees, recomputation,
    micro-batch and offload."""

    zero: int
    tensor_parallel: int
    pipeline_parallel: int
    data_parallel: int
    recompute: Literal["none", "selective", "full"]
    micro_batch: int
    offload: Literal["cpu", "none"]
    #: The most sequences per GPU this layout fits (its memory figures are for ``micro_batch``,
    #: one unless given): absent at inference, with micro-batch given, or when one is all that fits.
    micro_batch_room: NotRequired[int]


class StageMemory(TypedDict):
    """One pipeline stage's memory per GPU: its activations (the layers it keeps, the layer
    full recomputation rebuilds, the output layer's logits on the last) on top of the model
    states, buffers and headroom every stage holds alike."""

    stage: Literal["first", "last"]
    #: Micro-batches whose activations the stage holds at once (1F1B: p on the first, 1 on the last).
    microbatches_in_flight: int
    activations: Range
    memory_per_gpu: Range


class Fit(TypedDict):
    """Whether the run fits the GPUs' memory: the layout search's verdict, with two placements
    by the same memory model (``replicated``, ``sharded``: the rule of thumb's for an offloaded
    run or adapters) and the rule of thumb's own verdict (``rule_of_thumb``) beside it."""

    hardware: Hardware | None
    gpus: float | None
    memory_per_gpu: Range | None
    memory_total: Range | None
    replicated: Placement
    sharded: Placement | None
    verdict: Verdict
    fits: bool
    text: str
    rule_of_thumb: NotRequired[RuleOfThumb]
    method: NotRequired[str]
    #: The layout that fits (null when none does).
    layout: NotRequired[Layout | None]
    need_per_gpu: NotRequired[Range | None]
    #: The leanest layout, when none fits.
    leanest_layout: NotRequired[Layout]
    gpus_needed: NotRequired[int | None]
    #: Which pipeline stage bounds the memory per GPU of the layout (``only`` without a pipeline).
    bounding_stage: NotRequired[Stage]
    #: With a pipeline: the first and the last stage's memory per GPU.
    stages: NotRequired[list[StageMemory]]


class RemedyMore(TypedDict, total=False):
    """What only some remedies carry."""

    #: From the detailed memory model (the layout search), not the rule of thumb.
    detailed: bool
    #: The constraints to give (dimension → value; null: drop the constraint).
    change: dict[str, float | str | None]
    gpus_needed: int | Range | None
    params: Range | None
    applies_to: str
    base_weight_memory: Range | None
    base_fits: bool


class Remedy(RemedyMore):
    """What would make the run fit: a technique, a knob or another method, what it saves and
    whether that is enough."""

    id: str
    label: str
    iri: str | None
    saving_per_gpu: Range | None
    memory_per_gpu_after: Range | None
    verdict: Verdict | None
    enough: bool | None
    text: str
    constants: list[Constant]
    formula: str | None
    rules: list[RankedReason]
    sources: list[Source]


class LargestModel(TypedDict):
    """The largest model a method fits in the memory given."""

    method: str
    params: Range | None
    memory_per_gpu: Range | None
    text: str


class HardwareRule(Reason):
    """A rule about model size on this hardware (or a tier's advice), with its choices."""

    recommends: list[str]
    advises_against: list[str]


class Feasibility(TypedDict):
    """The hardware's rules on model size, and the time budget."""

    rules: list[HardwareRule]
    time_budget: float | None
    meets_time_budget: bool | None
    #: The GPUs that would meet a time budget the plan misses.
    gpus_for_time: int | None
    #: For a budget met at the high MFUs of the range and missed at the low: the MFU from
    #: which it is met (the GPU-hours formula solved for it; its high end over a FLOPs range).
    mfu_for_time: NotRequired[float]
    text: str | None


class TierExample(TypedDict):
    gpus: float
    hours: float | None
    text: str


class Tier(TypedDict):
    """The compute tier of the reference's budget flowchart, and its advice."""

    id: str
    label: str
    iri: str
    exact: bool
    basis: str
    text: str
    section: str | None
    advice: list[HardwareRule]
    example: NotRequired[TierExample]


class Threshold(Constant):
    """The hardware's bandwidth-bound threshold (a KB constant), with its section."""

    section: str | None


class Bandwidth(TypedDict):
    """The hardware's ridge point and whether the reference calls it bandwidth-limited."""

    hardware: str
    ridge_intensity: float | None
    threshold: Threshold | None
    bandwidth_bound: bool | None
    sources: list[Source]
    text: str


class Note(TypedDict):
    """A note or warning, with the sources and section of the KB items it is about."""

    text: str
    sources: list[Source]
    section: NotRequired[str]


class PlanBody(TypedDict):
    """A ``plan`` answer as plan/planner.py builds it (before its ``as_of``)."""

    statement: Literal["plan"]
    query: str
    constraints: list[Constraint]
    #: The answer's first lines: the verdict and what to change first.
    summary: list[str]
    strategy: Strategy
    backwards: Backwards | None
    hardware: Hardware | None
    quantities: list[Quantity]
    method: str
    largest_models: list[LargestModel] | None
    fit: Fit | None
    recommendations: list[Remedy]
    feasibility: Feasibility
    ask: list[Ask]
    tier: Tier | None
    bandwidth: Bandwidth | None
    notes: list[Note]
    warnings: list[Note]


class PlanAnswer(PlanBody, Stamp):
    """The answer to ``plan [where ...]``."""
