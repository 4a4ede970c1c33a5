"""The scoring model of docs/scoring.md, in one place: which rules apply, what each
contributes, how a choice's score and rank follow.

The native reasoner and every SPARQL backend compute statuses their own way and hand them
here, so the numbers and the order cannot drift apart::

    >>> contribution(["held", "not given"], weight=0.9, unconstrained=0.25, partly_credit=0.5)
    0.5625
    >>> round(noisy_or([0.6, 0.6]), 4)
    0.84
    >>> match_level(["held", "partly"]), engaged(["not given"]), engaged([])
    ('partial', False, True)

The parameters (strength weights, the unconstrained factor, the credit for a partly held
condition) are data of the ontology (``rkg:scoring``, ``rkg:weight``), never numbers here.
"""

from __future__ import annotations

from recipekg.reason.conditions import FAILED, HELD, NOT_GIVEN, PARTLY, status

# Choices backed by a fully matched rule (or general advice) rank above choices backed only
# by partly matched ones, whatever the scores.
MATCH_TIER = {"full": 2, "general": 2, "partial": 1, "none": 0}


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


def contribution(statuses: list[str], *, weight: float, unconstrained: float, partly_credit: float) -> float:
    """``weight × (f + (1 − f) × coverage)`` for a rule that applies, else 0."""
    if not engaged(statuses):
        return 0.0
    return weight * (unconstrained + (1 - unconstrained) * coverage(statuses, partly_credit))


def evaluation(conditions: list[dict], statuses: list[str], weight: float, scoring: dict) -> dict:
    """A rule's evaluation from its conditions' statuses: whether it fires, its match and
    contribution (``scoring``: ``unconstrained_factor`` and ``partly_credit``)."""
    return {"fires": engaged(statuses), "statuses": statuses, "conditions": conditions,
            "contribution": contribution(statuses, weight=weight, unconstrained=scoring["unconstrained_factor"],
                                         partly_credit=scoring["partly_credit"]),
            "match": match_level(statuses)}


def evaluate_rule(rule: dict, facts: dict, snap: dict) -> dict:
    """Every condition's status under ``facts``, whether the rule fires, and its contribution."""
    conds = [snap["conditions"][c] for c in rule["conditions"]]
    statuses = [status(c, facts, snap) for c in conds]
    return evaluation(conds, statuses, snap["strengths"][rule["strength"]]["weight"], snap["scoring"])


def noisy_or(values) -> float:
    """``1 − Π (1 − v)``: how several independent reasons add up."""
    remaining = 1.0
    for v in values:
        remaining *= 1.0 - v
    return 1.0 - remaining


def score(because: list[dict], against: list[dict]) -> tuple[float, float]:
    """A choice's (score, support): the noisy-or of its contributions for, minus that of
    those against; and the support alone."""
    pos = noisy_or(r["contribution"] for r in because)
    neg = noisy_or(r["contribution"] for r in against)
    return round(pos - neg, 4), round(pos, 4)


def best_match(reasons: list[dict]) -> str:
    """The best match among the reasons for a choice (``none`` when it has none)."""
    levels = {r["match"] for r in reasons}
    return next((m for m in ("full", "general", "partial") if m in levels), "none")


def rank_key(result: dict) -> tuple:
    """The order of results: match tier, score, support, the earlier step of a procedure
    (roll back before resuming), then the id so the order is deterministic."""
    first_step = min((r["step"] for r in result["because"] if "step" in r), default=1 << 30)
    return (-MATCH_TIER[result["match"]], -result["score"], -result["support"], first_step, result["id"])
