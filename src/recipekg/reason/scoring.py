"""The scoring model of docs/scoring.md, in one place: which rules apply, what each
contributes, how a choice's score, group and rank follow.

The native reasoner and every SPARQL backend compute statuses their own way and hand them
here, so the numbers and the order cannot drift apart::

    >>> contribution(["held", "not given"], weight=0.9, unconstrained=0.25, partly_credit=0.5)
    0.5625
    >>> round(noisy_or([0.6, 0.6]), 4)
    0.84
    >>> match_level(["held", "partly"]), engaged(["not given"]), engaged([])
    ('partial', False, True)

A choice is decided by the reasons that fully match the query (its conditions all held),
the reference's default and general advice; reasons whose deciding condition was not given
(``partial``) only rank the choices that have nothing else, in a second group::

    >>> full = {"match": "full", "role": None, "contribution": 0.6, "section": "Optimizer Selection Guide"}
    >>> default = {"match": "general", "role": "default", "contribution": 0.5, "section": "Optimizer Selection Guide"}
    >>> general = {"match": "general", "role": None, "contribution": 0.225, "section": "Training Instability"}
    >>> tally([full, general], [])["score"], tally([default, general], [])["score"]
    (0.6, 0.5)
    >>> tally([{"match": "partial", "role": None, "contribution": 0.56, "section": "Data Scale Thresholds"}], [])["group"]
    'would apply'

The parameters (strength weights, the unconstrained factor, the credit for a partly held
condition, the default's support) are data of the ontology (``rkg:scoring``, ``rkg:weight``),
never numbers here.
"""

from __future__ import annotations

from recipekg.reason.conditions import FAILED, HELD, NOT_GIVEN, PARTLY, status
from recipekg.reason.facts import IMPLIED

MATCHES, WOULD_APPLY = "matches", "would apply"
GROUP_ORDER = {MATCHES: 0, WOULD_APPLY: 1}
#: The match of a rule that misses one numeric condition by less than a factor of 2.
NEAR = "near"
#: At equal scores, a choice a rule applies to before one general advice ranks, before one
#: only a rule near its threshold ranks.
DECIDED = {"full": 0, "general": 1, NEAR: 2}


def engaged(statuses: list[str]) -> bool:
    """Whether a rule applies: no condition failed, and it is general advice (no conditions)
    or the query establishes at least one of its conditions."""
    return FAILED not in statuses and (not statuses or any(s in (HELD, PARTLY) for s in statuses))


def coverage(statuses: list[str], partly_credit: float) -> float:
    """Share of a rule's conditions the query establishes (0.0 for a rule without any)."""
    if not statuses:
        return 0.0
    return sum(1.0 if s == HELD else partly_credit if s == PARTLY else 0.0 for s in statuses) / len(statuses)


def match_level(statuses: list[str]) -> str:
    """``full`` (all held), ``partial`` (some established), ``general`` (no conditions),
    ``failed`` (a condition failed) or ``not given`` (none of its conditions is established)."""
    if FAILED in statuses:
        return "failed"
    if not statuses:
        return "general"
    if all(s == HELD for s in statuses):
        return "full"
    if any(s in (HELD, PARTLY) for s in statuses):
        return "partial"
    return NOT_GIVEN


def contribution(statuses: list[str], *, weight: float, unconstrained: float, partly_credit: float,
                 role: str | None = None, default_support: float | None = None) -> float:
    """What one applying rule gives a choice: ``weight × (f + (1 − f) × coverage)``; the
    reference's default gives ``default_support``; a comparison gives nothing (it marks a
    runner-up); a rule that does not apply gives 0."""
    if not engaged(statuses) or role == "comparison":
        return 0.0
    if role == "default" and default_support is not None:
        return default_support
    return weight * (unconstrained + (1 - unconstrained) * coverage(statuses, partly_credit))


def evaluation(conditions: list[dict], statuses: list[str], weight: float, scoring: dict,
               role: str | None = None) -> dict:
    """A rule's evaluation from its conditions' statuses: whether it fires, its match and
    contribution (``scoring``: ``unconstrained_factor``, ``partly_credit``, ``default_support``)."""
    return {"fires": engaged(statuses), "statuses": statuses, "conditions": conditions,
            "contribution": contribution(statuses, weight=weight, unconstrained=scoring["unconstrained_factor"],
                                         partly_credit=scoring["partly_credit"], role=role,
                                         default_support=scoring.get("default_support")),
            "match": match_level(statuses)}


def evaluate_rule(rule: dict, facts: dict, snap: dict) -> dict:
    """Every condition's status under ``facts``, whether the rule fires, and its contribution."""
    conds = [snap["conditions"][c] for c in rule["conditions"]]
    statuses = [status(c, facts, snap) for c in conds]
    return evaluation(conds, statuses, snap["strengths"][rule["strength"]]["weight"], snap["scoring"],
                      rule.get("role"))


def noisy_or(values) -> float:
    """``1 − Π (1 − v)``: how several independent reasons add up."""
    remaining = 1.0
    for v in values:
        remaining *= 1.0 - v
    return 1.0 - remaining


#: The matches of a reason that decides among the choices matching the query.
_DECIDING = frozenset(("full", "general", NEAR))


def _decides(reason: dict) -> bool:
    """A reason that decides among the choices matching the query: it fully matches, it is
    the default or general advice (no conditions), or it is near (one threshold narrowly missed)."""
    return reason["match"] in _DECIDING


def near_contribution(weight: float, partly_credit: float) -> float:
    """What a rule near its threshold gives: ``partlyCredit × weight`` (below the same rule
    applying, so a rule that does not apply never outranks one that does at its strength).

    >>> near_contribution(0.6, 0.5)
    0.3
    """
    return weight * partly_credit


def situate(reasons: list[dict], floor: float, unconstrained: float, most: float | None = None,
            partly_credit: float = 0.5) -> None:
    """Specificity in the score: a fully matching rule that holds on fewer of the user's
    constraints than the most specific rule deciding the answer counts as a partial match of
    the situation, ``weight × (f + (1 − f) × used / most)`` (``used``: the constraints it holds
    on, a reason's ``uses``, a derived fact counted as the constraints it comes from; ``most``: the
    most any fully matching rule above the default's support holds on, over every rule that
    applies: ``most``, when the reasons are only some of them). A condition on a category
    broader than the user's value (``data = visual`` for video) holds without using the
    constraint: the rule is written for a broader case, and one that holds only so uses none
    (``used`` 0: it counts as general advice, ``weight × f``). A generic rule then never beats,
    at the same strength, the one written for the user's case. A constraint used only through
    what it implies (``data = audio`` for a speech recognition task) counts ``partly_credit``
    (:func:`used_count`).

    >>> r1 = {"match": "full", "role": None, "contribution": 0.9, "conditions": [{}], "uses": ["tier"]}
    >>> r2 = {"match": "full", "role": None, "contribution": 0.6, "conditions": [{}, {}], "uses": ["tier", "params"]}
    >>> situate([r1, r2], 0.45, 0.25); r1["contribution"], r2["contribution"]
    (0.5625, 0.6)
    >>> broad = {"match": "full", "role": None, "contribution": 0.9, "conditions": [{}], "uses": []}
    >>> situate([broad, r2], 0.45, 0.25); broad["contribution"]
    0.225
    """
    full = [r for r in reasons if r["match"] == "full" and r.get("role") is None and r["conditions"]]
    if most is None:
        most = max((used_count(r.get("uses", ()), partly_credit) for r in full if r["contribution"] > floor), default=0)
    for r in full:
        used = used_count(r.get("uses", ()), partly_credit)
        if used < most:
            r["contribution"] = round(r["contribution"] * (unconstrained + (1 - unconstrained) * used / most), 4)


def used_count(uses, partly_credit: float) -> float:
    """How many of the user's constraints a rule uses (:func:`recipekg.reason.facts.uses`): one
    each, ``partly_credit`` for one it uses only through a value it implies (marked ``(implied)``).

    >>> used_count(["input-length", "task (implied)"], 0.5)
    1.5
    """
    return sum(partly_credit if u.endswith(IMPLIED) else 1.0 for u in uses)


def corroborated(reasons: list[dict]) -> float:
    """The noisy-or of reasons from different sections of the reference; rules of one section
    restate one claim (an OR split in two rules, a table row and its note), so only the
    strongest of them counts. An extension's rules have no section of the reference: theirs
    is the evidence they rest on (:func:`evidence`), so sixty copies of one rule weigh as one.

    >>> copy = {"contribution": 0.6, "section": "extension team.ttl", "origin": {"file": "team.ttl", "line": 3},
    ...         "sources": [{"id": "grinsztajn2022"}]}
    >>> round(corroborated([copy] * 60), 4), round(corroborated([copy, {**copy, "sources": [{"id": "ke2017"}]}]), 4)
    (0.6, 0.84)
    """
    best: dict = {}
    for r in reasons:
        key = evidence(r)
        best[key] = max(best.get(key, 0.0), r["contribution"])
    return noisy_or(best.values())


def evidence(reason: dict):
    """What a reason's claim rests on, for counting it once: the reference's section for its
    own rules, the set of sources for an extension's (``origin``)."""
    if not reason.get("origin"):
        return reason["section"]
    return ("extension", tuple(sorted({s["id"] if isinstance(s, dict) else s for s in reason.get("sources", ())})))


def support(reasons: list[dict]) -> float:
    """The strongest kind of support, never several kinds stacked: the fully matching rules
    (corroborated across sections), the strongest rule near its threshold, the default's
    support, or general advice."""
    full = [r for r in reasons if r["match"] == "full"]
    near = [r["contribution"] for r in reasons if r["match"] == NEAR]
    default = [r["contribution"] for r in reasons if r["match"] == "general" and r.get("role") == "default"]
    general = [r for r in reasons if r["match"] == "general" and r.get("role") != "default"]
    return max(corroborated(full), max(near, default=0.0), max(default, default=0.0), corroborated(general))


def tally(because: list[dict], against: list[dict], default_support: float | None = None) -> dict:
    """A choice's group, score, support and specificity from its reasons for and against.

    ``matches``: some reason decides for or against it; its score counts only those.
    ``would apply``: every reason waits for a condition the query did not give; its score
    is the noisy-or of those partial reasons, for minus against, and ranks it within its group.
    ``specificity`` (see :func:`specificity`) ranks before the score within a group.
    """
    because, against = once(because), once(against)
    deciding_for = [r for r in because if r["match"] in _DECIDING]
    deciding_against = [r for r in against if r["match"] in _DECIDING]
    if deciding_for or deciding_against:  # (a comparison that fully matches is deciding too)
        pos = support(deciding_for)
        neg = noisy_or(r["contribution"] for r in deciding_against)
        return {"group": MATCHES, "score": round(pos - neg, 4), "support": round(pos, 4),
                "specificity": specificity(deciding_for, default_support)}
    pos = noisy_or(r["contribution"] for r in because)
    neg = noisy_or(r["contribution"] for r in against)
    return {"group": WOULD_APPLY, "score": round(pos - neg, 4), "support": round(pos, 4), "specificity": [0, 0, 0]}


def once(reasons: list[dict]) -> list[dict]:
    """``reasons`` with an extension's evidence counted once: of its reasons resting on the same
    sources (:func:`evidence`), only the strongest stays; the reference's own are all kept (a single reason
    is kept as it is)."""
    if len(reasons) < 2:
        return reasons
    kept, best = [], {}
    for r in reasons:
        if not r.get("origin"):
            kept.append(r)
        elif (key := evidence(r)) not in best or r["contribution"] > best[key]["contribution"]:
            best[key] = r
    return kept + list(best.values()) if best else kept


def best_match(reasons: list[dict]) -> str:
    """The best match among the reasons for a choice (``none`` when it has none)."""
    best = len(_MATCH_ORDER)
    for r in reasons:
        level = _MATCH_LEVEL.get(r["match"], best)
        if level < best:
            best = level
    return _MATCH_ORDER[best] if best < len(_MATCH_ORDER) else "none"


#: The matches of a choice's reasons, best first (:func:`best_match`).
_MATCH_ORDER = ("full", "general", NEAR, "partial")
_MATCH_LEVEL = {m: i for i, m in enumerate(_MATCH_ORDER)}


def specificity(deciding_for: list[dict], default_support: float | None) -> list[int]:
    """How specific the most specific advice for a choice is (the reason's ``specificity``:
    exact values named, held conditions, finite bounds; see
    :func:`recipekg.reason.conditions.specificity`), among its fully matching rules that
    outweigh the default: weaker advice ("consider", "worth trying") does not make a choice
    more specific than the default. Specific advice ranks before general advice."""
    floor = default_support or 0.0
    return max((r.get("specificity", [0, 0, 0]) for r in deciding_for
                if r["match"] == "full" and r["contribution"] > floor), default=[0, 0, 0])


def rank_key(result: dict) -> tuple:
    """The order of results: group, then score (so the scores shown never rise down the
    list), then the ties: specificity, how it is decided (a rule that applies, general advice,
    a rule near its threshold: QA7 F10), the constraints the choice's properties fit that its
    rules do not already use (``fits_more``), the strongest rule deciding for it, support, the
    earlier item of a checklist ("FP8 training, the biggest single win" first), the broader choice (a family before its members, as the
    reference names it: "GNN (GCN, GAT, GraphSAGE)"; a combination before its parts, rkg:combines),
    then the id, so the order is
    deterministic. (Steps of an ordered procedure are then put in their order: answers.py.)"""
    first_step = None
    for r in result["because"]:
        if "step" in r and (first_step is None or r["step"] < first_step) and _decides(r):
            first_step = r["step"]
    return (GROUP_ORDER[result["group"]], -result["score"], [-x for x in result["specificity"]],
            DECIDED.get(result["match"], len(DECIDED)), -result.get("fits_more", 0), -result.get("strength", 0),
            -result["support"], 1 << 30 if first_step is None else first_step, result.get("depth", 0), result["id"])
