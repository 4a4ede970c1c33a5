"""A statement as one portable SPARQL 1.1 query over ``recipekg export``.

    $ recipekg sparql "recommend fix where symptom = loss-spike" > fix.rq

    >>> query = to_sparql(parse("recommend fix where symptom = loss-spike")[0], snap)
    >>> query.splitlines()[0], "ORDER BY DESC(?contribution)" in query
    ('PREFIX rkg: <https://w3id.org/recipekg/ns#>', True)

The statement is resolved and derived first (:func:`recipekg.reason.resolve.facts_of`), as
the native reasoner does, and the query is generated from those facts, never from the query
text. Values enter only as validated terms: IRIs the KB's vocabulary holds (checked against
the snapshot and a strict IRI pattern) and numbers as typed ``xsd:double`` literals written
by Python (``repr`` of a finite float). No user string reaches the query, so no input can
change its structure.

Shape of the query::

    SELECT ... WHERE {
      VALUES ?choice { <every choice of the kind> }        # explain: the one choice
      { ?rule rkg:recommends ?choice } UNION { ?rule rkg:advisesAgainst ?choice }   (+ ?side)
      ?rule rdf:type rkg:Rule ; rkg:strength ?strength ; rkg:section ?section .
      ?strength rkg:weight ?weight .  rkg:scoring rkg:unconstrainedFactor ?f ; rkg:partlyCredit ?pc .
      { SELECT ?rule (counts and lists of its conditions by status, its sources)
        WHERE { {papers} UNION {conditions} UNION {conditions with a status ?st} UNION {the rule} }
        GROUP BY ?rule HAVING (no condition failed, and some held or partly, or none at all) }
      BIND(weight × (f + (1 − f) × coverage) AS ?contribution)
    } ORDER BY DESC(?contribution) STR(?rule) STR(?choice) ?side

One row per (rule, target choice, side) that applies (explain: every rule naming the choice),
with ``?rule ?choice ?side`` (``"for"``/``"against"``), ``?strength ?weight ?section``,
``?conditions ?held ?partly ?failed`` (counts), ``?conditionList ?heldList ?partlyList
?failedList`` (condition IRIs, space-separated), ``?sources`` (paper IRIs, space-separated),
``?unconstrainedFactor ?partlyCredit`` (``rkg:scoring``) and ``?contribution``.
:class:`recipekg.sparql.backend.SparqlBackend` turns the rows into the reasoner's answer.

A condition's status (as :mod:`recipekg.reason.conditions` computes it), for a dimension the query constrains:

- categorical, query values q1..qk: ``inside(q)`` = ``?c rkg:value q`` or a value of ``?c``
  that ``q`` is narrower than (``rkg:broaderTransitive``, materialised by the export);
  held when every q is inside (one inside, for values that hold at once, such as the
  derived compute tiers); failed when no q is inside or broader than a value; else partly;
- categorical, only ``!=`` values: failed when every value of ``?c`` is one of them or
  narrower than one; else not given;
- numeric, the query's union of intervals: the condition's four bound properties
  (``rkg:minInclusive``, ``rkg:minExclusive``, ``rkg:maxInclusive``, ``rkg:maxExclusive``, at
  most one of each pair) read with OPTIONAL, then comparisons of doubles that honour which
  ends are included, the condition's and the query's: held when the condition contains every
  interval, failed when it is empty or meets none (or the query's union is empty: a dimension
  with no value for the query's method), else partly.

Any other condition is "not given". The query uses only triple patterns, ``UNION``,
``OPTIONAL``, ``FILTER``/``IF`` with ``EXISTS``, one grouped sub-select, ``SUM``/``COUNT``,
``GROUP_CONCAT`` with a separator and double arithmetic: no property paths, no comparison
of mixed types, no integer division. It is shaped for Virtuoso 7 as much as for rdflib and
Oxigraph (each status is bound inside its own UNION branch; the sub-select is joined, not
filtered from outside).
"""

from __future__ import annotations

import math
import re

from recipekg.errors import RangeError, UnsupportedStatement, VocabularyError
from recipekg.knowledge.terms import PREFIXES
from recipekg.query.ast import Explain, Plan, Recipe, Recommend
from recipekg.reason.facts import Facts
from recipekg.reason.resolve import facts_of, resolve_choice, resolve_kind
from recipekg.reason.scope import unrunnable

#: Prefixes every generated query declares (a fixed header: golden files stay stable).
QUERY_PREFIXES = {p: PREFIXES[p] for p in ("rkg", "kb", "rule", "cond", "dim", "sec", "paper",
                                           "rdf", "xsd", "prov")}

#: Columns of a row, in SELECT order.
COLUMNS = ("rule", "choice", "side", "strength", "weight", "section", "conditions", "held",
           "partly", "failed", "conditionList", "heldList", "partlyList", "failedList", "sources",
           "unconstrainedFactor", "partlyCredit", "contribution")

# What may appear between < and > of a SPARQL IRIREF, stricter than the grammar: printable
# ASCII without space, quotes, angle brackets, braces, pipe, caret, backquote, backslash.
_IRI_SAFE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]*")
_LOCAL_SAFE = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?")


def to_sparql(statement, snap: dict) -> str:
    """The SPARQL 1.1 SELECT query for a parsed ``recommend`` or ``explain`` statement."""
    if isinstance(statement, Plan):
        raise UnsupportedStatement.plan()
    if isinstance(statement, Recipe):
        raise UnsupportedStatement.recipe()
    facts = unrunnable(facts_of(statement.constraints, snap), snap)[0]  # (read as the native reasoner reads them)
    if isinstance(statement, Recommend):
        return recommend_query(resolve_kind(statement.kind, snap), facts, snap)
    if isinstance(statement, Explain):
        return explain_query(resolve_choice(statement.choice, snap), facts, snap)
    raise TypeError(f"not a statement: {statement!r}")


def recommend_query(kind: str, facts: dict[str, Facts], snap: dict) -> str:
    """Rules that apply to choices of ``kind`` under ``facts`` (resolved and derived)."""
    choices = list(snap["rule_index"]["by_kind"].get(kind, ()))  # sorted, as every choice of the kind
    return _query(choices, facts, snap, applying_only=True,
                  comment=f"rules that apply to choices of kind {_comment_safe(kind)}")


def evaluating_query(kind: str, facts: dict[str, Facts], snap: dict, rules: list[str]) -> str:
    """The ``rules`` (IRIs of the KB) naming a choice of ``kind``, applying or not, with their
    statuses (what says whether a constraint was used and which thresholds are near): the
    rules the local index says are about the query, so that the engine computes the statuses
    of those alone, not of every rule of the KB (a ``VALUES ?rule`` inside the sub-select),
    for the choices of ``kind`` they name.

    >>> facts = facts_of(parse("recommend x where data = tabular and rows = 30k")[0].constraints, snap)
    >>> rule = "https://w3id.org/recipekg/rule/threshold-tabular-10k-50k-trees"
    >>> "VALUES ?rule { rule:threshold-tabular-10k-50k-trees }" in evaluating_query("architecture", facts, snap, [rule])
    True
    """
    nodes = snap["nodes"]
    choices = sorted({t for r in rules for t in (*snap["rules"][r]["recommends"], *snap["rules"][r]["against"])
                      if kind in nodes.get(t, {}).get("kinds", ())})
    return _query(choices, facts, snap, applying_only=False, rules=rules,
                  comment=f"the rules about the query naming choices of kind {_comment_safe(kind)}, applying or not")


def explain_query(choice: str, facts: dict[str, Facts], snap: dict) -> str:
    """Every rule naming ``choice`` (an IRI of the KB), applying or not, with its statuses."""
    if choice not in snap["nodes"]:
        raise VocabularyError(f"{choice!r} is not a node of the KB")
    return _query([choice], facts, snap, applying_only=False,
                  comment="every rule for or against one choice, applying or not")


def status_query(condition: str, facts: dict[str, Facts], snap: dict) -> str:
    """The status of one condition (an IRI of the KB) under ``facts``, by the pattern the
    other queries use for every condition: one row binding ``?st`` (``"held"``, ``"partly"``
    or ``"failed"``), none when the status is "not given"."""
    t = _Terms(snap)
    cond = t.iri(condition)
    branches = _status_pattern(t, "?sc", facts, snap)
    header = "\n".join(f"PREFIX {p}: <{base}>" for p, base in QUERY_PREFIXES.items())
    body = "\n  UNION\n  ".join(f"{{ {b}\n  }}" for b in branches) or "FILTER(false)"
    return f"{header}\n\nSELECT ?st WHERE {{\n  VALUES ?sc {{ {cond} }}\n  {body}\n}}\n"


# ----------------------------------------------------------------------------- terms

class _Terms:
    """Validated terms for one query: IRIs of the snapshot, finite doubles, fresh variables."""

    def __init__(self, snap: dict, listed=()):
        # the nodes are looked up one by one, or are among ``listed`` (the choices the snapshot's
        # index lists for the query): listing every node would decode them all
        self.nodes, self.rules = snap["nodes"], snap["rules"]
        self.known = {d["iri"] for d in snap["dimensions"].values()} | set(listed)
        self.counter = 0

    def iri(self, iri: str) -> str:
        if not isinstance(iri, str) or not (iri in self.known or iri in self.nodes) \
                or not _IRI_SAFE.fullmatch(iri):
            raise RangeError(f"not an IRI of the KB's vocabulary: {iri!r}")
        return iri_term(iri)

    def rule(self, iri: str) -> str:
        """A rule of the snapshot, as an IRI term."""
        if not isinstance(iri, str) or iri not in self.rules or not _IRI_SAFE.fullmatch(iri):
            raise RangeError(f"not a rule of the KB: {iri!r}")
        return iri_term(iri)

    def var(self, stem: str) -> str:
        self.counter += 1
        return f"?{stem}{self.counter}"


def iri_term(iri: str) -> str:
    """``kb:vit`` when a declared prefix covers the IRI with a plain local name, else ``<iri>``."""
    if not _IRI_SAFE.fullmatch(iri):
        raise RangeError(f"unsafe IRI {iri!r}")
    for prefix, base in sorted(QUERY_PREFIXES.items(), key=lambda kv: -len(kv[1])):
        if iri.startswith(base) and _LOCAL_SAFE.fullmatch(iri[len(base):]):
            return f"{prefix}:{iri[len(base):]}"
    return f"<{iri}>"


def double(x: float) -> str:
    """A finite number as a typed literal: ``"30000.0"^^xsd:double`` (Python's repr)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise RangeError(f"not a number: {x!r}")
    value = float(x)
    if not math.isfinite(value):
        raise RangeError(f"not a finite number: {x!r}")
    text = repr(value)
    if not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?", text):  # pragma: no cover
        raise RangeError(f"cannot write {x!r} as an xsd:double")
    return f'"{text}"^^xsd:double'


def _comment_safe(text: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", text.lower())


# ----------------------------------------------------------------------------- statuses

def _categorical_in(t: _Terms, c: str, q: str) -> str:
    """``q`` is one of the values of ``c`` or narrower than one."""
    a = t.var("a")
    return f"{{ {c} rkg:value {q} }} UNION {{ {c} rkg:value {a} . {q} rkg:broaderTransitive {a} }}"


def _categorical_over(t: _Terms, c: str, q: str) -> str:
    """``q`` is broader than a value of ``c``."""
    b = t.var("b")
    return f"{c} rkg:value {b} . {b} rkg:broaderTransitive {q}"


def _has_iri_value(t: _Terms, c: str, negate: bool = False) -> str:
    v = t.var("v")
    return f"FILTER {'NOT ' if negate else ''}EXISTS {{ {c} rkg:value {v} . FILTER(isIRI({v})) }}"


def _categorical(t: _Terms, c: str, f: Facts) -> list[str] | None:
    """Lines binding ``?st`` for a condition ``c`` with values, under categorical facts."""
    if f.values is not None:
        qs = [t.iri(q) for q in sorted(f.values)]
        if getattr(f, "all_of", False):  # the values hold at once: one inside is enough
            held = " UNION ".join(f"{{ {_categorical_in(t, c, q)} }}" for q in qs)
        else:  # any one of the values may be the case: every one must be inside
            held = " ".join(f"{{ {_categorical_in(t, c, q)} }}" for q in qs)
        meets = " UNION ".join(f"{{ {_categorical_in(t, c, q)} }} UNION {{ {_categorical_over(t, c, q)} }}"
                               for q in qs)
        return [_has_iri_value(t, c),
                f'BIND(IF(EXISTS {{ {held} }}, "held", IF(EXISTS {{ {meets} }}, "partly", "failed")) AS ?st)']
    if f.excluded:
        xs = ", ".join(t.iri(x) for x in sorted(f.excluded))
        u, up = t.var("u"), t.var("up")
        return [_has_iri_value(t, c),
                # no value of c outside the excluded ones and their narrower values (OPTIONAL
                # and !BOUND, not a nested NOT EXISTS: Virtuoso's cost model overflows on that)
                f"FILTER NOT EXISTS {{ {c} rkg:value {u} . FILTER(isIRI({u}) && {u} NOT IN ({xs})) "
                f"OPTIONAL {{ {u} rkg:broaderTransitive {up} . FILTER({up} IN ({xs})) }} "
                f"FILTER(!BOUND({up})) }}",
                'BIND("failed" AS ?st)']
    return None


class _Bounds:
    """The variables holding a condition's bounds, one per property (unbound when absent)."""

    def __init__(self, t: _Terms):
        self.min_in, self.min_ex = t.var("minIn"), t.var("minEx")
        self.max_in, self.max_ex = t.var("maxIn"), t.var("maxEx")

    def read(self, c: str) -> list[str]:
        return [f"OPTIONAL {{ {c} rkg:{prop} {var} }}" for prop, var in (
            ("minInclusive", self.min_in), ("minExclusive", self.min_ex),
            ("maxInclusive", self.max_in), ("maxExclusive", self.max_ex))]


def _unless(var: str, test: str) -> str:
    """``test`` holds for the bound in ``var``, or there is no such bound."""
    return f"(!BOUND({var}) || {test})"


def _contains(b: _Bounds, interval) -> str:
    """The condition contains ``interval`` (each of its ends included as its flags say)."""
    low, low_inc, high, high_inc = interval
    if low == -math.inf:
        lower = f"!BOUND({b.min_in}) && !BOUND({b.min_ex})"
    else:
        x, op = double(low), "<" if low_inc else "<="
        lower = f"{_unless(b.min_in, f'{b.min_in} <= {x}')} && {_unless(b.min_ex, f'{b.min_ex} {op} {x}')}"
    if high == math.inf:
        upper = f"!BOUND({b.max_in}) && !BOUND({b.max_ex})"
    else:
        x, op = double(high), ">" if high_inc else ">="
        upper = f"{_unless(b.max_in, f'{b.max_in} >= {x}')} && {_unless(b.max_ex, f'{b.max_ex} {op} {x}')}"
    return f"({lower} && {upper})"


def _meets(b: _Bounds, interval) -> str:
    """The condition (not empty) and ``interval`` have a point in common: each lower end is
    below each upper end, or equal to it where both are included."""
    low, low_inc, high, high_inc = interval
    parts = []
    if high != math.inf:
        x = double(high)
        parts += [_unless(b.min_in, f"{b.min_in} {'<=' if high_inc else '<'} {x}"),
                  _unless(b.min_ex, f"{b.min_ex} < {x}")]
    if low != -math.inf:
        x = double(low)
        parts += [_unless(b.max_in, f"{b.max_in} {'>=' if low_inc else '>'} {x}"),
                  _unless(b.max_ex, f"{b.max_ex} > {x}")]
    return "(" + " && ".join(parts) + ")" if parts else "true"


def _not_empty(b: _Bounds) -> str:
    """The condition's own lower bound is below its upper one (equal: both included)."""
    def pair(lo: str, hi: str, op: str) -> str:
        return f"(!BOUND({lo}) || !BOUND({hi}) || {lo} {op} {hi})"

    return " && ".join([pair(b.min_in, b.max_in, "<="), pair(b.min_in, b.max_ex, "<"),
                        pair(b.min_ex, b.max_in, "<"), pair(b.min_ex, b.max_ex, "<")])


def _numeric(t: _Terms, c: str, f: Facts) -> list[str]:
    """Lines binding ``?st`` for a condition ``c`` under numeric facts: bounds read once
    (OPTIONAL), then comparisons of doubles. Held when the condition contains every interval
    of the query, failed when it is empty or meets none or the query has none, else partly (as
    :func:`recipekg.reason.conditions.status` decides)."""
    b, iv = _Bounds(t), t.var("v")
    held = " && ".join(_contains(b, i) for i in f.intervals) or "false"  # no interval, no value: failed
    meets = " || ".join(_meets(b, i) for i in f.intervals)
    failed = f"!({_not_empty(b)} && ({meets}))" if f.intervals else "true"
    return ([f"OPTIONAL {{ {c} rkg:value {iv} . FILTER(isIRI({iv})) }}"] + b.read(c) +
            [f"FILTER(!BOUND({iv}))",
             f'BIND(IF({held}, "held", IF({failed}, "failed", "partly")) AS ?st)'])


def _status_pattern(t: _Terms, c: str, facts: dict[str, Facts], snap: dict) -> list[str]:
    """UNION branches binding ``?st`` (held, partly or failed) for a condition ``c`` on a
    dimension the query constrains; no branch matches a condition whose status is "not given"."""
    branches = []
    for name in sorted(facts):
        f = facts[name]
        dim = snap["dimensions"].get(name)
        if dim is None:
            continue  # a derived fact no condition can name
        if f.kind == "categorical":
            body = _categorical(t, c, f)
        elif f.intervals is not None:
            body = _numeric(t, c, f)
        else:
            body = None
        if body:
            branches.append("\n          ".join([f"{c} rkg:dimension {t.iri(dim['iri'])} ."] + body))
    return branches


# ----------------------------------------------------------------------------- the query

def _query(choices: list[str], facts: dict[str, Facts], snap: dict, *, applying_only: bool,
           comment: str, rules: list[str] | None = None) -> str:
    t = _Terms(snap, choices)
    values = "\n    ".join(t.iri(c) for c in choices)
    # A UNION of one group per kind of row, each naming the rule itself (no join above the
    # UNION: rdflib would evaluate that one as a nested loop).
    parts = ["{ ?rule rdf:type rkg:Rule ; prov:wasDerivedFrom ?paper }",
             "{ ?rule rdf:type rkg:Rule ; rkg:condition ?cond }"]
    branches = _status_pattern(t, "?sc", facts, snap)
    if branches:
        # one row per (rule, condition) whose status ?st is held, partly or failed
        parts.append("{\n        ?rule rdf:type rkg:Rule ; rkg:condition ?sc .\n        "
                     + "\n        UNION\n        ".join(f"{{ {b}\n        }}" for b in branches)
                     + "\n      }")
    parts.append("{ ?rule rdf:type rkg:Rule . BIND(0 AS ?none) }")
    rule_parts = "\n      UNION\n      ".join(parts)
    if rules is not None:  # only these rules' statuses (joined before the UNION's groups)
        rule_parts = f"VALUES ?rule {{ {' '.join(t.rule(r) for r in rules)} }}\n      {{\n      {rule_parts}\n      }}"
    count = {s: f'SUM(IF(COALESCE(?st, "") = "{s}", 1, 0))' for s in ("held", "partly", "failed")}
    listed = {s: f'GROUP_CONCAT(DISTINCT IF(COALESCE(?st, "") = "{s}", STR(?sc), ""); separator=" ")'
              for s in ("held", "partly", "failed")}
    header = "\n".join(f"PREFIX {p}: <{base}>" for p, base in QUERY_PREFIXES.items())
    having = ("" if not applying_only else
              f"    HAVING ({count['failed']} = 0\n"
              f"            && (COUNT(DISTINCT ?cond) = 0 || {count['held']} + {count['partly']} > 0))\n")
    return f"""{header}

# recipekg: {comment}; one row per (rule, choice, side)
SELECT ?rule ?choice ?side ?strength ?weight ?section ?conditions ?held ?partly ?failed
  ?conditionList ?heldList ?partlyList ?failedList ?sources
  (?f AS ?unconstrainedFactor) (?pc AS ?partlyCredit) ?contribution
WHERE {{
  VALUES ?choice {{
    {values}
  }}
  {{ ?rule rkg:recommends ?choice . BIND("for" AS ?side) }}
  UNION
  {{ ?rule rkg:advisesAgainst ?choice . BIND("against" AS ?side) }}
  ?rule rdf:type rkg:Rule ;
        rkg:strength ?strength ;
        rkg:section ?section .
  ?strength rkg:weight ?weight .
  rkg:scoring rkg:unconstrainedFactor ?f ;
              rkg:partlyCredit ?pc .
  {{
    # per rule: the status of each condition under the query's facts (?st), and the sources
    SELECT ?rule
      (COUNT(DISTINCT ?cond) AS ?conditions)
      ({count['held']} AS ?held)
      ({count['partly']} AS ?partly)
      ({count['failed']} AS ?failed)
      (GROUP_CONCAT(DISTINCT COALESCE(STR(?cond), ""); separator=" ") AS ?conditionList)
      ({listed['held']} AS ?heldList)
      ({listed['partly']} AS ?partlyList)
      ({listed['failed']} AS ?failedList)
      (GROUP_CONCAT(DISTINCT COALESCE(STR(?paper), ""); separator=" ") AS ?sources)
    WHERE {{
      {rule_parts}
    }}
    GROUP BY ?rule
{having}  }}
  BIND(?weight * (?f + ("1.0"^^xsd:double - ?f) * IF(?conditions = 0, "0.0"^^xsd:double,
       (xsd:double(?held) + ?pc * xsd:double(?partly)) / xsd:double(?conditions))) AS ?contribution)
}}
ORDER BY DESC(?contribution) STR(?rule) STR(?choice) ?side
"""
