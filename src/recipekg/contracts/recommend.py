"""The ``recommend`` answer: ranked choices with the rules for and against each, the pick, the
questions that would change it and the situation around the ranking (docs/scoring.md).

    >>> from recipekg.contracts.schema import required_keys
    >>> sorted(required_keys(Decision)), "procedure" in Decision.__annotations__
    (['compare_with', 'pick', 'runner_ups'], True)
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from recipekg.contracts.common import (Ask, Choice, Constraint, ConstraintUnit, Excluded, Match, Origin, Property,
                                       RankedReason, Range, Source, Stamp, Unused, Via)

#: ``matches``: some rule decides for or against the choice; ``would apply``: every rule
#: for it waits for a dimension the query did not give.
Group = Literal["matches", "would apply"]
#: Where the user's value lies against a threshold.
Position = Literal["below", "above", "at"]


class Procedure(TypedDict):
    """The ordered procedure the pick is a step of, with the steps that apply, in order."""

    id: str
    steps: list[str]


class Alongside(TypedDict):
    """The best match of a recipe section other than the pick's (``rkg:recipeSection``; a
    choice without one is in its kind's own): another part of the run, not an alternative."""

    section: str
    pick: str
    #: The section's matches the advice does not separate from its pick (as ``tied_with``).
    tied_with: NotRequired[list[str]]


class AheadBy(TypedDict):
    """The matches the advice ranks alike with the pick (the same score, specificity and deciding
    rules' strengths) that the pick is ahead of only because its own properties fit constraints
    no deciding rule reads: Mamba for a 32K-token generation, ahead of the decoder it shares a
    score with, as its property covers the sequence length."""

    #: Those matches, in rank order.
    of: list[str]
    #: The dimensions the pick's properties fit and theirs do not.
    fits: list[str]


class Elsewhere(TypedDict):
    """Another kind of choice whose advice for these constraints decides, when this answer has
    no advice of its own (reason/elsewhere.py): the kind, the statement that asks it, and the
    choice its advice is ``for`` (its pick) or ``against`` (one the user made: their method's
    approach, their optimizer)."""

    kind: str
    verdict: Literal["for", "against"]
    choice: str
    label: str
    query: str


class Family(TypedDict):
    """A family a choice is one of (``skos:broader``): its id and label."""

    id: str
    label: str


class Yours(TypedDict):
    """A choice of the kind asked that the user gave, and where the answer ranks it."""

    choice: str
    label: str
    #: The dimension the user gave it on (``architecture`` for ``model = mistral-7b``).
    dimension: str
    #: When it ranks only through a family of it (no rule names it): that family, the nearest.
    family: NotRequired[Family]
    #: Its entry's (or the family's) rank, group and score; absent when no entry ranks it.
    rank: NotRequired[int]
    group: NotRequired[Literal["matches", "would apply"]]
    score: NotRequired[float]
    text: str


class Decision(TypedDict):
    """The recommended pick (null when no choice matches and scores), its runner-ups and the
    choices the reference says to compare with it."""

    pick: str | None
    runner_ups: list[str]
    compare_with: list[str]
    procedure: NotRequired[Procedure]
    #: The matches the advice does not separate from the pick (the same score from the same
    #: rules): the pick is first among them by id only.
    tied_with: NotRequired[list[str]]
    #: Matches ranked alike with the pick that it is ahead of only by its properties' fit.
    ahead_by: NotRequired[AheadBy]
    #: Matches that are the family the pick is one of (``skos:broader``, at any depth), in rank
    #: order: no alternative to it, so never runner-ups.
    broader: NotRequired[list[str]]
    #: Matches that are kinds of the pick (narrower choices that match too: ways to do it),
    #: in rank order; never runner-ups.
    narrower: NotRequired[list[str]]
    #: Matches that are parts of the pick (a combination: ``rkg:combines``), in rank order;
    #: never runner-ups.
    parts: NotRequired[list[str]]
    #: Matches that are combinations the pick is a part of (``rkg:combines``): FSDP picked, as
    #: the data parallelism of five-way parallelism; never runner-ups.
    part_of: NotRequired[list[str]]
    #: The pick's recipe section, for a kind whose choices are parts of one run (rkg:bySection).
    section: NotRequired[str]
    #: The best match of each other recipe section, in rank order: runner-ups and ties are the
    #: pick's section's (train from scratch; alongside it, five-way parallelism).
    alongside: NotRequired[list[Alongside]]
    #: Choices the user made (their optimizer, the approach that is their method) that advice
    #: for their case weighs against, in rank order: pretraining 13B on 8 GPUs for a week.
    against_yours: NotRequired[list[str]]
    #: Where the answer ranks each other choice of the kind the user gave (their optimizer, their
    #: model): its own entry, the nearest family of it that ranks, or none (reason/elsewhere.py).
    yours: NotRequired[list[Yours]]


class MemorySaving(TypedDict):
    """A memory-saving choice checked against the run's memory-load (reason/shortfall.py): what
    it saves of the rule of thumb's bytes per parameter and the memory-load it leaves."""

    saved_bytes_per_param: Range
    #: The memory-load (share of all the GPUs' memory, 1 = 100%) the query gives or implies.
    memory_load: Range
    memory_load_after: Range
    #: True: enough alone (at most 100% after it); false: not enough alone; null: enough at
    #: the low end of the estimate only.
    enough: bool | None
    text: str
    #: The KB formulas: the saving's, then the one that checks it.
    formulas: list[str]
    sources: list[Source]


class ShortfallFix(TypedDict):
    """What closes a shortfall the advised savings do not: sharding over more GPUs, adapters on
    a 4-bit base for fine-tuning, offloading."""

    id: str
    label: str
    text: str
    sources: list[Source]
    gpus_needed: NotRequired[Range]


class Shortfall(TypedDict):
    """The run's memory shortfall and what closes it, for a run over all the GPUs' memory: when
    a memory saving is advised (the pick is not presented as the fix when it is not one), and
    when the method is a full training run (pretrain, full fine-tune) whatever the answer's
    kind, no result saving memory (``enough_alone`` and ``together`` then empty and null)."""

    memory_load: Range
    #: The savings advised here that are enough alone.
    enough_alone: list[str]
    #: The memory-load after every saving here at once (one per part of the breakdown), or
    #: null when they all act on one part.
    together: Range | None
    text: str
    #: Empty when a saving here is enough alone.
    closes: list[ShortfallFix]


class ComputeCheck(TypedDict):
    """plan's verdict on the time budget for the run the answer decides on (recipe/check.py): the
    approach picked (or picked alongside) that plan sizes a run for, planned with the same
    constraints and its training method."""

    #: The plan statement that gives the verdict in full.
    query: str
    #: The approach the run is for, an id of the answer's results (null when the method is the user's own).
    approach: str | None
    #: The training method plan sized the run for (the approach's, ``rkg:asMethod``, or the user's).
    method: str
    meets_time_budget: bool
    #: The GPUs that would keep to the budget at the same MFU (null when it is met, or no count does).
    gpus_for_time: int | None
    text: str


class OutOfScope(TypedDict):
    """A failure mode given whose entry the reference writes for other runs (``rkg:condition``)
    than the user's constraints describe: a loss spike of a LoRA fine-tune, where the
    reference's table is about large-scale pretraining."""

    dimension: str
    value: str
    label: str
    #: The condition of the entry (``method = pretrain``).
    condition: str
    #: The user's constraints that contradict it.
    because_of: list[Constraint]
    #: The extension file and line the failure mode comes from (not the reference's).
    origin: NotRequired[Origin]


class OpenCondition(TypedDict):
    """What a ranked choice is for that the constraints leave open: it applies only if this
    holds (expert parallelism, for a model of unnamed architecture: mixtures of experts only)."""

    property: Property
    #: The dimension the property checks.
    dimension: str
    #: Whether the query gives that dimension (as a value that does not say) or not at all.
    given: bool
    #: The part of a combination the property is of (five-way parallelism's expert parallelism).
    part: NotRequired[Via]


class Member(TypedDict):
    """A member of a family entry that the same rules rank."""

    id: str
    label: str
    iri: str
    papers: list[Source]
    origin: NotRequired[Origin]
    fits: NotRequired[list[str]]
    notes: NotRequired[list[Property]]


class Result(TypedDict):
    """A ranked choice (or a family of choices the same rules rank, with its ``members``)."""

    rank: int
    id: str
    label: str
    iri: str
    kinds: list[str]
    group: Group
    score: float
    #: Held conditions by kind of dimension, most specific first: ranks before the score within a group.
    specificity: list[int]
    match: Match
    papers: list[Source]
    because: list[RankedReason]
    against: list[RankedReason]
    #: The dimensions of the constraints the choice's properties fit.
    fits: NotRequired[list[str]]
    #: Non-strict properties the constraints go past.
    notes: NotRequired[list[Property]]
    #: A memory saving checked against a memory-load over 100%.
    memory_saving: NotRequired[MemorySaving]
    #: What it is for that the constraints leave open: it applies only if these hold (entries shown).
    applies_if: NotRequired[list[OpenCondition]]
    #: The dimensions its partly matching rules wait for.
    waits_for: NotRequired[list[str]]
    members: NotRequired[list[Member]]
    #: What an extension added: its file and line.
    origin: NotRequired[Origin]


class OtherSide(TypedDict):
    """The ranking just past the threshold: the value tried and its first choice."""

    value: float
    pick: str | None
    label: str | None


class Literature(TypedDict):
    """Where another rule places the threshold differently (``rkg:differsFrom``)."""

    rule: str
    threshold: float
    text: str
    sources: list[Source]


class NearBoundary(TypedDict):
    """A given value within a factor of 2 of a threshold that decides the ranking, both sides named."""

    dimension: str
    value: float
    threshold: float
    unit: ConstraintUnit | None
    side: Position
    text: str
    rule: str
    rules: list[str]
    other_side: OtherSide
    literature: list[Literature]


class More(TypedDict):
    """That the answer shows the first results only (no ``top`` given): how many, of how many,
    and how to see them all."""

    shown: int
    of: int
    text: str


class RecommendBody(TypedDict):
    """A ``recommend`` answer as reason/recommend.py builds it (before its ``as_of``)."""

    statement: Literal["recommend"]
    kind: str
    query: str
    constraints: list[Constraint]
    decision: Decision
    ask: list[Ask]
    results: list[Result]
    excluded: list[Excluded]
    unused: list[Unused]
    near_boundary: list[NearBoundary]
    #: When more results rank than an answer shows without ``top`` (reason/recommend.py ``SHOWN``).
    more: NotRequired[More]
    #: With no advice of this kind: the other kinds whose advice for these constraints decides.
    elsewhere: NotRequired[list[Elsewhere]]
    #: The memory shortfall and what closes it (a memory saving advised for a run over the GPUs' memory).
    shortfall: NotRequired[Shortfall]
    #: Failure modes given whose KB entry is about other runs than the constraints describe.
    out_of_scope: NotRequired[list[OutOfScope]]
    #: plan's verdict on the time budget for the run decided on (added by recipekg.api, recipe/check.py).
    compute_check: NotRequired[ComputeCheck]


class RecommendAnswer(RecommendBody, Stamp):
    """The answer to ``recommend <kind> [where ...] [top n]``."""


__all__ = ["Choice", "ComputeCheck", "Decision", "Group", "Member", "MemorySaving", "NearBoundary", "RecommendAnswer", "RecommendBody",
           "Result", "Shortfall", "ShortfallFix"]
