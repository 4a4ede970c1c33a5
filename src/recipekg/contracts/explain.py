"""The ``explain`` answer: every rule naming a choice with its evaluation, its properties
against the constraints, and the smallest change that would rank it first.

    >>> from recipekg.contracts.schema import required_keys
    >>> sorted(set(ExplainAnswer.__annotations__) - required_keys(ExplainAnswer))
    ['ahead_by_extensions', 'behind', 'compute_check', 'member_of', 'memory_saving', 'no_change_because', 'score',
     'section', 'settled_by', 'shortfall', 'superseded', 'tied_with', 'yours']
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from recipekg.contracts.common import (AddedChoice, Ask, Choice, Constraint, Excluded, Near, Origin, Property, Reason,
                                       Side, Stamp, Taken, Unused, Via)
from recipekg.contracts.recommend import ComputeCheck, Group, MemorySaving, Shortfall, Yours


class ExplainedChoice(Choice):
    """The choice explained, with its definition."""

    definition: str | None


class ExplainRule(Reason):
    """A rule naming the choice (or, in ``family_rules``, its family ``via``), on its side."""

    side: Side
    fires: bool
    near: NotRequired[Near]
    via: NotRequired[Via]
    #: It fires once the choice is taken as its own method, not with the constraints as given.
    taken: NotRequired[Taken]


class Brief(TypedDict):
    """A reason against the choice, in brief."""

    rule: str
    id: str
    text: str
    strength: str
    via: NotRequired[Via]
    #: The extension the rule comes from (hostile round 8, 040: the digest dropped it).
    origin: NotRequired[Origin]


#: A property's verdict: the constraints contradict it (the choice is excluded, or noted), go
#: past a non-strict one (``note``), or fit it.
Verdict = Literal["contradicts", "fits", "note"]


class CheckedProperty(Property):
    """A property of the choice with its verdict against the constraints."""

    verdict: Verdict


class Change(TypedDict):
    """A change of the constraints that would rank the choice first: the rule it makes hold
    (null for a change that only meets the choice's properties), or, with ``turns_off``, the
    rule against the choice it makes fail; and the query to ask."""

    rule: str | None
    changes: list[Constraint]
    query: str
    turns_off: NotRequired[Literal[True]]


class Tied(TypedDict):
    """An entry the advice does not separate from the choice's: the same score, decided alike."""

    id: str
    label: str


class Behind(TypedDict):
    """The entry ranked just above the choice with the same score, and what puts it first."""

    id: str
    label: str
    #: The first tie-break that separates them, in words ("its properties also fit your task").
    by: str


class MemberOf(TypedDict):
    """The family entry the choice is ranked in."""

    id: str
    label: str
    rank: int | None


class ExplainBody(TypedDict):
    """An ``explain`` answer as reason/explain.py builds it (before its ``as_of``)."""

    statement: Literal["explain"]
    query: str
    kind: str
    choice: ExplainedChoice
    constraints: list[Constraint]
    #: The choice's rank; for a kind whose choices are parts of one run (approach, technique), its
    #: rank among the choices of its recipe section (``section``), as recommend decides its pick
    #: and the picks alongside it.
    rank: int | None
    #: The choice's rank in each ranking of its kinds (among its section's, for such a kind).
    ranks: dict[str, int | None]
    #: The entries ranked above it that an extension brought there (a choice of its own, or one
    #: only its rules rank), with where it did: the rank is then the extension's doing too.
    ahead_by_extensions: NotRequired[list[AddedChoice]]
    #: The recipe section the choice is ranked in, for a kind whose choices are parts of one run.
    section: NotRequired[str]
    group: Group | None
    #: The entry's score, where it is ranked: below zero when the advice that applies weighs
    #: against it (recommend shows it among the advised against).
    score: NotRequired[float]
    waits_for: list[str]
    rules: list[ExplainRule]
    family_rules: list[ExplainRule]
    against: list[Brief]
    properties: list[CheckedProperty]
    excluded: Excluded | None
    unused: list[Unused]
    would_rank_first_if: list[Change]
    member_of: NotRequired[MemberOf]
    #: The matches the advice does not separate from the choice's entry (the same score from
    #: rules of the same weight): its rank among them is only the ids' order.
    tied_with: NotRequired[list[Tied]]
    #: For a first-ranked choice tied with others: the questions whose answer decides between
    #: them (what recommend's ask would put; none when no one value does).
    settled_by: NotRequired[list[Ask]]
    no_change_because: NotRequired[str]
    #: For a choice ranked just below another of the same score (not tied with it): that choice
    #: and the tie-break that puts it first.
    behind: NotRequired[Behind]
    #: The choice's memory saving checked against a memory-load over 100%.
    memory_saving: NotRequired[MemorySaving]
    #: The memory shortfall and what closes it, when the choice is a memory saving.
    shortfall: NotRequired[Shortfall]
    #: plan's verdict on the time budget for the run of the choice explained, when it is an
    #: approach plan sizes (added by recipekg.api, recipe/check.py).
    compute_check: NotRequired[ComputeCheck]
    #: Where the ranking puts each other choice of the kind the user gave (their optimizer, when
    #: another is explained), as recommend's ``decision.yours`` says it.
    yours: NotRequired[list[Yours]]


class ExplainAnswer(ExplainBody, Stamp):
    """The answer to ``explain <choice> [where ...]``."""
