"""The JSON of answers (the contract of ../shared/spec/query-language.md), built in one place
for every backend: constraints, reasons, papers, ranked results.

    >>> source_json("grinsztajn2022", snap, "states")["year"]
    2022

Every source object says what the source does for the claim it backs (``role``: states,
supports, method or reference; ``where`` when the source locates it)::

    >>> rule = snap["rules"]["https://w3id.org/recipekg/rule/research-chinchilla-optimal"]
    >>> [(s["id"], s["role"]) for s in sources_json(rule, snap)]
    [('hoffmann2022', 'method')]
"""

from __future__ import annotations

from recipekg.reason.facts import IMPLIED
from recipekg.reason.scoring import DECIDED, MATCHES, NEAR, best_match, rank_key, situate, tally

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from collections.abc import Mapping
    from typing import Any

    from recipekg.contracts.common import (Choice, Constraint, DisputedBy, Reason, ReasonMore, Role,
                                           Source)
    from recipekg.contracts.recommend import AheadBy, Alongside, Decision, Result


def constraints_json(facts: dict) -> list[Constraint]:
    """The constraints as given (and derived: ``derived_from``), without their source text."""
    out = []
    for f in facts.values():
        for c in f.constraints:
            shown = shown_constraint(c)
            if f.derived:
                shown["derived_from"] = f.derived
            out.append(shown)
    return out


def shown_constraint(c: dict) -> Constraint:
    """A constraint of the facts (reason/facts.py ``constraint_json``) as answers show it:
    without its source text."""
    out: Any = {k: v for k, v in c.items() if k != "text"}
    return out


def reason_json(iri: str, rule: dict, ev: dict, snap: dict, deferred: bool = False) -> Reason:
    """One rule as a reason for (or against) a choice, with its evaluation and sources.

    ``deferred``: without what only an answer shows and what costs most to read (its papers:
    ``sources`` None, or an extension's rule's source ids as a tuple, which is what the scoring
    reads of them; its disputes: ``disputed_by`` the disputing rules' IRIs, unfiltered), in their places,
    for a ranking whose reasons are mostly not shown (:func:`recipekg.reason.recommend.dress`
    fills them in for those that are). ``rule`` may be the rule's row of the rule index
    (:func:`recipekg.knowledge.rule_index.rank_row`, without label and text): deferred, they
    are None in their places until dressed; else the rule is read whole."""
    if "text" not in rule and not deferred:
        rule = snap["rules"][iri]
    caveat: ReasonMore = {"caveat": rule["caveat"]} if rule.get("caveat") else {}
    step: ReasonMore = {"step": int(rule["step"])} if rule["step"] is not None else {}
    procedure: ReasonMore = ({"procedure": snap["nodes"].get(rule["procedure"], {}).get("id", rule["procedure"])}
                             if _ordered(rule, snap) else {})
    return {
        # (None from a rule's row until dressed: the deferred reason's declared placeholder)
        "rule": iri, "id": rule["id"], "label": rule.get("label"), "text": rule.get("text"),  # type: ignore[typeddict-item]
        "strength": snap["strengths"][rule["strength"]]["label"], "match": ev["match"],
        "role": rule.get("role"),
        "contribution": round(ev["contribution"], 4),
        "conditions": [{"condition": c["label"], "dimension": c["dimension"], "status": s}
                       for c, s in zip(ev["conditions"], ev["statuses"])],
        "section": snap["sections"][rule["section"]]["path"],
        # an extension's deferred reason keeps its sources' ids (a tuple): the scoring counts its evidence by them
        "sources": (None if not rule.get("origin") else tuple(rule["sources"])) if deferred  # type: ignore[typeddict-item]
        else sources_json(rule, snap),
        **caveat,
        "disputed_by": (list(rule["contradicts"]) if deferred
                        else [disputed_json(c, snap) for c in rule["contradicts"]]),
        **step,
        **procedure,
        **origin_json(rule),
    }


def origin_json(item: Mapping[str, Any]) -> dict:
    """``{"origin": {"file", "line"}}`` for what an extension added (docs/security.md), else
    nothing: every output copies it, so an extension's knowledge is never read as the KB's."""
    return {"origin": item["origin"]} if item.get("origin") else {}


def _ordered(rule: dict, snap: dict) -> bool:
    return bool(rule.get("procedure")) and snap["procedures"].get(rule["procedure"], {}).get("ordered", False)


def disputed_json(iri: str, snap: dict) -> DisputedBy:
    from recipekg.knowledge.view import of_reference

    other = snap["rules"][iri]
    return {"rule": iri, "id": other["id"], "text": other["text"],
            "section": snap["sections"][other["section"]]["path"],
            "of_reference": of_reference(other["section"], snap["sections"]), **origin_json(other)}


def source_json(pid: str, snap: dict, role: Role, where: str | None = None) -> Source:
    """The source object of a claim: the paper and what it does for the claim.

    >>> source_json("hoffmann2022", snap, "states", "Table 3")["where"]
    'Table 3'
    """
    p = snap["papers"][pid]
    out: Source = {"id": pid, "title": p["title"], "year": p["year"], "arxiv": p["arxiv"], "url": p["url"],
                   "role": role}
    if where:
        out["where"] = where
    if p.get("origin"):
        out["origin"] = p["origin"]
    return out


def sources_json(item: dict, snap: dict) -> list[Source]:
    """The source objects of a claim (rule, formula, constant, fact or described node): each
    source with its role for the claim, and where it states the claim when it does."""
    citations = item.get("citations") or {}
    out = []
    for pid in item["sources"]:
        citation = citations.get(pid) or untyped_citation(pid, snap)
        out.append(source_json(pid, snap, citation["role"], citation.get("where")))
    return out


def untyped_citation(pid: str, snap: dict) -> dict:
    """The role of a link no typed citation describes: the reference's own judgement for the
    reference itself, else the least a citation says (supports)."""
    return {"role": "reference" if "Reference" in snap["papers"][pid]["types"] else "supports", "where": None}


def choice_json(iri: str, snap: dict) -> Choice:
    """A choice as answers name it: id, label, IRI, kinds and the papers that introduced it."""
    node = snap["nodes"][iri]
    return {"id": node["id"], "label": node["label"], "iri": iri, "kinds": node["kinds"],
            "papers": [source_json(p, snap, "method") for p in node["papers"]], **origin_json(node)}


def scored(iri: str, entry: dict, snap: dict, ranks: dict[str, int]) -> dict:
    """What orders a ranked choice (:func:`recipekg.reason.scoring.rank_key` reads it), from its
    reasons as the scoring reads them (:func:`recipekg.reason.recommend.reason_record`, sorted
    here as a result shows them: the noisy-or multiplies in that order): its id and depth, the
    tally, the best match, the strongest rule deciding for it, the constraints its properties fit
    beyond those rules, and its node. Cheap: no label, papers or reason text (:func:`result_json`
    adds them)."""
    for side in ("because", "against"):
        if len(entry[side]) > 1:  # (most of a large ranking's choices have one reason)
            entry[side].sort(key=_by_contribution)
    node = snap["nodes"][iri]
    because = entry["because"]
    strength = None  # the strongest rule that applies for it
    for r in because:
        if r["match"] in ("full", "general") and (strength is None or (ranks.get(r["strength"]) or 0) > strength):
            strength = ranks.get(r["strength"]) or 0
    score = tally(because, entry["against"], snap["scoring"].get("default_support"))
    score.update(id=node["id"], match=best_match(because), depth=len(node.get("ancestors", ())) + ("part_of" in node),
                 strength=0 if strength is None else strength, because=because, fits_more=_fits_more(entry), node=node)
    return score


def result_json(iri: str, entry: dict, snap: dict, score: dict, rank: int, deferred: bool = False,
                facts: dict | None = None) -> Result:
    """A ranked result at ``rank`` from its reasons (``entry``'s, as an answer shows them) and
    their ``score`` (:func:`scored`): with the constraints its properties fit (``fits``) and the
    properties they go past (``notes``); ``deferred``: ``papers`` None in its place (see
    :func:`reason_json`); ``facts``: what the query gives, which a result never waits for."""
    node = score["node"]
    choice = ({"id": node["id"], "label": node["label"], "kinds": node["kinds"], "papers": None} if deferred
              else choice_json(iri, snap))
    result: Any = {"rank": rank, "id": choice["id"], "label": choice["label"], "iri": iri, "kinds": choice["kinds"],
                   "group": score["group"], "score": score["score"], "specificity": score["specificity"],
                   "match": score["match"], "papers": choice["papers"], "because": entry["because"],
                   "against": entry["against"], **origin_json(choice)}
    if entry.get("fits"):
        result["fits"] = entry["fits"]
    if entry.get("notes"):
        result["notes"] = entry["notes"]
    if result["group"] != MATCHES:  # deferred: None in its place until shown (:func:`fill_waits`)
        result["waits_for"] = None if deferred else waits_for(entry["because"] + entry["against"], snap, facts)
    return result


def _by_contribution(reason: dict) -> tuple:
    return -reason["contribution"], reason["id"]


def _fits_more(entry: dict) -> int:
    """The constraints a choice's properties fit that its deciding rules do not already use."""
    if not entry.get("fits"):
        return 0
    used = {g for r in entry["because"] if r["match"] in ("full", "general", "near") for u in r.get("uses", ())
            for g in u.removesuffix(IMPLIED).split(" and ")}
    return sum(1 for d in entry["fits"] if d not in used)


def fill_waits(result: dict, snap: dict, facts: dict | None) -> None:
    """A deferred result's ``waits_for`` (None in its place: :func:`result_json`), filled in for
    a result an answer shows; a result that has it is left as it is."""
    if "waits_for" in result and result["waits_for"] is None:
        result["waits_for"] = waits_for(result["because"] + result["against"], snap, facts)


def strength_ranks(snap: dict) -> dict[str, int]:
    """Each strength's label -> its rank (what a result's ``strength`` key compares)."""
    return {s["label"]: s["rank"] for s in snap["strengths"].values()}


def waits_for(reasons: list, snap: dict, facts: dict | None = None) -> list[str]:
    """The dimensions a choice's partly matching rules wait for (not given by the query); a
    derived dimension is asked for through those it is derived from (``derived_from``: a tier
    through the GPUs and time), less those the query gives (``facts``: with the GPUs given, a
    tier waits for the time).

    >>> reason = {"match": "partial", "conditions": [{"dimension": "tier", "status": "not given"}]}
    >>> waits_for([reason], snap), waits_for([reason], snap, {"gpus": None})
    (['gpus', 'time'], ['time'])
    """
    conditions = [c for x in reasons if x["match"] == "partial" for c in x["conditions"] if c["dimension"]]
    dims = {c["dimension"] for c in conditions if c["status"] == "not given"}
    dimensions = snap["dimensions"]
    # a value derived over an open input the query does not give (every number of GPUs) meets a
    # condition partly: the rule waits for that input
    opened = {i for c in conditions if c["status"] == "partly" for i in dimensions.get(c["dimension"], {}).get("open_inputs") or ()}
    wanted = {d for dim in dims for d in dimensions.get(dim, {}).get("derived_from") or (dim,)} | opened
    return sorted(wanted - set(facts or ()))


def order_results(choices: dict[str, dict], snap: dict, most: float | None = None) -> list[tuple[dict, str]]:
    """Choice → {"because": [...], "against": [...]} reasons as the scoring reads them, as
    ``(score, choice)`` in rank order: each rule's contribution measured against the most
    specific advice (:func:`recipekg.reason.scoring.situate`, against ``most`` constraints when
    given), each choice's score (:func:`scored`) ordered by :func:`recipekg.reason.scoring.rank_key`
    (results are made of them for the choices an answer reads: :func:`result_json`)."""
    scoring = snap["scoring"]
    reasons = [r for entry in choices.values() for side in ("because", "against") for r in entry[side]]
    situate(reasons, scoring.get("default_support") or 0.0, scoring["unconstrained_factor"], most,
            scoring["partly_credit"])
    ranks = strength_ranks(snap)
    return sorted([(scored(iri, entry, snap, ranks), iri) for iri, entry in choices.items()], key=_rank_key)


def _rank_key(pair: tuple[dict, str]) -> tuple:
    return rank_key(pair[0])


def _step(result: dict) -> tuple[str, int] | None:
    """The procedure a result is a step of (through a reason that decides), and the step."""
    steps = [(r["procedure"], r["step"]) for r in result["because"]
             if r.get("procedure") and r["match"] in ("full", "general")]
    return min(steps, key=lambda s: s[1]) if steps else None


def _opposed(r: Mapping) -> bool:
    """Whether advice that applies in full weighs against result ``r`` (a run that does not fit,
    a choice the constraints rule out): it still ranks, but it is no runner-up to the pick."""
    return any(a.get("match") == "full" for a in r.get("against") or ())


def decision(results: list, limit: int = 3, near: list | None = None, nodes: Mapping | None = None,
             sections: Mapping | None = None, kind: str | None = None) -> Decision:
    """The recommended pick, its runner-ups and the choices the reference says to compare
    with it, from ranked results (the pick is the first choice that matches and scores).
    When the first-ranked match is a step of an ordered procedure, the pick is the procedure's
    first step that applies and ``procedure`` lists the steps that apply in step order (the
    results stay in score order), instead of counting them as runner-ups. The choice that would rank first
    on the other side of a threshold near the user's value (``near``) stays a runner-up.

    With the snapshot's ``nodes`` (their ``ancestors`` and ``part_of``), runner-ups are real
    alternatives: a match of the pick's family (``broader``: the family the pick is one of) or
    one of its kinds (``narrower``: a narrower choice that matches too) is named as such, not as a
    runner-up, a runner-up's relatives do not follow it (:func:`relatives`), and a part of a
    combination that matches as well is neither (:func:`_folded`; the pick's are its ``parts``;
    a combination the pick outscores is what it is ``part_of``). With the recipe ``sections``
    choices are shown in (``rkg:recipeSection``; a choice without one is in ``kind``'s own), runner-ups and ties are
    the pick's section's: the best matches of another section are no alternative to the pick
    but another part of the run (``alongside``: train from scratch, and with it five-way
    parallelism and Chinchilla's token budget)."""
    matching = [r for r in results if r["group"] == MATCHES and r["score"] > 0]
    folded = _folded(matching, nodes) if nodes is not None else {}
    matching = [r for r in matching if r["id"] not in folded]
    step = _step(matching[0]) if matching else None
    numbered = [(n[1], r["id"]) for r in matching if step and (n := _step(r)) is not None and n[0] == step[0]]
    steps = [i for _, i in sorted(numbered, key=lambda x: x[0])]
    pick = steps[0] if steps else matching[0]["id"] if matching else None
    comparing = {id(r) for r in results for x in r["because"] if x["match"] == "full" and x.get("role") == "comparison"}
    compare = [r["id"] for r in results if id(r) in comparing and r["id"] != pick] if comparing else []
    kin = relatives(matching, pick, nodes) if nodes is not None else {}
    head = next((r["iri"] for r in matching if r["id"] == pick), None)
    of = (nodes or {}).get(head, {}).get("part_of", ())  # (the pick, a part that outscores its combination)
    wholes = [r["id"] for r in matching if r["iri"] in of]
    kin.update((w, "whole") for w in wholes)
    section = (lambda r: sections.get(r["iri"]) or kind) if sections is not None else (lambda r: None)
    mine = next((section(r) for r in matching if r["id"] == pick), None)
    elsewhere = [r for r in matching if section(r) != mine and r["id"] not in kin and r["id"] not in steps]
    matching = [r for r in matching if section(r) == mine]
    # advice written for the user's case makes its alternatives the runner-ups, not the general
    # advice every run gets (listed below them all the same: clip gradients, whatever the run)
    for_case = bool(matching) and situated(matching[0])
    runner_ups = [r["id"] for r in matching[1:] if r["id"] not in compare and r["id"] not in steps
                  and r["id"] not in kin and (not for_case or situated(r)) and not _opposed(r)][:limit]
    ranked = {r["id"] for r in matching if not _opposed(r)}
    for other in (n["other_side"]["pick"] for n in near or () if n.get("other_side")):
        if other in ranked and other != pick and other not in runner_ups and other not in compare + steps \
                and kin.get(other) not in ("broader", "narrower"):
            # it stands for its relatives among the runner-ups (CNN, not ConvNeXt and CNN)
            iri = {r["id"]: r["iri"] for r in matching}
            runner_ups = [i for i in runner_ups if nodes is None or not _akin(iri[i], iri[other], nodes)]
            runner_ups = runner_ups[:limit - 1] + [other]
    out: Decision = {"pick": pick, "runner_ups": runner_ups, "compare_with": compare}
    for side in ("broader", "narrower"):
        if named := [i for i, how in kin.items() if how == side][:limit]:
            out[side] = named
    if parts := [i for i, combined in folded.items() if head in combined]:
        out["parts"] = parts
    if wholes:
        out["part_of"] = wholes
    if steps and step is not None:
        out["procedure"] = {"id": step[0], "steps": steps}
    elif matching and (tied := tied_with_first(matching, kin)):
        out["tied_with"] = tied
    if matching and not steps and (ahead := ahead_by_fits(matching, kin)):
        out["ahead_by"] = ahead
    if sections is not None and mine is not None:
        out["section"] = mine
    if also := _alongside(elsewhere, section, kin):
        out["alongside"] = also
    return out


def _folded(matching: list, nodes: Mapping) -> dict[str, list[str]]:
    """The matches that are parts of a combination that matches too and scores no less (five-way
    parallelism and the data parallelism it combines: ``part_of``), each with those combinations
    (IRIs): one recommendation, wherever a tie-break put the part (its properties may fit more of
    the query than the combination's), so never the pick, a runner-up or another section's pick.

    >>> nodes = {"W": {}, "P": {"part_of": ["W"]}, "Q": {"part_of": ["W"]}}
    >>> _folded([{"id": "p", "iri": "P", "score": 0.9}, {"id": "w", "iri": "W", "score": 0.9},
    ...          {"id": "q", "iri": "Q", "score": 0.95}], nodes)
    {'p': ['W']}
    """
    score = {r["iri"]: r["score"] for r in matching}
    out = {}
    for r in matching:
        if wholes := [w for w in nodes.get(r["iri"], {}).get("part_of", ()) if score.get(w, -1.0) >= r["score"]]:
            out[r["id"]] = wholes
    return out


def _alongside(matching: list, section, kin: Mapping) -> list[Alongside]:
    """The best match of each section but the pick's, in rank order, with the matches the
    advice does not separate from it (as :func:`tied_with_first`)."""
    out: list[Alongside] = []
    by_section: dict = {}
    for r in matching:  # (one pass: a section's matches in rank order)
        by_section.setdefault(section(r), []).append(r)
    for name, mine in by_section.items():
        entry: Alongside = {"section": name, "pick": mine[0]["id"]}
        if tied := tied_with_first(mine, kin):
            entry["tied_with"] = tied
        out.append(entry)
    return out


def relatives(matching: list, pick: str | None, nodes: Mapping) -> dict[str, str]:
    """The matches that are no alternative to the pick or to a match ranked above them, in rank
    order: ``"broader"`` (a family the pick is one of), ``"narrower"`` (one of the pick's kinds)
    or ``"kin"`` (a family, or a kind, of an alternative ranked above it: a match related neither
    to the pick nor to another alternative above it). The pick's siblings (LoRA and full
    fine-tuning, kinds of one family) are alternatives.

    >>> nodes = {"F": {"ancestors": []}, "L": {"ancestors": ["F"]}, "Q": {"ancestors": ["L", "F"]},
    ...          "S": {"ancestors": []}}
    >>> ranked = [{"id": i.lower(), "iri": i} for i in "LSFQ"]
    >>> relatives(ranked, "l", nodes)
    {'f': 'broader', 'q': 'narrower'}
    >>> relatives([{"id": i.lower(), "iri": i} for i in "SFQ"], "s", nodes)
    {'q': 'kin'}
    >>> nodes["H"] = {"ancestors": ["F"]}
    >>> relatives([{"id": i.lower(), "iri": i} for i in "LFH"], "l", nodes)
    {'f': 'broader'}
    """
    out: dict[str, str] = {}
    head = next((r for r in matching if r["id"] == pick), None)
    head_iri = head["iri"] if head else None
    head_up = set(nodes.get(head_iri, {}).get("ancestors", ())) if head else set()
    others: set[str] = set()  # the alternatives above (their IRIs) and every ancestor of theirs:
    others_up: set[str] = set()  # one of them is akin to a match when either holds the other
    skipped = False
    for r in matching:
        if r is head:
            continue
        iri = r["iri"]
        up = nodes.get(iri, {}).get("ancestors", ())
        if head and (head_iri in up or iri in head_up):
            out[r["id"]] = "narrower" if head_iri in up else "broader"
        elif iri in others_up or not others.isdisjoint(up):
            out[r["id"]] = "kin"
        elif head is None and not skipped:  # (without a pick the first alternative stands alone)
            skipped = True
        else:  # an alternative: its own relatives below it are not others
            others.add(iri)
            others_up.update(up)
    return out


def _akin(a: str, b: str, nodes: Mapping) -> bool:
    """Whether choices ``a`` and ``b`` (IRIs) are one family: either an ancestor of the other."""
    return a in nodes.get(b, {}).get("ancestors", ()) or b in nodes.get(a, {}).get("ancestors", ())


def situated(result: dict) -> bool:
    """Whether advice written for the user's case speaks for a result: a reason for it that
    applies holding on one of the user's constraints (naming their value, or bounding one of
    their numbers: its specificity), or one that misses their number narrowly. General advice
    (no conditions) and a rule for a broader case than theirs hold on none.

    >>> held = {"match": "full", "specificity": [0, 1, 1]}
    >>> situated({"because": [held]}), situated({"because": [{**held, "specificity": [0, 1, 0]}]})
    (True, False)
    """
    return any(r["match"] == NEAR or r["match"] == "full" and (r["specificity"][0] or r["specificity"][2])
               for r in result["because"])


def ahead_by_fits(matching: list, kin: Mapping | None = None) -> AheadBy | None:
    """``{"of", "fits"}``: the matches the advice ranks alike with the first (:func:`tied_with_first`'s
    weight) that it is ahead of only because its own properties fit constraints no deciding rule
    reads (``fits``): Mamba for a 32K-token generation, at the score of the decoder, the distilled
    model and RWKV, as Mamba's property covers the sequence length; None when nothing is.

    >>> rule = {"match": "full", "strength": "strong", "conditions": [{"dimension": "task"}]}
    >>> a = {"id": "a", "score": 0.9, "specificity": [1, 0, 0], "match": "full", "because": [rule], "against": [],
    ...      "fits": ["seq-length"]}
    >>> ahead_by_fits([a, {**a, "id": "b", "fits": []}, {**a, "id": "c", "score": 0.5}])
    {'of': ['b'], 'fits': ['seq-length']}
    """
    first = matching[0]
    mine = _weight(first)
    own = _fits(first)
    behind = [r for r in matching[1:] if r["id"] not in (kin or {}) and _weight(r) == mine and _fits(r) != own]
    beyond = sorted(own - set().union(*(_fits(r) for r in behind))) if behind else []
    return {"of": [r["id"] for r in behind], "fits": beyond} if beyond else None


def _weight(r: Mapping) -> tuple:
    """What ranks a match alike with another, its properties' fits aside: the score, specificity,
    match and the strengths of its deciding rules, for and against (a checklist's earlier item
    first: its step orders it)."""
    return (r["score"], tuple(r["specificity"]), r["match"],
            tuple(sorted(x["strength"] for x in r["because"] if x["match"] in DECIDED)),
            tuple(sorted(x["strength"] for x in r["against"] if x["match"] in DECIDED)),
            min((x["step"] for x in r["because"] if x["match"] in DECIDED and x.get("step") is not None),
                default=None))


def _fits(r: Mapping) -> set[str]:
    """What a match's properties fit that its deciding rules do not read (as ``fits_more``)."""
    read = {c["dimension"] for x in r["because"] if x["match"] in DECIDED for c in x["conditions"]}
    return set(r.get("fits") or ()) - read


def tied_with_first(matching: list, kin: Mapping | None = None) -> list[str]:
    """The matches the advice does not separate from the first: the same score, decided alike
    (the same specificity and match, deciding rules of the same strengths, for and against:
    one rule naming two alternatives, "PatchTST, Informer", or two rules of equal weight, long
    audio's Mamba and speech recognition's Whisper), and the same constraints their properties
    fit beyond what those rules read (Mamba, whose paper reaches a million tokens, is not tied
    at 64K with a distilled model the same rule names); their order is only the ids'. Rules
    that wait for a condition not given do not decide (the answer asks for that condition
    instead); the pick's family and kinds (``kin``) are ordered by breadth, not tied."""
    first = matching[0]
    mine, fit = _weight(first), _fits(first)
    return [r["id"] for r in matching[1:] if r["score"] == mine[0] and r["id"] not in (kin or {})
            and _weight(r) == mine and _fits(r) == fit]
