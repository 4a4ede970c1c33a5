"""``plan [where ...]``: size a training run from the KB's formulas and constants.

    >>> a = plan(parse("plan where params = 7B and hardware = h100 and gpus = 8")[0], snap)   # doctest: +SKIP
    >>> [q["name"] for q in a["quantities"]][:4]
    ['params', 'tokens', 'flops', 'tokens_per_param']

Every number comes from the KB: formulas are looked up by their output and the names they
read (``rkg:expression``), constants by symbol, hardware figures by property, table rows
from the ``rkg:ComputeEstimate`` facts. The only numbers in the code are unit conversions
(:mod:`recipekg.units`: 3600 s/h, 8 bits/byte) and the definition of a relative change
(``x × (1 + change)``, the unit of the KB's technique effects). Each quantity carries its
formula (id and expression), the papers behind the formula and its constants, the section of
the reference, and a derivation with the numbers plugged in. Ranges (the KB's low/high
constants) flow through as ``low``/``high``; ``value`` is the point estimate (the midpoint
where the KB gives only a range).

What is computed:

- sizing: from any one of params, tokens, flops the other two, by the Chinchilla ratio or,
  when the KB's rules put it first (``goal = production``, a tight inference budget), the
  inference-optimal range; from two, the third and the tokens-per-parameter ratio;
- data repetition (``epochs``, ``unique-tokens``): the reference's effective-data formula and
  its 85% guidance side by side, since the two disagree;
- training memory (rule of thumb, optimizer- and precision-aware) with its breakdown;
- fit on ``gpu-memory`` × ``gpus`` (or the hardware's memory), replicated and FSDP-sharded;
  when it does not fit, what each memory-saving technique saves and whether that is enough;
  the hardware's model-size feasibility rules (DGX Spark's table);
- time: GPU-hours at an MFU (default: what the reference's A100 table implies), wall time,
  GPUs needed for a ``time`` budget, the compute tier and its advice;
- the hardware's ridge point (FLOPs/byte) and the reference's bandwidth-bound verdict.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

from . import units
from .ast import Plan, Position
from .conditions import HELD, status
from .derive import derive
from .errors import KBError, RangeError
from .expr import ExprError, Formula, Q, evaluate, solve, substitute
from .expr import parse as parse_expression
from .reasoner import constraints_json, evaluate_rule, paper_json, rank, reason_json
from .terms import RKG, local_name
from .vocabulary import Facts, resolve_constraints, resolve_dimension

#: The quantity names the contract fixes; they are always present (value null if unknown).
FIXED = ("params", "tokens", "flops", "memory", "gpu_hours", "wall_time")

#: Dimensions plan reads; others are reported as not used.
USED = {"params", "tokens", "flops", "gpus", "time", "hardware", "gpu-memory", "bandwidth", "mfu",
        "epochs", "unique-tokens", "optimizer", "precision", "goal", "inference-budget", "tier", "prefer"}

_UNITS = {"params": "parameters", "tokens": "tokens", "flops": "FLOPs", "memory": "bytes",
          "gpu_hours": "GPU-hours", "wall_time": "hours"}

_SIZE_DIMS = ("params", "tokens", "flops")

# KB ids plan refers to by name (ids, not numbers: what the KB says about them is read from it)
_COMPUTE_OPTIMAL = "chinchilla-optimal-training"
_INFERENCE_OPTIMAL = "inference-optimal-training"
_CHECKPOINTING, _QUANTIZED_STATES, _FSDP, _QLORA = ("gradient-checkpointing", "quantized-optimizer-states",
                                                    "fsdp", "qlora")
_MEMORY_MISMATCH = "memory-breakdown-vs-rule-of-thumb"


def plan(stmt: Plan, snap: dict) -> dict:
    """The answer to a ``plan`` statement (the JSON the spec describes, plus more fields)."""
    return _Planner(stmt, snap).run()


# =============================================================================== the KB

@dataclass
class _Formula:
    iri: str
    data: dict
    parsed: Formula

    @property
    def id(self) -> str:
        return self.data["id"]


class _KB:
    """Look-ups into the snapshot: constants by symbol, formulas by output and names."""

    def __init__(self, snap: dict):
        self.snap = snap
        self.by_symbol = {c["symbol"]: iri for iri, c in snap["constants"].items() if c["symbol"]}
        self.formulas: list[_Formula] = []
        for iri, f in sorted(snap["formulas"].items()):
            if not f["expression"]:
                continue
            try:
                self.formulas.append(_Formula(iri, f, parse_expression(f["expression"])))
            except ExprError as exc:
                raise KBError(f"formula {f['id']}: {exc}") from None

    def constant(self, symbol: str) -> dict:
        if symbol not in self.by_symbol:
            raise KBError(f"the KB has no constant with symbol {symbol!r}, which plan needs")
        return self.snap["constants"][self.by_symbol[symbol]]

    def q(self, symbol: str) -> Q:
        return const_q(self.constant(symbol))

    def constants_for(self, entity: str | None, quantity: str | None = None) -> list[dict]:
        """Constants that apply to ``entity`` (optionally of one quantity), by id."""
        return sorted((c for c in self.snap["constants"].values()
                       if entity in c["applies_to"] and (quantity is None or c["quantity"] == quantity)),
                      key=lambda c: c["id"])

    def formula(self, output: str, *names: str) -> _Formula:
        """The formula computing ``output`` whose expression reads all of ``names``."""
        found = self.find(output, *names)
        if found is None:
            raise KBError(f"the KB has no formula for {output} from {', '.join(names)}, which plan needs")
        return found

    def find(self, output: str, *names: str) -> _Formula | None:
        found = [f for f in self.formulas if f.parsed.output == output and set(names) <= f.parsed.names]
        return min(found, key=lambda f: (len(f.parsed.names), f.id)) if found else None

    def iri(self, node_id: str) -> str | None:
        """The IRI of the entity with this id (None when the KB does not have it)."""
        for iri, node in self.snap["nodes"].items():
            if node["id"] == node_id and node["kinds"]:
                return iri
        return None

    def fact(self, fact_id: str) -> dict | None:
        return next((f for f in self.snap["facts"].values() if f["id"] == fact_id), None)

    def sources(self, *items: dict) -> list[dict]:
        """The papers of KB items (ids) or of answers (paper objects), each once."""
        seen, out = set(), []
        for item in items:
            for p in item.get("sources", []):
                pid = p["id"] if isinstance(p, dict) else p
                if pid not in seen:
                    seen.add(pid)
                    out.append(p if isinstance(p, dict) else paper_json(p, self.snap))
        return out

    def section(self, item: dict) -> str | None:
        s = item.get("section")
        if isinstance(s, str) and s in self.snap["sections"]:
            return self.snap["sections"][s]["path"]
        return None

    def label(self, iri: str) -> str:
        return self.snap["nodes"].get(iri, {}).get("label", local_name(iri))

    def node_id(self, iri: str) -> str:
        return self.snap["nodes"].get(iri, {}).get("id", local_name(iri))


def const_q(c: dict) -> Q:
    if c["low"] is not None and c["high"] is not None:
        return Q.span(c["low"], c["high"], c["value"])
    return Q.point(c["value"])


def const_json(c: dict) -> dict:
    return {"id": c["id"], "symbol": c["symbol"], "label": c["label"], "value": c["value"],
            "low": c["low"], "high": c["high"], "unit": c["unit"]}


def relative_change(x: Q, change: Q) -> Q:
    """Apply a KB constant whose unit is "relative change": ``x × (1 + change)``.

    That is the definition of the unit (``-0.3`` means 30% less), not a claim of the KB.
    """
    return x * (1 + change)


def reduction(x: Q, change: Q) -> Q:
    """How much a negative relative change takes off ``x``: ``x × −change`` (by the same
    definition; computed directly so that ``x``'s range is not counted twice)."""
    return x * -change


def _r(x: float | None) -> float | None:
    """Ten significant digits in the JSON: drops float noise (1.0000000000000002e9), keeps inputs."""
    if x is None or not math.isfinite(x):
        return None
    return float(f"{x:.10g}")


def _qjson(q: Q | None) -> dict | None:
    return None if q is None else {"value": _r(q.value), "low": _r(q.low), "high": _r(q.high)}


def _fmt(q: Q, unit: str = "") -> str:
    """A value or range for a derivation: with its unit, or as a bare number."""
    if unit:
        return units.amount(q.low, q.high, unit) if q.is_range else units.amount(q.value, unit=unit)
    return units.num(q.value) if not q.is_range else f"{units.num(q.low)}–{units.num(q.high)}"


def _pct(q: Q) -> str:
    """A relative change as a percentage of its size: −0.7..−0.5 → ``50–70%``."""
    a, b = sorted((abs(q.low) * 100, abs(q.high) * 100))
    return f"{a:.0f}%" if round(a) == round(b) else f"{a:.0f}–{b:.0f}%"


def _ceil(q: Q) -> Q:
    up = lambda x: max(1.0, float(math.ceil(x - 1e-9))) if math.isfinite(x) else x  # noqa: E731
    return Q(up(q.value), up(q.low), up(q.high))


def _facts_q(f: Facts) -> Q:
    low, _, high, _ = f.intervals[0]
    return Q.span(low, high) if low != high else Q.point(low)


def _point_facts(name: str, kind: str, q: Q) -> Facts:
    return Facts(name, kind, intervals=[(q.low, True, q.high, True)], derived="plan")


_RANK = {"fits": 0, "may fit": 1, "does not fit": 2}


def _verdict(need: Q, cap: Q) -> dict:
    """``fits`` (even the high end), ``may fit`` (only the low end) or ``does not fit``."""
    if need.high <= cap.low:
        return {"verdict": "fits", "over": None}
    if need.low <= cap.high:
        return {"verdict": "may fit", "over": {"low": 0.0, "high": _r(need.high - cap.low)}}
    return {"verdict": "does not fit",
            "over": {"low": _r(need.low - cap.high), "high": _r(need.high - cap.low),
                     "factor_low": _r(need.low / cap.high), "factor_high": _r(need.high / cap.low)}}


def _compose(outer: Formula, name: str, inner: Formula) -> Formula:
    """``outer`` with its input ``name`` replaced by ``inner``'s expression."""

    class Replace(ast.NodeTransformer):
        def visit_Name(self, node):
            return inner.body if node.id == name else node

    body = Replace().visit(ast.parse(ast.unparse(outer.body), mode="eval").body)
    return parse_expression(f"{outer.output} = {ast.unparse(body)}")


# =============================================================================== planner

class _Planner:
    def __init__(self, stmt: Plan, snap: dict):
        self.stmt, self.snap, self.kb = stmt, snap, _KB(snap)
        self.constraints = {}
        for c in stmt.constraints:
            self.constraints.setdefault(resolve_dimension(c.dimension, snap)["name"], c)
        self.facts = derive(resolve_constraints(stmt.constraints, snap), snap)
        self.quantities: list[dict] = []
        self.notes: list[dict] = []
        self.warnings: list[dict] = []
        self.values: dict[str, Q] = {}
        self.wall: Q | None = None
        self.time_hw: str | None = None

    # ------------------------------------------------------------------ output helpers
    def note(self, text: str, *items: dict, warn: bool = False) -> None:
        entry = {"text": text, "sources": self.kb.sources(*items)}
        section = next((self.kb.section(i) for i in items if self.kb.section(i)), None)
        if section:
            entry["section"] = section
        (self.warnings if warn else self.notes).append(entry)

    def add(self, name: str, q: Q | None, unit: str, *, formula: _Formula | None = None,
            env: dict | None = None, label: str | None = None, derivation: str | None = None,
            constants: list[dict] = (), extra_sources: list[dict] = (), **more) -> dict:
        """Record a quantity with its formula, constants, sources, section and derivation."""
        entry = {"name": name, "label": label or (formula.data["label"] if formula else name),
                 "value": _r(q.value) if q else None, "low": _r(q.low) if q else None,
                 "high": _r(q.high) if q else None, "unit": unit, "formula": None, "sources": [],
                 "derivation": derivation or "", "section": None}
        overridden = (env or {}).get("__overridden__", set())
        if formula is not None:
            used = [self.kb.constant(n) for n in sorted(formula.parsed.names)
                    if n in self.kb.by_symbol and n not in overridden] + list(constants)
            entry["formula"] = {"id": formula.id, "iri": formula.iri, "label": formula.data["label"],
                                "expression": formula.data["expression"]}
            entry["constants"] = [const_json(c) for c in used]
            entry["sources"] = self.kb.sources(formula.data, *used, *extra_sources)
            entry["section"] = self.kb.section(formula.data)
            if derivation is None and q is not None and env is not None:
                shown = {k: v for k, v in env.items() if not k.startswith("__")}
                entry["derivation"] = (f"{formula.data['label']}: "
                                       f"{substitute(formula.parsed, shown, _fmt)} = {_fmt(q, unit)}")
        elif constants or extra_sources:
            entry["constants"] = [const_json(c) for c in constants]
            entry["sources"] = self.kb.sources(*constants, *extra_sources)
            entry["section"] = next((self.kb.section(i) for i in [*constants, *extra_sources]
                                     if self.kb.section(i)), None)
        entry.update(more)
        self.quantities.append(entry)
        if q is not None:
            self.values[name] = q
        return entry

    def compute(self, formula: _Formula, inputs: dict[str, Q], overrides: dict[str, Q] | None = None
                ) -> tuple[Q, dict]:
        """Evaluate a KB formula: inputs by name, constants by symbol, unit conversions from
        :mod:`recipekg.units`; ``overrides`` stand in for constants (and say so)."""
        env: dict = {"__overridden__": set(overrides or ())}
        for n in formula.parsed.names:
            if overrides and n in overrides:
                env[n] = overrides[n]
            elif n in inputs:
                env[n] = inputs[n]
            elif n in self.kb.by_symbol:
                env[n] = self.kb.q(n)
            elif n in units.CONVERSIONS:
                env[n] = Q.point(units.CONVERSIONS[n])
            else:
                raise KBError(f"formula {formula.id} reads {n!r}, which plan has no value for")
        try:
            return evaluate(formula.parsed, {k: v for k, v in env.items() if not k.startswith("__")}), env
        except ExprError as exc:
            raise KBError(f"formula {formula.id}: {exc}") from None

    def consts(self, f: _Formula) -> dict[str, Q]:
        return {n: self.kb.q(n) for n in f.parsed.names if n in self.kb.by_symbol}

    # ------------------------------------------------------------------ reading the query
    def number(self, dim: str, *, budget: bool = False) -> Q | None:
        """A numeric dimension as a :class:`Q`: one value or one finite range, above zero.
        With ``budget``, an upper bound alone (``time < 1 week``) stands for that value."""
        f = self.facts.get(dim)
        if f is None or f.intervals is None:
            return None
        c = self.constraints.get(dim)
        where = c.pos if c is not None else self.stmt.pos
        if len(f.intervals) != 1:
            raise RangeError.at(where, f"plan needs one value or one range for '{dim}'",
                                expected=[f"{dim} = <value>", f"{dim} between <low> and <high>"])
        low, _, high, _ = f.intervals[0]
        if budget and not math.isfinite(low) and math.isfinite(high):
            low = high
        if not (math.isfinite(low) and math.isfinite(high)):
            raise RangeError.at(where, f"plan needs a value for '{dim}', not only a bound",
                                expected=[f"{dim} = <value>", f"{dim} between <low> and <high>"])
        if low <= 0:
            shown = c.values[0].text if c is not None else units.num(low)
            raise RangeError.at(c.values[0].pos if c is not None else where,
                                f"'{dim}' must be greater than 0 to plan, not {shown}",
                                expected=[f"{dim} > 0"])
        return Q.point(low) if low == high else Q.span(low, high)

    def one(self, dim: str) -> str | None:
        """The one IRI a categorical dimension is set to (None when not set)."""
        f = self.facts.get(dim)
        if f is None or not f.values:
            return None
        if len(f.values) > 1:
            c = self.constraints.get(dim)
            raise RangeError.at(c.pos if c else self.stmt.pos, f"plan takes one {dim}, not several",
                                expected=[f"{dim} = <one {dim}>"])
        return next(iter(f.values))

    def given_text(self, dim: str) -> str:
        c = self.constraints[dim]
        return f"given in the query ({c.dimension.text} {c.op} {' and '.join(v.text for v in c.values)})"

    # ------------------------------------------------------------------ the run
    def run(self) -> dict:
        given = {d: self.number(d) for d in _SIZE_DIMS}
        self.unique = self.number("unique-tokens")
        self.epochs = self.number("epochs")
        self.gpus = self.number("gpus")
        self.mfu_given = self.number("mfu")
        self.time_budget = self.number("time", budget=True)
        self.capacity = self.number("gpu-memory")
        self.hardware = self.one("hardware")
        self.optimizer = self.one("optimizer")
        self.precision = self.one("precision")
        if not any(given.values()) and not (self.unique and self.epochs):
            p = self.stmt.pos
            keyword = Position(p.line, p.column, p.line, p.column + 4, p.start, p.start + 4)
            raise RangeError.at(keyword, "nothing to plan from: give a model size, a token count "
                                               "or a compute budget",
                                expected=["params = 7B", "tokens = 140B", "flops = 1e21",
                                          "unique-tokens = 50B and epochs = 4"])
        self.strategy = self._strategy()
        self._sizing(given)
        self._repetition()
        self._memory()
        fit, recommendations = self._fit()
        feasibility = self._feasibility()
        self._recs, self._feasibility_rules = recommendations, feasibility
        self._time()
        tier = self._tier()
        bandwidth = self._bandwidth()
        self._unused()
        first = {n: i for i, n in enumerate(_SIZE_DIMS)}
        self.quantities.sort(key=lambda q: first.get(q["name"], len(first)))
        return {
            "statement": "plan", "query": self.stmt.text.strip(),
            "constraints": [c for c in constraints_json(self.facts)
                            if not (c["dimension"] == "tier" and c.get("derived_from"))],
            "summary": self._summary(fit, tier),
            "strategy": self.strategy["json"],
            "hardware": self._hardware_json(),
            "quantities": self.quantities,
            "fit": fit, "recommendations": recommendations, "feasibility": feasibility,
            "tier": tier, "bandwidth": bandwidth,
            "notes": self.notes, "warnings": self.warnings,
        }

    # ------------------------------------------------------------------ strategy
    def _strategy(self) -> dict:
        """Compute-optimal (Chinchilla) unless the KB's rules rank inference-optimal first."""
        candidates = [iri for iri in (self.kb.iri(_COMPUTE_OPTIMAL), self.kb.iri(_INFERENCE_OPTIMAL))
                      if iri and self.kb.constants_for(iri, "tokens-per-param")]
        if not candidates:
            raise KBError("the KB has no tokens-per-parameter ratio for plan to size with")
        ranked = [r for r in rank("approach", self.facts, self.snap) if r["iri"] in candidates and r["score"] > 0]
        iri = ranked[0]["iri"] if ranked else candidates[0]
        because = ranked[0]["because"][:2] if ranked else []
        ratio = self.kb.constants_for(iri, "tokens-per-param")[0]
        node = self.snap["nodes"][iri]
        why = ("; ".join(r["text"] for r in because) if because else
               "no goal given: compute-optimal sizing, the reference's default scaling law")
        return {"iri": iri, "ratio": ratio,
                "json": {"id": node["id"], "label": node["label"], "tokens_per_param": const_json(ratio),
                         "why": why, "because": because}}

    # ------------------------------------------------------------------ sizing
    def _sizing(self, given: dict[str, Q | None]) -> None:
        kb, ratio = self.kb, self.strategy["ratio"]
        flops_f = kb.formula("flops", "params", "tokens")
        tokens_f = kb.formula("tokens", "params", ratio["symbol"])
        epochs_f = kb.formula("epochs", "tokens", "unique_tokens")
        params, tokens, flops = given["params"], given["tokens"], given["flops"]
        self.data_tokens = tokens is None and self.unique is not None and self.epochs is not None
        if self.data_tokens:
            tokens = solve(epochs_f.parsed, "tokens", {"epochs": self.epochs, "unique_tokens": self.unique})
        n_given = sum(x is not None for x in (params, tokens, flops))

        if params is not None:
            self.add("params", params, "parameters", label="params", given=True,
                     derivation=self.given_text("params"))
        if tokens is not None and self.data_tokens:
            self.add("tokens", tokens, "tokens", formula=epochs_f, given=True,
                     derivation=f"{epochs_f.data['expression']}, solved for tokens: "
                                f"{_fmt(self.unique, 'tokens')} × {_fmt(self.epochs)} epochs = {_fmt(tokens, 'tokens')}")
        elif tokens is not None:
            self.add("tokens", tokens, "tokens", label="tokens", given=True, derivation=self.given_text("tokens"))
        if flops is not None:
            self.add("flops", flops, "FLOPs", label="flops", given=True, derivation=self.given_text("flops"))

        def solved(name, f, unknown, env, q, unit):
            shown = ", ".join(_fmt(v, _UNITS.get(k, "")) if k in _UNITS else f"{k} = {_fmt(v)}"
                              for k, v in env.items() if k != unknown and k not in f.parsed.names - set(_UNITS))
            self.add(name, q, unit, formula=f,
                     derivation=f"{f.data['label']}: {f.data['expression']}, solved for {unknown} "
                                f"with {shown}: {_fmt(q, unit)}")

        if params is None and tokens is None:                         # a compute budget only
            direct = kb.find("params", "flops", ratio["symbol"])
            if direct is not None:
                params, env = self.compute(direct, {"flops": flops})
                self.add("params", params, "parameters", formula=direct, env=env)
            else:                                                      # flops(params, ratio × params)
                composed = _compose(flops_f.parsed, "tokens", tokens_f.parsed)
                params = solve(composed, "params", {**self.consts(flops_f), **self.consts(tokens_f), "flops": flops})
                self.add("params", params, "parameters", formula=flops_f, constants=[ratio],
                         extra_sources=[tokens_f.data],
                         derivation=f"{flops_f.data['expression']} with {tokens_f.data['expression']}, "
                                    f"solved for params at {_fmt(const_q(ratio), 'tokens/param')}: "
                                    f"{_fmt(params, 'parameters')}")
            if params.is_range:   # params and tokens move together: tokens = flops / (6 × params)
                tokens = solve(flops_f.parsed, "tokens", {**self.consts(flops_f), "params": params, "flops": flops})
                solved("tokens", flops_f, "tokens", {"flops": flops, "params": params}, tokens, "tokens")
            else:
                tokens, env = self.compute(tokens_f, {"params": params})
                self.add("tokens", tokens, "tokens", formula=tokens_f, env=env)
        elif tokens is None:                                           # params (and maybe flops)
            if flops is None:
                tokens, env = self.compute(tokens_f, {"params": params})
                self.add("tokens", tokens, "tokens", formula=tokens_f, env=env)
            else:
                tokens = solve(flops_f.parsed, "tokens", {**self.consts(flops_f), "params": params, "flops": flops})
                solved("tokens", flops_f, "tokens", {"flops": flops, "params": params}, tokens, "tokens")
        elif params is None:                                           # tokens (and maybe flops)
            if flops is None:
                params = solve(tokens_f.parsed, "params", {**self.consts(tokens_f), "tokens": tokens})
                solved("params", tokens_f, "params", {"tokens": tokens,
                                                      ratio["symbol"]: const_q(ratio)}, params, "parameters")
            else:
                params = solve(flops_f.parsed, "params", {**self.consts(flops_f), "tokens": tokens, "flops": flops})
                solved("params", flops_f, "params", {"flops": flops, "tokens": tokens}, params, "parameters")
        if flops is None:
            flops, env = self.compute(flops_f, {"params": params, "tokens": tokens})
            self.add("flops", flops, "FLOPs", formula=flops_f, env=env)
        elif n_given == 3:
            implied, _ = self.compute(flops_f, {"params": params, "tokens": tokens})
            if f"{implied.value:.2g}" != f"{flops.value:.2g}":
                self.note(f"the given flops ({_fmt(flops, 'FLOPs')}) differ from 6 × params × tokens "
                          f"({_fmt(implied, 'FLOPs')}); the plan uses the given figure", flops_f.data, warn=True)
        self.sizes = {"params": params, "tokens": tokens, "flops": flops}
        self._table_figures()
        self._ratio(remark=n_given >= 2)

    def _ratio(self, remark: bool) -> None:
        p, t = self.sizes["params"], self.sizes["tokens"]
        f = self.kb.formula("tokens_per_param", "tokens", "params")
        if p.is_range and t.is_range:   # both follow from one ratio: report that ratio, not a product of ranges
            ratio = const_q(self.strategy["ratio"])
            self.add("tokens_per_param", ratio, "tokens/param", formula=f,
                     constants=[self.strategy["ratio"]],
                     derivation=f"{f.data['label']}: {_fmt(ratio, 'tokens/param')}, the strategy's ratio")
        else:
            ratio, env = self.compute(f, {"tokens": t, "params": p})
            self.add("tokens_per_param", ratio, "tokens/param", formula=f, env=env)
        if not remark:
            return
        chin = next(iter(self.kb.constants_for(self.kb.iri(_COMPUTE_OPTIMAL), "tokens-per-param")), None)
        inf = next(iter(self.kb.constants_for(self.kb.iri(_INFERENCE_OPTIMAL), "tokens-per-param")), None)
        if chin is None:
            return
        c, shown = chin["value"], _fmt(ratio, "tokens/param")
        inf_range = f"{units.grouped(inf['low'])}–{units.grouped(inf['high'])} tokens/param" if inf else ""
        if units.grouped(ratio.value, 2) == units.grouped(c, 2):
            self.note(f"{shown}: about the compute-optimal ratio of {units.grouped(c)}", chin)
        elif ratio.high < c:
            self.note(f"{shown} is below the compute-optimal {units.grouped(c)} tokens per parameter: the model "
                      f"is large for its data, and for this compute a smaller model on more tokens would do "
                      f"better", chin, warn=True)
        elif inf is not None and inf["low"] <= ratio.value <= inf["high"]:
            self.note(f"{shown} is in the inference-optimal range ({inf_range}): over-trained on purpose, "
                      f"for a model that will be served", inf)
        elif inf is not None and ratio.value > inf["high"]:
            self.note(f"{shown} is beyond even the inference-optimal range ({inf_range})", inf, warn=True)
        else:
            self.note(f"{shown} is above the compute-optimal {units.grouped(c)} tokens per parameter"
                      + (f" but below the inference-optimal {inf_range}" if inf else ""),
                      chin, *([inf] if inf else []))

    def _table_figures(self) -> None:
        """For a row of the reference's FLOPs table, its tokens and FLOPs beside the formula's."""
        self.table_row = None
        p, t = self.sizes["params"], self.sizes["tokens"]
        if p.is_range or t.is_range:
            return
        for fact in sorted(self.snap["facts"].values(), key=lambda f: f["id"]):
            if "ComputeEstimate" in fact["types"] and fact.get("params") and fact.get("tokens") \
                    and abs(fact["params"] - p.value) <= 1e-6 * fact["params"] \
                    and abs(fact["tokens"] - t.value) <= 0.01 * fact["tokens"]:
                self.table_row = fact
        if self.table_row is None:
            return
        row = self.table_row
        for q in self.quantities:
            if q["name"] in ("tokens", "flops") and row.get(q["name"]) is not None and not q.get("given"):
                q["table"] = {"fact": row["id"], "label": row["label"], "value": row[q["name"]],
                              "section": self.kb.section(row), "sources": self.kb.sources(row)}

    # ------------------------------------------------------------------ repetition
    def _repetition(self) -> None:
        """Epochs over the unique data, and what the repeated tokens are worth."""
        if self.unique is None and self.epochs is None:
            return
        kb, tokens = self.kb, self.sizes["tokens"]
        epochs_f = kb.formula("epochs", "tokens", "unique_tokens")
        if self.data_tokens:
            unique, epochs = self.unique, self.epochs
        elif self.unique is not None:
            unique = self.unique
            epochs, env = self.compute(epochs_f, {"tokens": tokens, "unique_tokens": unique})
            self.add("epochs", epochs, "epochs", formula=epochs_f, env=env)
            if self.epochs is not None and f"{self.epochs.value:.2g}" != f"{epochs.value:.2g}":
                self.note(f"with {_fmt(unique, 'tokens')} of unique data the plan's {_fmt(tokens, 'tokens')} "
                          f"are {_fmt(epochs)} epochs, not the {_fmt(self.epochs)} given; the plan uses "
                          f"{_fmt(epochs)}", epochs_f.data, warn=True)
        else:
            epochs = self.epochs
            unique = solve(epochs_f.parsed, "unique_tokens", {"epochs": epochs, "tokens": tokens})
            self.add("unique_tokens", unique, "tokens", formula=epochs_f, label="unique tokens needed",
                     derivation=f"{epochs_f.data['expression']}, solved for unique_tokens: "
                                f"{_fmt(tokens, 'tokens')} / {_fmt(epochs)} epochs = {_fmt(unique, 'tokens')}")
        if epochs.high <= 1:
            self.note(f"{_fmt(unique, 'tokens')} of unique data cover the {_fmt(tokens, 'tokens')} the plan "
                      f"needs: no repetition", epochs_f.data)
            return
        effective_f = kb.formula("effective_tokens", "unique_tokens", "epochs")
        eff, env = self.compute(effective_f, {"unique_tokens": unique, "epochs": epochs})
        self.add("effective_tokens", eff, "tokens", formula=effective_f, env=env,
                 label="effective tokens by the reference's formula")
        max_epochs = next(iter(c for c in self.snap["constants"].values() if c["quantity"] == "max-useful-epochs"), None)
        within = max_epochs is None or epochs.high <= max_epochs["value"]
        guide_f = kb.find("effective_tokens", "tokens")
        if guide_f is not None:
            g, genv = self.compute(guide_f, {"tokens": tokens})
            self.add("effective_tokens_guidance", g, "tokens", formula=guide_f, env=genv,
                     label="effective tokens by the 85% guidance", applies=within)
        self.note("the reference says two things about repeated data that disagree: its formula "
                  "D × (1 − e^(−epochs)) never gives more than the unique data, while its guidance says "
                  "up to about 4 epochs are some 85% as good as fresh data; both are shown",
                  effective_f.data, *([guide_f.data] if guide_f else []))
        if not within:
            beyond = [f for f in self.snap["facts"].values()
                      if f["section"] == max_epochs["section"] and "beyond" in f["id"]]
            self.note(f"{_fmt(epochs)} epochs is more than {units.grouped(max_epochs['value'])}: past about four "
                      f"epochs repeated data helps sharply less and the 85% guidance no longer holds; find more "
                      f"unique data or plan a smaller model", max_epochs, *beyond, warn=True)
        elif max_epochs is not None:
            self.note(f"{_fmt(epochs)} epochs is within the ~{units.grouped(max_epochs['value'])} epochs the "
                      f"reference considers nearly as good as unique data", max_epochs)

    # ------------------------------------------------------------------ memory
    def _memory(self) -> None:
        """Training memory (rule of thumb, adjusted for optimizer and precision) and its parts."""
        kb, params = self.kb, self.sizes["params"]
        w_sym, g_sym, o_sym, a_sym = ("c_weight_bytes_per_param_bf16", "c_gradient_bytes_per_param_bf16",
                                      "c_adam_state_bytes_per_param", "c_activation_bytes_per_param")
        parts = {name: (kb.q(sym), [kb.constant(sym)]) for name, sym in
                 (("weights", w_sym), ("gradients", g_sym), ("optimizer_states", o_sym), ("activations", a_sym))}
        adjusted = False
        if self.precision is not None:
            pid = kb.node_id(self.precision)
            if pid == "fp32":
                fp32 = kb.constant("c_fp32_bytes_per_value")
                parts["weights"] = parts["gradients"] = (const_q(fp32), [fp32])
                adjusted = True
                self.note(f"precision = fp32: weights and gradients at {units.grouped(fp32['value'])} bytes per "
                          f"parameter each instead of bf16's {units.grouped(kb.q(w_sym).value)}", fp32)
            elif pid == "fp16":
                self.note("precision = fp16: a 16-bit format like bf16, so the breakdown's bf16 byte counts are "
                          "used (an assumption: the KB has no separate fp16 figure)", kb.constant(w_sym))
            elif pid != "bf16":
                technique = kb.iri(f"{pid}-training")
                traffic = kb.constants_for(technique, "memory-traffic") if technique else []
                extra = (f"; it gives {pid.upper()} only as a cut in memory traffic "
                         f"({units.grouped(traffic[0]['value'])}× less than bf16)" if traffic else "")
                self.note(f"precision = {pid}: the KB has no figure for the bytes per parameter {pid.upper()} "
                          f"training keeps in memory{extra}; the estimate keeps the reference's bf16 breakdown",
                          *traffic)
        if self.optimizer is not None:
            node = self.snap["nodes"][self.optimizer]
            multiple = next((c for iri in [self.optimizer, *node["ancestors"]]
                             for c in kb.constants_for(iri, "optimizer-state-memory")), None)
            if multiple is None:
                self.note(f"the KB has no optimizer-state memory multiple for {node['label']}: the breakdown's "
                          f"Adam figure ({units.grouped(kb.q(o_sym).value)} bytes/param) is used", kb.constant(o_sym))
            else:
                f = kb.formula("optimizer_state_bytes_per_param", "optimizer_state_multiple")
                per_param, _ = self.compute(f, {"optimizer_state_multiple": const_q(multiple)})
                used = [multiple, *(kb.constant(n) for n in sorted(f.parsed.names) if n in kb.by_symbol)]
                parts["optimizer_states"] = (per_param, used)
                adjusted = True
                self.note(f"optimizer = {node['id']}: optimizer states at {units.grouped(multiple['value'])} × params "
                          f"(the optimizer table's memory multiple) × "
                          f"{units.grouped(kb.q('c_fp32_bytes_per_value').value)} bytes per state value (fp32, as "
                          f"in the breakdown's Adam line) = {_fmt(per_param, 'bytes/param')}; an assumption about "
                          f"what the table's multiple counts (formula {f.id})", multiple, f.data)
        self.parts = parts
        per = {k: v[0] for k, v in parts.items()}
        if adjusted:
            f = kb.formula("memory", "weight_bytes_per_param", "optimizer_state_bytes_per_param")
            inputs = {"weight_bytes_per_param": per["weights"], "gradient_bytes_per_param": per["gradients"],
                      "optimizer_state_bytes_per_param": per["optimizer_states"]}
        else:
            f = kb.formula("memory", "c_training_bytes_per_param", "params")
            inputs = {}
        memory, env = self.compute(f, {**inputs, "params": params})
        bytes_per_param, _ = self.compute(f, {**inputs, "params": Q.point(1)})
        breakdown_f = kb.formula("memory", a_sym, o_sym)
        sub = []
        for name, (bpp, consts) in parts.items():
            q = bpp * params
            sub.append({"name": f"memory_{name}", "label": name.replace("_", " "), **_qjson(q), "unit": "bytes",
                        "bytes_per_param": _qjson(bpp), "constants": [const_json(c) for c in consts],
                        "sources": kb.sources(*consts),
                        "formula": {"id": breakdown_f.id, "expression": breakdown_f.data["expression"]},
                        "derivation": f"{_fmt(bpp, 'bytes/param')} × {_fmt(params, 'parameters')} = {_fmt(q, 'bytes')}"})
        total = sum(per.values(), Q.point(0))
        self.add("memory", memory, "bytes", formula=f, env=env, parts=sub,
                 bytes_per_param=_qjson(bytes_per_param),
                 parts_sum={"bytes_per_param": _qjson(total), **_qjson(total * params)})
        mismatch = kb.fact(_MEMORY_MISMATCH)
        self.note(f"the parts add up to {_fmt(total, 'bytes/param')} while the rule of thumb says "
                  f"{_fmt(bytes_per_param, 'bytes/param')}: the reference disagrees with itself at the low end; "
                  f"the plan's memory is the rule of thumb", mismatch or breakdown_f.data)

    # ------------------------------------------------------------------ fit
    def _fit(self) -> tuple[dict | None, list[dict]]:
        if self.capacity is None:
            self.note("no hardware or gpu-memory given: add hardware = h100 (or gpu-memory = 80GB) to check "
                      "whether it fits")
            return None, []
        kb, params, cap = self.kb, self.sizes["params"], self.capacity
        gpus = self.gpus or Q.point(1)
        memory = self.values["memory"]
        device = kb.label(self.hardware) if self.hardware else "GPU"
        replicated = _verdict(memory, cap)
        fit = {"hardware": self._hardware_json(), "gpus": _r(gpus.value), "memory_per_gpu": _qjson(cap),
               "memory_total": _qjson(cap * gpus),
               "replicated": {**replicated, "need_per_gpu": _qjson(memory),
                              "text": f"whole training state on each {device}: {_fmt(memory, 'bytes')} against "
                                      f"{_fmt(cap, 'bytes')} — {replicated['verdict']}"},
               "sharded": None}
        fsdp_f = kb.find("memory_per_gpu", "gpus")
        best = replicated
        if fsdp_f is not None and gpus.high >= 2:
            per_gpu, env = self.compute(fsdp_f, {"params": params, "gpus": gpus}, self._overrides())
            self.add("memory_per_gpu", per_gpu, "bytes", formula=fsdp_f, env=env,
                     label=f"training memory per GPU with FSDP over {_fmt(gpus)} GPUs")
            sharded = _verdict(per_gpu, cap)
            fit["sharded"] = {**sharded, "need_per_gpu": _qjson(per_gpu), "formula": fsdp_f.id,
                              "text": f"FSDP over {_fmt(gpus)} GPUs (weights, gradients and optimizer states "
                                      f"sharded, activations per GPU): {_fmt(per_gpu, 'bytes')} per GPU against "
                                      f"{_fmt(cap, 'bytes')} — {sharded['verdict']}"}
            if _RANK[sharded["verdict"]] < _RANK[replicated["verdict"]] or \
                    sharded["verdict"] == replicated["verdict"] == "does not fit":
                best = sharded
        fit["verdict"] = best["verdict"]
        fit["fits"] = best["verdict"] == "fits"
        how = "" if best is replicated else f" with FSDP sharding over {_fmt(gpus)} GPUs"
        if best["verdict"] == "fits":
            fit["text"] = f"fits{how}"
        elif best["verdict"] == "may fit":
            fit["text"] = f"may fit{how}: the high end of the estimate is over the {_fmt(cap, 'bytes')} per GPU"
        else:
            over = best["over"]
            fit["text"] = (f"does not fit{', even' if how else ''}{how}: "
                           f"{units.amount(over['low'], over['high'], 'bytes')} over the "
                           f"{_fmt(cap, 'bytes')} of each GPU ({over['factor_low']:.2g}–{over['factor_high']:.2g}× "
                           f"its memory)")
        recommendations = [] if replicated["verdict"] == "fits" else self._recommend(memory, cap, gpus, fsdp_f)
        return fit, recommendations

    def _overrides(self, checkpointing: bool = False, quantized: bool = False) -> dict[str, Q]:
        """The FSDP formula's constants replaced for the plan's precision and optimizer, and for
        the memory-saving techniques applied."""
        kb, out = self.kb, {}
        for part, sym in (("weights", "c_weight_bytes_per_param_bf16"),
                          ("gradients", "c_gradient_bytes_per_param_bf16")):
            if self.parts[part][0] != kb.q(sym):
                out[sym] = self.parts[part][0]
        states = self.parts["optimizer_states"][0]
        if quantized:
            states = relative_change(states, kb.q("c_quantized_optimizer_state_memory_change"))
        if states != kb.q("c_adam_state_bytes_per_param"):
            out["c_adam_state_bytes_per_param"] = states
        if checkpointing:
            out["c_activation_bytes_per_param"] = relative_change(
                kb.q("c_activation_bytes_per_param"), kb.q("c_grad_ckpt_activation_memory_change"))
        return out

    def _recommend(self, memory: Q, cap: Q, gpus: Q, fsdp_f: _Formula | None) -> list[dict]:
        """Each memory-saving technique and approach of the KB on its own, then all together."""
        kb, params = self.kb, self.sizes["params"]
        reasons = self._low_memory_reasons(self.facts)
        recs: list[dict] = []

        def rec(iri, text, *, saving=None, after=None, constants=(), formula=None, **more):
            verdict = _verdict(after, cap)["verdict"] if after is not None else None
            node = self.snap["nodes"][iri]
            rules = reasons.get(iri, [])[:2]
            recs.append({"id": node["id"], "label": node["label"], "iri": iri,
                         "saving_per_gpu": _qjson(saving), "memory_per_gpu_after": _qjson(after),
                         "verdict": verdict, "enough": None if verdict is None else verdict == "fits",
                         "text": text, "constants": [const_json(c) for c in constants], "formula": formula,
                         "rules": rules, "sources": kb.sources(*constants, *rules), **more})

        savings = []
        ckpt_iri = kb.iri(_CHECKPOINTING)
        ckpt = next(iter(kb.constants_for(ckpt_iri, "activation-memory")), None)
        if ckpt is not None:
            act_bpp = kb.q("c_activation_bytes_per_param")
            act = act_bpp * params
            saving = reduction(act, kb.q(ckpt["symbol"]))
            savings.append(saving)
            cost = next(iter(kb.constants_for(ckpt_iri, "compute")), None)
            rec(ckpt_iri, f"recompute activations in the backward pass: the activations "
                          f"({_fmt(act, 'bytes')}) shrink by {_pct(kb.q(ckpt['symbol']))}, saving "
                          f"{_fmt(saving, 'bytes')} → {_fmt(memory - saving, 'bytes')} per GPU"
                          + (f", for about {_pct(const_q(cost))} more compute" if cost else ""),
                saving=saving, after=memory - saving,
                constants=[ckpt, kb.constant("c_activation_bytes_per_param"), *([cost] if cost else [])])
        quant_iri = kb.iri(_QUANTIZED_STATES)
        quant = next(iter(kb.constants_for(quant_iri, "optimizer-state-memory")), None)
        if quant is not None and not (self.optimizer and self.optimizer == kb.iri("adam-8bit")):
            states = self.parts["optimizer_states"][0] * params
            saving = reduction(states, kb.q(quant["symbol"]))
            savings.append(saving)
            rec(quant_iri, f"keep the optimizer states in 8 bits: the states ({_fmt(states, 'bytes')}) shrink by "
                           f"{_pct(kb.q(quant['symbol']))}, saving {_fmt(saving, 'bytes')} → "
                           f"{_fmt(memory - saving, 'bytes')} per GPU"
                           + ("" if self.optimizer else " (or plan with optimizer = adam-8bit)"),
                saving=saving, after=memory - saving, constants=[quant])
        fsdp_iri = kb.iri(_FSDP)
        if fsdp_f is not None and fsdp_iri is not None:
            need = self._gpus_for(fsdp_f, cap)
            act = kb.q("c_activation_bytes_per_param") * params
            need_text = (f"FSDP fits from about {_gpus_text(need)} GPUs of {_fmt(cap, 'bytes')}" if need is not None
                         else f"no number of GPUs is enough with FSDP alone: the activations ({_fmt(act, 'bytes')} "
                              f"by the KB's {_fmt(kb.q('c_activation_bytes_per_param'), 'bytes/param')}) are not "
                              f"sharded and exceed {_fmt(cap, 'bytes')} by themselves")
            if gpus.high >= 2:
                per_gpu = self.values["memory_per_gpu"]
                rec(fsdp_iri, f"shard weights, gradients and optimizer states over the {_fmt(gpus)} GPUs: "
                              f"{_fmt(per_gpu, 'bytes')} per GPU; {need_text}",
                    saving=memory - per_gpu, after=per_gpu, formula=fsdp_f.id, gpus_needed=_qjson(need))
            else:
                if need is not None and math.isfinite(need.high):
                    hypo = dict(self.facts, gpus=_point_facts("gpus", "count", Q.point(need.high)))
                    reasons[fsdp_iri] = self._low_memory_reasons(hypo).get(fsdp_iri, [])
                rec(fsdp_iri, f"on one GPU there is nothing to shard; {need_text}",
                    formula=fsdp_f.id, gpus_needed=_qjson(need))
        qlora_iri, qlora_f = kb.iri(_QLORA), kb.find("qlora_base_memory", "params")
        if qlora_iri is not None and qlora_f is not None:
            base, _ = self.compute(qlora_f, {"params": params})
            verdict = _verdict(base, cap)["verdict"]
            rec(qlora_iri, f"only for fine-tuning a pretrained model, not for pretraining: the frozen base in "
                           f"4 bits takes {_fmt(base, 'bytes')} ({verdict} in {_fmt(cap, 'bytes')}); the "
                           f"adapters, their optimizer states and the activations come on top, and the KB has no "
                           f"figure for them",
                constants=[kb.constant(n) for n in sorted(qlora_f.parsed.names) if n in kb.by_symbol],
                formula=qlora_f.id, base_weight_memory=_qjson(base), base_fits=verdict == "fits",
                applies_to="fine-tuning")
        combined, how = None, ""
        if fsdp_f is not None and gpus.high >= 2:
            combined, _ = self.compute(fsdp_f, {"params": params, "gpus": gpus},
                                       self._overrides(checkpointing=ckpt is not None, quantized=quant is not None))
            how = f"FSDP over {_fmt(gpus)} GPUs with gradient checkpointing and 8-bit optimizer states"
        elif len(savings) == 2:
            combined = memory - savings[0] - savings[1]
            how = "gradient checkpointing and 8-bit optimizer states together"
        if combined is not None:
            v = _verdict(combined, cap)["verdict"]
            recs.append({"id": "combined", "label": "all of them together", "iri": None,
                         "saving_per_gpu": _qjson(memory - combined), "memory_per_gpu_after": _qjson(combined),
                         "verdict": v, "enough": v == "fits",
                         "text": f"{how}: {_fmt(combined, 'bytes')} per GPU — {v}",
                         "constants": [], "formula": fsdp_f.id if how.startswith("FSDP") else None,
                         "rules": [], "sources": []})
            if v != "fits":
                self.note(f"even with every memory saving the KB quantifies ({how}), {_fmt(combined, 'bytes')} "
                          f"per GPU is over {_fmt(cap, 'bytes')}: more GPUs, tensor or pipeline parallelism, "
                          f"or a smaller model", warn=True)
        return recs

    def _gpus_for(self, fsdp_f: _Formula, cap: Q) -> Q | None:
        """GPUs needed for FSDP's per-GPU memory to come down to the capacity (rounded up)."""
        env = {**self.consts(fsdp_f), **self._overrides(), "params": self.sizes["params"], "memory_per_gpu": cap}
        need = solve(fsdp_f.parsed, "gpus", env, bracket=(1e-3, 1e9))
        return None if need is None else _ceil(need)

    def _low_memory_reasons(self, facts: dict) -> dict[str, list[dict]]:
        """The KB's rules for saving memory, through the ranker with ``prefer = low-memory``."""
        prefer = self.snap["dimensions"].get("prefer", {}).get("values", {}).get("low-memory")
        if prefer is None:
            return {}
        hypo = dict(facts, prefer=Facts("prefer", "categorical", values={prefer}))
        out: dict[str, list[dict]] = {}
        for kind in ("technique", "approach"):
            for r in rank(kind, hypo, self.snap):
                out.setdefault(r["iri"], r["because"])
        return out

    # ------------------------------------------------------------------ feasibility rules
    def _feasibility(self) -> list[dict]:
        """Rules about model size on this hardware (DGX Spark's table), with their sources."""
        if self.hardware is None:
            return []
        params = self.sizes["params"]
        facts = dict(self.facts, params=_point_facts("params", "count", params))
        out = []
        for iri, rule in sorted(self.snap["rules"].items()):
            dims = {self.snap["conditions"][c]["dimension"] for c in rule["conditions"]}
            if not {"params", "hardware"} <= dims:
                continue
            ev = evaluate_rule(rule, facts, self.snap)
            if ev["fires"] and ev["match"] == "full":
                out.append({**reason_json(iri, rule, ev, self.snap),
                            "recommends": [self.kb.node_id(x) for x in rule["recommends"]],
                            "advises_against": [self.kb.node_id(x) for x in rule["against"]]})
        out.sort(key=lambda r: (-r["contribution"], r["id"]))
        return out

    # ------------------------------------------------------------------ time
    def _time(self) -> None:
        kb, flops = self.kb, self.sizes["flops"]
        peak_of = lambda hw: self.snap["hardware"].get(hw, {}).get(RKG.bf16PeakFlopsPerSecond)  # noqa: E731
        rows = sorted((f for f in self.snap["facts"].values()
                       if "ComputeEstimate" in f["types"] and f.get("gpu_hours") and f.get("flops")
                       and peak_of(f.get("hardware"))), key=lambda f: (f["params"], f["id"]))
        table_hw = rows[0]["hardware"] if rows else None
        hw = self.time_hw = self.hardware or table_hw
        gpu_f = kb.formula("gpu_hours", "flops", "mfu")
        wall_f = kb.formula("wall_time", "gpu_hours", "gpus")
        mfu = self.mfu_given
        if hw is not None and not peak_of(hw):
            mfu = None   # no time to compute on this hardware: see below
        elif mfu is not None:
            self.add("mfu", mfu, "fraction of bf16 peak", label="mfu", given=True, derivation=self.given_text("mfu"))
        elif rows:
            implied_f = kb.formula("mfu", "gpu_hours", "flops")
            per_row = [(f, self.compute(implied_f, {"flops": Q.point(f["flops"]), "gpu_hours": Q.point(f["gpu_hours"]),
                                                    "bf16_peak": Q.point(peak_of(f["hardware"]))})[0].value)
                       for f in rows]
            values = [v for _, v in per_row]
            mfu = Q.span(min(values), max(values), sum(values) / len(values))
            self.add("mfu", mfu, "fraction of bf16 peak", formula=implied_f,
                     label="MFU implied by the reference's GPU-hours table",
                     extra_sources=[rows[0], self.snap["nodes"][table_hw]],
                     derivation=(f"{implied_f.data['expression']} for each row of the reference's FLOPs table "
                                 f"({kb.label(table_hw)}, bf16 peak {units.num(peak_of(table_hw))} FLOP/s): "
                                 + ", ".join(f"{units.count(f['params'])} → {v:.3f}" for f, v in per_row)
                                 + f"; mean {mfu.value:.3f} (range {mfu.low:.3f}–{mfu.high:.3f})"),
                     rows=[{"fact": f["id"], "params": f["params"], "flops": f["flops"],
                            "gpu_hours": f["gpu_hours"], "mfu": _r(v)} for f, v in per_row])
            if hw and hw != table_hw and peak_of(hw):
                self.note(f"the MFU is the one the reference's {kb.label(table_hw)} table implies, assumed to hold "
                          f"on {kb.label(hw)} too; give mfu = 40% (for example) to plan with another", gpu_f.data)
        if hw is not None and self.hardware is None:
            self.note(f"no hardware given: time is for {kb.label(hw)}, the hardware of the reference's table")
        peak = peak_of(hw) if hw else None
        if mfu is None or peak is None:
            why = (f"{kb.label(hw)} has no bf16 peak in the KB (the reference leaves it open), so GPU-hours and "
                   f"wall time cannot be computed" if hw and peak is None
                   else "no hardware with a bf16 peak to compute time on")
            for name, unit, f in (("gpu_hours", "GPU-hours", gpu_f), ("wall_time", "hours", wall_f)):
                self.add(name, None, unit, formula=f, derivation=why, missing=why)
            about = [f for f in self.snap["facts"].values() if hw in f["about"] and "mfu" in f["id"]]
            self.note(why + "".join(f"; {f['text']}" for f in about), *about,
                      *([self.snap["nodes"][hw]] if hw else []))
            return
        gpu_hours, env = self.compute(gpu_f, {"flops": flops, "mfu": mfu, "bf16_peak": Q.point(peak)})
        extra = {}
        row = self.table_row
        if row is not None and row.get("gpu_hours") and peak_of(row.get("hardware")):
            on_row_hw, _ = self.compute(gpu_f, {"flops": flops, "mfu": mfu, "bf16_peak": Q.point(peak_of(row["hardware"]))})
            extra["table"] = {"fact": row["id"], "label": row["label"], "value": row["gpu_hours"],
                              "hardware": kb.node_id(row["hardware"]),
                              "formula_value_on_table_hardware": _r(on_row_hw.value),
                              "section": kb.section(row), "sources": kb.sources(row)}
        self.add("gpu_hours", gpu_hours, "GPU-hours", formula=gpu_f, env=env,
                 extra_sources=[self.snap["nodes"][hw]], hardware=kb.node_id(hw), **extra)
        gpus = self.gpus or Q.point(1)
        self.wall, wenv = self.compute(wall_f, {"gpu_hours": gpu_hours, "gpus": gpus})
        self.add("wall_time", self.wall, "hours", formula=wall_f, env=wenv)
        if self.time_budget is None:
            if self.gpus is None:
                self.note("no gpus given: the wall time is for one GPU; add gpus = 8 (for example), or a time "
                          "budget such as time = 2 weeks to get the GPUs needed")
            return
        budget = self.time_budget
        if self.gpus is None:
            need = solve(wall_f.parsed, "gpus", {"gpu_hours": gpu_hours, "wall_time": budget}, bracket=(1e-6, 1e12))
            if need is not None:
                need = _ceil(need)
                self.add("gpus_needed", need, "GPUs", formula=wall_f, label="GPUs needed for the time budget",
                         derivation=f"{wall_f.data['label']}: {wall_f.data['expression']}, solved for gpus with "
                                    f"wall_time = {_fmt(budget, 'hours')} ({units.grouped(budget.value)}h): "
                                    f"{_fmt(gpu_hours, 'GPU-hours')} / {units.grouped(budget.value)}h → "
                                    f"{_fmt(need, 'GPUs')}, rounded up")
        elif self.wall.low > budget.high:
            self.note(f"{_fmt(self.wall, 'hours')} on {_fmt(gpus)} GPUs is longer than the time budget of "
                      f"{_fmt(budget, 'hours')}", wall_f.data, warn=True)
        elif self.wall.high > budget.high:
            self.note(f"{_fmt(self.wall, 'hours')} on {_fmt(gpus)} GPUs may overrun the time budget of "
                      f"{_fmt(budget, 'hours')}", wall_f.data, warn=True)
        else:
            self.note(f"{_fmt(self.wall, 'hours')} on {_fmt(gpus)} GPUs is within the time budget of "
                      f"{_fmt(budget, 'hours')}", wall_f.data)

    # ------------------------------------------------------------------ tier
    def _tier(self) -> dict | None:
        """The compute tier of the budget flowchart this plan falls in, and its advice.

        With gpus and a time (given, or the computed wall time) that meet all of a tier's
        conditions, that tier. Otherwise the tier whose GPU and time ranges can hold the plan's
        GPU-hours (the largest such tier: 70B-class compute is a massive-cluster job even
        though a smaller cluster could grind through it), or the nearest one.
        """
        if not self.snap["tiers"]:
            return None
        facts = {k: v for k, v in self.facts.items() if k != "tier"}
        given_tier = self.facts.get("tier")
        if given_tier is not None and given_tier.derived is None and given_tier.values and len(given_tier.values) == 1:
            iri = next(iter(given_tier.values))
            return self._tier_json(iri, True, "given in the query", "tier given in the query")
        if "time" not in facts and self.wall is not None:
            facts["time"] = _point_facts("time", "duration", self.wall)
        if "gpus" not in facts and "gpus_needed" in self.values:
            facts["gpus"] = _point_facts("gpus", "count", self.values["gpus_needed"])
        situation = None
        if "gpus" in facts and "time" in facts and facts["gpus"].intervals and facts["time"].intervals \
                and len(facts["gpus"].intervals) == len(facts["time"].intervals) == 1:
            gpus_q, time_q = _facts_q(facts["gpus"]), _facts_q(facts["time"])
            situation = f"{_fmt(gpus_q, 'GPUs')} for {_fmt(time_q, 'hours')}"
            for iri, tier in sorted(self.snap["tiers"].items(), key=lambda t: -self._tier_reach(t[0])):
                if all(status(self.snap["conditions"][c], facts, self.snap) == HELD for c in tier["conditions"]):
                    return self._tier_json(iri, True, "gpus and time", f"{situation}: the flowchart's tier")
        gh = self.values.get("gpu_hours")
        if gh is None:
            return None
        fitting, distance = [], []
        for iri in self.snap["tiers"]:
            (g0, g1), (t0, t1) = self._tier_range(iri, "gpus"), self._tier_range(iri, "time")
            low, high = g0 * t0, g1 * t1
            if low <= gh.value < high:
                fitting.append(iri)
            gap = math.log(low / gh.value) if gh.value < low else math.log(gh.value / high) if gh.value >= high else 0
            distance.append((gap, -self._tier_reach(iri), iri))
        exact = bool(fitting)
        iri = max(fitting, key=self._tier_reach) if fitting else min(distance)[2]
        (g0, g1), (t0, t1) = self._tier_range(iri, "gpus"), self._tier_range(iri, "time")
        g = max(g0, math.ceil(gh.value / t1)) if math.isfinite(t1) else g0
        example = f"{units.grouped(g)} GPUs for {units.duration(gh.value / g)}"
        before = (f"{situation} matches no tier of the flowchart; " if situation else "")
        text = (f"{before}by its compute ({_fmt(gh, 'GPU-hours')} on {self.kb.label(self.time_hw)}) it is a job for the "
                f"tier" if exact else
                f"{before}its compute ({_fmt(gh, 'GPU-hours')} on {self.kb.label(self.time_hw)}) falls between the "
                f"flowchart's tiers; nearest:")
        out = self._tier_json(iri, exact, "compute", text)
        out["example"] = {"gpus": g, "hours": _r(gh.value / g), "text": example}
        out["text"] += f" (for example {example})"
        return out

    def _tier_range(self, iri: str, dim: str) -> tuple[float, float]:
        """A tier's [min, max) on gpus or time, from its conditions (unbounded: 0 or inf)."""
        low, high = 0.0, math.inf
        for c in self.snap["tiers"][iri]["conditions"]:
            cond = self.snap["conditions"][c]
            if cond["dimension"] == dim:
                low = max(low, cond["min"] or 0.0)
                high = min(high, cond["max"] if cond["max"] is not None else math.inf)
        return low, high

    def _tier_reach(self, iri: str) -> float:
        return self._tier_range(iri, "gpus")[0] * self._tier_range(iri, "time")[0] + self._tier_range(iri, "gpus")[0]

    def _tier_json(self, iri: str, exact: bool, basis: str, text: str) -> dict:
        node = self.snap["nodes"][iri]
        tier_facts = {"tier": Facts("tier", "categorical", values={iri})}
        advice = []
        for rid, rule in sorted(self.snap["rules"].items()):
            if any(self.snap["conditions"][c]["dimension"] == "tier" for c in rule["conditions"]):
                ev = evaluate_rule(rule, tier_facts, self.snap)
                if ev["fires"]:
                    advice.append({**reason_json(rid, rule, ev, self.snap),
                                   "recommends": [self.kb.node_id(x) for x in rule["recommends"]],
                                   "advises_against": [self.kb.node_id(x) for x in rule["against"]]})
        advice.sort(key=lambda r: (-r["contribution"], r["id"]))
        params = self.sizes["params"]
        for c in self.kb.constants_for(iri):
            if c["quantity"] == "max-params-from-scratch" and params.low > c["value"]:
                self.note(f"the flowchart puts pretraining of up to {units.count(c['value'])} parameters in the tier "
                          f"'{node['label']}'; {_fmt(params, 'parameters')} is above that", c, warn=True)
            elif c["quantity"] == "min-params-from-scratch" and params.high < c["value"]:
                self.note(f"the tier '{node['label']}' is the flowchart's budget for {units.count(c['value'])}+ "
                          f"models; {_fmt(params, 'parameters')} is smaller", c)
        return {"id": node["id"], "label": node["label"], "iri": iri, "exact": exact, "basis": basis,
                "text": f"{text} '{node['label']}'",
                "section": advice[0]["section"] if advice else None, "advice": advice}

    # ------------------------------------------------------------------ bandwidth
    def _bandwidth(self) -> dict | None:
        """The hardware's ridge point and the reference's bandwidth-bound verdict."""
        if self.hardware is None:
            return None
        kb, figures = self.kb, self.snap["hardware"].get(self.hardware, {})
        peak, bw = figures.get(RKG.bf16PeakFlopsPerSecond), figures.get(RKG.bandwidthBytesPerSecond)
        label = kb.label(self.hardware)
        out = {"hardware": kb.node_id(self.hardware), "ridge_intensity": None, "threshold": None,
               "bandwidth_bound": None, "sources": [], "text": ""}
        ridge_f = kb.find("ridge_intensity", "bandwidth")
        texts = []
        if ridge_f is not None and peak and bw:
            ridge, env = self.compute(ridge_f, {"bf16_peak": Q.point(peak), "bandwidth": Q.point(bw)})
            self.add("ridge_intensity", ridge, "FLOPs/byte", formula=ridge_f, env=env,
                     extra_sources=[self.snap["nodes"][self.hardware]])
            out["ridge_intensity"] = _r(ridge.value)
            texts.append(f"{label}'s ridge point is {_fmt(ridge, 'FLOPs/byte')}: operations doing fewer FLOPs per "
                         f"byte moved are memory-bound on it, more are compute-bound")
        elif bw:
            texts.append(f"{label}'s ridge point cannot be computed: the KB has its bandwidth "
                         f"({units.amount(bw, unit='bytes')}/s) but no bf16 peak")
        thresholds = [c for c in kb.constants_for(self.hardware) if c["quantity"] == "arithmetic-intensity"]
        if thresholds:
            t = thresholds[0]
            out.update(threshold={**const_json(t), "section": kb.section(t)}, bandwidth_bound=True,
                       sources=kb.sources(t))
            texts.append(f"the reference calls {label} bandwidth-limited: operations below about "
                         f"{units.grouped(t['value'])} FLOPs/byte are held back by its memory bandwidth (larger "
                         f"batches and wider models raise the intensity)")
        else:
            out["bandwidth_bound"] = False
            texts.append(f"the reference does not call {label} bandwidth-limited")
        out["text"] = "; ".join(texts)
        return out

    # ------------------------------------------------------------------ misc
    def _summary(self, fit: dict | None, tier: dict | None) -> list[str]:
        """A few lines that answer the user's questions, in the order they ask them."""
        v, q = self.values, {x["name"]: x for x in self.quantities}
        lines = [f"{_fmt(v['params'], 'parameters')} → {_fmt(v['tokens'], 'tokens')} "
                 f"({_fmt(v['tokens_per_param'], 'tokens/param')}, {self.strategy['json']['label']}), "
                 f"{_fmt(v['flops'], 'FLOPs')} of training compute"]
        if "effective_tokens" in v:
            lines.append(f"repeated data: {_fmt(v['epochs'], 'epochs') if 'epochs' in v else ''} "
                         f"effective {_fmt(v['effective_tokens'], 'tokens')} by the reference's formula"
                         + (f", {_fmt(v['effective_tokens_guidance'], 'tokens')} by its 85% guidance"
                            if "effective_tokens_guidance" in v else ""))
        lines.append(f"training memory: {_fmt(v['memory'], 'bytes')} in all"
                     + (f" ({self.kb.label(self.optimizer)} optimizer)" if self.optimizer else ""))
        if fit:
            hw = fit["hardware"]["label"] if fit.get("hardware") else "GPU"
            lines.append(f"on {_fmt(self.gpus or Q.point(1), 'GPUs')} of {hw} ({_fmt(self.capacity, 'bytes')} each): "
                         f"{fit['text']}")
        if fit and not fit["fits"] and self._recs:
            enough = [r["label"] for r in self._recs if r["enough"] and r["id"] != "combined"]
            combined = next((r for r in self._recs if r["id"] == "combined"), None)
            lines.append("to make it fit: " + (", or ".join(enough) + " (each enough on its own)" if enough else
                                               "no single memory saving is enough"
                                               + (f"; all together: {combined['verdict']}" if combined else ""))
                         + ("; for fine-tuning, QLoRA's 4-bit base is far smaller" if any(
                             r.get("applies_to") == "fine-tuning" and r.get("base_fits") for r in self._recs) else ""))
        if self._feasibility_rules:
            lines.append(f"on {self.kb.label(self.hardware)}: "
                         + "; ".join(r["label"] for r in self._feasibility_rules))
        if "gpu_hours" in v:
            gpus = self.gpus or Q.point(1)
            lines.append(f"time: {_fmt(v['gpu_hours'], 'GPU-hours')} on {q['gpu_hours']['hardware']} at MFU "
                         f"{v['mfu'].value:.2f} → {_fmt(v['wall_time'], 'hours')} on {_fmt(gpus, 'GPUs')}"
                         + (f"; {_fmt(v['gpus_needed'], 'GPUs')} for the {_fmt(self.time_budget, 'hours')} budget"
                            if "gpus_needed" in v else ""))
        else:
            lines.append("time: " + q["gpu_hours"]["derivation"])
        if tier:
            lines.append(f"compute tier: {tier['label']}" + ("" if tier["exact"] else " (nearest)"))
        return lines

    def _hardware_json(self) -> dict | None:
        if self.hardware is None:
            return None
        figures = self.snap["hardware"].get(self.hardware, {})
        node = self.snap["nodes"][self.hardware]
        return {"id": node["id"], "label": node["label"], "memory_bytes": figures.get(RKG.memoryBytes),
                "bandwidth_bytes_per_second": figures.get(RKG.bandwidthBytesPerSecond),
                "bf16_peak_flops_per_second": figures.get(RKG.bf16PeakFlopsPerSecond),
                "sources": self.kb.sources(node)}

    def _unused(self) -> None:
        unused = sorted(d for d in self.constraints if d not in USED)
        if unused:
            self.note("not used by plan: " + ", ".join(unused))


def _gpus_text(q: Q) -> str:
    if not math.isfinite(q.high):
        return f"{q.low:.0f} (at the low end of the activation estimate; no count is enough at its high end)"
    return f"{q.value:.0f}" if q.low == q.high else f"{q.low:.0f}–{q.high:.0f}"
