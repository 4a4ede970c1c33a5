"""Where rule evaluations come from: the one protocol the native index and the SPARQL
engines share.

A backend answers two questions, both as :class:`Applied` records (a rule, the choice it
names, the side and the rule's evaluation by :mod:`recipekg.reason.scoring`):

- :meth:`Backend.applying`: the rules that apply to choices of a kind, under the facts;
- :meth:`Backend.naming`: every rule for or against one choice, applying or not.

Everything else (grouping, scores, order, explain's search) is built on these answers by
:mod:`recipekg.reason.recommend` and :mod:`recipekg.reason.explain`, whichever backend
gave them::

    >>> from recipekg.reason.resolve import facts_of
    >>> facts = facts_of(parse("recommend x where data = tabular and rows = 30k")[0].constraints, snap)
    >>> rules = {a.rule.rsplit("/", 1)[-1] for a in NativeBackend(snap).applying("architecture", facts)}
    >>> "threshold-tabular-10k-50k-trees" in rules
    True
"""

from __future__ import annotations

from recipekg.reason.conditions import HELD, PARTLY, status
from recipekg.reason.scoring import evaluation

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only (the query path never imports typing)
    from recipekg.contracts.common import Side


class Applied:
    """One rule's verdict about one choice: ``side`` is ``"for"`` or ``"against"``; ``view``
    is the rule as the backend describes it (conditions, strength, section, sources); ``ev``
    its evaluation (:func:`recipekg.reason.scoring.evaluation`)."""

    __slots__ = ("rule", "choice", "side", "view", "ev")

    def __init__(self, rule: str, choice: str, side: Side, view: dict, ev: dict):
        self.rule, self.choice, self.side, self.view, self.ev = rule, choice, side, view, ev

    def __repr__(self) -> str:
        return f"Applied({self.rule!r}, {self.choice!r}, {self.side!r})"


class Backend:
    """The protocol: what the reasoner needs from a store of rules (the native index, a
    SPARQL engine). Subclasses implement both methods."""

    #: ``True`` when ``plan`` can be answered alongside (it reads formulas, not rules).
    plans = False

    def applying(self, kind: str, facts: dict, only: str | None = None) -> list[Applied]:
        """The rules that apply (fire) to choices of ``kind`` under ``facts``; ``only``: the
        ones needed are those that could decide (``"deciding"``: general advice, or every
        condition's dimension given with values where it lists values) or match fully
        (``"full"``); a backend may give more (:func:`candidates`)."""
        raise NotImplementedError

    def naming(self, choice: str, facts: dict) -> list[Applied]:
        """Every rule recommending or advising against ``choice``, applying or not; a rule
        that does both is named once, as ``"for"``."""
        raise NotImplementedError

    def evaluating(self, kind: str, facts: dict, only: str | None = None) -> list[Applied]:
        """Every rule of ``kind`` with a condition on a dimension ``facts`` give, applying or
        not (what says a constraint was used, and which thresholds are near), in rule order;
        ``only``: as :meth:`applying`."""
        raise NotImplementedError


class NativeBackend(Backend):
    """The compiled snapshot's rules, looked up through its rule index (or scanned whole:
    ``scan=True``, the reference the index is tested against)."""

    plans = True

    def __init__(self, snap: dict, *, scan: bool = False):
        self.snap, self.scan = snap, scan
        self.evaluations = Evaluations(snap)
        self.targeting: dict[tuple[str, str], tuple] = {}  # (rule, kind) -> its targets of that kind
        self.named: dict[str, tuple] = {}  # choice -> (rule IRI, rule, side) of the rules naming it

    def _evaluate(self, iri: str, rule: dict, facts: dict) -> dict:
        """The rule's evaluation under ``facts``, reused from an earlier ranking by this backend
        (the answer's own, or another trial) when the facts it reads are the same
        (:class:`Evaluations`)."""
        return self.evaluations.of(iri, rule, facts)

    def applying(self, kind: str, facts: dict, only: str | None = None) -> list[Applied]:
        if self.scan:
            return self._scanned(kind, facts)
        entry = self.snap["rule_index"]["kinds"].get(kind)
        out = []
        at = positions(kind, facts, self.snap, only=only)
        for iri, row in zip(picked(entry["rules"], at), picked(entry["rows"], at)) if at else ():
            if row["targets"]:
                ev = self._evaluate(iri, row, facts)
                if ev["fires"]:
                    for target, side in row["targets"]:
                        out.append(Applied(iri, target, side, row, ev))
        return out

    def _scanned(self, kind: str, facts: dict) -> list[Applied]:
        """:meth:`applying` from every rule of the snapshot, read whole (``scan=True``)."""
        out = []
        for iri, rule in self.snap["rules"].items():
            targets = self._targets(iri, rule, kind)
            if targets:
                ev = self._evaluate(iri, rule, facts)
                if ev["fires"]:
                    out.extend(Applied(iri, target, side, rule, ev) for target, side in targets)
        return out

    def evaluating(self, kind: str, facts: dict, only: str | None = None) -> list[Applied]:
        entry = self.snap["rule_index"]["kinds"].get(kind)
        out = []
        # positions in the kind's sorted rules (so the result is by rule, choice and side); a
        # row without targets is a rule that does not rank the kind
        at = _on_given(kind, facts, self.snap, only)
        for iri, row in zip(picked(entry["rules"], at), picked(entry["rows"], at)) if at else ():
            targets = row["targets"]
            if targets:
                ev = self._evaluate(iri, row, facts)
                for target, side in targets if len(targets) == 1 else sorted(map(tuple, targets)):
                    out.append(Applied(iri, target, side, row, ev))
        return out

    def _targets(self, iri: str, rule: dict, kind: str) -> tuple:
        """``(choice, side)`` for each choice of ``kind`` the rule recommends or advises against
        (none when it does not rank ``kind``), kept per rule and kind for the backend's life."""
        key = (iri, kind)
        found = self.targeting.get(key)
        if found is None:
            nodes = self.snap["nodes"]
            found = () if not ranks_kind(rule, kind) else (
                *((t, "for") for t in rule["recommends"] if kind in nodes.get(t, {}).get("kinds", ())),
                *((t, "against") for t in rule["against"] if kind in nodes.get(t, {}).get("kinds", ())))
            self.targeting[key] = found
        return found

    def naming(self, choice: str, facts: dict) -> list[Applied]:
        named = self.named.get(choice)
        if named is None:  # the rules naming it and on which side, looked up once per backend
            named = self.named[choice] = self._named(choice)
        return [Applied(iri, choice, side, rule, self._evaluate(iri, rule, facts)) for iri, rule, side in named]

    def _named(self, choice: str) -> tuple:
        """``(rule IRI, rule, side)`` of every rule recommending or advising against ``choice``."""
        rules, out = self.snap["rules"], []
        for iri in self.snap["rule_index"]["by_target"].get(choice, ()):
            rule = rules[iri]
            side = "for" if choice in rule["recommends"] else "against" if choice in rule["against"] else None
            if side:
                out.append((iri, rule, side))
        return tuple(out)


class Evaluations:
    """Rule evaluations kept for the facts they read, so that re-ranking a trial (ask, both
    sides of a threshold, explain's smallest change: the answer's facts with one dimension
    changed) evaluates again only the rules with a condition on a dimension whose facts differ.

    A rule's evaluation (:func:`recipekg.reason.scoring.evaluate_rule`) reads the facts of
    its conditions' dimensions only, so it is kept with those facts (one entry per rule, the
    latest) and reused while each is the same object or an equal one (facts are never changed
    once the reasoner has them; a trial is a new dict holding the answer's objects for the
    dimensions it leaves alone). Reused or not, an evaluation is the same (a test compares
    answers and re-rankings from reused evaluations with ones evaluated afresh)::

        >>> from recipekg.reason.resolve import facts_of
        >>> facts = lambda where: facts_of(parse(f"recommend x where {where}")[0].constraints, snap)
        >>> base, iri = facts("data = tabular and rows = 30k"), "https://w3id.org/recipekg/rule/threshold-tabular-10k-50k-trees"
        >>> kept, rule = Evaluations(snap), snap["rules"][iri]
        >>> ev = kept.of(iri, rule, base)
        >>> kept.of(iri, rule, {**base, "gpus": facts("gpus = 8")["gpus"]}) is ev  # a dimension it does not read
        True
        >>> kept.of(iri, rule, facts("data = tabular and rows = 3M")) == ev, kept.made
        (False, 2)
    """

    __slots__ = ("snap", "kept", "made", "statuses", "scored")

    def __init__(self, snap: dict):
        self.snap = snap
        self.kept: dict[str, tuple] = {}  # rule IRI -> (dimensions read, their facts, evaluation)
        self.made = 0  # evaluations computed (not reused), for the benchmarks and tests
        # condition IRI -> (condition, the facts it read, its status): rules share conditions
        self.statuses: dict[str, tuple] = {}
        # (statuses, strength, role) -> what evaluation() makes of them, the conditions aside
        self.scored: dict[tuple, dict] = {}

    def of(self, iri: str, rule: dict, facts: dict) -> dict:
        """``evaluate_rule(rule, facts, snap)``, reused when the facts it reads are the same."""
        kept = self.kept.get(iri)
        if kept is not None:
            dims, read, ev = kept
            for dim, was in zip(dims, read):
                now = facts.get(dim)
                if now is not was and now != was:
                    break
            else:
                return ev
        read: dict = {}  # each dimension its conditions read -> the facts read
        ev = self._evaluate(rule, facts, read)
        self.made += 1
        self.kept[iri] = (tuple(read), tuple(read.values()), ev)
        return ev

    def _evaluate(self, rule: dict, facts: dict, read: dict) -> dict:
        """``evaluate_rule(rule, facts, snap)`` from each condition's status under ``facts``
        (computed once per condition and facts object) and the evaluation of those statuses
        (once per statuses, strength and role): a rule is then a few look-ups. ``read``: each
        dimension of its conditions, with the facts read, is noted there."""
        snap, known = self.snap, self.statuses
        conds, statuses = [], []
        for c in rule["conditions"]:
            seen = known.get(c)
            if seen is None or facts.get(seen[0]["dimension"]) is not seen[1]:
                cond = seen[0] if seen is not None else snap["conditions"][c]
                seen = known[c] = (cond, facts.get(cond["dimension"]), status(cond, facts, snap))
            conds.append(seen[0])
            statuses.append(seen[2])
            read[seen[0]["dimension"]] = seen[1]
        key = (tuple(statuses), rule["strength"], rule.get("role"))
        scored = self.scored.get(key)
        if scored is None:
            scored = self.scored[key] = evaluation([], statuses, snap["strengths"][rule["strength"]]["weight"],
                                                   snap["scoring"], rule.get("role"))
        return {"fires": scored["fires"], "statuses": statuses, "conditions": conds,
                "contribution": scored["contribution"], "match": scored["match"]}


def picked(items, at: list[int]) -> list:
    """``[items[i] for i in at]``; a snapshot's lazy list decodes each shard they fall in once
    and reads its items without a call each (``LazyList.picked``).

    >>> picked(["a", "b", "c"], [0, 2])
    ['a', 'c']
    """
    pick = getattr(items, "picked", None)
    return pick(at) if pick is not None else [items[i] for i in at]


def evaluated_rules(kind: str, facts: dict, snap: dict, only: str | None = None) -> list[str]:
    """The rules of ``kind`` ``evaluating`` gives (sorted): those with a condition on a given
    dimension that could apply or are near their threshold, found through the rule index, so
    the cost follows the rules about the query, not the size of the KB (``only``: as
    :func:`candidates`). A rule the index reaches through a given dimension's values or
    bounds has a condition on it; of the others (``always``: no conditions, or one the KB does
    not describe) only those with a described condition on a given dimension are kept."""
    entry = snap["rule_index"]["kinds"].get(kind)
    return [entry["rules"][i] for i in _on_given(kind, facts, snap, only) if entry["rows"][i]["targets"]]


def _on_given(kind: str, facts: dict, snap: dict, only: str | None) -> list[int]:
    """The positions of :func:`evaluated_rules` in the kind's rules (sorted), before the rules
    that do not rank ``kind`` are left out."""
    conditions = snap["conditions"]
    found = positions(kind, facts, snap, widen=True, only=only, always=False)
    entry = snap["rule_index"]["kinds"].get(kind)
    if entry is not None and only != "full":
        rows = entry["rows"]
        found += [i for i in entry["always"]
                  if any(conditions.get(c, {}).get("dimension") in facts for c in rows[i]["conditions"])]
    return sorted(found)


def ranks_kind(rule: dict, kind: str) -> bool:
    """Whether a rule ranks choices of ``kind`` (``rkg:forKind`` limits a rule to some kinds)."""
    return not rule.get("for_kinds") or kind in rule["for_kinds"]


def candidates(kind: str, facts: dict, snap: dict, widen: bool = False, only: str | None = None,
               always: bool = True) -> list[str]:
    """The rules of ``kind`` that could apply to ``facts``, in the order of ``snap["rules"]``
    (with ``widen``, also those a numeric value misses by less than a factor of 2: the rules
    near their threshold, :mod:`recipekg.reason.situation`, and those on a derived value the
    query misses narrowly, ``Facts.near``; ``always=False``: without the
    index's ``always`` rules, those it reaches through no dimension).

    ``only="deciding"``: only the rules that could decide (match fully, come near, or give
    general advice): none reached by a bound whose rule also lists values (the query gives
    none of that dimension, or the rule is reached through them: ``exact``/``under``), as a
    rule waiting for a dimension only ranks the choices nothing decides. ``only="full"``: those
    that could match fully, so not the rules without conditions either.

    A rule applies when none of its conditions fails and one holds at least partly, or when
    it has none. A condition listing values holds (partly) only when the query gives a value
    of its dimension equal to, narrower or broader than one of them (``exact``/``under``).
    A bounded one only when a query interval meets its bounds (each end included or not, as
    the condition says), and a rule reached that way whose value-listing conditions are on a
    dimension the query gives values for fails there unless it is reached through
    ``exact``/``under`` too, so those groups are skipped.
    """
    entry = snap["rule_index"]["kinds"].get(kind)
    return [entry["rules"][i] for i in positions(kind, facts, snap, widen, only, always)]


def positions(kind: str, facts: dict, snap: dict, widen: bool = False, only: str | None = None,
              always: bool = True) -> list[int]:
    """:func:`candidates` as positions in the kind's ``rules`` (and ``rows``), sorted."""
    entry = snap["rule_index"]["kinds"].get(kind)
    if entry is None:
        return []
    found = set(entry["always"]) if always and only != "full" else set()
    found |= _by_value(entry, facts, snap["nodes"])
    if widen:  # and the rules on a derived value the query misses narrowly (situation.near_reasons)
        found |= _by_value(entry, _near_values(facts), snap["nodes"])
    valued = {dim for dim, f in facts.items() if f.values is not None}
    reach = _widened(facts) if widen else facts
    for dim, f in facts.items():
        for cats, boxes in entry["numeric"].get(dim, ()):
            if valued.intersection(cats) or only and cats:
                continue
            for low, low_inc, high, high_inc, at in boxes:
                box = {"dimension": dim, "values": (), "min": low, "min_inclusive": low_inc,
                       "max": high, "max_inclusive": high_inc}
                if status(box, reach, snap) in (HELD, PARTLY):
                    found.update(at)
    return sorted(found)


def _widened(facts: dict) -> dict:
    """Numeric facts stretched by the factor that makes a threshold near (2: half to double)."""
    from recipekg.reason.facts import Facts
    from recipekg.reason.situation import NEAR_FACTOR

    out = dict(facts)
    for dim, f in facts.items():
        if f.intervals:
            low, high = f.intervals[0][0], f.intervals[-1][2]
            out[dim] = Facts(dim, f.kind, intervals=[(low / NEAR_FACTOR if low > 0 else low, True,
                                                      high * NEAR_FACTOR if high > 0 else high, True)])
    return out


def _near_values(facts: dict) -> dict:
    """The values of derived dimensions the query misses narrowly (``Facts.near``), as facts."""
    from recipekg.reason.facts import Facts

    return {dim: Facts(dim, f.kind, values=set(f.near)) for dim, f in facts.items() if f.near}


def _by_value(entry: dict, facts: dict, nodes: dict) -> set[int]:
    """Positions of the rules whose value-listing conditions the query's values meet."""
    found: set[int] = set()
    for dim, f in facts.items():
        if f.values is None:
            continue
        exact, under = entry["exact"].get(dim), entry["under"].get(dim)
        for q in f.values:
            if exact:
                found.update(exact.get(q, ()))
                for a in nodes.get(q, {}).get("ancestors", ()):
                    found.update(exact.get(a, ()))
            if under:
                found.update(under.get(q, ()))
    return found
