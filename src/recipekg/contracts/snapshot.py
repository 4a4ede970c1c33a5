"""The compiled snapshot's tables, typed: what :mod:`recipekg.knowledge.compiler` writes and every
package reads (through :class:`recipekg.knowledge.view.SnapshotView` or by key). A test checks
the bundled snapshot against these definitions, so a compiler change that adds, drops or
retypes a field is a failing test, not a reader's surprise.

    >>> from recipekg.contracts.schema import required_keys
    >>> sorted(required_keys(Condition))
    ['dimension', 'label', 'max', 'max_inclusive', 'min', 'min_inclusive', 'values']
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from recipekg.contracts.common import Origin


class Citation(TypedDict):
    """What a source does for the item citing it (``cito:Citation``), and whether the KB says so."""

    role: str
    where: str | None
    typed: NotRequired[bool]


class Cited(TypedDict):
    """What every sourced item of the KB carries: its sources and what each does for it."""

    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    sources: list[str]
    citations: dict[str, Citation]


class NoAdviceGap(TypedDict):
    """A value the reference gives no advice for, and where its nearest advice is."""

    message: str
    nearest_query: str | None
    nearest_section: str | None


class Node(Cited):
    """An entity: a choice, a value of a dimension, hardware, a failure mode."""

    id: str
    label: str
    aliases: list[str]
    kinds: list[str]
    types: list[str]
    broader: list[str]
    #: Values of other dimensions this value implies when those are not given (rkg:impliesValue)
    implies: list[str]
    ancestors: list[str]
    papers: list[str]
    definition: str | None
    notes: str | None
    caveat: str | None
    best_for: str | None
    fixed_by: list[str]
    no_advice: NotRequired[NoAdviceGap]
    superseded_by: NotRequired[list[str]]
    #: The combined choices this one is a part of (rkg:combines on them), sorted.
    part_of: NotRequired[list[str]]


class Rule(Cited):
    """A rule: what it recommends and advises against, when (its conditions), how strongly."""

    id: str
    label: str
    text: str
    recommends: list[str]
    against: list[str]
    conditions: list[str]
    strength: str
    section: str
    role: str | None
    caveat: str | None
    contradicts: list[str]
    differs_from: list[str]
    for_kinds: list[str]
    procedure: str | None
    step: float | None
    superseded_by: NotRequired[list[str]]


class Condition(TypedDict):
    """A condition on one dimension: values it names, or bounds."""

    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    dimension: str
    label: str
    values: list[str]
    min: float | None
    min_inclusive: bool
    max: float | None
    max_inclusive: bool


class Dimension(TypedDict):
    """A dimension of the query language (ontology/dimensions.ttl)."""

    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    iri: str
    name: str
    label: str
    kind: str
    aliases: list[str]
    definition: str | None
    question: str | None
    example: str | None
    min: float | None
    max: float | None
    derived_via: str | None
    #: The value a statement that gives none is read with where a formula asks (``rkg:defaultValue``:
    #: pretraining for the method), by IRI.
    default: str | None
    #: The dimensions its values are defined on (``rkg:derivedFrom``), or that its formula reads.
    derived_from: list[str]
    #: The formula that computes it from ``derived_from`` (``rkg:derivedBy``), by IRI.
    derived_by: str | None
    #: Every formula that computes it (``rkg:derivedBy``), by IRI, sorted: one per training method
    #: (``rkg:forMethod``), each reading what ``derived_by`` reads; the reasoner takes the first the
    #: query's method admits.
    derived_by_all: list[str]
    #: The formulas that give it from a budget the query gives instead (``rkg:sizedBy``: the
    #: compute-optimal model size from FLOPs), each ``[formula IRI, [the dimensions it reads]]``,
    #: the one reading the most first; the reasoner takes the first whose inputs are given.
    sized_by: list[tuple[str, list[str]]]
    #: The dimension whose values run a value given of this one (``rkg:runsOn``: a training
    #: precision on the tensor cores' precisions), by name; None for most.
    runs_on: str | None
    #: The model figures that formula reads through a rule of thumb, each ``[figure, formula IRI]``
    #: (``layers``: the formula computing it from ``params``) after those it needs; the reasoner
    #: takes a query's value or a named model's first.
    derived_through: list[list[str]]
    #: Those of ``derived_from`` the query need not give (the formula's ``rkg:openInput``): not
    #: given, they range over their dimension's values.
    open_inputs: list[str]
    plan_only: bool
    #: A demand against a capacity (rkg:capacityShare): a threshold on it is never near.
    capacity: bool
    problem_fact: bool
    order: float | None
    value_class: str | None
    unit: str | None
    #: Every accepted spelling of a value → the value's IRI.
    values: dict[str, str]


class Paper(TypedDict):
    """A source: its bibliographic record."""

    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    id: str
    iri: str
    title: str
    year: int | None
    arxiv: str | None
    url: str | None
    doi: str | None
    types: list[str]
    entry_type: str | None
    sections: list[str]
    accessed: str | None
    authors: str | None
    #: Whether ``authors`` has the bibliography's form (``recipekg.cite.entries.author_list`` reads it).
    authors_structured: bool
    author_count: int | None
    authors_complete: bool | None
    author_group: str | None
    published_title: str | None
    booktitle: str | None
    journal: str | None
    publisher: str | None
    venue: str | None
    volume: str | None
    number: str | None
    pages: str | None
    version: str | None


class Section(TypedDict):
    """A section of the reference (or of the KB's own, beyond it; or an extension's own,
    which has no parent)."""

    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    path: str
    parent: str | None
    order: float | None


class Constant(Cited):
    """A sourced number of the KB, with its range."""

    id: str
    label: str
    text: str
    symbol: str | None
    value: float | None
    low: float | None
    high: float | None
    unit: str | None
    quantity: str | None
    applies_to: list[str]
    section: str
    caveat: str | None
    superseded_by: NotRequired[list[str]]


class Formula(Cited):
    """A sourced formula: its text, the tree the compiler read it into and the names it reads."""

    id: str
    label: str
    text: str
    expression: str
    output: str
    computes: str
    names: list[str]
    tree: list[Any] | str  # a right-hand side of one name (kv_heads = heads) is that name
    constants: list[str]
    applies_to: list[str]
    #: The kinds of model whose shape the formula's rule of thumb gives (``rkg:shapeOf``).
    shape_of: list[str]
    #: The training methods (IRIs) the formula is for (``rkg:forMethod``); empty: any.
    for_methods: list[str]
    #: The dimensions (by name) the formula reads over their whole range when not given
    #: (``rkg:openInput``).
    open_inputs: list[str]
    section: str
    caveat: str | None
    superseded_by: NotRequired[list[str]]


class Fact(Cited):
    """A sourced fact: a published run, a table row, a statement (its figures where it has any)."""

    id: str
    label: str
    text: str
    types: list[str]
    about: list[str]
    section: str
    caveat: str | None
    params: NotRequired[float]
    tokens: NotRequired[float]
    flops: NotRequired[float]
    gpu_hours: NotRequired[float]
    mfu: NotRequired[float]
    hardware: NotRequired[str]
    learning_rate: NotRequired[float]
    batch_tokens: NotRequired[float]
    layers: NotRequired[float]             #: a published run's model: its layers,
    attention_width: NotRequired[float]    #: heads × head size,
    seq_length: NotRequired[float]         #: and the sequence length it trained at
    superseded_by: NotRequired[list[str]]


class Strength(TypedDict):
    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    label: str
    weight: float
    rank: float


class Tier(TypedDict):
    """A compute tier of the budget flowchart: its conditions on gpus and time."""

    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    label: str
    conditions: list[str]


class Trainer(TypedDict):
    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    #: The configuration format's name (``--emit``): the trainer's skos:notation.
    id: str
    #: The device types it runs on (rkg:runsOnDevice; none: not checked).
    devices: list[str]


class Procedure(TypedDict):
    #: What an extension added: its file and line.
    origin: NotRequired[Origin]
    label: str
    ordered: bool


class ModelShape(Cited):
    """A named model configuration (kb/models.ttl)."""

    id: str
    label: str
    family: list[str]
    #: The data it reads (kb:text for a language model), which a query naming it means.
    data: list[str]
    params: float
    active_params: float | None
    #: The size it is published as (70B for Llama 3 70B's 70.55B), which size classes read.
    nominal_params: float | None
    layers: float
    hidden: float
    heads: float
    kv_heads: float
    ffn_hidden: float
    ffn_matrices: float
    vocab: float | None
    #: Vocabulary × hidden matrices: 2 when the input embedding and output layer are untied, 1 tied.
    embedding_matrices: float | None
    seq_length: float | None
    #: The same figure as seq_length, under the name the trained-context dimension reads.
    trained_context: float | None
    attention_window: float | None
    experts: float | None
    experts_per_token: float | None
    caveat: str | None


class Scoring(TypedDict):
    """The scoring model's parameters (docs/scoring.md), from the KB."""

    unconstrained_factor: float
    partly_credit: float
    default_support: float | None


#: The tables of a snapshot that are a mapping of IRI (or id) → an entry of one type.
class MfuPoint(TypedDict):
    """A published run's MFU (recipekg.plan.utilisation.points), with its fact's IRI."""

    iri: str
    fact: str
    label: str
    mfu: float
    params: float
    basis: str
    hardware: str
    peak: float
    gpu_hours: NotRequired[float]
    attention_flops: NotRequired[float]    #: the run's attention FLOPs, counted in its MFU (0: its shape unknown)


class PlanIndex(TypedDict):
    """Plan's look-ups compiled with the snapshot (recipekg.plan.index): IRIs, in the order the
    scans they replace meet them, and the published runs' MFUs."""

    constants_by_symbol: dict[str, str]
    constants_by_entity: dict[str, list[str]]
    constant_ids: dict[str, str]
    formulas_by_output: dict[str, list[str]]
    formula_ids: dict[str, str]
    #: The first formula (by IRI) whose expression does not read: plan stops at it.
    broken_formula: str | None
    facts_by_type: dict[str, list[str]]
    fact_ids: dict[str, str]
    #: The published pretraining recipes (facts with a size, a peak learning rate and a batch),
    #: by size: ``[params, IRI]`` pairs, smallest first (what a plan's hyperparameters are set beside).
    recipes_by_params: list[list[Any]]
    #: None when they cannot be computed (each plan then computes them, and fails, itself).
    mfu_points: list[MfuPoint] | None


TABLES: dict[str, Any] = {"nodes": Node, "rules": Rule, "conditions": Condition, "dimensions": Dimension,
                          "papers": Paper, "sections": Section, "constants": Constant, "formulas": Formula,
                          "facts": Fact, "strengths": Strength, "tiers": Tier, "procedures": Procedure,
                          "models": ModelShape}


class Snapshot(TypedDict):
    """The compiled snapshot (its tables of entries, and the indexes built over them)."""

    format: int
    nodes: dict[str, Node]
    rules: dict[str, Rule]
    conditions: dict[str, Condition]
    dimensions: dict[str, Dimension]
    papers: dict[str, Paper]
    sections: dict[str, Section]
    constants: dict[str, Constant]
    formulas: dict[str, Formula]
    facts: dict[str, Fact]
    strengths: dict[str, Strength]
    tiers: dict[str, Tier]
    #: The dimensions derived from others (``derived_from``), by name, in the order to derive them.
    derived_dimensions: list[str]
    #: The dimensions a formula sizes from a budget given instead (``sized_by``), by name.
    sized_dimensions: list[str]
    procedures: dict[str, Procedure]
    models: dict[str, ModelShape]
    scoring: Scoring
    kinds: dict[str, str]
    #: Each accelerator's numeric figures, and the IRIs of a property a dimension is derived through, by property IRI.
    hardware: dict[str, dict[str, float | list[str]]]
    rule_index: dict[str, Any]
    plan_index: PlanIndex
    #: The recipe's tables (knowledge/compile_recipe.py): hyperparameters, their settings by
    #: owner, regimes, an approach's training method, a choice's recipe section, failure
    #: modes and the conditions a recipe shows a choice under.
    hyperparameters: dict[str, Any]
    settings: dict[str, Any]
    regimes: dict[str, Any]
    training_methods: dict[str, str]
    trains_weights: dict[str, bool]
    method_layouts: dict[str, list[str]]
    fixed_by: dict[str, dict[str, float]]
    recipe_sections: dict[str, str]
    #: The kinds whose choices are parts of one run, laid out by recipe section (rkg:bySection).
    sectioned_kinds: list[str]
    failure_modes: dict[str, list[str]]
    #: The trainers a recipe's configurations are written for, by IRI (rkg:Trainer).
    trainers: dict[str, Trainer]
    choice_conditions: dict[str, list[str]]
    #: Choice properties (knowledge/properties.py), and their IRIs by choice and by the dimension they check.
    choice_properties: dict[str, Any]
    properties_by_choice: dict[str, list[str]]
    #: kind name → the properties of every choice of that kind (rkg:propertyOfKind)
    properties_by_kind: dict[str, list[str]]
    properties_by_dimension: dict[str, list[str]]
    superseded: dict[str, Any]
    triples: int
    #: The extension files validated before the build (a KB with extensions).
    validated: NotRequired[list[str]]
    #: False when the SHACL shapes were skipped (``shacl=False``).
    shacl: NotRequired[bool]

