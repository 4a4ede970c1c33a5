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
    from typing import Any

    from recipekg.contracts.recommend import Elsewhere, Yours


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
        first = next((r for r in tops if r["iri"] not in chosen and situated(r) and not _weighed_against(r)
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


def _weighed_against(result: dict) -> bool:
    """Whether advice that applies to the user's case weighs against ``result`` (8-bit Adam for
    a LoRA run: the adapters' states are small), so that it is no advice to point to, even where
    its score stays above 0 (QA round 5, Q22: "the optimizer advice is for 8-bit Adam" where the
    optimizer answer picks AdamW and advises against 8-bit Adam)."""
    return any(r["match"] in ("full", "general", "near") for r in result.get("against") or ())


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


def yours(kind: str, facts: dict, results: list[dict], snap: dict, against: list[str]) -> list[Yours]:
    """Where the answer ranks each choice of ``kind`` the user gave (a value of theirs that is a
    choice of the kind asked: their optimizer, their model, which is an architecture): its own
    entry, else the nearest family of it that ranks (Mistral 7B, no rule of which names it, by
    the decoder-only transformers it is one of), else no entry: no advice of the kind speaks for
    or against it here (the ranking makes the results of these choices and their families
    whatever their rank: :func:`choices_given`). A choice the advice weighs against is said by
    ``decision.against_yours`` (``against``) instead.

        >>> from recipekg.reason.recommend import rank
        >>> from recipekg.reason.resolve import facts_of
        >>> facts = facts_of(parse("recommend architecture where model = mistral-7b and samples = 2k")[0].constraints, snap)
        >>> [(y["choice"], y["family"]["id"], y["group"]) for y in yours("architecture", facts, rank("architecture", facts, snap), snap, [])]
        [('mistral-7b', 'decoder', 'would apply')]
    """
    nodes = snap["nodes"]
    return [_standing(choice, name, kind, results, facts, snap)
            for name, choice in _given(kind, facts, snap) if nodes[choice]["id"] not in against]


def choices_given(kind: str, facts: dict, snap: dict) -> frozenset[str]:
    """The choices of ``kind`` the user gave (:func:`yours`) and the families they are of: the
    results a ranking makes whatever their rank, so that the answer can say where each is."""
    nodes = snap["nodes"]
    return frozenset(i for _, c in _given(kind, facts, snap) for i in (c, *nodes[c].get("ancestors", ())))


def _given(kind: str, facts: dict, snap: dict) -> list[tuple[str, str]]:
    """``(dimension, choice)`` for each value the user gave that is a choice of ``kind`` (a
    method is none: several approaches train as one, and naming it picks none of them)."""
    nodes = snap["nodes"]
    return [(name, value) for name, f in facts.items() if not f.derived for value in sorted(f.values or ())
            if kind in nodes.get(value, {}).get("kinds", ())]


def _standing(value: str, name: str, kind: str, results: list[dict], facts: dict, snap: dict) -> Yours:
    """One choice the user gave on dimension ``name``, and where the answer ranks it."""
    from recipekg.reason.answers import fill_waits

    nodes = snap["nodes"]
    node = nodes[value]
    entry, family = _ranked(value, node, results, nodes)
    if entry is not None and entry["group"] != "matches" and entry.get("waits_for", ()) is None:
        fill_waits(entry, snap, facts)  # (an entry past those shown: what it waits for, made now)
    found: Any = {"choice": node["id"], "label": node["label"], "dimension": name}
    if family is not None:
        found["family"] = {"id": nodes[family]["id"], "label": nodes[family]["label"]}
    if entry is not None:
        found.update(rank=entry["rank"], group=entry["group"], score=entry["score"])
    found["text"] = _standing_text(found, entry, kind)
    return found


def given_on(facts: dict, snap: dict, choices: list[str]) -> set[str]:
    """The dimensions the user gave one of ``choices`` (ids) on.

        >>> from recipekg.reason.resolve import facts_of
        >>> given_on(facts_of(parse("recommend x where optimizer = sgd-momentum and data = images")[0].constraints, snap), snap, ["sgd-momentum"])
        {'optimizer'}
    """
    iri_of = snap["rule_index"]["choices"]  # (id -> IRI)
    iris = {iri_of[i] for i in choices if i in iri_of}
    iris |= {m for a, m in snap["training_methods"].items() if a in iris}  # (the method an approach is)
    return {name for name, f in facts.items() if not f.derived and not iris.isdisjoint(f.values or ())}


def _ranked(value: str, node: dict, results: list[dict], nodes: dict) -> tuple[dict | None, str | None]:
    """The result that ranks choice ``value`` (its own entry, or a family entry that folds it in)
    and, when it ranks only through a family of it, that family (the deepest that ranks)."""
    by_iri = {i: r for r in results for i in (r["iri"], *(m["iri"] for m in r.get("members", ())))}
    if value in by_iri:
        return by_iri[value], None
    ranked = [a for a in node.get("ancestors", ()) if a in by_iri]
    if not ranked:
        return None, None
    family = max(ranked, key=lambda a: (len(nodes[a].get("ancestors", ())), a))  # the nearest: the deepest
    return by_iri[family], family


def _standing_text(found: dict, entry: dict | None, kind: str) -> str:
    """``found``'s standing in words: "your choice, Mistral 7B (mistral-7b), is not ranked
    itself; its family Decoder-only transformer (decoder) ranks 5th (would apply: it waits for
    task)"; a match the advice weighs against is said to be advised against."""
    name = f"{found['label']} ({found['choice']})"
    if entry is None:
        return f"your choice, {name}: no {kind} advice in the KB speaks for or against it here"
    waits = entry.get("waits_for")
    within = f" in the entry of {entry['label']} ({entry['id']})" if entry["id"] not in (
        found["choice"], found.get("family", {}).get("id")) else ""  # (a member a family's entry folds)
    where = f"ranks {_ordinal(entry['rank'])}{within}" + (
        " (advised against for your constraints)" if entry["group"] == "matches" and entry["score"] < 0 else
        " (matches your constraints)" if entry["group"] == "matches" else
        f" (would apply: it waits for {' and '.join(waits)})" if waits else
        " (would apply: it waits for a condition you did not give)")
    if "family" in found:
        return (f"your choice, {name}, is not ranked itself; its family {found['family']['label']} "
                f"({found['family']['id']}) {where}")
    return f"your choice, {name}, {where}"


def _ordinal(n: int) -> str:
    """>>> [_ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
