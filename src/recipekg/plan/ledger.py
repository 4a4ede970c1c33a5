"""The ledger of one plan: its quantities, each with its formula, constants, papers, section
and a derivation with the numbers plugged in, and its notes and warnings.

    >>> ledger = Ledger(KBView(snap))
    >>> f = ledger.kb.formula("flops", "params", "tokens")
    >>> flops, env = ledger.compute(f, {"params": Q.point(7e9), "tokens": Q.point(1.4e11)})
    >>> entry = ledger.add("flops", flops, formula=f, env=env)
    >>> entry["derivation"].split(": ")[1], [c["symbol"] for c in entry["constants"]]
    ('6 × 7B × 140B = 5.88e21 FLOPs', ['c_flops_per_param_token'])
    >>> ledger.values["flops"].value
    5.88e+21

Formulas read KB constants by symbol and the two unit conversions below by name; both are
bound here, so that a step only passes the plan's own inputs.
"""

from __future__ import annotations

import math

from recipekg.errors import FormulaError, KBError, RangeError
from recipekg.formula.expr import CONVERSIONS, Formula, Q, evaluate, solve, substitute
from recipekg.plan.figures import rounded, show
from recipekg.plan.kbview import KBFormula, KBView, const_json
from recipekg.plan.quantities import FIXED, applies, not_applicable, unit_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only
    from collections.abc import Mapping, Sequence
    from typing import Any, NoReturn, Unpack

    from recipekg.contracts.plan import Caveat, Note, Quantity, QuantityMore


class Ledger:
    """What one plan has found so far: ``quantities`` and ``values`` (by name), notes, warnings.

    ``method`` (set once the plan's method is read) keeps out of the answer what is no figure
    of that method: a quantity whose registry entry names other methods is kept in ``values``
    (a later step may compute with it) but not listed, a fixed one is listed as not applying
    (:meth:`close`), and a note given ``only`` methods is dropped for the others."""

    def __init__(self, kb: KBView, where=None):
        self.kb = kb
        self.where = where  # the statement's position, for a value plan cannot compute with
        self.method: str | None = None
        self.shape = None  # the model's shape, once a step has found it (plan.shape.Shape)
        self.quantities: list[Quantity] = []
        self.values: dict[str, Q] = {}
        self.notes: list[Note] = []
        self.warnings: list[Note] = []

    def note(self, text: str, *items: Mapping[str, Any], warn: bool = False,
             only: Sequence[str] | None = None) -> None:
        """A note (or, with ``warn``, a warning) citing the papers and section of KB items;
        ``only``: the methods it is about (another method's plan drops it)."""
        if only is not None and self.method is not None and self.method not in only:
            return
        entry: Note = {"text": text, "sources": self.kb.sources(*items)}
        section = next((self.kb.section(i) for i in items if self.kb.section(i)), None)
        if section:
            entry["section"] = section
        (self.warnings if warn else self.notes).append(entry)

    def add(self, name: str, q: Q | None, unit: str | None = None, *, formula: KBFormula | None = None,
            env: dict | None = None, label: str | None = None, derivation: str | None = None,
            constants: Sequence[dict] = (), extra_sources: Sequence[Mapping[str, Any]] = (),
            **more: Unpack[QuantityMore]) -> Quantity:
        """Record a quantity of the registry (:mod:`recipekg.plan.quantities`, which gives its
        unit; ``unit``: another of its units) with its formula, constants, sources, section
        and derivation (``more`` are extra fields of its JSON); returns its entry."""
        keep = float if more.get("given") or more.get("exact") else rounded  # given (or a configuration's) stays exact
        entry: Quantity = {"name": name, "label": label or (formula.data["label"] if formula else name),
                 "value": keep(q.value) if q else None, "low": keep(q.low) if q else None,
                 "high": keep(q.high) if q else None, "unit": unit_of(name, unit), "formula": None, "sources": [],
                 "derivation": derivation or "", "section": None}
        if formula is not None:
            self._cite_formula(entry, formula, q, env, derivation, constants, extra_sources)
        elif constants or extra_sources:
            entry["constants"] = [const_json(c) for c in constants]
            entry["sources"] = self.kb.sources(*constants, *extra_sources)
            entry["section"] = next((self.kb.section(i) for i in [*constants, *extra_sources]
                                     if self.kb.section(i)), None)
        entry.update(more)
        if applies(name, self.method):
            self.quantities.append(entry)
        if q is not None:
            self.values[name] = q
        return entry

    def close(self) -> None:
        """List each fixed quantity that is no figure of the plan's method as not applying,
        with why (the contract keeps the fixed names in every plan answer)."""
        if self.method is None:
            return
        for name in FIXED:
            if not applies(name, self.method) and self.entry(name) is None:
                why = not_applicable(name, self.method)
                self.quantities.append({"name": name, "label": name, "value": None, "low": None, "high": None,
                                        "unit": unit_of(name), "formula": None, "sources": [], "derivation": why,
                                        "section": None, "not_applicable": why})

    def _cite_formula(self, entry: Quantity, formula: KBFormula, q: Q | None, env: dict | None,
                      derivation: str | None, constants, extra_sources) -> None:
        overridden = (env or {}).get("__overridden__", set())
        used = [self.kb.constant(n) for n in sorted(formula.parsed.names)
                if n in self.kb.by_symbol and n not in overridden] + list(constants)
        entry["formula"] = {"id": formula.id, "iri": formula.iri, "label": formula.data["label"],
                            "expression": formula.data["expression"]}
        entry["constants"] = [const_json(c) for c in used]
        entry["sources"] = self.kb.sources(formula.data, *used, *extra_sources)
        entry["section"] = self.kb.section(formula.data)
        caveats: list[Caveat] = [{"of": item["id"], "text": item["caveat"]} for item in (formula.data, *used)
                                 if item.get("caveat")]
        if caveats:
            entry["caveats"] = caveats
        if derivation is None and q is not None and env is not None:
            shown = {k: v for k, v in env.items() if not k.startswith("__")}
            # a sum of bytes shows each term's unit: 38.5 GB + 9.71 GB, not 38.5B + 9.71B
            unit = "bytes" if entry["unit"] == "bytes" and _sum_of_terms(formula.parsed.body) else ""

            def terms(v: Q) -> str:
                return show(v, unit)

            entry["derivation"] = (f"{formula.data['label']}: "
                                   f"{substitute(formula.parsed, shown, terms)} = {show(q, entry['unit'])}")

    def compute(self, formula: KBFormula, inputs: dict[str, Q], overrides: dict[str, Q] | None = None
                ) -> tuple[Q, dict]:
        """Evaluate a KB formula: inputs by name, constants by symbol, unit conversions from
        :data:`CONVERSIONS`; ``overrides`` stand in for constants (and say so). Returns the
        value and the names it was computed from (for :meth:`add`)."""
        env: dict = {"__overridden__": set(overrides or ())}
        values: dict = {}  # env without its "__" entries: what the formula is evaluated with
        fixed = self.kb.fixed.get(formula.iri)
        if fixed is None:
            fixed = self.kb.fixed[formula.iri] = fixed_values(self.kb, formula)
        for n in formula.parsed.names:
            if overrides and n in overrides:
                v = overrides[n]
            elif n in inputs:
                v = inputs[n]
            elif n in fixed:
                v = fixed[n]
            else:
                raise KBError(f"formula {formula.id} reads {n!r}, which plan has no value for")
            env[n] = v
            if not n.startswith("__"):
                values[n] = v
        try:
            q = evaluate(formula.parsed, values)
        except FormulaError as exc:
            raise FormulaError(f"formula {formula.id}: {exc}") from None
        self._check_scale(formula, values, q)
        return q, env

    def _check_scale(self, formula: KBFormula, values: dict[str, Q], q: Q) -> None:
        """Every formula of plan maps positive numbers to positive numbers; a result of 0 or
        infinity from positive inputs is floating point giving out (``params = 1e-200``)."""
        if _fine(q) or not all(map(_fine, values.values())):
            return
        size = "large" if any(math.isinf(v) for v in (q.low, q.high)) else "small"
        self.out_of_scale(f"too {size} to plan with: {formula.data['label']} ({formula.id}) comes out as {q.value:g}")

    def solve(self, formula: Formula, unknown: str, env: dict) -> Q:
        """:func:`recipekg.formula.expr.solve` for a quantity plan must have: no solution means
        the values given are out of any training run's scale."""
        q = solve(formula, unknown, env)
        if q is None or not math.isfinite(q.value):
            self.out_of_scale(f"out of the range plan solves in: no {unknown} gives {formula.output} from them")
        return q

    def out_of_scale(self, detail: str) -> NoReturn:
        """A :class:`RangeError` at the statement: the values given are beyond plan's arithmetic."""
        message = f"the values given are {detail}"
        expected = ["values a training run could have (params = 7B, tokens = 1.4T, flops = 1e24)"]
        if self.where is None:
            raise RangeError(message, expected=expected)
        raise RangeError.at(self.where, message, expected=expected)

    def given(self, name: str) -> bool:
        """Whether the quantity was given in the query (shown as given, not rounded)."""
        entry = self.entry(name)
        return bool(entry and entry.get("given"))

    def entry(self, name: str) -> Quantity | None:
        """The recorded quantity with this name (None when there is none)."""
        return next((x for x in self.quantities if x["name"] == name), None)


def _sum_of_terms(node) -> bool:
    """Whether a formula's tree only adds and subtracts names and numbers (each term then has
    the result's unit).

    >>> _sum_of_terms(["+", "a", ["-", "b", 0]]), _sum_of_terms(["+", "a", ["*", "b", "c"]])
    (True, False)
    """
    if not isinstance(node, list):
        return True
    return node[0] in ("+", "-") and all(_sum_of_terms(n) for n in node[1:])


def _fine(x: Q) -> bool:
    """All three of a range's numbers finite and positive."""
    return (math.isfinite(x.low) and x.low > 0 and math.isfinite(x.value) and x.value > 0
            and math.isfinite(x.high) and x.high > 0)


def fixed_values(kb: KBView, formula: KBFormula) -> dict[str, Q]:
    """The values of a formula's names that no plan changes: the KB's constants (by symbol)
    and the unit conversions, which :meth:`Ledger.compute` takes unless an input or an
    override names them. Kept per view and formula (``KBView.fixed``): a cold plan computes
    some 130 formulas, 48 of them for the published runs' MFUs."""
    return {n: kb.q(n) if n in kb.by_symbol else Q.point(CONVERSIONS[n])
            for n in formula.parsed.names if n in kb.by_symbol or n in CONVERSIONS}
