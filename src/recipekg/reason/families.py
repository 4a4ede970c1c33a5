"""Families as one entry: members of a family that the same rules rank are shown once, under
the family, as the reference names them ("gradient-boosted trees: XGBoost, LightGBM").

Two results are ranked by the same rules when the rules deciding for and against them are
the same (:func:`signature`: a rule about a family counts for its members too); a result
whose ancestor (``skos:broader``) has the same signature is folded into the ancestor's entry,
as a member. The entry takes the place of its best-ranked result, so runner-ups are the next
real alternatives::

    >>> a = {"id": "gbt", "label": "GBT", "iri": "G", "group": "matches", "score": 0.9,
    ...      "because": [{"rule": "r", "match": "full"}], "against": []}
    >>> b = dict(a, id="xgb", label="XGBoost", iri="X", papers=[])
    >>> nodes = {"G": {"ancestors": []}, "X": {"ancestors": ["G"]}}
    >>> [(e["id"], [m["id"] for m in e.get("members", [])]) for e in group_families([a, b], {"nodes": nodes})]
    [('gbt', ['xgb'])]
"""

from __future__ import annotations

from recipekg.reason.scoring import MATCHES

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from recipekg.contracts.recommend import Member, Result

#: The matches of reasons that apply (a near one decides a matching choice's place through its score alone).
APPLYING = ("full", "general")


def signature(result: dict) -> tuple:
    """What places a result: for a matching result its score and the rules that apply for and
    against it (rule, side, match), or on a side where none applies, those near their
    threshold; beside a rule that applies, a near one places it only through the score (below
    it, it adds nothing: BERT's "100-1K examples" near 2K examples leaves it where the encoder
    rule puts it and its family, so it is one of the family's entry);
    for a result that waits (or is ruled against), every rule it has, so that a family whose
    members wait for the same conditions is one entry too.

    >>> r = {"group": "matches", "score": 0.9, "against": [],
    ...      "because": [{"rule": "enc", "match": "full"}, {"rule": "nlp-100-1k", "match": "near"}]}
    >>> signature(r) == signature(dict(r, because=r["because"][:1]))
    True
    >>> signature(r) == signature(dict(r, score=0.95))
    False
    """
    if result["group"] != MATCHES:
        keys = {(r["rule"], "for", r["match"]) for r in result["because"]}
        keys |= {(r["rule"], "against", r["match"]) for r in result["against"]}
        return result["group"], tuple(sorted(keys))
    keys = _placing(result["because"], "for") | _placing(result["against"], "against")
    return result["group"], tuple(sorted(keys)), result["score"]


def _placing(reasons: list[dict], side: str) -> set[tuple]:
    """The keys of the reasons on one side that place a matching result: those that apply, or
    when none does, those near their threshold."""
    applying = {(r["rule"], side, r["match"]) for r in reasons if r["match"] in APPLYING}
    return applying or {(r["rule"], side, r["match"]) for r in reasons if r["match"] == "near"}


def group_families(results: list, snap: dict) -> list[Result]:
    """``results`` (ranked) with each family's members folded into its entry (``members``),
    ranks renumbered; a result without rules that place it is never folded."""
    nodes = snap["nodes"]
    buckets: dict[tuple, list[dict]] = {}
    for r in _foldable(results, nodes):
        if (sig := signature(r))[1]:
            buckets.setdefault(sig, []).append(r)
    head_of: dict[str, str] = {}
    for bucket in buckets.values():
        iris = {r["iri"] for r in bucket}
        for r in bucket:
            above = [a for a in nodes.get(r["iri"], {}).get("ancestors", ()) if a in iris]
            if above:  # the broadest ancestor in the bucket heads the entry
                head_of[r["iri"]] = next(a for a in above if not set(nodes.get(a, {}).get("ancestors", ())) & iris)
    members: dict[str, list] = {}
    for r in results:
        if r["iri"] in head_of:
            members.setdefault(head_of[r["iri"]], []).append(r)
    out: list = []
    placed = set()
    by_iri = {r["iri"]: r for r in results}
    skipped = 0  # the results folded into an entry placed before them
    for n, r in enumerate(results, 1):
        head = by_iri[head_of.get(r["iri"], r["iri"])]
        if head["iri"] in placed:
            skipped += 1
            continue
        placed.add(head["iri"])
        folded = members.get(head["iri"])
        # its place: its first result's rank (a lean ranking's results may leave out the ones
        # no answer reads: their ranks count), less the results folded before it
        rank = r.get("rank", n) - skipped
        # a result that stays as it was is its own entry (a ranked result is an answer's entry
        # from here on): only an entry that changes is a copy
        entry = dict(head) if folded or head.get("rank") != rank else head
        if folded:
            entry["members"] = [member_json(m) for m in folded]
        entry["rank"] = rank
        out.append(entry)
    return out


def _foldable(results: list, nodes) -> list:
    """The results that could be folded or head a family (:func:`foldable`).

    >>> nodes = {"G": {"ancestors": []}, "X": {"ancestors": ["G"]}, "Y": {}}
    >>> [r["iri"] for r in _foldable([{"iri": "G"}, {"iri": "X"}, {"iri": "Y"}], nodes)]
    ['G', 'X']
    """
    related = foldable([r["iri"] for r in results], nodes)
    return [r for r in results if r["iri"] in related] if related else []


def foldable(iris: list[str], nodes) -> set[str]:
    """Of the ranked choices ``iris``, those that could be folded or head a family: those with
    an ancestor ranked, and those ancestors (a result related to no other ranked result is its
    own entry, whatever its signature: only these are compared, so the rest, which grows with
    the KB, costs no signature, and a ranking need not make their results in full).

    >>> sorted(foldable(["G", "X", "Y"], {"G": {"ancestors": []}, "X": {"ancestors": ["G"]}, "Y": {}}))
    ['G', 'X']
    """
    ranked = set(iris)
    heads: set = set()
    for iri in iris:
        above = nodes.get(iri, {}).get("ancestors", ())
        if above:
            heads.update(a for a in above if a in ranked)
    return {i for i in iris if i in heads or not heads.isdisjoint(nodes.get(i, {}).get("ancestors", ()))} \
        if heads else set()


def member_json(r: Result) -> Member:
    """A member of a family entry: id, label, IRI, papers, and its notes where it has any."""
    out: Member = {"id": r["id"], "label": r["label"], "iri": r["iri"], "papers": r.get("papers", [])}
    if r.get("fits"):
        out["fits"] = r["fits"]
    if r.get("notes"):
        out["notes"] = r["notes"]
    return out


def entries_by_choice(entries: list[dict]) -> dict[str, dict]:
    """Each choice's entry (its own, or its family's; the first when several hold it), by IRI:
    :func:`entry_of` for every choice at once."""
    out: dict[str, dict] = {}
    for e in entries:
        out.setdefault(e["iri"], e)
        for m in e.get("members", ()):
            out.setdefault(m["iri"], e)
    return out


def entry_of(choice_iri: str, entries: list) -> Result | None:
    """The entry a choice is ranked in: its own, or its family's."""
    for e in entries:
        if e["iri"] == choice_iri or any(m["iri"] == choice_iri for m in e.get("members", ())):
            return e
    return None
