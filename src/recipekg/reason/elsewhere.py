"""Where the advice is when a ``recommend`` answer has no pick: the other kinds of choice whose
advice, written for these constraints, decides (Llama 3 70B served on one H100 asks the
approaches in vain, every one ruled out; the techniques quantise its weights).

    >>> from recipekg.reason.recommend import rank
    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend approach where method = inference and model = llama-3-70b "
    ...                        "and hardware = h100 and gpus = 1")[0].constraints, snap)
    >>> [(e["kind"], e["pick"]) for e in elsewhere("approach", facts, snap, lambda k: rank(k, facts, snap, lean=True))]
    [('technique', 'weight-quantization')]
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from collections.abc import Callable

    from recipekg.contracts.recommend import Elsewhere


def elsewhere(kind: str, facts: dict, snap: dict, rank_kind: Callable[[str], list[dict]]) -> list[Elsewhere]:
    """Each other kind whose ranking under ``facts`` (``rank_kind(other)``: its ranked results)
    has a pick decided by advice for the user's case (a rule holding on one of their
    constraints, or missing their number narrowly: general advice every run gets is no answer
    to them), in kind order: the kind, its pick and the statement that asks it
    (:func:`recipekg.reason.situation.whole_statement`)."""
    from recipekg.reason.answers import decision, situated
    from recipekg.reason.families import group_families
    from recipekg.reason.situation import whole_statement

    out: list[Elsewhere] = []
    for other in sorted(snap["kinds"]):
        if other == kind:
            continue
        results = group_families(rank_kind(other), snap)
        pick = decision(results, nodes=snap["nodes"])["pick"]
        first = next((r for r in results if r["id"] == pick), None)
        if first is not None and situated(first):
            out.append({"kind": other, "pick": pick, "label": first["label"], "query": whole_statement(other, facts)})
    return out
