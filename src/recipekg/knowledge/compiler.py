"""Compile the RDF graph into a snapshot: plain builtin data the query path reads.

The snapshot holds what answering needs, already indexed: the dimension vocabulary with
every accepted spelling, entities with their taxonomy closure, rules with their conditions,
papers, sections, formulas, constants, facts and hardware. It is JSON-serialisable, so
loading it executes nothing::

    >>> from recipekg.knowledge.rdfio import read_all
    >>> from recipekg.knowledge.resources import bundled_files
    >>> snap = compile_graph(read_all(bundled_files()))
    >>> snap["dimensions"]["samples"]["aliases"]
    ['examples', 'images', 'rows', 'sequences']

The data is canonical (dict keys sorted, tuples as lists: what JSON would give back), so a
fresh build and a cached one are the same data in the same order, and the rule index
(:mod:`recipekg.knowledge.rule_index`) is computed on that order.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from recipekg.errors import FormulaError
from recipekg.knowledge.rdfio import Lit, Triple
from recipekg.knowledge.compile_recipe import compile_recipe
from recipekg.knowledge.dimensions import compile_conditions, compile_dimensions, derived_order, sizing
from recipekg.knowledge.properties import compile_properties
from recipekg.knowledge.rule_index import index_rules
from recipekg.knowledge.terms import CITO, DCTERMS, PROV, RDF, RDFS, RKG, SKOS, XSD, local_name
from recipekg.names import slug
from recipekg.formula.syntax import read_formula

_NUMERIC = {XSD.double, XSD.decimal, XSD.integer, XSD.float, XSD.int, XSD.long}


class Index:
    """Subject → predicate → objects, over a list of triples."""

    def __init__(self, triples: Iterable[Triple]):
        self.spo: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        self.by_type: dict[str, list[str]] = defaultdict(list)
        seen: set = set()  # a set, not a look through the list: linear in the objects of one s, p
        for t in triples:
            if t not in seen:
                seen.add(t)
                s, p, o = t
                self.spo[s][p].append(o)
                if p == RDF.type and isinstance(o, str):
                    self.by_type[o].append(s)

    def all(self, s: str, p: str) -> list:
        return self.spo.get(s, {}).get(p, [])

    def one(self, s: str, p: str, default=None):
        values = self.all(s, p)
        return values[0] if values else default

    def iris(self, s: str, p: str) -> list[str]:
        return sorted(o for o in self.all(s, p) if isinstance(o, str))

    def text(self, s: str, p: str, default: str | None = None) -> str | None:
        value = self.one(s, p)
        return value.lexical if isinstance(value, Lit) else default

    def texts(self, s: str, p: str) -> list[str]:
        return sorted(o.lexical for o in self.all(s, p) if isinstance(o, Lit))

    def number(self, s: str, p: str) -> float | None:
        value = self.one(s, p)
        if isinstance(value, Lit) and value.datatype in _NUMERIC:
            return float(value.lexical)
        return None

    def instances(self, cls: str) -> list[str]:
        return sorted(set(self.by_type.get(cls, [])))

    def subclasses(self, cls: str) -> set[str]:
        """``cls`` and every class below it through rdfs:subClassOf."""
        found, todo = {cls}, [cls]
        children = self._children()
        while todo:
            for child in children.get(todo.pop(), []):
                if child not in found:
                    found.add(child)
                    todo.append(child)
        return found

    def _children(self) -> dict[str, list[str]]:
        """Class -> its direct subclasses (computed once)."""
        if getattr(self, "_subclass_children", None) is None:
            children = defaultdict(list)
            for s, props in self.spo.items():
                for parent in props.get(RDFS.subClassOf, []):
                    children[parent].append(s)
            self._subclass_children = children
        return self._subclass_children

    def instances_of(self, cls: str) -> list[str]:
        return sorted({i for c in self.subclasses(cls) for i in self.by_type.get(c, [])})

    def typed_citations(self) -> dict[str, dict[str, dict]]:
        """Citing IRI → source id → ``{"role", "where"}`` from the cito:Citation nodes whose
        characterization has an ``rkg:roleName`` (computed once)."""
        if getattr(self, "_typed_citations", None) is None:
            out: dict[str, dict[str, dict]] = defaultdict(dict)
            for c in self.instances(CITO.Citation):
                citing, cited = self.one(c, CITO.hasCitingEntity), self.one(c, CITO.hasCitedEntity)
                kind = self.one(c, CITO.hasCitationCharacterization)
                role = self.text(kind, RKG.roleName) if isinstance(kind, str) else None
                if isinstance(citing, str) and isinstance(cited, str) and role:
                    out[citing][local_name(cited)] = {"role": role, "where": self.text(c, RKG.where)}
            self._typed_citations = out
        return self._typed_citations


def compile_graph(triples: Iterable[Triple], origins: dict | None = None) -> dict:
    """The snapshot of a merged graph (ontology + KB + extensions); ``origins`` (node →
    ``{"file", "line"}``, :func:`recipekg.knowledge.origin.owned_origins`) marks what the
    extensions add (:func:`recipekg.knowledge.origin.mark`)."""
    from recipekg.knowledge.origin import mark

    ix = Index(triples)
    snap = {}
    snap["sections"] = _sections(ix)
    snap["papers"] = _papers(ix)
    snap["strengths"] = {s: {"label": ix.text(s, RDFS.label), "weight": ix.number(s, RKG.weight),
                             "rank": ix.number(s, RKG.rank)} for s in ix.instances(RKG.Strength)}
    snap["kinds"] = {ix.text(c, RKG.kindName): c for c in ix.spo if ix.text(c, RKG.kindName)}
    snap["nodes"] = _nodes(ix, snap["kinds"])
    snap["dimensions"] = compile_dimensions(ix, snap["nodes"])
    snap["conditions"] = compile_conditions(ix, snap["dimensions"])
    snap["rules"] = _rules(ix)
    snap["tiers"] = {t: {"label": ix.text(t, RDFS.label), "conditions": ix.iris(t, RKG.condition)}
                     for t in ix.instances(RKG.ComputeTier)}
    snap["constants"] = _constants(ix)
    snap["formulas"] = _formulas(ix)
    snap["derived_dimensions"] = derived_order(snap["dimensions"], snap["formulas"], snap["constants"],
                                               frozenset(MODEL_FIGURES))
    sizing(snap["dimensions"], snap["formulas"], snap["constants"])
    snap["sized_dimensions"] = sorted(n for n, d in snap["dimensions"].items() if d["sized_by"])
    snap["facts"] = _facts(ix)
    snap["hardware"] = _hardware(ix, {d["derived_via"] for d in snap["dimensions"].values() if d["derived_via"]})
    snap["models"] = _models(ix)
    snap.update(compile_recipe(ix))
    snap["scoring"] = {"unconstrained_factor": ix.number(RKG.scoring, RKG.unconstrainedFactor),
                       "partly_credit": ix.number(RKG.scoring, RKG.partlyCredit),
                       "default_support": ix.number(RKG.scoring, RKG.defaultSupport)}
    snap["procedures"] = {p: {"label": ix.text(p, RDFS.label), "ordered": RKG.OrderedProcedure in ix.iris(p, RDF.type)}
                          for p in ix.instances(RKG.Procedure)}
    snap.update(compile_properties(ix, snap["dimensions"], snap["nodes"], sources_of))
    mark(snap, origins or {})
    # small: answers read only it; after mark, so that an extension's claim carries its origin (hostile round 9, 020)
    snap["superseded"] = {iri: {"id": c["id"], "label": c["label"], "superseded_by": c["superseded_by"],
                                **({"origin": c["origin"]} if c.get("origin") else {})}
                          for table in ("rules", "formulas", "constants", "facts")
                          for iri, c in snap[table].items() if c.get("superseded_by")}
    snap = canonical(snap)
    snap["rule_index"] = canonical(index_rules(snap))
    snap["plan_index"] = canonical(_plan_index(snap))
    return snap


def _plan_index(snap: dict) -> dict:
    """Plan's look-ups (:mod:`recipekg.plan.index`), compiled with the rule index."""
    from recipekg.plan.index import plan_index

    return dict(plan_index(snap))


def compile_read(per_file: list) -> dict:
    """The snapshot of files already read (``(path, triples)`` pairs, bundled and extensions):
    what the files that are not bundled add is marked with its origin
    (:mod:`recipekg.knowledge.origin`)."""
    import os

    from recipekg.knowledge.origin import owned_origins
    from recipekg.knowledge.resources import bundled_paths

    bundled = {os.path.abspath(p) for p in bundled_paths()}
    triples = [t for _, ts in per_file for t in ts]
    snap = compile_graph(triples, owned_origins(per_file, bundled))
    snap["triples"] = len(triples)
    return snap


def canonical(data):
    """``data`` as JSON would give it back (dict keys sorted, tuples as lists); equal strings
    become one object, which marshal writes once (a third smaller at 1M triples)."""
    try:
        return _plain(data, {})
    except TypeError:  # a key JSON would turn into a string: let JSON do it
        import json

        return _plain(json.loads(json.dumps(data, sort_keys=True)), {})


def _plain(obj, strings: dict):
    t = type(obj)
    if t is str:
        return strings.setdefault(obj, obj)
    if t is dict:
        if not all(type(k) is str for k in obj):
            raise TypeError("non-string key")
        return {strings.setdefault(k, k): _plain(obj[k], strings) for k in sorted(obj)}
    if t is list or t is tuple:
        return [_plain(v, strings) for v in obj]
    if obj is None or t is bool or t is int or t is float:
        return obj
    raise TypeError(f"not plain data: {t.__name__}")


def _hardware(ix: Index, via: set[str]) -> dict:
    """Hardware with its numeric figures by property IRI, and for a property a dimension is
    derived through (``via``: ``rkg:supportsPrecision``) that names things, their IRIs
    (``derivedVia`` reads both), and the parts it states it has the compute of
    (``rkg:sameComputeAs``, as stated: read both ways by ``KBView.same_compute``), the device a
    trainer addresses it as (``rkg:deviceType``: a recipe's configurations), and its chip
    architecture's name (``rkg:gpuArchitecture``: ``KBView.same_architecture``)."""
    out = {}
    for h in ix.instances(RKG.Hardware):
        out[h] = {p: float(o[0].lexical) for p, o in ix.spo[h].items()
                  if o and isinstance(o[0], Lit) and o[0].datatype in _NUMERIC}
        out[h].update((p, ix.iris(h, p)) for p in sorted({*via, RKG.sameComputeAs, RKG.deviceType})
                      if p not in out[h] and ix.iris(h, p))
        if architecture := ix.text(h, RKG.gpuArchitecture):
            out[h][RKG.gpuArchitecture] = architecture
    return out


#: A model configuration's figures: snapshot key -> property.
MODEL_FIGURES = {"layers": RKG.layers, "hidden": RKG.hiddenSize, "heads": RKG.attentionHeads,
                 "kv_heads": RKG.kvHeads, "vocab": RKG.vocabSize, "ffn_hidden": RKG.ffnHidden,
                 "ffn_matrices": RKG.ffnMatrices, "embedding_matrices": RKG.embeddingMatrices, "experts": RKG.experts,
                 "experts_per_token": RKG.expertsPerToken, "seq_length": RKG.contextLength,
                 "trained_context": RKG.contextLength,   # (the same figure, as the trained-context dimension reads it)
                 "attention_window": RKG.attentionWindow,
                 "params": RKG.params, "active_params": RKG.activeParams, "nominal_params": RKG.nominalParams}


#: A published run's shape, as the attention FLOPs its GPU-hours paid for read it: snapshot key -> property.
RUN_FIGURES = {"layers": RKG.layers, "attention_width": RKG.attentionWidth, "seq_length": RKG.trainingSeqLength}


def _models(ix: Index) -> dict:
    """Named model configurations: their figures (None where the KB has none), family and sources."""
    return {m: {"id": ix.text(m, SKOS.notation) or local_name(m), "label": ix.text(m, RDFS.label),
                "family": ix.iris(m, SKOS.broader), **{k: ix.number(m, p) for k, p in MODEL_FIGURES.items()},
                "data": ix.iris(m, RKG.dataModality),
                **sources_of(ix, m), "caveat": ix.text(m, RDFS.comment)}
            for m in ix.instances(RKG.ModelConfiguration)}


def sources_of(ix: Index, s: str) -> dict:
    """A claim's sources (ids, from prov:wasDerivedFrom) and what each does for it
    (``citations``: id → ``{"role", "where", "typed"}``). A link without a typed citation (an
    extension's) reads as ``reference`` for the reference itself and ``supports`` for a paper,
    the least a citation says, with ``typed`` false (``recipekg audit`` lists it as a gap)."""
    typed = ix.typed_citations().get(s, {})
    sources, citations = [], {}
    for p in ix.iris(s, PROV.wasDerivedFrom):
        pid = local_name(p)
        sources.append(pid)
        if pid in typed:
            citations[pid] = dict(typed[pid], typed=True)
        else:
            untyped = "reference" if RKG.Reference in ix.iris(p, RDF.type) else "supports"
            citations[pid] = {"role": untyped, "where": None, "typed": False}
    out = {"sources": sources, "citations": citations}
    if superseded := ix.iris(s, RKG.supersededBy):  # a newer source revises this claim
        out["superseded_by"] = superseded
    return out


def _caveat(ix: Index, s: str) -> str | None:
    """The claim's rdfs:comment, shown with it (unless it already stands in for a missing text)."""
    return ix.text(s, RDFS.comment) if ix.text(s, RKG.text) is not None else None


def _sections(ix: Index) -> dict:
    return {s: {"path": ix.text(s, RKG.path) or ix.text(s, RDFS.label),
                "order": ix.number(s, RKG.order), "parent": ix.one(s, DCTERMS.isPartOf)}
            for s in ix.instances(RKG.Section)}


def _papers(ix: Index) -> dict:
    """Papers (and the reference document itself, which constants and facts may cite).

    ``authors`` is the rkg:authors literal as written; ``authors_structured`` whether it has the
    bibliography's form ("Family, Given; Family, Given; ...", marked by rkg:authorsComplete),
    whose names :func:`recipekg.cite.entries.author_list` reads when a paper is cited (kept
    out of the snapshot: a list of names per paper was a quarter of the papers' bytes, which
    every answer that shows its sources decodes), else free text such as "Kaplan, McCandlish
    et al." in an extension. ``entry_type`` is read off the fabio type:
    inproceedings, article, preprint, blog, software, webpage, or None.
    """
    papers = {}
    for r in ix.instances(RKG.Reference):
        papers[local_name(r)] = dict(_BIBLIOGRAPHIC, **{
            "id": local_name(r), "iri": r, "title": ix.text(r, DCTERMS.title) or ix.text(r, RDFS.label),
            "authors": ix.text(r, DCTERMS.creator), "year": None, "arxiv": None, "url": None,
            "venue": ix.text(r, DCTERMS.source), "types": ["Reference"], "publisher": None, "sections": []})
    for p in ix.instances_of(RKG.Paper):
        year, authors, complete = ix.text(p, DCTERMS.issued), ix.text(p, RKG.authors), ix.text(p, RKG.authorsComplete)
        structured = authors is not None and (complete is not None or ";" in authors)
        types = [local_name(t) for t in ix.iris(p, RDF.type)]
        count = ix.number(p, RKG.authorCount)
        papers[local_name(p)] = {
            "id": local_name(p), "iri": p, "title": ix.text(p, DCTERMS.title) or ix.text(p, RDFS.label),
            "authors": authors, "year": int(year) if year and year.isascii() and year.isdigit() else None,
            "arxiv": ix.text(p, RKG.arxiv), "url": ix.text(p, RKG.url), "venue": ix.text(p, RKG.venue),
            "types": types, "publisher": ix.text(p, DCTERMS.publisher), "sections": ix.iris(p, RKG.section),
            "authors_structured": structured,
            "authors_complete": complete in ("true", "1") if complete is not None else None,
            "author_count": int(count) if count is not None else None,
            "entry_type": next((_ENTRY_TYPES[t] for t in types if t in _ENTRY_TYPES), None),
            **{key: ix.text(p, prop) for key, prop in _PAPER_TEXTS.items()},
        }
    return papers


_ENTRY_TYPES = {"ConferencePaper": "inproceedings", "JournalArticle": "article", "Preprint": "preprint",
                "BlogPost": "blog", "ComputerProgram": "software", "WebPage": "webpage"}
_PAPER_TEXTS = {"published_title": RKG.publishedTitle, "author_group": RKG.authorGroup, "booktitle": RKG.booktitle,
                "journal": RKG.journal, "volume": RKG.volume, "number": RKG.number, "pages": RKG.pages,
                "doi": RKG.doi, "version": RKG.version, "accessed": RKG.accessed}
_BIBLIOGRAPHIC = dict({key: None for key in _PAPER_TEXTS}, authors_structured=False, authors_complete=None,
                      author_count=None, entry_type=None)


def _nodes(ix: Index, kinds: dict) -> dict:
    """Entities and categorical values: names, kinds and taxonomy closure."""
    class_kind = {cls: kind for kind, root in kinds.items() for cls in ix.subclasses(root)}
    nodes = {}
    for s, props in ix.spo.items():
        label = ix.text(s, RDFS.label)
        types = ix.iris(s, RDF.type)
        if label is None or not types or s.startswith("_:") or CITO.Citation in types:
            continue
        nodes[s] = {
            "id": ix.text(s, SKOS.notation) or local_name(s), "label": label, "types": types,
            "kinds": sorted({class_kind[t] for t in types if t in class_kind}),
            "aliases": sorted({slug(a) for a in ix.texts(s, SKOS.altLabel)} | {slug(label)}),
            "broader": ix.iris(s, SKOS.broader),
            "implies": ix.iris(s, RKG.impliesValue),
            "definition": ix.text(s, SKOS.definition),
            "papers": [local_name(p) for p in ix.iris(s, RKG.originalPaper)],
            **sources_of(ix, s), "best_for": ix.text(s, RKG.bestFor),
            "notes": ix.text(s, RKG.notes), "fixed_by": ix.iris(s, RKG.fixedBy),
        }
        nodes[s]["caveat"] = ix.text(s, RDFS.comment) if nodes[s]["sources"] else None
        gap = ix.text(s, RKG.adviceGap)
        if gap:
            section = ix.one(s, RKG.nearestSection)
            nodes[s]["no_advice"] = {"message": gap, "nearest_query": ix.text(s, RKG.nearestQuery),
                                     "nearest_section": section}
    for s, node in nodes.items():
        node["ancestors"] = sorted(_closure(s, nodes))
        for part in ix.iris(s, RKG.combines):  # (on the parts: what orders and names them)
            if part in nodes:
                nodes[part].setdefault("part_of", []).append(s)
    for node in nodes.values():
        if "part_of" in node:
            node["part_of"].sort()
    return nodes


def _closure(start: str, nodes: dict) -> set[str]:
    seen, todo = set(), list(nodes[start]["broader"])
    while todo:
        b = todo.pop()
        if b not in seen and b != start:
            seen.add(b)
            todo.extend(nodes.get(b, {}).get("broader", []))
    return seen


#: Rule classes that change how a rule counts (docs/scoring.md).
_ROLES = {RKG.DefaultRule: "default", RKG.ComparisonRule: "comparison"}


def _rules(ix: Index) -> dict:
    rules = {}
    all_rules = ix.instances(RKG.Rule)
    contradicted_by = defaultdict(set)  # rule -> the rules stating that they contradict it
    differs_from = defaultdict(set)  # rule -> the rules placing its threshold differently
    for s in all_rules:
        for o in ix.iris(s, RKG.contradicts):
            contradicted_by[o].add(s)
        for o in ix.iris(s, RKG.differsFrom):
            differs_from[o].add(s)
    for r in all_rules:
        rules[r] = {
            "id": local_name(r), "label": ix.text(r, RDFS.label), "text": ix.text(r, RKG.text),
            "recommends": ix.iris(r, RKG.recommends), "against": ix.iris(r, RKG.advisesAgainst),
            "conditions": ix.iris(r, RKG.condition), "strength": ix.one(r, RKG.strength),
            "section": ix.one(r, RKG.section), **sources_of(ix, r), "caveat": _caveat(ix, r),
            "procedure": ix.one(r, RKG.stepOf), "step": ix.number(r, RKG.step),
            "contradicts": sorted(set(ix.iris(r, RKG.contradicts)) | contradicted_by[r]),
            "role": _ROLES.get(next((t for t in ix.iris(r, RDF.type) if t in _ROLES), None)),
            "for_kinds": sorted(ix.text(k, RKG.kindName) for k in ix.iris(r, RKG.forKind) if ix.text(k, RKG.kindName)),
            "differs_from": sorted(set(ix.iris(r, RKG.differsFrom)) | differs_from[r]),
        }
    return rules


def _constants(ix: Index) -> dict:
    return {c: {"id": local_name(c), "label": ix.text(c, RDFS.label), "symbol": ix.text(c, RKG.symbol),
                "value": ix.number(c, RKG.value), "low": ix.number(c, RKG.low),
                "high": ix.number(c, RKG.high), "unit": ix.text(c, RKG.unitLabel),
                "applies_to": ix.iris(c, RKG.appliesTo), "quantity": ix.text(c, RKG.quantity),
                "text": ix.text(c, RKG.text) or ix.text(c, RDFS.comment),
                "section": ix.one(c, RKG.section), **sources_of(ix, c), "caveat": _caveat(ix, c)}
            for c in ix.instances(RKG.Constant)}


def _formulas(ix: Index) -> dict:
    return {f: {"id": local_name(f), "label": ix.text(f, RDFS.label),
                "expression": ix.text(f, RKG.expression), "output": ix.text(f, RKG.output),
                **_parsed(ix.text(f, RKG.expression)),
                "constants": ix.iris(f, RKG.usesConstant), "applies_to": ix.iris(f, RKG.appliesTo),
                "shape_of": ix.iris(f, RKG.shapeOf),
                "for_methods": sorted(ix.iris(f, RKG.forMethod)),
                "open_inputs": sorted(ix.text(d, SKOS.notation) or local_name(d) for d in ix.iris(f, RKG.openInput)),
                "text": ix.text(f, RKG.text) or ix.text(f, RDFS.comment),
                "section": ix.one(f, RKG.section), **sources_of(ix, f), "caveat": _caveat(ix, f)}
            for f in ix.instances(RKG.Formula)}


def _parsed(expression: str | None) -> dict:
    """What the formula computes, its tree and names (:mod:`recipekg.formula.syntax`), so that planning
    never parses; a formula that does not parse keeps its error, which plan reports."""
    if expression is None:
        return {"computes": None, "tree": None, "names": []}
    try:
        output, tree, names = read_formula(expression)
    except FormulaError as exc:
        return {"computes": None, "tree": None, "names": [], "error": exc.message}
    return {"computes": output, "tree": tree, "names": names}


def _facts(ix: Index) -> dict:
    facts = {}
    for f in ix.instances_of(RKG.Fact):
        facts[f] = {"id": local_name(f), "label": ix.text(f, RDFS.label),
                    "types": [local_name(t) for t in ix.iris(f, RDF.type)],
                    "text": ix.text(f, RKG.text) or ix.text(f, RDFS.comment),
                    "section": ix.one(f, RKG.section), **sources_of(ix, f), "caveat": _caveat(ix, f),
                    "about": ix.iris(f, RKG.appliesTo)}
        for key, prop in (("params", RKG.params), ("tokens", RKG.tokens), ("flops", RKG.flops),
                          ("gpu_hours", RKG.gpuHours), ("mfu", RKG.mfu),
                          ("learning_rate", RKG.learningRate), ("batch_tokens", RKG.batchTokens),
                          *RUN_FIGURES.items()):
            if (value := ix.number(f, prop)) is not None:
                facts[f][key] = value
        if hw := ix.one(f, RKG.onHardware):
            facts[f]["hardware"] = hw
    return facts
