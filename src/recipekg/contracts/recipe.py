"""The ``recipe`` answer: the rankings, plan and the KB's settings composed into sections of
items, and the configurations a trainer reads.

    >>> from recipekg.contracts import documents  # fills in the registries' names
    >>> from recipekg.contracts.schema import schema_of
    >>> schema_of(SectionName, {})["enum"][:3]
    ['approach', 'architecture', 'cost']
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

from recipekg.contracts.common import AddedChoice, Ask, Constraint, Origin, Source, Stamp, Unused
from recipekg.contracts.plan import Layout, PlanBody
from recipekg.contracts.schema import Names

#: A section's name (recipe/sections.py ``SECTIONS``, the contract's order).
SectionName = Annotated[str, Names("recipe-section")]
#: A configuration format (recipe/emit ``FORMATS``).
EmitFormat = Annotated[str, Names("emit-format")]


class Alternative(TypedDict):
    """Another sourced value that also applies (a setting, or a published recipe's value)."""

    value: float | str | None
    text: str
    setting: str
    sources: list[Source]
    #: The extension that gave the value (not the KB's).
    origin: NotRequired[Origin]


#: The coupled values an item was not published with (LoRA's rank and alpha beside another run's
#: target layers): ``from`` their hyperparameters' names, ``labels`` how the recipe names them,
#: ``sources`` the source they share.
Apart = TypedDict("Apart", {"from": list[str], "labels": list[str], "sources": list[str]})


Item = TypedDict("Item", {
    "what": str,
    "value": str | float | bool | list[str] | Layout | None,
    "text": str,
    "why": str,
    "sources": list[Source],
    "from": NotRequired[str],
    "runner_ups": NotRequired[list[str]],
    # the runner-ups an extension added (a choice of its own, or one only its rules rank), with
    # where it did: every answer marks what an extension contributed
    "runner_ups_from": NotRequired[list[AddedChoice]],
    # the choices the advice ranks equal to the pick (the same score, strength and specificity):
    # the item's text says the recipe took the first by id only
    "tied_with": NotRequired[list[str]],
    "needs": NotRequired[list[str]],
    "quantity": NotRequired[str],
    "unit": NotRequired[str | None],
    "hyperparameter": NotRequired[str],
    "setting": NotRequired[str],
    "alternatives": NotRequired[list[Alternative]],
    "unsourced": NotRequired[Literal[True]],
    "origin": NotRequired[Origin],
    # the caveat of the advice that gave the item (its price: BLOOM's embedding LayerNorm costs zero-shot accuracy)
    "caveat": NotRequired[str],
    # a coupled value (rkg:coupledWith) no source of the others gave: those others and their source
    "apart": NotRequired[Apart],
})
Item.__doc__ = ("An item of a section: ``value`` what a program reads (an id, a number, a name, the steps "
                "of a fix, a layout), ``text`` how a person reads it, ``why`` and its sources; ``unsourced`` "
                "when the KB has no sourced value (the item says why instead of guessing); ``from`` the "
                "answer it was read from.")


class Section(TypedDict):
    name: SectionName
    items: list[Item]


class Context(TypedDict):
    """What the recipe is about: the architecture, its family and regimes, the method and the
    optimizer, each with where it came from."""

    architecture: str | None
    architecture_from: str
    family: str | None
    regimes: list[str | None]
    method: str | None
    method_from: str | None
    optimizer: str | None
    #: False when the method trains no weight (inference): the recipe serves the model.
    trains: bool


class Emitted(TypedDict):
    """A configuration in a trainer's own format (an open object: the trainer's keys), with
    what it left out or assumed."""

    config: dict[str, Any]
    notes: list[str]
    #: Where the extensions are whose items it read (a value they gave, a choice they ruled out):
    #: the notes say what each did.
    origins: NotRequired[list[Origin]]


class RecipeAsk(Ask):
    """A question a ranking the recipe read asks (a dimension not given whose value would
    change its pick), with the kinds of choice whose rankings ask it."""

    kinds: list[str]


class RecipeBody(TypedDict):
    """A ``recipe`` answer as recipe/assemble.py builds it (before its ``as_of``)."""

    statement: Literal["recipe"]
    query: str
    constraints: list[Constraint]
    context: Context
    sections: list[Section]
    #: plan's answer for the same constraints and the recipe's method (null when plan's
    #: formulas are not for this architecture and nothing was given to size).
    plan: PlanBody | None
    unused: list[Unused]
    #: What the rankings the recipe read ask, once per dimension (a tie the recipe took first
    #: by id, an approach no rule decides): what would settle them.
    ask: list[RecipeAsk]
    #: Format → configuration, for every format the recipe can be written as.
    configs: dict[EmitFormat, Emitted]
    #: Format → why the recipe cannot be written as it (every format not in ``configs``).
    no_configs: dict[EmitFormat, str]


class RecipeAnswer(RecipeBody, Stamp):
    """The answer to ``recipe [where ...]``."""
