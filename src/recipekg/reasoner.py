"""Answer a parsed statement from the compiled snapshot (plain data in, answers out).

    >>> (stmt,) = parse("recommend architecture where data = tabular and rows = 30k")
    >>> answer(stmt, snap)["results"][0]["id"]                   # doctest: +SKIP
    'lightgbm'

Ranking (docs/scoring.md has a worked example): choices backed by a fully matched rule
(or general advice) come before choices backed only by partly matched ones; a rule applies when none of its conditions
fails and the query establishes at least one of them, or when it has none (general advice).
It contributes ``weight(strength) × (f + (1 − f) × coverage)`` to every choice it names,
where coverage is the share of its conditions the query establishes (0 for general advice)
and ``f`` the KB's unconstrained factor. A choice's score is the noisy-or of its supporting contributions minus
the noisy-or of its opposing ones; ties break on the choice's id.
"""

from __future__ import annotations

from .ast import Explain, Plan, Recommend
from .conditions import HELD, PARTLY, coverage, engaged, match_level, status
from .derive import derive
from .errors import VocabularyError, closest
from .vocabulary import Facts, resolve_constraints


def answer(statement, snap: dict) -> dict:
    """The answer to one statement, as the JSON the spec describes."""
    if isinstance(statement, Recommend):
        return recommend(statement, snap)
    if isinstance(statement, Explain):
        from .explain import explain

        return explain(statement, snap)
    if isinstance(statement, Plan):
        from .plan import plan

        return plan(statement, snap)
    raise TypeError(f"not a statement: {statement!r}")


def resolve_kind(word, snap: dict) -> str:
    """``architectures`` → ``architecture``; an unknown kind is an error with suggestions."""
    kinds = snap["kinds"]
    text = word.text
    for candidate in (text, text[:-1] if text.endswith("s") else None, text[:-2] if text.endswith("es") else None):
        if candidate in kinds:
            return candidate
    raise VocabularyError.at(word.pos, f"unknown kind '{text}'",
                             expected=["one of " + ", ".join(sorted(kinds))],
                             suggestions=closest(text, kinds))


def recommend(stmt: Recommend, snap: dict) -> dict:
    kind = resolve_kind(stmt.kind, snap)
    facts = derive(resolve_constraints(stmt.constraints, snap), snap)
    results = rank(kind, facts, snap)
    if stmt.top is not None:
        results = results[:stmt.top]
    return {"statement": "recommend", "kind": kind, "query": stmt.text.strip(),
            "constraints": constraints_json(facts), "results": results}


def constraints_json(facts: dict[str, Facts]) -> list[dict]:
    out = []
    for f in facts.values():
        out.extend({k: v for k, v in c.items() if k != "text"} | ({"derived_from": f.derived} if f.derived else {})
                   for c in f.constraints)
    return out


def evaluate_rule(rule: dict, facts: dict[str, Facts], snap: dict) -> dict:
    """Every condition's status, whether the rule fires, and its contribution."""
    conds = [snap["conditions"][c] for c in rule["conditions"]]
    statuses = [status(c, facts, snap) for c in conds]
    fires = engaged(statuses)
    scoring = snap["scoring"]
    f = scoring["unconstrained_factor"]
    weight = snap["strengths"][rule["strength"]]["weight"]
    contribution = weight * (f + (1 - f) * coverage(statuses, scoring["partly_credit"])) if fires else 0.0
    return {"fires": fires, "statuses": statuses, "conditions": conds, "contribution": contribution,
            "match": match_level(statuses)}


def rank(kind: str, facts: dict[str, Facts], snap: dict) -> list[dict]:
    """Ranked choices of ``kind`` with the rules for and against each.

    Only the rules that could apply are evaluated (:func:`candidates`, from the snapshot's
    rule index); the answer is the one evaluating every rule gives (:func:`rank_scan`).
    """
    index = snap.get("rule_index")
    if index is None:
        return rank_scan(kind, facts, snap)
    return _rank(kind, candidates(kind, facts, snap), facts, snap)


def rank_scan(kind: str, facts: dict[str, Facts], snap: dict) -> list[dict]:
    """:func:`rank` evaluating every rule of the KB (the reference the index is tested against)."""
    return _rank(kind, snap["rules"], facts, snap)


def candidates(kind: str, facts: dict[str, Facts], snap: dict) -> list[str]:
    """The rules of ``kind`` that could apply to ``facts``, in the order of ``snap["rules"]``.

    A rule applies when none of its conditions fails and one holds at least partly, or when
    it has none. A condition listing values holds (partly) only when the query gives a value
    of its dimension equal to, narrower or broader than one of them (``exact``/``under``).
    A bounded one only when a query interval meets its bounds, and a rule reached that way
    whose value-listing conditions are on a dimension the query gives values for fails
    there unless it is reached through ``exact``/``under`` too, so those groups are skipped.
    """
    entry = snap["rule_index"]["kinds"].get(kind)
    if entry is None:
        return []
    found = set(entry["always"])
    nodes = snap["nodes"]
    valued = set()
    for dim, f in facts.items():
        if f.values is None:
            continue
        valued.add(dim)
        exact, under = entry["exact"].get(dim), entry["under"].get(dim)
        for q in f.values:
            if exact:
                found.update(exact.get(q, ()))
                for a in nodes.get(q, {}).get("ancestors", ()):
                    found.update(exact.get(a, ()))
            if under:
                found.update(under.get(q, ()))
    for dim, f in facts.items():
        groups = entry["numeric"].get(dim)
        if not groups:
            continue
        for cats, boxes in groups:
            if valued.intersection(cats):
                continue
            for low, high, positions in boxes:
                if status({"dimension": dim, "values": (), "min": low, "max": high}, facts, snap) in (HELD, PARTLY):
                    found.update(positions)
    rules = entry["rules"]
    return [rules[i] for i in sorted(found)]


def _rank(kind: str, iris, facts: dict[str, Facts], snap: dict) -> list[dict]:
    nodes = snap["nodes"]
    choices: dict[str, dict] = {}
    for iri in iris:
        rule = snap["rules"][iri]
        targets = [(t, "because") for t in rule["recommends"] if kind in nodes.get(t, {}).get("kinds", ())]
        targets += [(t, "against") for t in rule["against"] if kind in nodes.get(t, {}).get("kinds", ())]
        if not targets:
            continue
        ev = evaluate_rule(rule, facts, snap)
        if not ev["fires"]:
            continue
        reason = reason_json(iri, rule, ev, snap)
        for target, side in targets:
            entry = choices.setdefault(target, {"because": [], "against": []})
            entry[side].append(reason)
    return order_results(choices, snap)


def order_results(choices: dict[str, dict], snap: dict) -> list[dict]:
    """Choice → {"because": [...], "against": [...]} reasons, as ranked results.

    The one definition of the order, shared with the SPARQL engines (engines.rank_from_rows).
    """
    results = [result_json(iri, entry, snap) for iri, entry in choices.items()]
    results.sort(key=lambda r: (-_MATCH_TIER[r["match"]], -r["score"], -r["support"], _first_step(r), r["id"]))
    for i, r in enumerate(results, 1):
        r["rank"] = i
        del r["support"]
    return results


def result_json(iri: str, entry: dict, snap: dict) -> dict:
    node = snap["nodes"][iri]
    for side in ("because", "against"):
        entry[side].sort(key=lambda r: (-r["contribution"], r["id"]))
    pos = noisy_or(r["contribution"] for r in entry["because"])
    neg = noisy_or(r["contribution"] for r in entry["against"])
    return {"rank": 0, "id": node["id"], "label": node["label"], "iri": iri, "kinds": node["kinds"],
            "score": round(pos - neg, 4), "support": round(pos, 4), "match": best_match(entry["because"]),
            "papers": [paper_json(p, snap) for p in node["papers"]],
            "because": entry["because"], "against": entry["against"]}


# Choices supported by a rule whose conditions all hold (or general advice) rank above
# choices supported only by partly matched rules, whatever the scores.
_MATCH_TIER = {"full": 2, "general": 2, "partial": 1, "none": 0}


def best_match(reasons: list[dict]) -> str:
    levels = {r["match"] for r in reasons}
    return next((m for m in ("full", "general", "partial") if m in levels), "none")


def _first_step(result: dict) -> int:
    """Between equal scores, an earlier step of a procedure (roll back before resuming) first."""
    return min((r["step"] for r in result["because"] if "step" in r), default=1 << 30)


def noisy_or(values) -> float:
    remaining = 1.0
    for v in values:
        remaining *= 1.0 - v
    return 1.0 - remaining


def reason_json(iri: str, rule: dict, ev: dict, snap: dict) -> dict:
    return {
        "rule": iri, "id": rule["id"], "label": rule["label"], "text": rule["text"],
        "strength": snap["strengths"][rule["strength"]]["label"], "match": ev["match"],
        "contribution": round(ev["contribution"], 4),
        "conditions": [{"condition": c["label"], "dimension": c["dimension"], "status": s}
                       for c, s in zip(ev["conditions"], ev["statuses"])],
        "section": snap["sections"][rule["section"]]["path"],
        "sources": [paper_json(p, snap) for p in rule["sources"]],
        "disputed_by": [disputed_json(c, snap) for c in rule["contradicts"]],
        **({"step": int(rule["step"])} if rule["step"] is not None else {}),
    }


def disputed_json(iri: str, snap: dict) -> dict:
    other = snap["rules"][iri]
    return {"rule": iri, "id": other["id"], "text": other["text"],
            "section": snap["sections"][other["section"]]["path"]}


def paper_json(pid: str, snap: dict) -> dict:
    p = snap["papers"][pid]
    return {"id": pid, "title": p["title"], "year": p["year"], "arxiv": p["arxiv"], "url": p["url"]}
