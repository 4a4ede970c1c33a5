"""Validate the merged graph: SHACL shapes plus the checks no shape expresses.

    >>> from recipekg.knowledge.resources import bundled_files
    >>> [str(v) for v in validate(bundled_files())]
    []

Each violation prints as ``file:line: message``. The checks beyond SHACL:

- every rule, formula, constant, fact and hardware node has a source, a paper node or the
  reference itself (kb:reference, for a claim that is the reference's own judgement);
- typed citations (cito:Citation, docs/provenance.md) are whole: one citing and one cited
  entity, one of the four characterizations, ``rkg:where`` for ``states``, the reference role
  for kb:reference and only it, each matching a ``prov:wasDerivedFrom`` link; in the bundled
  KB every such link has its typed citation (an extension's untyped links are gaps that
  ``recipekg audit`` lists, not violations);
- no blank nodes; every node that is described is labelled; no two nodes of one class share
  a label; every IRI in the project's namespaces that is used is also described;
- conditions fit their dimension (values from its vocabulary, bounds on numeric ones); a
  condition has at most one lower bound (``rkg:minInclusive`` or ``rkg:minExclusive``) and one
  upper bound (``rkg:maxInclusive`` or ``rkg:maxExclusive``), and min < max, or min == max with
  both ends included (a single value);
- a choice property's value fits its aspect's test (a number for at most / at least, values
  of the checked dimension for one of / none of);
- numbers are finite and well-typed (no NaN, no ``"12"`` strings or language tags where a
  number is meant), so nothing odd ever reaches a reasoner or a SPARQL FILTER.
"""

from __future__ import annotations

import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from recipekg.knowledge.agreement import disagreements
from recipekg.knowledge.bounds import constant_problems
from recipekg.knowledge.compiler import Index
from recipekg.knowledge.scopes import IGNORABLE, format_character, label_problems
from recipekg.knowledge.dimensions import BOUND_PROPERTIES
from recipekg.errors import KBError
from recipekg.knowledge.extensions import extension_violations
from recipekg.knowledge.rdfio import locate
from recipekg.knowledge.taxonomy import broader_problems, hierarchy_problems
from recipekg.knowledge.rdfio import Lit, Triple, quiet_rdflib, read_turtle
from recipekg.knowledge.terms import BASE, CITO, OWL, PROV, RDF, RDFS, RKG, SKOS, XSD

_NUMERIC = {XSD.double, XSD.decimal, XSD.integer, XSD.float, XSD.int, XSD.long}
_NUMERIC_PROPS = {RKG.weight, RKG.rank, *BOUND_PROPERTIES, RKG.minValue, RKG.maxValue, RKG.low, RKG.high, RKG.memoryBytes,
                  RKG.bandwidthBytesPerSecond, RKG.bf16PeakFlopsPerSecond, RKG.powerWatts,
                  RKG.fp16PeakFlopsPerSecond, RKG.fp8PeakFlopsPerSecond, RKG.interconnectBytesPerSecond,
                  RKG.params, RKG.tokens, RKG.flops, RKG.gpuHours, RKG.mfu, RKG.step, RKG.order}
_SOURCED = (RKG.Rule, RKG.Formula, RKG.Constant, RKG.Fact, RKG.Hardware, RKG.ChoiceProperty)


@dataclass(frozen=True, order=True)
class Violation:
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


def validate(paths: list[Path], *, shapes: Path | None = None) -> list[Violation]:
    """All violations of the merged files, sorted by file and line."""
    from recipekg.knowledge.prescan import check_blank_nodes

    per_file, found = [], []
    bundled = _bundled_paths()
    for path in paths:
        try:
            if os.path.abspath(path) not in bundled:
                check_blank_nodes(path)  # before the parse: a huge RDF collection costs nothing
            per_file.append((path, read_turtle(path)))
        except KBError as exc:
            column = f"column {exc.column}: " if exc.column is not None else ""
            found.append(Violation(exc.file or str(path), exc.line or 1, column + exc.message))
    if found:
        return sorted(found)
    triples = [t for _, ts in per_file for t in ts]
    extensions = [(p, ts) for p, ts in per_file if os.path.abspath(p) not in bundled]
    where = {**_blank_lines(per_file), **locate(paths)}
    first = (str(paths[0]), 1) if paths else ("<none>", 1)
    ix = Index(triples)
    pending: list[tuple[str, str]] = []
    if extensions:
        inside = [t for p, ts in per_file if os.path.abspath(p) in bundled for t in ts]
        pending += extension_violations(inside, [t for _, ts in extensions for t in ts])
    pending += _structure(triples, ix)
    pending += _provenance(ix)
    pending += _citations(ix, bundled=_bundled_subjects(where))
    pending += label_problems(ix)
    pending += _scoped_names(ix, where, paths)
    pending += _conditions(ix)
    pending += _choice_properties(ix)
    pending += _formulas(ix)
    pending += _literals(triples, set(ix.instances(RKG.Constant)))
    pending += _ranges(triples, ix)
    pending += _contradictions(triples, ix)
    pending += constant_problems(ix)
    pending += disagreements(ix)
    deep = list(hierarchy_problems(ix))  # (before SHACL, which follows such a chain by recursion)
    pending += deep
    if shapes is not None and not deep:
        pending += _shacl(triples, shapes)
    if not extensions:
        found = [Violation(*where.get(s, first), m) for s, m in pending]
    else:
        found = _at_extension(pending, extensions, where)
    # (a set each, in file order: a violation is placed by membership, once per violation: hostile 8, 053)
    placed = [(p, frozenset(ts)) for p, ts in extensions]
    found += [_at_triple(t, m, placed, where, first) for t, m in _bounded(triples, ix)]
    if extensions and not found:  # the guarantee: the bundled part of the merged KB is the bundled KB
        from recipekg.knowledge.isolation import check

        found += [Violation(file, line, message) for file, line, message in check(per_file, bundled)]
    return sorted(set(found))


def _at_extension(pending: list[tuple[str, str]], extensions: list, where: dict) -> list[Violation]:
    """Each ``(node, message)`` at an extension's own file and line: the bundled KB validates
    clean on its own, so whatever is wrong with the merged one is the extension's. The node's
    line in the extension (where it starts a block, else where the file names it), else that
    of an extension node the message names, else the extension's first line."""
    from recipekg.knowledge.rdfio import locate_in
    from recipekg.knowledge.terms import PREFIXES

    def named(message: str) -> list[str]:
        out = [PREFIXES[m[1]] + m[2] for m in _SHORT.finditer(message) if m[1] in PREFIXES]
        return out + [m[1] for m in _FULL.finditer(message)]

    wanted = {s for s, _ in pending} | {i for _, m in pending for i in named(m)}
    lines = {}
    for path, _ in extensions:
        for iri, line in locate_in(path, wanted - set(lines)).items():
            lines[iri] = (str(path), line)
    default = (str(extensions[0][0]), 1)
    out = []
    for s, m in pending:
        place = lines.get(s) or next((lines[i] for i in named(m) if i in lines), None)
        if place is None and s in where and os.path.abspath(where[s][0]) not in _bundled_paths():
            place = where[s]
        out.append(Violation(*(place or default), m))
    return out


def _at_triple(t: Triple, message: str, extensions: list, where: dict, first: tuple) -> Violation:
    """A violation of one triple at its own line: in the extension that states it, else where
    its subject is described."""
    from recipekg.knowledge.isolation import triple_line

    for path, triples in extensions:
        if t in triples:
            return Violation(str(path), triple_line(path, t), message)
    return Violation(*where.get(t.s, first), message)


_SHORT = re.compile(r"(?<![\w:/])([a-z]+):([\w][\w.-]*[\w]|[\w])")
_FULL = re.compile(r"<(https?://[^>\s]+)>")


def _bundled_paths() -> set[str]:
    from recipekg.knowledge.resources import bundled_paths

    return {os.path.abspath(p) for p in bundled_paths()}


def _blank_lines(per_file) -> dict[str, tuple[str, int]]:
    """Each blank node → the file it came from and the first line there that opens one."""
    out = {}
    for path, triples in per_file:
        blanks = {x for t in triples for x in (t.s, t.o) if isinstance(x, str) and x.startswith("_:")}
        if blanks:
            text = path.read_bytes().decode("utf-8", "replace").splitlines()
            line = next((n for n, row in enumerate(text, 1) if "[" in row or "_:" in row), 1)
            out.update(dict.fromkeys(blanks, (str(path), line)))
    return out


def _formulas(ix: Index):
    """Every expression parses as arithmetic, assigns its rkg:output, and reads only constants
    the KB defines (``c_...`` names)."""
    from recipekg.errors import FormulaError
    from recipekg.formula.expr import parse_formula

    symbols = {ix.text(c, RKG.symbol) for c in ix.instances(RKG.Constant)}
    for f in ix.instances_of(RKG.Formula):
        text = ix.text(f, RKG.expression)
        if text is None:
            continue
        try:
            parsed = parse_formula(text)
        except FormulaError as exc:
            yield (f, f"{_short(f)}: {exc.message}")
            continue
        output = ix.text(f, RKG.output)
        if output is not None and output != parsed.output:
            yield (f, f"{_short(f)} computes {parsed.output!r} but its rkg:output is {output!r}")
        for name in sorted(n for n in parsed.names if n.startswith("c_") and n not in symbols):
            yield (f, f"{_short(f)} reads {name!r}, which no constant of the KB defines (rkg:symbol)")


def _structure(triples: list[Triple], ix: Index):
    described = set(ix.spo)
    for s, p, o in triples:
        if s.startswith("_:") or (isinstance(o, str) and o.startswith("_:")):
            shown = "" if s.startswith("_:") else f" in '{_short(s)} {_short(p)}'"
            yield (s, f"blank node ('[ ... ]' or '_:'){shown}: give every node an IRI")
        elif isinstance(o, str) and o.startswith(BASE) and o not in described and p != RDF.type:
            yield (s, f"{_short(o)} is used by {_short(s)} but never described (misspelled id?)")
    for s in described:
        if ix.all(s, RDF.type) and not ix.all(s, RDFS.label) and not s.startswith("_:"):
            yield (s, f"{_short(s)} has no rdfs:label")


def _provenance(ix: Index):
    """Rules, formulas, constants, facts and hardware rest on a paper or on the reference
    itself (kb:reference: the claim is the reference's own judgement)."""
    documents = set(ix.instances_of(RKG.Paper)) | set(ix.instances_of(RKG.Reference))
    for cls in _SOURCED:
        for s in ix.instances_of(cls):
            sources = ix.iris(s, PROV.wasDerivedFrom)
            if not sources:
                yield (s, f"{_short(s)} has no source: add prov:wasDerivedFrom a paper (or kb:reference)")
            for src in sources:
                if src not in documents:
                    yield (s, f"source {_short(src)} of {_short(s)} is not a paper of the KB")


#: The four characterizations a typed citation may have, by the role they are shown as.
ROLE_OF = {CITO.citesAsDataSource: "states", CITO.obtainsSupportFrom: "supports",
           CITO.usesMethodIn: "method", CITO.citesAsAuthority: "reference"}


def _citations(ix: Index, bundled: set[str]):
    """Typed citations are whole and match the prov:wasDerivedFrom links (both ways in the
    bundled KB; an extension may leave its links untyped)."""
    references = set(ix.instances_of(RKG.Reference))
    typed = {}
    for c in ix.instances(CITO.Citation):
        citing, cited = ix.iris(c, CITO.hasCitingEntity), ix.iris(c, CITO.hasCitedEntity)
        kinds = ix.iris(c, CITO.hasCitationCharacterization)
        if len(citing) != 1 or len(cited) != 1 or len(kinds) != 1 or kinds[0] not in ROLE_OF:
            yield (c, f"{_short(c)} needs one cito:hasCitingEntity, one cito:hasCitedEntity and one "
                      f"cito:hasCitationCharacterization ({', '.join(_short(k) for k in ROLE_OF)})")
            continue
        pair, role = (citing[0], cited[0]), ROLE_OF[kinds[0]]
        if pair in typed:
            yield (c, f"{_short(c)} and {_short(typed[pair])} both type the link "
                      f"{_short(pair[0])} -> {_short(pair[1])}: keep one")
        typed[pair] = c
        if role == "states" and not ix.texts(c, RKG.where):
            yield (c, f"{_short(c)} says the source states the claim: give rkg:where (a table, section or page)")
        if (role == "reference") != (pair[1] in references):
            yield (c, f"{_short(c)}: the reference role (cito:citesAsAuthority) is for kb:reference, and only it")
        if pair[1] not in ix.iris(pair[0], PROV.wasDerivedFrom):
            yield (c, f"{_short(c)} types a link that is not there: add {_short(pair[0])} "
                      f"prov:wasDerivedFrom {_short(pair[1])}")
    for s in bundled:
        for src in ix.iris(s, PROV.wasDerivedFrom):
            if (s, src) not in typed and not s.startswith(str(RKG)):
                yield (s, f"{_short(s)} cites {_short(src)} without a typed citation "
                          f"(add a row to kb/citations.tsv and run tools/gen_citations.py)")


def _bundled_subjects(where: dict[str, tuple[str, int]]) -> set[str]:
    """The subjects described first in a bundled file (the rest come from extensions)."""
    bundled = _bundled_paths()
    return {s for s, (file, _) in where.items() if os.path.abspath(file) in bundled}


def _scoped_names(ix: Index, where: dict, paths: list[Path]):
    """No two nodes answer to one name where a query resolves it (:mod:`recipekg.knowledge.scopes`);
    of a pair, the node described later (in the files' order) is reported."""
    from recipekg.knowledge.scopes import ambiguous_names

    files = {str(p): i for i, p in enumerate(paths)}
    order = sorted(where, key=lambda s: (files.get(where[s][0], len(files)), where[s][1]))
    yield from ambiguous_names(ix, order, frozenset(_bundled_subjects(where)))


def _conditions(ix: Index):
    dims = {d: ix.one(d, RKG.valueClass) for d in ix.instances(RKG.Dimension)}
    allowed = {d: set(ix.instances_of(c)) if c else set() for d, c in dims.items()}
    for c in ix.instances(RKG.Condition):
        dim = ix.one(c, RKG.dimension)
        bound = {side: [(prop, _number(ix, c, prop), inclusive) for prop, (s, inclusive) in BOUND_PROPERTIES.items()
                        if s == side and ix.all(c, prop)] for side in ("min", "max")}
        low, low_in = next(((v, i) for _, v, i in bound["min"] if v is not None), (None, False))
        high, high_in = next(((v, i) for _, v, i in bound["max"] if v is not None), (None, False))
        values = ix.iris(c, RKG.value)
        if dim not in dims:
            continue  # SHACL reports the missing or wrong dimension
        if dims[dim]:
            for v in values:
                if v not in allowed[dim]:
                    yield (c, f"{_short(v)} is not a value of dimension {_short(dim)}")
            if bound["min"] or bound["max"]:
                yield (c, f"categorical dimension {_short(dim)} takes values, not bounds")
        elif values:
            yield (c, f"numeric dimension {_short(dim)} takes bounds, not values")
        for side, word in (("min", "lower"), ("max", "upper")):
            if len(bound[side]) > 1:
                names = " and ".join(_short(prop) for prop, _, _ in bound[side])
                yield (c, f"{_short(c)} has two {word} bounds ({names}): give one")
        if low is not None and high is not None and not (low < high or (low == high and low_in and high_in)):
            shown = f"{'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"
            yield (c, f"empty interval {shown} in {_short(c)}")


def _choice_properties(ix: Index):
    """A choice property's value fits its aspect's test: a number for at-most and at-least,
    values of the checked dimension otherwise (or, through ``rkg:via``, values it reaches)."""
    dims = {d: ix.one(d, RKG.valueClass) for d in ix.instances(RKG.Dimension)}
    for p in ix.instances(RKG.ChoiceProperty):
        aspect = ix.one(p, RKG.aspect)
        if not isinstance(aspect, str):
            continue  # SHACL reports the missing aspect
        test, dim = ix.one(aspect, RKG.test), ix.one(aspect, RKG.checks)
        numeric = test in (RKG.AtMost, RKG.AtLeast)
        if numeric and ix.number(p, RKG.value) is None:
            yield (p, f"{_short(p)}: the {_short(test)} test of {_short(aspect)} needs a number as rkg:value")
        elif not numeric and not ix.iris(p, RKG.value):
            yield (p, f"{_short(p)}: {_short(aspect)} needs values (IRIs) as rkg:value")
        elif not numeric and not ix.one(aspect, RKG.via) and dims.get(dim):
            allowed = set(ix.instances_of(dims[dim]))
            for v in ix.iris(p, RKG.value):
                if v not in allowed:
                    yield (p, f"{_short(v)} is not a value of dimension {_short(dim)}")


def _number(ix: Index, s: str, p: str) -> float | None:
    """``ix.number``, or None for an ill-typed number (``_literals`` reports it)."""
    try:
        return ix.number(s, p)
    except ValueError:
        return None


# The XSD lexical forms (ASCII digits only, no spaces or underscores, which float() accepts)
_DECIMAL = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_LEXICAL = {XSD.double: re.compile(_DECIMAL + r"(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN"),
            XSD.float: re.compile(_DECIMAL + r"(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN"),
            XSD.decimal: re.compile(_DECIMAL)}


def _literals(triples: list[Triple], constants: set[str]):
    """Every number well-formed and finite, whatever its property; the numeric properties
    (and constants' values) typed as numbers."""
    for s, p, o in triples:
        if isinstance(o, Lit) and o.datatype == XSD.gYear and not (len(o.lexical) == 4 and o.lexical.isascii()
                                                                   and o.lexical.isdigit()):
            yield (s, f"{_short(p)} {o.lexical[:40]!r}: a year is four digits (2024)")
        elif isinstance(o, Lit) and o.datatype in _NUMERIC:
            problem = _bad_number(o)
            if problem:
                yield (s, f"{_short(p)} {problem}")
        elif p in _NUMERIC_PROPS or (p == RKG.value and s in constants):
            shown = o.lexical if isinstance(o, Lit) else _short(o)
            yield (s, f"{_short(p)} must be a typed number (xsd:double), not {shown!r}")


def _bounded(triples: list[Triple], ix: Index):
    """Every number of a property the ontology bounds (``rkg:mfu rkg:minExclusive 0 ;
    rkg:maxInclusive 1``: a share of the peak; a GPU's memory above 0) within its bounds, and a
    positive magnitude within the limits a query's numbers meet (:mod:`recipekg.knowledge.bounds`)."""
    from recipekg.knowledge.bounds import ontology_bounds, out_of_bounds

    bounds = ontology_bounds(ix)
    for s, p, o in triples:
        if p not in bounds or not isinstance(o, Lit) or o.datatype not in _NUMERIC or _bad_number(o):
            continue
        broken = out_of_bounds(float(o.lexical), bounds[p])
        if broken is not None:
            yield (Triple(s, p, o), f"{_short(p)} is {o.lexical}: it must be {broken.word()}; check the "
                                    f"figure against its source{_unit(ix, p)}")


def _unit(ix: Index, p: str) -> str:
    """The unit a property's numbers are in, as its label says it (``memory (bytes)``)."""
    label = ix.text(p, RDFS.label) or ""
    return f" (in {label[label.index('(') + 1:-1]})" if label.endswith(")") and "(" in label else ""


_INTEGER = {XSD.integer, XSD.int, XSD.long}
_COMPATIBLE = {XSD.double: _NUMERIC, XSD.integer: _INTEGER, XSD.boolean: {XSD.boolean},
               XSD.anyURI: {XSD.anyURI}, XSD.string: {XSD.string, RDF.term("langString")}}


def _ranges(triples: list[Triple], ix: Index):
    """Every object fits its property's rdfs:range: a literal of a compatible datatype for a
    datatype range (a number for xsd:double, ...), a node for a class range."""
    ranges = {p: ix.one(p, RDFS.range) for p in ix.spo if p.startswith(str(RKG)) and ix.one(p, RDFS.range)}
    for s, p, o in triples:
        expected = ranges.get(p)
        if expected is None or p in _NUMERIC_PROPS:  # _literals reports those
            continue
        if expected in _COMPATIBLE:
            if not isinstance(o, Lit) or o.datatype not in _COMPATIBLE[expected]:
                shown = f"{o.lexical!r} ({_short(o.datatype)})" if isinstance(o, Lit) else _short(o)
                yield (s, f"{_short(p)} takes {_short(expected)} values, not {shown}")
            elif expected == XSD.boolean and o.lexical not in ("true", "false", "1", "0"):
                yield (s, f"{_short(p)} takes true or false, not {o.lexical!r}")
        elif isinstance(o, Lit) and not expected.startswith(str(XSD)):
            yield (s, f"{_short(p)} links to a node ({_short(expected)}), not the text {o.lexical!r}")


#: Characters no text of the KB holds: C0 and C1 controls (ESC starts a terminal's escape
#: sequences, CSI is one byte of them), line and paragraph breaks (each claim is shown on one
#: line, so a break would forge lines of an answer), and the bidirectional embeddings,
#: overrides and isolates (which make text read in another order than it is stored).
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _contradictions(triples: list[Triple], ix: Index):
    """A rule for and against one choice, a taxonomy that is its own ancestor, and control
    characters (NUL, ...) in text: each accepted silently before, each wrong."""
    for s, p, o in triples:
        if isinstance(o, Lit) and _CONTROL.search(o.lexical):
            yield (s, f"{_short(p)} holds a control character (U+{ord(_CONTROL.search(o.lexical)[0]):04X})")
        elif isinstance(o, Lit) and (not o.lexical.isprintable() or IGNORABLE.search(o.lexical)) \
                and (hidden := format_character(o.lexical)):
            yield (s, f"{_short(p)} holds an invisible formatting character (U+{ord(hidden):04X}): "
                      "text that reads as another (XG\u2063Boost as XGBoost) or hides words")
    for r in ix.instances_of(RKG.Rule):
        for choice in sorted(set(ix.iris(r, RKG.recommends)) & set(ix.iris(r, RKG.advisesAgainst))):
            yield (r, f"{_short(r)} both recommends and advises against {_short(choice)}")
    yield from broader_problems(ix)


def _bad_number(o: Lit) -> str | None:
    """What is wrong with a numeric literal (None when nothing is)."""
    try:
        if not _LEXICAL.get(o.datatype, re.compile(r"[+-]?[0-9]+")).fullmatch(o.lexical):
            raise ValueError(o.lexical)
        value = float(o.lexical)
    except ValueError:
        return f"{o.lexical!r} is not a valid {_short(o.datatype)}"
    if not math.isfinite(value):
        return f"must be a finite number, not {o.lexical[:40]}"
    if value == 0.0 and re.search(r"[1-9]", o.lexical.lower().split("e")[0]):
        return f"{o.lexical[:40]} underflows to 0 as a double: write the number in range (about 1e-308 or more)"
    return None


def _shacl(triples: list[Triple], shapes: Path):
    import pyshacl
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import SH
    quiet_rdflib()

    data = Graph()
    for s, p, o in triples:
        if s.startswith("_:") or (isinstance(o, str) and o.startswith("_:")):
            continue  # reported by _structure
        obj = Literal(o.lexical, lang=o.lang) if isinstance(o, Lit) and o.lang else (
            Literal(o.lexical, datatype=URIRef(o.datatype)) if isinstance(o, Lit) else URIRef(o))
        data.add((URIRef(s), URIRef(p), obj))
    shape_graph = Graph().parse(shapes, format="turtle")
    conforms, report, _ = pyshacl.validate(data, shacl_graph=shape_graph, inference="none",
                                           advanced=True, allow_warnings=True)
    if conforms:
        return
    messages = defaultdict(set)
    for result in report.subjects(URIRef(RDF.type), SH.ValidationResult):
        focus = report.value(result, SH.focusNode)
        path = report.value(result, SH.resultPath)
        message = report.value(result, SH.resultMessage)
        text = f"{_short(str(path))}: {message}" if path is not None else str(message)
        messages[str(focus)].add(text)
    for focus, texts in messages.items():
        for text in sorted(texts):
            yield (focus, f"{_short(focus)} {text}")


def _short(iri: str) -> str:
    from recipekg.knowledge.terms import shorten
    return shorten(iri) if not iri.startswith("_:") else iri
