"""The compact answer (``--format summary``, MCP's answering tools unless ``detail: true``,
``/api/query?detail=0``): the decision, key quantities with their units and the ids of the
sources, at most 8 KB (:mod:`recipekg.render.summary`). One shape per statement.

    >>> from recipekg.contracts import documents  # fills in the registries' names
    >>> from recipekg.contracts.schema import schema_of
    >>> defs = {}
    >>> schema_of(PlanSummary, defs) and defs["PlanSummary"]["properties"]["statement"]
    {'enum': ['plan']}
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from recipekg.contracts.plan import Layout, LargestModel, QuantityName
from recipekg.contracts.recipe import Context, SectionName
from recipekg.contracts.schema import Names


class SummaryChoice(TypedDict):
    """A choice by its id (and label, when the answer's results name it)."""

    id: str
    label: NotRequired[str]


class SummaryReason(TypedDict):
    """A rule that decides, with the ids of its sources."""

    rule: str
    strength: str
    text: str
    sources: list[str]


class SideReason(SummaryReason):
    """A rule of explain that applies, and on which side of the choice it is."""

    side: Literal["for", "against"]


class ExtensionMark(TypedDict):
    """An extension file that contributed to the answer: how many of its claims are in it, and
    the lines of the first of them."""

    file: str
    claims: int
    lines: list[int]


class SummaryCommon(TypedDict):
    """What every compact answer carries."""

    query: str | None
    #: Each constraint as the query language writes it (with what the reference gives no advice for).
    constraints: list[str]
    #: The constraints no advice used, each with why.
    unused: NotRequired[list[str]]
    as_of: str | None
    #: The extensions whose knowledge is in the answer (the whole answer marks each claim's ``origin``).
    extensions: NotRequired[list[ExtensionMark]]
    #: How to ask for the whole answer.
    detail: str
    #: What the compact answer left out, counted (``text``: how long texts were cut).
    omitted: NotRequired[dict[str, int | str]]


class SummaryDecision(TypedDict):
    pick: SummaryChoice | None
    runner_ups: list[SummaryChoice | None]
    compare_with: list[SummaryChoice | None]
    #: The ordered procedure's steps that apply, when the pick is one.
    procedure: NotRequired[list[str]]
    #: The matches the advice does not separate from the pick.
    tied_with: NotRequired[list[SummaryChoice | None]]
    #: The matches that are the pick's family, and its kinds that match (never runner-ups).
    broader: NotRequired[list[SummaryChoice | None]]
    narrower: NotRequired[list[SummaryChoice | None]]
    #: The parts of the pick (a combination) that match too (never runner-ups).
    parts: NotRequired[list[SummaryChoice | None]]
    #: The combinations the pick is a part of that match too (never runner-ups).
    part_of: NotRequired[list[SummaryChoice | None]]
    #: The best match of each other recipe section: other parts of the run.
    alongside: NotRequired[list[SummaryAlongside]]


class SummaryAlongside(TypedDict):
    section: str
    pick: SummaryChoice | None
    tied_with: NotRequired[list[SummaryChoice | None]]


class SummaryResult(TypedDict):
    """One of the first results, with the rules that decide it."""

    rank: int
    id: str
    label: str
    score: float
    group: str
    because: list[SummaryReason]
    against: NotRequired[list[SummaryReason]]
    waits_for: NotRequired[list[str]]
    #: The ids of a family's members.
    members: NotRequired[list[str]]
    #: The memory saving checked against the run's memory-load: what it leaves, enough alone or not.
    memory_saving: NotRequired[str]


class SummaryExcluded(TypedDict):
    id: str
    why: str
    sources: list[str]


class RecommendSummary(SummaryCommon):
    """``recommend``: the pick, runner-ups and the first results with their deciding rules."""

    statement: Literal["recommend"]
    kind: str
    decision: SummaryDecision
    results: list[SummaryResult]
    ask: NotRequired[list[str]]
    excluded: NotRequired[list[SummaryExcluded]]
    near_boundary: NotRequired[list[str]]
    #: The memory shortfall (a run over all the GPUs' memory) and what closes it.
    shortfall: NotRequired[str]
    #: plan's verdict on the time budget for the run decided on.
    compute_check: NotRequired[str]
    #: With no pick: the other kinds whose advice for these constraints decides.
    elsewhere: NotRequired[list[SummaryElsewhere]]


class SummaryElsewhere(TypedDict):
    kind: str
    query: str
    verdict: str
    choice: SummaryChoice


class ExplainExcluded(TypedDict):
    why: str
    sources: list[str]


class ExplainSummary(SummaryCommon):
    """``explain``: the choice's rank and the rules that apply to it."""

    statement: Literal["explain"]
    kind: str
    choice: SummaryChoice
    rank: int | None
    rules: list[SideReason]
    #: Queries under which the choice would rank first.
    would_rank_first_if: list[str]
    member_of: NotRequired[str]
    #: The entries the advice does not separate from the choice's (the same score, decided alike).
    tied_with: NotRequired[list[str]]
    against: NotRequired[list[str]]
    excluded: NotRequired[ExplainExcluded]
    no_change_because: NotRequired[str]
    #: The choice's memory saving checked against the run's memory-load.
    memory_saving: NotRequired[str]
    #: The memory shortfall and what closes it.
    shortfall: NotRequired[str]
    #: plan's verdict on the time budget for the run of the choice explained.
    compute_check: NotRequired[str]


class SummaryQuantity(TypedDict):
    """A quantity's value (its range when it is one), unit and source ids."""

    value: float | None
    unit: str | None
    low: NotRequired[float]
    high: NotRequired[float]
    sources: NotRequired[list[str]]


class SummaryFit(TypedDict):
    fits: bool | None
    text: str | None
    layout: Layout | None


class SummaryFeasibility(TypedDict):
    meets_time_budget: bool | None
    gpus_for_time: int | None
    text: str | None


class SummaryRemedy(TypedDict):
    label: str
    text: str
    enough: bool | None
    change: dict[str, float | str | None] | None


class PlanSummary(SummaryCommon):
    """``plan``: its verdict lines, the fit, every quantity's value, range and unit."""

    statement: Literal["plan"]
    verdict: list[str]
    fit: SummaryFit | None
    quantities: dict[QuantityName, SummaryQuantity]
    feasibility: NotRequired[SummaryFeasibility]
    recommendations: NotRequired[list[SummaryRemedy]]
    largest_models: NotRequired[list[LargestModel]]
    ask: NotRequired[list[str]]
    warnings: NotRequired[list[str]]


class SummaryItem(TypedDict):
    """A recipe item: what it is, its value as a person reads it, its source ids."""

    what: str
    value: str
    sources: NotRequired[list[str]]
    unsourced: NotRequired[Literal[True]]
    needs: NotRequired[list[str]]


class SummaryPlan(TypedDict):
    verdict: list[str]


class RecipeSummary(SummaryCommon):
    """``recipe``: each section's values with their source ids, and what is unsourced."""

    statement: Literal["recipe"]
    context: Context
    sections: dict[SectionName, list[SummaryItem]]
    #: The items the KB has no sourced value for.
    unsourced: list[str]
    #: The configuration formats the answer carries.
    configs: list[Annotated[str, Names("emit-format")]]
    plan: NotRequired[SummaryPlan]


#: Each statement's compact answer.
SUMMARIES = {"recommend": RecommendSummary, "explain": ExplainSummary, "plan": PlanSummary,
             "recipe": RecipeSummary}
