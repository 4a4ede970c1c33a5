"""What a plan reads from the compiled KB: constants by symbol, formulas by their output and
the names they read, entities, facts, papers and sections.

    >>> view = KBView(snap)
    >>> view.formula("flops", "params", "tokens").data["expression"]
    'flops = c_flops_per_param_token * params * tokens'
    >>> view.q("c_chinchilla_tokens_per_param").value
    20.0
    >>> view.find("flops", "gpus") is None
    True
"""

from __future__ import annotations

from recipekg.errors import FormulaError, KBError
from recipekg.knowledge.derived import once
from recipekg.knowledge.terms import RKG
from recipekg.knowledge.view import SnapshotView
from recipekg.formula.expr import Formula, Q, const_q, formula_of
from recipekg.record import Record
from recipekg.reason.answers import source_json, untyped_citation

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only
    from collections.abc import Mapping
    from typing import Any

    from recipekg.contracts.common import Source
    from recipekg.contracts.plan import Constant, Hardware, PeakPrecision


class KBFormula(Record, frozen=False):
    """A formula of the KB: its IRI, its record in the snapshot and its parsed expression."""

    iri: str
    data: dict
    parsed: Formula

    @property
    def id(self) -> str:
        return self.data["id"]


class KBView(SnapshotView):
    """Plan's look-ups into the snapshot (beyond :class:`~recipekg.knowledge.view.SnapshotView`'s):
    constants by symbol, formulas by output and inputs; every formula is read once, here (from
    the tree the snapshot's compiler parsed)."""

    @classmethod
    def of(cls, snap: dict) -> "KBView":
        """The view of ``snap``, built once per snapshot (:mod:`recipekg.knowledge.derived`):
        a view is never changed after it is built."""
        return once(snap, "plan view", cls)

    def __init__(self, snap: dict):
        super().__init__(snap)  # type: ignore[arg-type]  # plan reads the tables by key too
        index = snap["plan_index"]  # the look-ups compiled with the snapshot (recipekg.plan.index)
        #: constants by symbol (their IRIs): plain, as every formula computed reads it
        self.by_symbol: dict[str, str] = dict(index["constants_by_symbol"].items())
        self._index = index
        self._formulas: dict[str, KBFormula] = {}   # each formula read, by IRI: read once
        self._by_output: dict[str, list[KBFormula]] = {}
        if index["broken_formula"] is not None:  # the first formula that does not read stops plan
            self._formula(index["broken_formula"])
        #: the constants and conversions each formula reads, by its IRI (plan.ledger.fixed_values):
        #: filled as formulas are first computed, each entry the same whoever fills it
        self.fixed: dict[str, dict[str, Q]] = {}

    def _formula(self, iri: str) -> KBFormula:
        """The formula with this IRI, read from the tree the compiler parsed (once)."""
        formula = self._formulas.get(iri)
        if formula is None:
            f = self.snap["formulas"][iri]
            try:
                formula = self._formulas[iri] = KBFormula(iri, f, formula_of(f))
            except FormulaError as exc:
                raise FormulaError(f"formula {f['id']}: {exc}") from None
        return formula

    @property
    def formulas(self) -> list[KBFormula]:
        """Every formula with an expression, by IRI (each read as it is first needed)."""
        return [self._formula(iri) for iri in sorted({i for iris in self._index["formulas_by_output"].values()
                                                      for i in iris})]

    def by_output(self, output: str) -> list[KBFormula]:
        """The formulas computing ``output``, by IRI."""
        found = self._by_output.get(output)
        if found is None:
            found = self._by_output[output] = [self._formula(i) for i in self._index["formulas_by_output"].get(output, ())]
        return found

    # ------------------------------------------------------------------ constants
    def constant(self, symbol: str) -> dict:
        if symbol not in self.by_symbol:
            raise KBError(f"the KB has no constant with symbol {symbol!r}, which plan needs")
        return self.snap["constants"][self.by_symbol[symbol]]

    def q(self, symbol: str) -> Q:
        """The constant with this symbol as a :class:`Q` (its range, if it has one)."""
        return const_q(self.constant(symbol))

    def constants_in(self, f: KBFormula) -> dict[str, Q]:
        """The KB constants a formula reads, by symbol."""
        return {n: self.q(n) for n in f.parsed.names if n in self.by_symbol}

    def constants_for(self, entity: str | None, quantity: str | None = None) -> list[dict]:
        """Constants that apply to ``entity`` (optionally of one quantity), by id."""
        constants = self.snap["constants"]
        found = (constants[i] for i in self._index["constants_by_entity"].get(entity, ()))
        return sorted((c for c in found if quantity is None or c["quantity"] == quantity), key=lambda c: c["id"])

    def constants_of_quantity(self, quantity: str) -> list[dict]:
        """The constants of one quantity (``rkg:quantity``), by id."""
        return sorted((c for c in self.snap["constants"].values() if c["quantity"] == quantity), key=lambda c: c["id"])

    def constant_by_id(self, constant_id: str) -> dict | None:
        """The constant with this id (None when the KB has none)."""
        iri = self._index["constant_ids"].get(constant_id)
        return self.snap["constants"][iri] if iri is not None else None

    def facts_of_type(self, fact_type: str) -> list[dict]:
        """The facts of a type (``ComputeEstimate``, ``PublishedRun``), in the table's order."""
        facts = self.snap["facts"]
        return [facts[i] for i in self._index["facts_by_type"].get(fact_type, ())]

    def recipes_near(self, params: float) -> list[dict]:
        """The published pretraining recipes nearest in size to ``params``: those at the nearest
        size at or below it and at the nearest at or above it (facts with a size, a peak learning
        rate and a batch: ``plan_index["recipes_by_params"]``).

        >>> [f["id"] for f in KBView(snap).recipes_near(175e9)]
        ['recipe-gpt3-175b', 'recipe-opt-175b']
        >>> [f["id"] for f in KBView(snap).recipes_near(9e9)]
        ['recipe-llama2-7b', 'recipe-pythia-12b']
        """
        table = self._index.get("recipes_by_params") or []
        below = max((p for p, _ in table if p <= params), default=None)
        above = min((p for p, _ in table if p >= params), default=None)
        facts = self.snap["facts"]
        return [facts[i] for p, i in table if p in (below, above)]

    # ------------------------------------------------------------------ formulas
    def formula(self, output: str, *names: str) -> KBFormula:
        """The formula computing ``output`` whose expression reads all of ``names``."""
        found = self.find(output, *names)
        if found is None:
            raise KBError(f"the KB has no formula for {output} from {', '.join(names)}, which plan needs")
        return found

    def by_id(self, formula_id: str) -> KBFormula:
        """The formula with this id (``model-states-zero-3``)."""
        iri = self._index["formula_ids"].get(formula_id)
        if iri is None:
            raise KBError(f"the KB has no formula {formula_id}, which plan needs")
        return self._formula(iri)

    def find(self, output: str, *names: str) -> KBFormula | None:
        """Like :meth:`formula`, but None when the KB has no such formula. A formula for some
        methods only (``rkg:forMethod``) is found by :meth:`for_method`, never here."""
        wanted = set(names)
        found = [f for f in self.by_output(output) if wanted <= f.parsed.names and not f.data.get("for_methods")]
        return min(found, key=lambda f: (len(f.parsed.names), f.id)) if found else None

    def for_method(self, output: str, method: str) -> KBFormula | None:
        """The formula computing ``output`` that is for ``method`` (its notation: ``lora``),
        declared by ``rkg:forMethod``; None when the KB has none (the general one holds).

        >>> view = KBView(snap)
        >>> view.for_method("flops", "lora").id, view.for_method("flops", "pretrain")
        ('frozen-base-training-flops', None)
        """
        found = [f for f in self.by_output(output)
                 if any(self.node_id(m) == method for m in f.data.get("for_methods") or ())]
        return min(found, key=lambda f: f.id) if found else None

    # ------------------------------------------------------------------ entities, facts, papers
    def sources(self, *items: Mapping[str, Any]) -> list[Source]:
        """The papers of KB items (ids) or of answers (source objects), each once, with its
        role for the first item that cites it (the formula before its constants)."""
        seen: set[tuple[str, str]] = set()
        out: list[Source] = []
        for item in items:
            citations = item.get("citations") or {}
            origin = item.get("origin")  # an extension's claim: each of its sources says so
            mark = repr(origin)
            for p in item.get("sources", []):
                pid = p["id"] if isinstance(p, dict) else p
                if (pid, mark) not in seen:
                    seen.add((pid, mark))
                    # an answer's source object is a Source already
                    source: Source = (p if isinstance(p, dict) else  # type: ignore[assignment]
                                      _cited(p, citations.get(p) or untyped_citation(p, self.snap), self.snap))
                    if origin and not source.get("origin"):
                        source = {**source, "origin": origin}
                    out.append(source)
        return out

    @staticmethod
    def voice(item: Mapping[str, Any], bundled: str) -> str:
        """Who a KB item's claim is said in: ``bundled`` (the reference, its flowchart) for the
        bundled KB's, the extension's file and line for an extension's (hostile round 5, 082:
        an extension's tier cap was printed as "the flowchart puts ...").

        >>> KBView.voice({"origin": {"file": "/x/team.ttl", "line": 24}}, "the flowchart"), KBView.voice({}, "the flowchart")
        ('the extension team.ttl (line 24)', 'the flowchart')
        """
        origin = item.get("origin")
        if not origin:
            return bundled
        return f"the extension {str(origin.get('file', '')).rsplit('/', 1)[-1]} (line {origin.get('line')})"

    def section(self, item: Mapping[str, Any]) -> str | None:
        """The reference section of a KB item, as its path."""
        return self.section_path(item.get("section"))

    def peak(self, hardware: str | None) -> float | None:
        """The hardware's dense 16-bit peak in FLOP/s: bf16, or fp16 (FP32 accumulation) on parts
        without bf16 (V100, T4); None when the KB has neither figure."""
        figures = self.snap["hardware"].get(hardware, {})
        return figures.get(RKG.bf16PeakFlopsPerSecond) or figures.get(RKG.fp16PeakFlopsPerSecond)

    def same_compute(self, hardware: str) -> set[str]:
        """The ids of the hardware with ``hardware``'s compute: itself, the parts it states it
        has the compute of (``rkg:sameComputeAs``) and the parts that state they have its.

        >>> view = KBView(snap)
        >>> sorted(view.same_compute(snap["dimensions"]["hardware"]["values"]["h200"]))
        ['h100', 'h200']
        """
        table = self.snap["hardware"]
        own = set(table.get(hardware, {}).get(RKG.sameComputeAs) or ())
        return {self.node_id(h) for h, figures in table.items()
                if h == hardware or h in own or hardware in (figures.get(RKG.sameComputeAs) or ())}

    def same_architecture(self, hardware: str) -> set[str]:
        """The ids of the hardware of ``hardware``'s chip architecture (``rkg:gpuArchitecture``:
        the H100 PCIe card and the SXM part are both NVIDIA Hopper); empty when the KB names none.

        >>> sorted(KBView(snap).same_architecture(snap["dimensions"]["hardware"]["values"]["h100-pcie"]))
        ['h100', 'h100-pcie', 'h200']
        """
        name = self.architecture(hardware)
        return {self.node_id(h) for h, figures in self.snap["hardware"].items()
                if name and figures.get(RKG.gpuArchitecture) == name}

    def architecture(self, hardware: str) -> str | None:
        """The name of ``hardware``'s chip architecture (None when the KB names none)."""
        return self.snap["hardware"].get(hardware, {}).get(RKG.gpuArchitecture)

    def fp8_peak(self, hardware: str | None) -> float | None:
        """The hardware's dense fp8 peak in FLOP/s (None when the KB has no such figure)."""
        return self.snap["hardware"].get(hardware, {}).get(RKG.fp8PeakFlopsPerSecond)

    def peak_precision(self, hardware: str | None) -> PeakPrecision | None:
        """Which 16-bit peak :meth:`peak` reads ("bf16" or "fp16"; None without one)."""
        figures = self.snap["hardware"].get(hardware, {})
        if figures.get(RKG.bf16PeakFlopsPerSecond):
            return "bf16"
        return "fp16" if figures.get(RKG.fp16PeakFlopsPerSecond) else None

    def hardware_json(self, hardware: str | None) -> Hardware | None:
        """The answer's ``hardware``: the KB's figures for it, with their papers."""
        if hardware is None:
            return None
        figures = self.snap["hardware"].get(hardware, {})
        node = self.snap["nodes"][hardware]
        return {"id": node["id"], "label": node["label"], "memory_bytes": figures.get(RKG.memoryBytes),
                "bandwidth_bytes_per_second": figures.get(RKG.bandwidthBytesPerSecond),
                "bf16_peak_flops_per_second": figures.get(RKG.bf16PeakFlopsPerSecond),
                "fp16_peak_flops_per_second": figures.get(RKG.fp16PeakFlopsPerSecond),
                "fp8_peak_flops_per_second": figures.get(RKG.fp8PeakFlopsPerSecond),
                "interconnect_bytes_per_second": figures.get(RKG.interconnectBytesPerSecond),
                "devices_per_package": int(figures.get(RKG.devicesPerPackage) or 1),
                "peak_used": self.peak_precision(hardware),
                "sources": self.sources(node)}


def _cited(pid: str, citation: dict, snap: dict) -> Source:
    return source_json(pid, snap, citation["role"], citation.get("where"))


def const_json(c: dict) -> Constant:
    """A KB constant as the answer shows it."""
    return {"id": c["id"], "symbol": c["symbol"], "label": c["label"], "value": c["value"],
            "low": c["low"], "high": c["high"], "unit": c["unit"]}
