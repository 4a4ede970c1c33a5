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
                                    order_results, reason_json, sources_json, uses)
from recipekg.reason.backend import Backend, NativeBackend, ranks_kind
from recipekg.reason.conditions import FAILED, specificity, status
from recipekg.reason.resolve import facts_of, resolve_kind
from recipekg.reason.scoring import NEAR, near_contribution
from recipekg.reason.situation import near_reasons, unused

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only (the query path never imports typing)
    from typing import Any

    from recipekg.contracts.recommend import RecommendBody


#: The results an answer shows when the statement gives no ``top``: the rest is counted (``more``).
SHOWN = 50


def recommend(stmt: Recommend, snap: dict, backend: Backend | None = None) -> RecommendBody:
    """The answer to a ``recommend`` statement (the JSON the spec describes): at most ``top``
    results (:data:`SHOWN` when the statement gives none; ``more`` then says how many more)."""
    from recipekg.reason.ask import questions  # here, not at the top: plan ranks without them
    from recipekg.reason.boundaries import boundaries
    from recipekg.reason.families import group_families

    kind = resolve_kind(stmt.kind, snap)
    facts = facts_of(stmt.constraints, snap)
    native = backend if isinstance(backend, NativeBackend) else NativeBackend(snap)
    ranked = ranking(kind, facts, snap, backend or native, lean=True)
    results: list = group_families(ranked["results"], snap)
    # the trials re-rank through one native backend, which reuses the evaluations of every rule
    # whose dimensions a trial leaves alone (reason.backend.Evaluations)
    rerank = lambda trial: group_families(rank(kind, trial, snap, native, lean=True, decisive=True), snap)  # noqa: E731
    decided = decision(results)  # over every entry, once: what ask and the boundaries start from
    ask = questions(kind, facts, results, snap, rerank, ranked["results"], decided)
    near = boundaries(kind, facts, ranked, results, snap, rerank, decided)
    shown = dress(results[:SHOWN if stmt.top is None else stmt.top], facts, snap)
    answer: RecommendBody = {"statement": "recommend", "kind": kind, "query": stmt.text.strip(),
              "constraints": constraints_json(facts), "decision": decision(shown, near=near), "ask": ask,
              "results": shown, "excluded": ranked["excluded"],
              "unused": unused(kind, facts, ranked["evaluated"], ranked["verdicts"], snap, ranked["near"]),
              "near_boundary": near}
    if stmt.top is None and len(results) > SHOWN:
        answer["more"] = {"shown": SHOWN, "of": len(results),
                          "text": f"the first {SHOWN} of {len(results)} results; add top {len(results)} to the "
                                  f"statement for all of them"}
    return answer


def dress(entries: list, facts: dict, snap: dict) -> list:
    """``entries`` of a lean ranking as an answer shows them: each entry's and member's papers,
    and its reasons' sources and disputes (the disputing rules that could apply here), in the
    places the ranking kept for them (:func:`recipekg.reason.answers.reason_json`)."""
    for entry in entries:
        fill_waits(entry, snap, facts)
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
         among: tuple[str, ...] | None = None, lean: bool = False, decisive: bool = False) -> list[dict]:
    """Ranked choices of ``kind`` under ``facts``, with the rules for and against each; with
    ``among``, only those choices (as they rank among all of them: each choice's score is its
    own), from the rules that name them alone; ``lean``, ``decisive``: see :func:`ranking`."""
    return ranking(kind, facts, snap, backend, among, lean, decisive)["results"]


def ranking(kind: str, facts: dict, snap: dict, backend: Backend | None = None,
            among: tuple[str, ...] | None = None, lean: bool = False, decisive: bool = False) -> dict:
    """``{"results", "excluded", "evaluated", "verdicts", "near"}``: the ranked results, the
    choices a property rules out, the backend's evaluations of the rules on the given
    dimensions, the property checks made and the evaluations near their threshold (what
    :func:`recipekg.reason.situation.unused` reads).

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
    choices: dict[str, dict] = {}
    for a in applied:
        _add(choices, a, reason_json(a.rule, a.view, a.ev, snap, lean), facts, snap)
    nearby = near_reasons(evaluated, facts)
    for a, near in _near(evaluated, nearby).items():
        reason: Any = reason_json(a.rule, a.view, a.ev, snap, lean)  # a RankedReason once _add and situate are done
        weight = snap["strengths"][a.view["strength"]]["weight"]
        reason.update(match=NEAR, near=near,
                      contribution=round(near_contribution(weight, snap["scoring"]["partly_credit"]), 4))
        _add(choices, a, reason, facts, snap)
    _inherit(choices, kind, snap, among)
    for iri in [c for c, e in choices.items() if among is not None and c not in among or _only_waiting_against(e)]:
        del choices[iri]
    excluded, verdicts = _exclude(choices, kind, facts, snap)
    most = _most(applied if among is None else backend.applying(kind, facts, "full"), facts, snap)
    results = order_results(choices, snap, facts, most, lean)
    return {"results": results, "excluded": excluded, "evaluated": evaluated, "verdicts": verdicts, "near": nearby}


def _add(choices: dict, a, reason: Any, facts: dict, snap: dict) -> None:
    if type(reason["sources"]) is list and reason["disputed_by"]:  # a lean reason's: when dressed
        reason["disputed_by"] = [d for d in reason["disputed_by"] if could_apply(d["rule"], facts, snap)]
    reason["specificity"] = specificity(a.ev["conditions"], a.ev["statuses"], facts)
    reason["uses"] = uses(a.ev["conditions"], a.ev["statuses"], facts)
    entry = choices.setdefault(a.choice, {"because": [], "against": []})
    entry["because" if a.side == "for" else "against"].append(reason)


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
    for a in evaluated if found else ():
        key = (a.rule, a.choice, a.side)
        if key in found and key not in seen:
            seen.add(key)
            out[a] = found[key]
    return out


def _inherit(choices: dict, kind: str, snap: dict, among) -> None:
    """A rule against a family reaches its members: each choice of ``kind`` narrower than a
    choice advised against gets that reason (``via`` the family), once."""
    narrower = snap["rule_index"].get("narrower", {})
    nodes = snap["nodes"]
    inherited: dict[str, list[dict]] = {}
    for iri, entry in choices.items():
        against = [r for r in entry["against"] if r["match"] in ("full", "general", NEAR) and "via" not in r]
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
    nodes = snap["nodes"]
    for iri in sorted(choices):
        if iri not in having and having.isdisjoint(nodes.get(iri, {}).get("ancestors", ())):
            choices[iri]["fits"], choices[iri]["notes"] = [], []  # nothing to check (checks() finds nothing)
            continue
        found = checks(iri, kind, facts, snap)
        verdicts += found
        contra = [c for c in found if c["verdict"] == CONTRADICTS]
        if contra:
            excluded[iri] = contra
            continue
        choices[iri]["fits"] = sorted({c["dimension"] for c in found if c["verdict"] == "fits"})
        choices[iri]["notes"] = [c["property"] for c in found if c["verdict"] == "note"]
    for iri in sorted(choices) if excluded else ():  # a family goes with its members only when some are excluded
        if iri in excluded:
            continue
        named = [m for m in snap["rule_index"].get("narrower", {}).get(iri, ()) if m in choices
                 and _same_rules(choices[m], choices[iri])]
        if named and all(m in excluded for m in named):
            excluded[iri] = [dict(c, family=snap["nodes"][m]["id"]) for m in named for c in excluded[m][:1]]
    for iri, contra in excluded.items():
        out.append(excluded_json(iri, contra, facts, snap))
        del choices[iri]
    return sorted(out, key=lambda e: e["id"]), verdicts


def _same_rules(a: dict, b: dict) -> bool:
    """Whether the same rules decide for and against two choices (as families group them)."""
    def keys(entry):
        return {(r["rule"], side) for side in ("because", "against") for r in entry[side]
                if r["match"] in ("full", "general", NEAR)}
    return keys(a) == keys(b)


def _most(applied: list, facts: dict, snap: dict) -> int:
    """The most constraints a fully matching rule above the default's support holds on, over
    every rule that applies (what :func:`recipekg.reason.scoring.situate` measures against)."""
    floor = snap["scoring"].get("default_support") or 0.0
    return max((len(uses(a.ev["conditions"], a.ev["statuses"], facts))
                for a in applied if a.ev["match"] == "full" and a.view.get("role") is None
                and a.ev["contribution"] > floor), default=0)


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
