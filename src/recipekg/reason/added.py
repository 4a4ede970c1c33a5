"""What an extension put in a list of an answer's: a runner-up of a recipe's, an entry ranked
above the choice explained (hostile round 5, 002 and 014: an extension's choice among a bundled
recipe's runner-ups, an explained choice's rank moved by an extension's rules, both unmarked);
and who advises against every choice of an answer with no pick (016).

    >>> mine = {"id": "x", "origin": {"file": "t.ttl", "line": 3}, "because": [], "against": []}
    >>> ruled = {"id": "lion", "because": [{"origin": {"file": "t.ttl", "line": 9}}], "against": []}
    >>> ours = {"id": "adamw", "because": [{"section": "Optimizer"}], "against": []}
    >>> mixed = {"id": "sgd", "because": [{"section": "Optimizer"}, {"origin": {"file": "t.ttl", "line": 12}}]}
    >>> [e["id"] for e in added_by_extensions([mine, ruled, ours, mixed])]
    ['x', 'lion', 'sgd']
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import AddedChoice


def added_by_extensions(results: list) -> list[AddedChoice]:
    """Each of ``results`` an extension had a hand in, ``{"id", "origin"}``: a choice of its own
    (its ``origin``), or one an extension's reason (for or against it) ranks where it is."""
    out: list[AddedChoice] = []
    for r in results:
        reasons = list(r.get("because") or ()) + list(r.get("against") or ())
        found = r.get("origin") or next((x["origin"] for x in reasons if x.get("origin")), None)
        if found:
            out.append({"id": r["id"], "origin": found})
    return out


def against_by_extension(results: list) -> dict | None:
    """The origin of the first extension's reason against a choice that matches (an answer's
    ``results``), or None: with no pick, the advice against them is then partly an extension's."""
    return next((x["origin"] for r in results if r["group"] == "matches" for x in r.get("against") or ()
                 if x.get("origin")), None)


def advisers(results: list) -> str:
    """Who advises against every matching choice of an answer with no pick: the reference, or
    the advice with an extension's among it (forty extension rules against gradient-boosted
    trees were "the reference" advising so).

    >>> advisers([{"group": "matches", "against": [{"origin": {"file": "t.ttl", "line": 3}}]}])
    "the advice (an extension's among it)"
    """
    return "the advice (an extension's among it)" if against_by_extension(results) else "the reference"
