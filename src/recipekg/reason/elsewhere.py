"""Where the advice is when a ``recommend`` answer has none of its own: the other kinds of
choice whose advice, written for these constraints, decides (Llama 3 70B served on one H100
asks the approaches in vain, every one ruled out; the techniques quantise its weights), or
weighs against what the user chose (a 13B LoRA on one T4 asked for an architecture: the
approach advice is against LoRA, whose 16-bit base does not fit).

    >>> from recipekg.reason.recommend import rank
    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend approach where method = inference and model = llama-3-70b "
    ...                        "and hardware = h100 and gpus = 1")[0].constraints, snap)
    >>> [(e["kind"], e["verdict"], e["choice"]) for e in elsewhere("approach", facts, snap, lambda k: rank(k, facts, snap, lean=True))]
    [('technique', 'for', 'weight-quantization')]
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from collections.abc import Callable

    from recipekg.contracts.recommend import Elsewhere


def elsewhere(kind: str, facts: dict, snap: dict, rank_kind: Callable[[str], list[dict]]) -> list[Elsewhere]:
    """For each other kind, ranked under ``facts`` (``rank_kind(other)``: its ranked results),
    in kind order: advice for the user's case against a choice they made (``"against"``: the
    approach that is their method, their optimizer), else its pick when advice for the user's
    case decides it (``"for"``: a rule holding on one of their constraints, or missing their
    number narrowly; general advice every run gets is no answer to them, nor a memory saving
    that leaves the run over the GPUs' memory, nor a pick that is already their own choice:
    QLoRA is no advice to a QLoRA run; a choice tied with it or narrower is then the advice: a full fine-tune
    of a ViT on 2,000 images is pointed to fine-tuning the head only), each with the statement
    that asks that kind
    (:func:`recipekg.reason.situation.whole_statement`)."""
    from recipekg.reason.answers import decision, situated
    from recipekg.reason.facts import chosen as chosen_by_user
    from recipekg.reason.families import group_families
    from recipekg.reason.shortfall import saving_note
    from recipekg.reason.situation import whole_statement

    chosen = chosen_by_user(facts, snap)
    symptom = _symptom_dims(facts)
    out: list[Elsewhere] = []
    for other in sorted(snap["kinds"]):
        if other == kind:
            continue
        results = group_families(rank_kind(other), snap)
        against = next(iter(against_yours(results, facts, snap)), None)
        decided = decision(results, nodes=snap["nodes"])
        # the pick, else, when the pick is the user's own choice (their method's family), a choice
        # tied with it or narrower than it that matches too
        tops = [r for i in (decided["pick"], *decided.get("tied_with", ()), *decided.get("narrower", ()))
                for r in results if r["id"] == i]
        first = next((r for r in tops if r["iri"] not in chosen and situated(r)
                      and (saving_note(r["iri"], facts, snap) or {}).get("enough") is not False
                      and (not symptom or _reads(r, symptom))), None)
        if against is not None:
            found, verdict = against, "against"
        elif first is not None:
            found, verdict = first, "for"
        else:
            continue
        out.append({"kind": other, "verdict": verdict, "choice": found["id"], "label": found["label"],
                    "query": whole_statement(other, facts)})
    return out


def _symptom_dims(facts: dict) -> set[str]:
    """What a symptom given implies (``symptom = out-of-memory``: ``prefer = low-memory``), with
    the symptom: the advice elsewhere answers it only when a rule for its pick reads these
    (AdamW for a LoRA run is the optimizer of the run, not a fix for its memory). A symptom that
    implies nothing (overfitting) restricts nothing: the advice for the run is the answer."""
    implied = {n for n, f in facts.items() if f.derived == "symptom"}
    return implied | {"symptom"} if implied else set()


def _reads(result: dict, dims: set[str]) -> bool:
    """Whether a rule that applies for ``result`` has a condition on one of ``dims``."""
    return any(r["match"] != "partial" and any(c.get("dimension") in dims for c in r.get("conditions") or ())
               for r in result["because"])


def against_yours(results: list[dict], facts: dict, snap: dict) -> list[dict]:
    """The results that are choices the user made (:func:`recipekg.reason.facts.chosen`) and
    that a rule for their case weighs against (a match with a negative score and a fully
    matching reason against it): what an answer says beside its pick, and what another kind's
    answer points to (:func:`elsewhere`'s ``"against"``)."""
    from recipekg.reason.facts import chosen

    mine = chosen(facts, snap)
    given = {v for f in facts.values() if not f.derived for v in f.values or ()}
    sizing = {i for i, s in snap["recipe_sections"].items() if s == "size"} - given
    # (a sizing strategy, Chinchilla-optimal training, is how large a run is, not the method given)
    return [r for r in results if r["group"] == "matches" and r["score"] < 0 and r["iri"] in mine - sizing
            and any(x["match"] == "full" for x in r["against"])]
