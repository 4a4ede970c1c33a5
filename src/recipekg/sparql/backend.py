"""The reasoner's backend over a SPARQL engine: rule evaluations read from the rows of the
exported queries (:mod:`recipekg.sparql.generate`), scored by :mod:`recipekg.reason.scoring`.

The engine decides which rules apply and which conditions hold; the local snapshot gives
the texts and labels, and any row naming something the local KB lacks stops the answer::

    >>> from recipekg.reason.recommend import recommend
    >>> from recipekg.sparql.engines import get_engine
    >>> backend = SparqlBackend(get_engine("oxigraph", kb.files), snap)
    >>> recommend(parse("recommend fix where symptom = loss-spike")[0], snap, backend)["results"][0]["id"]
    'rollback-checkpoint'
"""

from __future__ import annotations

from recipekg.errors import EngineError
from recipekg.knowledge.terms import local_name
from recipekg.names import a_kind
from recipekg.reason.backend import Applied, Backend, evaluated_rules, ranks_kind
from recipekg.reason.conditions import FAILED, HELD, NOT_GIVEN, PARTLY
from recipekg.reason.scoring import contribution, engaged, match_level
from recipekg.sparql.engines import Engine
from recipekg.sparql.generate import evaluating_query, explain_query, recommend_query


class SparqlBackend(Backend):
    """:class:`~recipekg.reason.backend.Backend` answered by a SPARQL engine (one SELECT per
    distinct query: explain's trials often repeat one)."""

    plans = False

    def __init__(self, engine: Engine, snap: dict):
        self.engine, self.snap = engine, snap
        self._rows: dict[str, list[dict]] = {}

    def _select(self, query: str) -> list[dict]:
        if query not in self._rows:
            self._rows[query] = self.engine.select(query)
        return self._rows[query]

    def applying(self, kind: str, facts: dict, only: str | None = None) -> list[Applied]:
        out = []
        for row in self._select(recommend_query(kind, facts, self.snap)):
            if kind not in self.snap["nodes"].get(row["choice"], {}).get("kinds", ()):
                raise EngineError(f"the engine named {row['choice']}, which is not {a_kind(kind)} of the local KB")
            view, ev = evaluation(row, self.snap)
            if ev["fires"] and ranks_kind(view, kind):
                out.append(Applied(row["rule"], row["choice"], row["side"], view, ev))
        return out

    def evaluating(self, kind: str, facts: dict, only: str | None = None) -> list[Applied]:
        """The engine's statuses of the rules the local index says are about the query (the
        same rules the native backend evaluates)."""
        about = evaluated_rules(kind, facts, self.snap)
        out: list[Applied] = []
        if not about:
            return out
        about_set = set(about)
        for row in self._select(evaluating_query(kind, facts, self.snap, about)):
            if kind not in self.snap["nodes"].get(row["choice"], {}).get("kinds", ()):
                raise EngineError(f"the engine named {row['choice']}, which is not {a_kind(kind)} of the local KB")
            if row["rule"] not in self.snap["rules"] or row["rule"] not in about_set:
                raise EngineError(f"the engine answered about rule {row['rule']}, which the query did not ask for")
            view, ev = evaluation(row, self.snap)
            out.append(Applied(row["rule"], row["choice"], row["side"], view, ev))
        return sorted(out, key=lambda a: (a.rule, a.choice, a.side))

    def naming(self, choice: str, facts: dict) -> list[Applied]:
        out, seen = [], set()
        rows = sorted(self._select(explain_query(choice, facts, self.snap)),
                      key=lambda r: (r["rule"], r["side"] != "for"))
        for row in rows:
            if row["choice"] != choice:
                raise EngineError(f"the engine answered about {row['choice']}, not {choice}")
            if row["rule"] in seen:
                continue  # named once, as "for" when the rule also recommends the choice
            seen.add(row["rule"])
            view, ev = evaluation(row, self.snap)
            out.append(Applied(row["rule"], choice, row["side"], view, ev))
        return out


def evaluation(row: dict, snap: dict) -> tuple[dict, dict]:
    """The rule as the engine's KB describes it, and its evaluation (statuses from the row's
    condition lists, the scoring parameters from the row)."""
    iri = row["rule"]
    rule = snap["rules"].get(iri)
    if rule is None:
        raise EngineError(f"the engine's KB has rule {iri} that the local KB does not: "
                          f"load the same export into the server (recipekg load)")
    conds, statuses = _statuses(row, snap)
    sources = [local_name(p) for p in sorted(row.get("sources", "").split())]
    if any(s not in snap["papers"] for s in sources) or row["section"] not in snap["sections"] \
            or row["strength"] not in snap["strengths"]:
        raise EngineError(f"the engine's KB describes rule {iri} differently from the local KB")
    # an extension's rule is filed under the extension, never under the section it names
    # (recipekg.knowledge.origin): the engine's graph holds the named one
    section = rule["section"] if rule.get("origin") else row["section"]
    view = {**rule, "conditions": conds, "strength": row["strength"], "section": section,
            "sources": sources}
    ev = {"fires": engaged(statuses), "statuses": statuses, "conditions": [snap["conditions"][c] for c in conds],
          "contribution": contribution(statuses, weight=row["weight"], unconstrained=row["unconstrainedFactor"],
                                       partly_credit=row["partlyCredit"], role=rule.get("role"),
                                       default_support=snap["scoring"].get("default_support")),
          "match": match_level(statuses)}
    return view, ev


def _statuses(row: dict, snap: dict) -> tuple[list[str], list[str]]:
    """The rule's conditions (sorted) and each one's status, checked against the counts."""
    conds = sorted(row.get("conditionList", "").split())
    held = set(row.get("heldList", "").split())
    partly = set(row.get("partlyList", "").split())
    failed = set(row.get("failedList", "").split())
    counts = (row.get("conditions"), row.get("held"), row.get("partly"), row.get("failed"))
    if any(c not in snap["conditions"] for c in conds) or counts != (len(conds), len(held), len(partly), len(failed)) \
            or not (held | partly | failed) <= set(conds):
        raise EngineError(f"the engine's rows for rule {row['rule']} do not match the local KB")
    return conds, [HELD if c in held else PARTLY if c in partly else FAILED if c in failed else NOT_GIVEN
                   for c in conds]
