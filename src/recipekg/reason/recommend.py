"""``recommend <kind> [where ...] [top n]``: ranked choices with the rules for and against each,
the pick, and the questions whose answers would change it.

    >>> answer = recommend(parse("recommend architecture where data = tabular and rows = 30k")[0], snap)
    >>> answer["decision"]["pick"], [m["id"] for m in answer["results"][0]["members"]]
    ('gradient-boosted-trees', ['lightgbm', 'xgboost'])
    >>> [a["dimension"] for a in recommend(parse("recommend architecture where data = tabular")[0], snap)["ask"]]
    ['samples']

How the rules' evaluations become scores, groups and an order is
:mod:`recipekg.reason.scoring` (docs/scoring.md); where the evaluations come from is the
backend's business (:mod:`recipekg.reason.backend`: the native rule index, or a SPARQL engine).
The situation around the ranking (choices a property excludes, constraints no advice used,
thresholds near the user's values) is :mod:`recipekg.reason.properties` and
:mod:`recipekg.reason.situation`; families as one entry :mod:`recipekg.reason.families`.
"""

from __future__ import annotations

from bisect import bisect_left

from recipekg.query.ast import Recommend
from recipekg.reason.answers import (choice_json, constraints_json, decision, disputed_json, fill_waits,
                                    order_results, reason_json, result_json, sources_json)
from recipekg.reason.backend import Backend, NativeBackend, ranks_kind
from recipekg.reason.conditions import FAILED, specificity, status
from recipekg.reason.facts import uses
from recipekg.reason.resolve import facts_of, resolve_kind
from recipekg.reason.scoring import MATCHES, NEAR, near_contribution, used_count
from recipekg.reason.situation import near_reasons, unused
from recipekg.reason.taking import METHOD, as_taken, own_method, same_run

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from typing import Any

    from recipekg.contracts.recommend import RecommendBody


#: The results an answer shows when the statement gives no ``top``: the rest is counted (``more``).
SHOWN = 50


def recommend(stmt: Recommend, snap: dict, backend: Backend | None = None) -> RecommendBody:
    """The answer to a ``recommend`` statement (the JSON the spec describes): at most ``top``
    results (:data:`SHOWN` when the statement gives none; ``more`` then says how many more)."""
    from recipekg.reason.ask import LOOK_AT, questions  # here, not at the top: plan ranks without them
    from recipekg.reason.boundaries import boundaries
    from recipekg.reason.elsewhere import against_yours, choices_given, given_on, yours
    from recipekg.reason.properties import parts_of
    from recipekg.reason.families import group_families
    from recipekg.reason.scope import out_of_scope, unrunnable
    from recipekg.reason.shortfall import shortfall

    kind = resolve_kind(stmt.kind, snap)
    shown_facts = facts_of(stmt.constraints, snap)
    facts, unrun = unrunnable(shown_facts, snap)  # (a precision the hardware does not run: read without it)
    native = backend if isinstance(backend, NativeBackend) else NativeBackend(snap)
    top = SHOWN if stmt.top is None else stmt.top
    # results in full for the entries shown and those ask looks at (and every match: ranking)
    ranked = ranking(kind, facts, snap, backend or native, lean=True, shown=max(top, LOOK_AT),
                     keep=choices_given(kind, facts, snap))  # (and the user's own: where each ranks)
    results: list = group_families(ranked["results"], snap)
    entries = len(results) + ranked["count"] - len(ranked["results"])  # those not made are entries of their own
    # the trials re-rank through one native backend, which reuses the evaluations of every rule
    # whose dimensions a trial leaves alone (reason.backend.Evaluations); what they read of the
    # ranking is its decision, from the matches
    rerank = lambda trial: group_families(  # noqa: E731
        rank(kind, trial, snap, native, lean=True, decisive=True, shown=0), snap)
    decided = decision(results, nodes=snap["nodes"])  # over every entry, once: what ask and the boundaries start from
    ask = questions(kind, facts, results, snap, rerank, ranked["results"], decided)
    near = boundaries(kind, facts, ranked, results, snap, rerank, decided)
    shown = dress(results[:top], facts, snap, kind, parts_of(results, snap))
    short = shortfall(shown, facts, snap)
    sections = snap["recipe_sections"] if kind in snap["sectioned_kinds"] else None  # (parts of one run)
    answer: RecommendBody = {"statement": "recommend", "kind": kind, "query": stmt.text.strip(),
              "constraints": constraints_json(shown_facts),
              "decision": decision(shown, near=near, nodes=snap["nodes"], sections=sections, kind=kind), "ask": ask,
              "results": shown, "excluded": ranked["excluded"],
              "unused": unrun + unused(kind, facts, ranked["evaluated"], ranked["verdicts"], snap, ranked["near"],
                                       ranked["excluded"]),
              "near_boundary": near}
    if also := answer["decision"].get("alongside"):  # the other parts of the pick's own run only
        if kept := [e for e in also if same_run(answer["decision"]["pick"], e["pick"], snap)]:
            answer["decision"]["alongside"] = kept
        else:
            del answer["decision"]["alongside"]
    if against := [r["id"] for r in against_yours(results, facts, snap)]:
        answer["decision"]["against_yours"] = against
    if mine := yours(kind, facts, results, snap, against):
        answer["decision"]["yours"] = mine
    if said := given_on(facts, snap, [*against, *(y["choice"] for y in mine)]):  # used: the answer says where each ranks
        answer["unused"] = [u for u in answer["unused"] if u["dimension"] not in said]
    if stmt.top is None and entries > SHOWN:
        answer["more"] = {"shown": SHOWN, "of": entries,
                          "text": f"the first {SHOWN} of {entries} results; add top {entries} to the "
                                  f"statement for all of them"}
    if short:
        answer["shortfall"] = short
    if scope := out_of_scope(facts, snap):
        answer["out_of_scope"] = scope
        said = {c["dimension"] for x in scope for c in x["because_of"]}  # (read: the note says what it contradicts)
        answer["unused"] = [u for u in answer["unused"] if u["dimension"] not in said]
    if not results:  # no advice of this kind, for, against or waiting: it may be another kind's
        from recipekg.reason.elsewhere import elsewhere

        if found := elsewhere(kind, facts, snap, lambda other: rank(other, facts, snap, native, lean=True,
                                                                   decisive=True, shown=0)):
            answer["elsewhere"] = found
    return answer


def dress(entries: list, facts: dict, snap: dict, kind: str | None = None, parts: dict | None = None) -> list:
    """``entries`` of a lean ranking as an answer shows them: each entry's and member's papers,
    and its reasons' sources and disputes (the disputing rules that could apply here), in the
    places the ranking kept for them (:func:`recipekg.reason.answers.reason_json`); what each
    applies to that the constraints leave open (``applies_if``, for a ``kind``'s answer), and
    what its ranked parts (``parts``: combination → its parts ranked) apply to: five-way
    parallelism's expert parallelism is for mixtures of experts."""
    from recipekg.reason.properties import applies_if  # here, not at the top: plan ranks without them
    from recipekg.reason.shortfall import saving_note

    for entry in entries:
        fill_waits(entry, snap, facts)
        if note := saving_note(entry["iri"], facts, snap, entry["because"]):
            entry["memory_saving"] = note
        if kind and (unsaid := applies_if(entry, kind, facts, snap, parts or {})):
            entry["applies_if"] = unsaid
        for holder in (entry, *entry.get("members", ())):
            if holder.get("papers", ()) is None:
                holder["papers"] = choice_json(holder["iri"], snap)["papers"]
        for reason in entry["because"] + entry["against"]:
            if type(reason["sources"]) is not list:  # deferred: None, or an extension's rule's source ids
                rule = snap["rules"][reason["rule"]]
                if reason["text"] is None:  # from the rule's row (its label and text left out)
                    reason["label"], reason["text"] = rule["label"], rule["text"]
                reason["sources"] = sources_json(rule, snap)
                reason["disputed_by"] = [disputed_json(d, snap) for d in reason["disputed_by"]
                                         if could_apply(d, facts, snap)]
    return entries


def rank(kind: str, facts: dict, snap: dict, backend: Backend | None = None,
         among: tuple[str, ...] | None = None, lean: bool = False, decisive: bool = False,
         shown: int | None = None) -> list[dict]:
    """Ranked choices of ``kind`` under ``facts``, with the rules for and against each; with
    ``among``, only those choices (as they rank among all of them: each choice's score is its
    own), from the rules that name them alone; ``lean``, ``decisive``, ``shown``: see :func:`ranking`."""
    return ranking(kind, facts, snap, backend, among, lean, decisive, shown)["results"]


def ranking(kind: str, facts: dict, snap: dict, backend: Backend | None = None,
            among: tuple[str, ...] | None = None, lean: bool = False, decisive: bool = False,
            shown: int | None = None, keep: frozenset[str] = frozenset()) -> dict:
    """``{"results", "count", "excluded", "evaluated", "verdicts", "near"}``: the ranked results
    (``count`` of them), the choices a property rules out, the backend's evaluations of the rules
    on the given dimensions, the property checks made and the evaluations near their threshold
    (what :func:`recipekg.reason.situation.unused` reads).

    ``shown``: the results are made in full (reasons, labels: :func:`recipekg.reason.answers.result_json`)
    only for every choice that matches, those a family could fold (:func:`recipekg.reason.families.foldable`)
    the first ``shown`` others and those ``keep`` names; the rest are ordered from their reasons as the scoring reads
    them (:func:`reason_record`) and counted, not made (each result keeps its ``rank`` among all
    of them). What is made is the full ranking's (a test compares them).

    ``lean``: the same results, without what costs most to read and only an answer shows, in
    its places: the reasons' sources and disputes, the results' papers (what re-ranking a trial
    reads is all there: a test compares the two on generated queries; :func:`dress` fills in
    the entries an answer shows).

    ``decisive``: from the rules that could decide only (:func:`recipekg.reason.backend.candidates`),
    so the choices only a rule waiting for an ungiven dimension ranks (the second group, "would
    apply", which grows with the KB) are left out: the first group's entries, their order, the
    pick and the first entry when it is in that group are the full ranking's (a test compares them)."""
    backend = backend or NativeBackend(snap)
    only = "deciding" if decisive else None
    if among is None:
        applied, evaluated = backend.applying(kind, facts, only), backend.evaluating(kind, facts, only)
    else:  # the choices and their families (whose rules against them reach them)
        nodes = snap["nodes"]
        families = tuple(dict.fromkeys(c for choice in among for c in (choice, *nodes.get(choice, {}).get("ancestors", ()))
                                       if kind in nodes.get(c, {}).get("kinds", ())))
        applied = _naming(backend, kind, families, facts, snap)
        evaluated = _about(backend, kind, families, facts, snap)
    nearby = near_reasons(evaluated, facts, snap["dimensions"])
    near = _near(evaluated, nearby)
    # few choices (no more than an answer shows): every result is made, each reason made whole
    # at once (what the scoring reads is there), as records would cost more than they save
    few = shown is None or len({a.choice for a in applied}.union(a.choice for a in near)) <= max(shown, SHOWN)
    make = _whole_reason if few else reason_record
    choices = _reasoned(applied, near, facts, snap, make, lean)
    as_taken(choices, facts, snap, backend, make, lean)
    if decisive and among is None:  # a choice only waiting rules reach, ranked by a rule against it once taken
        choices.update(_taken_only(kind, choices, facts, snap, backend, make, lean))
    _inherit(choices, kind, snap, among)
    for iri in [c for c, e in choices.items() if among is not None and c not in among or _only_waiting_against(e)]:
        del choices[iri]
    excluded, verdicts = _exclude(choices, kind, facts, snap)
    most = _most(applied if among is None else backend.applying(kind, facts, "full"), facts, snap)
    order = order_results(choices, snap, most)
    if shown is None or few:  # (few already says the first)
        for entry in choices.values():
            for r in entry["because"] + entry["against"]:
                r.pop("uses", None)
        results = [result_json(iri, choices[iri], snap, score, i, lean, facts) for i, (score, iri) in enumerate(order, 1)]
    else:
        made = _made(order, shown, keep)
        results = [result_json(iri, _reasons(choices[iri], facts, snap, lean), snap, score, i, lean, facts)
                   for i, (score, iri) in enumerate(order, 1) if iri in made]
    return {"results": results, "count": len(order), "excluded": excluded, "evaluated": evaluated,
            "verdicts": verdicts, "near": nearby}


def _reasoned(applied: list, near: dict, facts: dict, snap: dict, make, lean: bool) -> dict[str, dict]:
    """Choice → {"because": [...], "against": [...]}: the rules that apply to it and those near
    their threshold for it, each as ``make`` makes it (:func:`reason_record`, :func:`_whole_reason`)."""
    choices: dict[str, dict] = {}
    for a in applied:
        _add(choices, a, make(a, facts, snap, lean))
    for a, where in near.items():
        weight = snap["strengths"][a.view["strength"]]["weight"]
        _add(choices, a, make(a, facts, snap, lean, where, near_contribution(weight, snap["scoring"]["partly_credit"])))
    return choices


def _add(choices: dict, a, record: dict) -> None:
    entry = choices.setdefault(a.choice, {"because": [], "against": []})
    entry["because" if a.side == "for" else "against"].append(record)


def reason_record(a, facts: dict, snap: dict, lean: bool = True, near: dict | None = None,
                  contribution: float = 0.0) -> dict:
    """One rule's verdict about a choice (``a``) as the scoring reads it (:mod:`recipekg.reason.scoring`:
    its match, role, contribution, evidence, step, strength, and for a rule deciding for it the
    constraints it uses and its specificity), with the verdict itself to make its reason of
    (:func:`_reason`) when its result is made; ``near``: where a rule near its threshold misses
    it, and what it then gives (``contribution``)."""
    row, ev = a.view, a.ev
    match = ev["match"] if near is None else NEAR
    record = {"rule": a.rule, "id": row["id"], "match": match, "role": row.get("role"),
              "contribution": round(ev["contribution"] if near is None else contribution, 4),
              "strength": snap["strengths"][row["strength"]]["label"], "conditions": ev["conditions"], "applied": a}
    if row.get("origin"):  # an extension's rule: its evidence is its sources (scoring.evidence)
        record["origin"], record["sources"] = row["origin"], tuple(row["sources"])
    else:
        record["section"] = snap["sections"][row["section"]]["path"]
    if row["step"] is not None:
        record["step"] = int(row["step"])
    if near is not None:
        record["near"] = near
    if match in ("full", "general", NEAR):  # what situate and the fits beyond a rule's read
        record["uses"] = uses(ev["conditions"], ev["statuses"], facts)
    if match == "full":
        record["specificity"] = specificity(ev["conditions"], ev["statuses"], facts)
    return record


def _whole_reason(a, facts: dict, snap: dict, lean: bool, near: dict | None = None,
                  contribution: float = 0.0) -> Any:
    """The reason (a RankedReason once scored) of one rule's verdict about a choice, made whole at
    once, with the constraints it uses (what the scoring reads, as of :func:`reason_record`)."""
    reason = _made_reason(a, facts, snap, lean, near, contribution)
    made = a.ev[MADE]
    if len(made) < 5:  # (the constraints it uses: read from the same facts as the evaluation)
        a.ev[MADE] = made = (*made, uses(a.ev["conditions"], a.ev["statuses"], facts))
    reason["uses"] = made[4]
    return reason


#: The key of an evaluation (``Applied.ev``) under which the reason made of it is kept.
MADE = "made"


def _made_reason(a, facts: dict, snap: dict, lean: bool, near: dict | None, contribution: float) -> Any:
    """The reason of a verdict (:func:`recipekg.reason.answers.reason_json`), near its threshold
    when ``near`` is given, its disputes filtered when it is not lean, with its specificity.

    What reads only the rule and its evaluation (the reason, its specificity) is made once per
    evaluation and copied: an evaluation is reused only for the same facts of the dimensions
    its conditions read (:class:`recipekg.reason.backend.Evaluations`), so a trial of the answer
    that leaves them alone copies the reason instead of making it again."""
    ev = a.ev
    made = ev.get(MADE)
    if made is None or made[0] is not a.view or made[1] is not lean:
        ev[MADE] = made = (a.view, lean, reason_json(a.rule, a.view, ev, snap, lean),
                           specificity(ev["conditions"], ev["statuses"], facts))
    reason: Any = dict(made[2])
    if near is not None:
        reason.update(match=NEAR, near=near, contribution=round(contribution, 4))
    if type(reason["sources"]) is list and reason["disputed_by"]:  # a lean reason's: when dressed
        reason["disputed_by"] = [d for d in reason["disputed_by"] if could_apply(d["rule"], facts, snap)]
    reason["specificity"] = made[3]
    return reason


def _made(order: list[tuple[dict, str]], shown: int, keep: frozenset[str] = frozenset()) -> set[str]:
    """The choices whose results a ranking makes in full: see :func:`ranking`."""
    from recipekg.reason.families import foldable  # (plan's rankings make every result)

    related = foldable([iri for _, iri in order], {iri: score["node"] for score, iri in order})
    made = set()
    for score, iri in order:
        if score["group"] == MATCHES or iri in related or iri in keep:
            made.add(iri)
        elif shown > 0:
            made.add(iri)
            shown -= 1
    return made


def _reasons(entry: dict, facts: dict, snap: dict, lean: bool) -> dict:
    """A ranked choice's reasons as a result shows them (:func:`_reason`), with its fits and notes."""
    out = {side: [_reason(r, facts, snap, lean) for r in entry[side]] for side in ("because", "against")}
    for key in ("fits", "notes"):
        if key in entry:
            out[key] = entry[key]
    return out


def _reason(record: dict, facts: dict, snap: dict, lean: bool) -> Any:
    """The reason (a RankedReason) of a verdict the scoring read (:func:`reason_record`), with
    its contribution as scored (near a threshold, or measured against the most specific advice)."""
    reason = _made_reason(record["applied"], record.get("facts", facts), snap, lean, record.get("near"),
                          record["contribution"])
    reason["contribution"] = record["contribution"]
    for key in ("via", "taken"):
        if key in record:
            reason[key] = record[key]
    return reason


def _only_waiting_against(entry: dict) -> bool:
    """Whether no rule speaks for a choice and the rules against it all wait for a condition
    the query did not give: nothing about it applies here, so it is not ranked ("would also
    apply" would say the opposite of what those rules would do)."""
    return not entry["because"] and all(r["match"] == "partial" for r in entry["against"])


def _near(evaluated: list, found: dict) -> dict:
    """The evaluations of rules near their threshold (once per rule, choice and side), with
    where the threshold is (``found``: :func:`recipekg.reason.situation.near_reasons`)."""
    out: dict = {}
    seen = set()
    rules = {rule for rule, _, _ in found}
    for a in evaluated if found else ():
        if a.rule in rules and (key := (a.rule, a.choice, a.side)) in found and key not in seen:
            seen.add(key)
            out[a] = found[key]
    return out


def _inherit(choices: dict, kind: str, snap: dict, among) -> None:
    """A rule against a family reaches its members: each choice of ``kind`` narrower than a
    choice advised against gets that reason (``via`` the family), once; a rule against a
    choice taken as its own method (``taken``: LoRA's 16-bit base) speaks of it alone."""
    narrower = snap["rule_index"].get("narrower", {})
    nodes = snap["nodes"]
    inherited: dict[str, list[dict]] = {}
    for iri, entry in choices.items():
        if not entry["against"]:
            continue  # (most choices: nothing against them to pass on)
        against = [r for r in entry["against"]
                   if r["match"] in ("full", "general", NEAR) and "via" not in r and "taken" not in r]
        for member in narrower.get(iri, ()) if against else ():
            if kind in nodes[member]["kinds"] and (among is None or member in among):
                inherited.setdefault(member, []).extend(
                    dict(r, via={"id": nodes[iri]["id"], "label": nodes[iri]["label"]}) for r in against)
    for member, reasons in inherited.items():
        entry = choices.setdefault(member, {"because": [], "against": []})
        own = {r["rule"] for r in entry["against"]}
        entry["against"].extend(r for r in reasons if r["rule"] not in own and not own.add(r["rule"]))


def _exclude(choices: dict, kind: str, facts: dict, snap: dict) -> tuple[list[dict], list[dict]]:
    """Check every ranked choice's properties: the ones a constraint contradicts leave the
    ranking (returned, with why); fits and notes stay on the choice (``fits``, ``notes``).
    A family whose members with the same rules are all excluded goes with them."""
    if not choices:
        return [], []  # (a plan's ranking of a kind with no match: no property to check)
    from recipekg.reason.properties import CONTRADICTS, checks, excluded_json

    excluded: dict[str, list[dict]] = {}
    verdicts: list[dict] = []
    out: list = []
    having = set(snap.get("properties_by_choice") or ())  # the choices with properties of their own
    of_kind = bool((snap.get("properties_by_kind") or {}).get(kind))  # (and every choice of the kind)
    nodes = snap["nodes"]
    for iri in sorted(choices):
        if not of_kind and iri not in having and having.isdisjoint(nodes.get(iri, {}).get("ancestors", ())):
            choices[iri]["fits"], choices[iri]["notes"] = [], []  # nothing to check (checks() finds nothing)
            continue
        found = checks(iri, kind, facts, snap)
        verdicts += found
        contra = [c for c in found if c["verdict"] == CONTRADICTS]
        if contra:
            excluded[iri] = contra
            continue
        # (what the choice's own properties fit: one every choice of the kind has separates none)
        choices[iri]["fits"] = sorted({c["dimension"] for c in found if c["verdict"] == "fits" and not c["of_kind"]})
        choices[iri]["notes"] = [c["property"] for c in found if c["verdict"] == "note"]
    for iri in sorted(choices) if excluded else ():  # a family goes with its members only when some are excluded
        if iri in excluded:
            continue
        named = [m for m in snap["rule_index"].get("narrower", {}).get(iri, ()) if m in choices
                 and _same_rules(choices[m], choices[iri])]
        if named and all(m in excluded for m in named) and not _affirmed(choices[iri], named, excluded):
            excluded[iri] = [dict(c, family=snap["nodes"][m]["id"]) for m in named for c in excluded[m][:1]]
    for iri, contra in excluded.items():
        entry = excluded_json(iri, contra, facts, snap)
        if "origin" not in entry and (brought := _brought_by(choices[iri])):
            entry["origin"], entry["ranked_for_extension"] = brought, True  # (their exclusion is news it made)
        out.append(entry)
        del choices[iri]
    return sorted(out, key=lambda e: e["id"]), verdicts


def _brought_by(entry: dict) -> Any:
    """The extension whose rules alone make a choice a candidate of the ranking (every reason for
    or against it is an extension's), if so: an exclusion of it by a bundled property is then a
    line the extension added to the answer."""
    reasons = entry["because"] + entry["against"]
    if reasons and all(r.get("origin") for r in reasons):
        return reasons[0]["origin"]
    return None


def _affirmed(family: dict, named: list[str], excluded: dict) -> bool:
    """Whether the family's own properties fit a constraint that rules its members out: it
    stays then (LoRA with ``method = lora`` when only QLoRA, its 4-bit member, is ruled out)."""
    return not {excluded[m][0]["dimension"] for m in named}.isdisjoint(family.get("fits", ()))


def _same_rules(a: dict, b: dict) -> bool:
    """Whether the same rules decide for and against two choices (as families group them)."""
    def keys(entry):
        return {(r["rule"], side) for side in ("because", "against") for r in entry[side]
                if r["match"] in ("full", "general", NEAR)}
    return keys(a) == keys(b)


def _most(applied: list, facts: dict, snap: dict) -> float:
    """The most constraints a fully matching rule above the default's support holds on, over
    every rule that applies (what :func:`recipekg.reason.scoring.situate` measures against)."""
    floor = snap["scoring"].get("default_support") or 0.0
    credit = snap["scoring"]["partly_credit"]
    return max((used_count(uses(a.ev["conditions"], a.ev["statuses"], facts), credit)
                for a in applied if a.ev["match"] == "full" and a.view.get("role") is None
                and a.ev["contribution"] > floor), default=0)


def _taken_only(kind: str, choices: dict, facts: dict, snap: dict, backend: Backend, make, lean: bool) -> dict:
    """For a decisive ranking: the choices of ``kind`` that are one method (LoRA), which only rules
    waiting for an ungiven dimension reach (so the decisive ranking leaves them out), but which
    a rule against them ranks in the first group once their method is taken (LoRA's 16-bit base
    over the GPUs' memory): their entries as the full ranking makes them, so both rank alike."""
    if METHOD in facts:
        return {}
    of_method = snap["rule_index"].get("of_method", {}).get(kind, ())  # (the index: not every choice of the kind)
    left = tuple(c for c in of_method if c not in choices and own_method(c, snap) is not None)
    found = _reasoned(_naming(backend, kind, left, facts, snap), {}, facts, snap, make, lean) if left else {}
    as_taken(found, facts, snap, backend, make, lean)
    return {c: e for c, e in found.items() if any(r.get("taken") for r in e["against"])}


def _naming(backend: Backend, kind: str, among: tuple[str, ...], facts: dict, snap: dict) -> list:
    """What ``backend.applying(kind, facts)`` gives for the choices ``among``, in its order."""
    nodes = snap["nodes"]
    found = [a for choice in among if kind in nodes.get(choice, {}).get("kinds", ())
             for a in backend.naming(choice, facts) if a.ev["fires"] and ranks_kind(a.view, kind)]
    rules = (snap["rule_index"]["kinds"].get(kind) or {"rules": []})["rules"]
    return sorted(found, key=lambda a: (position(rules, a.rule), among.index(a.choice)))


def position(rules, iri: str) -> int:
    """Where ``iri`` is in a kind's ``rules`` (the order applying() gives them; ``len(rules)``
    when it is not there), found by bisection: the list is sorted (the snapshot's rules are),
    so nothing reads the whole list, whose length grows with the KB.

    >>> position(["a", "c", "d"], "c"), position(["a", "c", "d"], "b")
    (1, 3)
    """
    i = bisect_left(rules, iri)
    return i if i < len(rules) and rules[i] == iri else len(rules)


def _about(backend: Backend, kind: str, among: tuple[str, ...], facts: dict, snap: dict) -> list:
    """The rules naming the choices ``among``, as ``evaluating`` gives them: of ``kind``, with
    a condition on a given dimension (for the thresholds near the user's values)."""
    return [a for choice in among for a in backend.naming(choice, facts)
            if ranks_kind(a.view, kind) and any(c["dimension"] in facts for c in a.ev["conditions"])]


def could_apply(rule_iri: str, facts: dict, snap: dict) -> bool:
    """Whether no condition of the rule fails under ``facts`` (a disagreement is worth
    showing only where both rules can apply)."""
    rule = snap["rules"][rule_iri]
    return all(status(snap["conditions"][c], facts, snap) != FAILED for c in rule["conditions"])
