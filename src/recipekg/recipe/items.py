"""The items of a recipe's sections.

An item is ``{"what", "value", "text", "why", "sources"}`` (``value`` what a program reads:
an id, a number or a name; ``text`` how a person reads it), with ``"unsourced": true`` when
the KB has no sourced value for something the recipe needs (the item says why instead of
guessing), ``"from"`` the answer it was read from and ``"alternatives"`` the other sourced
values that also apply.

    >>> item("optimizer", "adamw", "AdamW", "the default", [])["value"]
    'adamw'
    >>> unsourced("cost", "no price")["unsourced"]
    True
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from typing import Any

    from recipekg.contracts.recipe import Item


def item(what: str, value, text: str, why: str, sources: list, **more: Any) -> Item:
    """An item: what, its value (for programs) and text (for people), why, its sources, and
    ``more`` of the item's optional keys (``from``, ``unit``, ``hyperparameter``, ...)."""
    out: Any = {"what": what, "value": value, "text": text, "why": why, "sources": sources, **more}
    return out


def unsourced(what: str, why: str) -> Item:
    """An item the KB has no sourced value for: said, never guessed."""
    return item(what, None, "unsourced", why, [], unsourced=True)
