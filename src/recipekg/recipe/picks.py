"""A ranking's pick, or its matching choices, as recipe items: the reason each gives (of
reasons as strong, one written for the architecture), its sources, caveat and where an extension
had a hand in it (:mod:`recipekg.recipe.parts` builds the sections with them)."""

from __future__ import annotations

from recipekg.recipe.items import item

def pick_item(what: str, answer: dict, kind: str) -> dict:
    """The pick of a ranking as an item: why is its strongest reason, with that reason's sources
    (and where an extension gave it: :func:`reason_origin`); of reasons as strong, one written for the
    architecture the query names first (Whisper's own paper for its AdamW, QA round 5, Q36)."""
    pick = answer["decision"]["pick"]
    result = next(r for r in answer["results"] if r["id"] == pick)
    named = next((c["value"] for c in answer.get("constraints", ()) if c["dimension"] == "architecture"
                  and c["op"] == "=" and isinstance(c["value"], str)), None)
    reason = _strongest(result["because"], named)
    runner_ups = answer["decision"]["runner_ups"]
    tied = answer["decision"].get("tied_with") or []  # (said: the recipe commits to one the advice does not separate)
    labels = {r["id"]: r["label"] for r in answer["results"]}
    text = result["label"] + (f", tied with {', '.join(labels.get(t, t) for t in tied)} (the advice speaks for "
                              f"each equally: first here by id only)" if tied else "")
    added = _added_runner_ups(answer, runner_ups)
    return item(what, pick, text, reason.get("text", ""), reason.get("sources", []),
                **{"from": f"recommend {kind}", "runner_ups": runner_ups}, **({"tied_with": tied} if tied else {}),
                **({"runner_ups_from": added} if added else {}),
                **(reason_origin(result, reason) or _excluded_by(answer)), **reason_caveat(reason))


def _added_runner_ups(answer: dict, runner_ups: list[str]) -> list:
    """The runner-ups an extension stands behind (:func:`recipekg.reason.added.added_by_extensions`)."""
    from recipekg.reason.added import added_by_extensions

    return added_by_extensions([r for r in answer["results"] if r["id"] in runner_ups])


def _strongest(because: list, architecture: str | None = None) -> dict:
    """The first reason (the strongest), or one as strong that holds on the architecture: one
    naming the query's own (``architecture``) before one on a broader class of it.

    >>> _strongest([{"contribution": 0.6, "id": "a"}, {"contribution": 0.6, "id": "b",
    ...             "conditions": [{"dimension": "architecture"}]}])["id"]
    'b'
    >>> _strongest([{"contribution": 0.6, "id": "a", "conditions": [{"dimension": "architecture", "condition": "architecture = transformer"}]},
    ...             {"contribution": 0.6, "id": "b", "conditions": [{"dimension": "architecture", "condition": "architecture = whisper"}]}],
    ...            "whisper")["id"]
    'b'
    """
    if not because:
        return {}
    top = because[0].get("contribution")
    tied = [r for r in because if r.get("contribution") == top]

    def on(r: dict, exact: bool) -> bool:
        return any(c.get("dimension") == "architecture" and (not exact or c.get("condition") == f"architecture = {architecture}")
                   for c in r.get("conditions") or ())

    return next((r for r in tied if architecture and on(r, True)), None) or next((r for r in tied if on(r, False)), because[0])


def reason_origin(result: dict, reason: dict) -> dict:
    """``{"origin": ...}`` when the reason an item gives, or the choice itself, is an
    extension's (the item then says so, as every answer marks what an extension contributed)."""
    found = reason.get("origin") or result.get("origin")
    return {"origin": found} if found else {}


def _excluded_by(answer: dict) -> dict:
    """``{"origin": ...}`` when an extension ruled a choice of the ranking out: the pick (or that
    there is none) may be what is left once it did, and the item says so."""
    found = next((e["origin"] for e in answer.get("excluded", ()) if e.get("origin")), None)
    return {"origin": found} if found else {}


def no_pick(what: str, answer: dict, kind: str) -> dict:
    asks = [a["text"] for a in answer.get("ask", ())]
    from recipekg.reason.added import advisers, against_by_extension

    matched = [r for r in answer["results"] if r["group"] == "matches"]
    against = against_by_extension(matched)
    why = ("; ".join(asks) if asks else
           f"{advisers(matched)} advises against every choice these constraints decide: "
           f"{', '.join(r['label'] for r in matched)}" if matched else "no rule decides with these constraints")
    return item(what, None, "no pick", why, [], **{"from": f"recommend {kind}", "needs": [a["dimension"] for a in answer.get("ask", ())]},
                **({"origin": against} if against else _excluded_by(answer)))


def ranked_items(ctx, kind: str, section: str, snap: dict) -> list[dict]:
    """The choices of ``kind`` that match the constraints, score above 0 and are shown in
    ``section`` (``rkg:recipeSection``), each as an item."""
    where = snap["recipe_sections"]
    out = []
    for r in ctx.rankings[kind]["results"]:
        if r["group"] != "matches" or r["score"] <= 0 or where.get(r["iri"]) != section or not holds(r["iri"], ctx, snap):
            continue
        reason = r["because"][0] if r["because"] else {"text": "", "sources": []}
        out.append(item(r["label"], r["id"], r["label"], reason["text"], reason["sources"],
                        **{"from": f"recommend {kind}"}, **reason_origin(r, reason), **reason_caveat(reason)))
    for e in ctx.rankings[kind].get("excluded", ()):  # (a bundled choice an extension's property rules out: said)
        if e.get("origin") and where.get(e["iri"]) == section:
            out.append(item(e["label"], None, "ruled out", e["why"], e["sources"],
                            **{"from": f"recommend {kind}"}, origin=e["origin"]))
    return out


def reason_caveat(reason: dict) -> dict:
    """``{"caveat": ...}`` when the advice an item rests on carries one (its price), so the
    recipe says it where recommend and explain do."""
    return {"caveat": reason["caveat"]} if reason.get("caveat") else {}


def holds(choice: str, ctx, snap: dict) -> bool:
    """Whether every condition a recipe shows ``choice`` under holds for the recipe's facts."""
    from recipekg.reason.conditions import HELD, status

    conditions = snap["choice_conditions"].get(choice, ())
    return all(status(snap["conditions"][c], ctx.facts, snap) == HELD for c in conditions)
