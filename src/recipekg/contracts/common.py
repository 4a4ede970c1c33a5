"""The parts every answer shares: sources with their roles, constraints, rules as reasons,
ranges, and what a newer source revises.

These are the typed definitions the answer builders are annotated with (under
``TYPE_CHECKING``: the query path never imports :mod:`typing`) and that
:mod:`recipekg.contracts.documents` turns into the published JSON Schema.

    >>> from recipekg.contracts.schema import schema_of
    >>> defs = {}
    >>> schema_of(Source, defs) and defs["Source"]["properties"]["role"]
    {'enum': ['states', 'supports', 'method', 'reference']}
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

#: What a source does for the claim citing it (docs/provenance.md).
Role = Literal["states", "supports", "method", "reference"]
#: How a rule's conditions meet the query: all held (``full``), advice without conditions
#: (``general``), held but for one threshold missed narrowly (``near``), some established and
#: the others not given (``partial``), a condition failed (``failed``), none established
#: (``not given``).
RuleMatch = Literal["full", "general", "near", "partial", "failed", "not given"]
#: A ranked choice's best match among its reasons (``none``: it has none).
Match = Literal["full", "general", "near", "partial", "none"]
#: A condition of a rule against the query.
Status = Literal["held", "failed", "partly", "not given"]
#: The units of a constraint's numbers (reason/facts.py ``unit_of``).
ConstraintUnit = Literal["count", "bytes", "hours", "fraction", "bytes/s", "FLOP/s"]
#: A constraint's operator: the query's, or one a derived fact is written with.
Op = Literal["=", "!=", "<", "<=", ">", ">=", "between", "in", "all of", "not in"]
Scalar = float | str
#: The side a rule is on for a choice.
Side = Literal["for", "against"]


class Origin(TypedDict):
    """Where an extension's knowledge comes from: the extension file and the line where its
    node is first described (knowledge/origin.py). Only what an extension added carries it."""

    file: str
    line: int


class AddedChoice(TypedDict):
    """A choice an extension put in a list of an answer's (a runner-up, an entry ranked above
    the one explained): one of its own, or one only its rules rank, with where it did."""

    id: str
    origin: Origin


class Source(TypedDict):
    """A paper (or other source) as the claim citing it names it, with what it does for the
    claim; ``where`` locates the statement in the source when the KB records it."""

    id: str
    title: str
    year: int | None
    arxiv: str | None
    url: str | None
    role: Role
    where: NotRequired[str]
    #: What an extension added: its file and line (absent for the KB's own knowledge).
    origin: NotRequired[Origin]


class Revision(TypedDict):
    """A claim that revises one in the answer (``rkg:supersededBy``): its id, label, text,
    sources and the date of its newest source; only the IRI when the KB lacks the claim."""

    iri: str
    id: NotRequired[str]
    label: NotRequired[str]
    text: NotRequired[str | None]
    sources: NotRequired[list[Source]]
    as_of: NotRequired[str | None]
    #: The extension the revising claim comes from.
    origin: NotRequired[Origin]


class Superseded(TypedDict):
    """A claim of the answer a newer source revises, listed once."""

    claim: str
    label: str
    superseded_by: list[Revision]
    #: The extension the revised claim comes from (hostile round 9, 020).
    origin: NotRequired[Origin]


class Stamp(TypedDict):
    """What every top-level answer carries (reason/recency.py)."""

    #: The date of the newest source the answer cites (YYYY-MM-DD), a lower bound on how current it is.
    as_of: str | None
    #: The id of that source.
    as_of_source: str | None
    #: The claims in the answer a newer source revises, each once.
    superseded: NotRequired[list[Superseded]]


class NoAdvice(TypedDict):
    """A value the reference gives no advice for, and where its nearest advice is."""

    value: str
    label: str
    message: str
    nearest_query: str | None
    nearest_section: str | None
    #: What an extension added: its file and line (absent for the KB's own knowledge).
    origin: NotRequired[Origin]


class ImpliedOtherwise(TypedDict):
    """A given constraint that implies another value of a dimension the query gives: its
    dimension, its value(s) and the values it implies (ids; for a number, ``figures`` in
    ``unit``: the hardware's memory bandwidth, a named model's size)."""

    dimension: str
    value: list[str]
    implies: list[str]
    figures: NotRequired[list[float]]
    unit: NotRequired[str]
    #: What a named choice gives, where its properties say so: their labels and sources.
    note: NotRequired[str]
    sources: NotRequired[list[Source]]
    #: What an extension added: its file and line (absent for the KB's own knowledge).
    origin: NotRequired[Origin]


class Constraint(TypedDict):
    """A constraint as the answer read it: the dimension, operator and value(s) (ids for
    names, numbers in the dimension's unit)."""

    dimension: str
    op: Op
    value: Scalar | list[Scalar]
    unit: NotRequired[ConstraintUnit]
    #: The dimensions a derived constraint comes from (``hardware``; ``gpus and time`` for a tier).
    derived_from: NotRequired[str]
    #: The words typed, when they are not the values' names.
    given_as: NotRequired[str]
    #: How a number in bits was read; for a named model's size, the size it is published as
    #: beside the count of its weights (what the formulas read); for what a named choice gives,
    #: the properties it comes from.
    note: NotRequired[str]
    #: The sources of what a named choice gives (Llama 2 7B's released weights: pretrained = yes).
    sources: NotRequired[list[Source]]
    no_advice: NotRequired[list[NoAdvice]]
    #: Another constraint implies a value of this dimension that none of these values agrees
    #: with (task = forecasting is done on time series; data = tabular given): read as given.
    implied_otherwise: NotRequired[list[ImpliedOtherwise]]
    #: What an extension added: its file and line (absent for the KB's own knowledge).
    origin: NotRequired[Origin]


class Condition(TypedDict):
    """One condition of a rule, with its status against the query."""

    condition: str
    dimension: str | None
    status: Status


class DisputedBy(TypedDict):
    """A rule of the KB that contradicts this one (``rkg:contradicts``)."""

    rule: str
    id: str
    text: str
    section: str
    #: Whether the disputing rule is the reference's (its section is one of the reference's),
    #: not knowledge beyond it from a primary source ("Beyond the reference > ...").
    of_reference: bool
    #: What an extension added: its file and line (absent for the KB's own knowledge).
    origin: NotRequired[Origin]


class Via(TypedDict):
    """The family (``skos:broader``) a rule or property comes from."""

    id: str
    label: str


class Near(TypedDict):
    """The one threshold a rule misses narrowly (within a factor of 2)."""

    dimension: str
    value: float
    threshold: float
    unit: NotRequired[ConstraintUnit]


class Taken(TypedDict):
    """What taking a choice means where the query gives no value: its own method."""

    dimension: str
    value: str
    #: The values the rule reads that taking it derives (the frozen base's share of memory).
    derived: list[Constraint]


class ReasonMore(TypedDict, total=False):
    """What only some reasons carry."""

    caveat: str
    #: The rule's place in an ordered procedure, and the procedure's id.
    step: int
    procedure: str
    superseded_by: list[Revision]
    #: What an extension added: its file and line.
    origin: Origin


class Reason(ReasonMore):
    """A rule as a reason for or against a choice: its evaluation against the query and its
    sources (reason/answers.py ``reason_json``)."""

    rule: str
    id: str
    label: str
    text: str
    strength: str
    match: RuleMatch
    #: ``default`` advice, a ``comparison``, or null for a plain rule.
    role: str | None
    contribution: float
    conditions: list[Condition]
    section: str
    sources: list[Source]
    disputed_by: list[DisputedBy]


class RankedReason(Reason):
    """A reason in a ranking: with its specificity (held conditions per dimension kind) and,
    for a rule near its threshold, where; ``via`` the family a rule against reaches a member
    through."""

    specificity: list[int]
    near: NotRequired[Near]
    via: NotRequired[Via]
    #: A rule against a choice that applies once the choice is taken (LoRA is method = lora),
    #: not with the constraints as given: the value taken.
    taken: NotRequired[Taken]


class Range(TypedDict):
    """A number with its range: ``value`` the point estimate, ``low``/``high`` the bounds."""

    value: float | None
    low: float | None
    high: float | None


class Choice(TypedDict):
    """A choice as answers name it."""

    id: str
    label: str
    iri: str
    kinds: list[str]
    papers: list[Source]
    #: What an extension added: its file and line (absent for the KB's own knowledge).
    origin: NotRequired[Origin]


class Property(TypedDict):
    """A property of a choice (kb/choice-properties.ttl): its aspect, value, text and sources."""

    id: str
    label: str
    aspect: str
    value: Scalar | list[Scalar]
    unit: NotRequired[str]
    text: str
    caveat: NotRequired[str]
    sources: list[Source]
    via: NotRequired[Via]
    #: The extension file and line the property comes from (not the KB's).
    origin: NotRequired[Origin]


class Excluded(TypedDict):
    """A choice a property rules out, with why and the constraint it contradicts."""

    id: str
    label: str
    iri: str
    why: str
    property: PropertyRef
    sources: list[Source]
    because_of: list[Constraint]
    #: The other properties the constraints contradict.
    also: NotRequired[list[str]]
    #: The extension whose property rules it out (not the KB's), or whose rules alone made it a
    #: candidate of the ranking (``ranked_for_extension``: the property is the KB's).
    origin: NotRequired[Origin]
    #: Ranked only for an extension's rules (``origin``): its exclusion is a line the extension added.
    ranked_for_extension: NotRequired[bool]


class PropertyRef(TypedDict):
    """A property as an exclusion names it (its text and sources are the exclusion's)."""

    id: str
    label: str
    aspect: str
    value: Scalar | list[Scalar]
    unit: NotRequired[str]
    caveat: NotRequired[str]
    via: NotRequired[Via]


class Unused(TypedDict):
    """A constraint no advice used, with why."""

    dimension: str
    #: The constraint's operator as given (``time < 100 hours``: ``<``).
    op: NotRequired[Op]
    value: Scalar | list[Scalar]
    unit: NotRequired[ConstraintUnit]
    why: str
    #: The statements that ask other kinds of choice about this constraint, when their advice
    #: holds for it (``symptom = loss-spike`` asked of techniques: ``recommend fix where symptom
    #: = loss-spike``); a different question, never answered in this one's place.
    answered_by: NotRequired[list[str]]


class Ask(TypedDict):
    """A dimension the user did not give whose value would change the answer."""

    dimension: str
    text: str
    #: The choices (or, for plan, the quantities) the answer to it would change.
    would_change: list[str]
    #: Where the extension is that added what the question names (its dimension, a value it
    #: asks for, a choice it would change), when one did.
    origin: NotRequired[Origin]
