"""What an extension may do: add nodes of its own and describe them, nothing more.

An extension file is checked against the bundled KB it is merged with. It may not

- add or change a triple about a bundled node (a rule, a value, a choice, a dimension...);
- state identity or equivalence with a bundled term (``owl:sameAs``, ``owl:equivalentClass``,
  ``owl:equivalentProperty``, ``skos:exactMatch``), or give its own property a range, an
  inverse or a superproperty that is a bundled term or an identity predicate: recipekg draws
  no inference from them, but ``recipekg export`` carries them to reasoners that do; nor, for
  the same reason, import another document (``owl:imports``), declare a property characteristic
  (symmetric, transitive...) or an inverse, make a bundled concept narrower than its own
  (``skos:narrower``), or give its property a superproperty that is not its own;
- mint an IRI outside the project's instance namespaces (``kb:``, ``rule:``, ``cond:``,
  ``dim:``, ``paper:``, ``section:``, ``formula:``, ``const:``, ``fact:``, ``citation:``),
  or an id that is not ``[a-z0-9-]`` (``kb:café``, ``kb:My_Node``);
- use a relative IRI or an ``@base`` that resolves to a local path;
- use an ``rkg:`` property or class the ontology does not declare;
- give a node a name (notation, label, alias), a constant a symbol, or a formula an output
  that a bundled node already has, so that a query would reach the extension's node
  instead of the bundled one.

    >>> from recipekg.knowledge.rdfio import Triple, Lit
    >>> from recipekg.knowledge.terms import RKG, SKOS, RDF, RDFS, KB
    >>> bundled = [Triple(RKG.DataModality, RDF.type, RDFS.Class),
    ...            Triple(KB.tabular, RDF.type, RKG.DataModality),
    ...            Triple(KB.tabular, SKOS.notation, Lit("tabular", "xsd:string"))]
    >>> ext = [Triple(KB.x, RDF.type, RKG.DataModality),
    ...        Triple(KB.x, SKOS.notation, Lit("tabular", "xsd:string"))]
    >>> [m for _, m in extension_violations(bundled, ext)]
    ["kb:x takes the name 'tabular' of bundled kb:tabular: choose another name"]
"""

from __future__ import annotations

import re
from typing import Iterator

from recipekg.knowledge.rdfio import Lit, Triple
from recipekg.knowledge.terms import BASE, CITO, OWL, PROV, RDF, RDFS, RKG, SKOS, local_name, shorten
from recipekg.names import slug

#: The predicates that state identity or equivalence: a reasoner carries every statement
#: about one side over to the other (OWL 2 RDF-based semantics; SKOS's exactMatch is transitive
#: and means the two are interchangeable).
IDENTITY = {OWL.sameAs: "it makes the two one node", OWL.equivalentClass: "it makes the two classes one",
            OWL.equivalentProperty: "it makes the two properties one",
            SKOS.exactMatch: "it makes the two interchangeable"}
#: What an extension may not say about a bundled term (or an identity predicate) as its object,
#: though the subject is its own: identity, a range (it types every object of the property) and
#: a narrower concept (it states the object's skos:broader). An inverse and a superproperty are
#: refused whatever their object (:data:`_NEVER`, :func:`_never_said`).
_SAYS_OF_OBJECT = {**IDENTITY, RDFS.range: "a range types every object of the property",
                   SKOS.narrower: "a narrower concept states the object's skos:broader",
                   SKOS.term("narrowerTransitive"): "a narrower concept states the object's skos:broader",
                   # standard inverses (hostile round 9, 046-048): each states its inverse about the object
                   SKOS.term("hasTopConcept"): "a top concept states the object's skos:topConceptOf",
                   PROV.term("generated"): "it states the object's prov:wasGeneratedBy",
                   PROV.term("influenced"): "it states the object's prov:wasInfluencedBy",
                   **{CITO.term(f"isCited{x}By"): "it states that the object cites the subject"
                      for x in ("", "AsEvidence", "AsDataSource", "AsAuthority", "ForInformation", "AsRecommendedReading",
                                "AsPotentialSolution", "AsRelated", "AsSourceDocument")}}
#: What an extension may not say at all, whatever its objects (hostile round 5, 008-011, 028):
#: another document's statements, an inverse (it states each triple of the property about its
#: object, a bundled node among them), a property characteristic a reasoner applies to every
#: triple of the property (a symmetric property pointed at a bundled node states the triple
#: about it); and a superproperty not its own (:func:`_never_said`).
_NEVER = {OWL.term("imports"): "it brings another document's statements into the export",
          OWL.inverseOf: "an inverse states each triple of the property about its object"}
_CHARACTERISTICS = {OWL.term(c) for c in ("SymmetricProperty", "TransitiveProperty", "ReflexiveProperty",
                                          "FunctionalProperty", "InverseFunctionalProperty")}
#: What to write instead.
_INSTEAD = {OWL.equivalentClass: "make your class narrower with rdfs:subClassOf instead",
            OWL.sameAs: "relate your node to it with skos:broader or rdfs:seeAlso instead",
            SKOS.exactMatch: "relate your node to it with skos:broader or rdfs:seeAlso instead"}

#: The namespaces an extension mints its nodes in (those of the bundled KB).
INSTANCE_SPACES = ("id", "rule", "cond", "dim", "paper", "section", "formula", "const", "fact", "citation")
_INSTANCE = re.compile(re.escape(BASE) + r"(?:%s)/[a-z0-9][a-z0-9-]*" % "|".join(INSTANCE_SPACES))


def extension_violations(bundled: list[Triple], extension: list[Triple]) -> Iterator[tuple[str, str]]:
    """``(subject, message)`` for every way ``extension`` would change the bundled KB."""
    own = set(bundled)
    subjects = {s for s, _, _ in bundled}
    declared = {s for s in subjects if s.startswith(str(RKG))}
    named = subjects | {o for _, _, o in bundled if isinstance(o, str)}
    theirs = {x for x, _, _ in extension}
    for s, p, o in extension:
        problem = (_iri_problem(s, declared, subject=True) or _iri_problem(p, declared)
                   or (isinstance(o, str) and not o.startswith("_:") and _iri_problem(o, declared)))
        if problem:
            yield (s, problem)
        elif s in subjects and (s, p, o) not in own:
            yield (s, f"{shorten(s)} is a bundled node: an extension adds nodes of its own and "
                      f"cannot add '{shorten(p)}' to a bundled one")
        elif said := _never_said(s, p, o, theirs, named):
            yield (s, said)
        elif p in _SAYS_OF_OBJECT and isinstance(o, str) and (o in named or o in IDENTITY):
            instead = _INSTEAD.get(p, "drop it: an extension describes its own nodes, not what a property implies")
            yield (s, f"'{shorten(s)} {shorten(p)} {shorten(o)}': {_SAYS_OF_OBJECT[p]}, so a reasoner reading "
                      f"the export would change what {shorten(o)} means; {instead}")
    yield from _collisions(bundled, extension)
    yield from _same_papers(bundled, extension)


def _never_said(s: str, p: str, o, theirs: set[str], named: set[str]) -> str | None:
    """What is wrong with a triple whose meaning to a reasoner reaches beyond the extension's
    own nodes whatever its object (:data:`_NEVER`, :data:`_CHARACTERISTICS`, a superproperty
    not among ``theirs``, the extension's subjects: a bundled term, an identity predicate or
    another vocabulary's, ``skos:altLabel``), or None."""
    why = (_NEVER.get(p) or (p == RDF.type and o in _CHARACTERISTICS and "a property characteristic applies to "
                             "every triple of the property, the bundled nodes it points at too")
           or (p == RDFS.subPropertyOf and isinstance(o, str) and o not in theirs
               and "a subproperty says what its superproperty says")
           # (hostile round 9, 044, 045, 049; a bundled term as the object is refused as identity is, in its words)
           or (p in (OWL.equivalentProperty, OWL.equivalentClass) and isinstance(o, str) and o not in theirs
               and o not in named and "an equivalence says what the other term says, both ways"))
    if not why:
        return None
    return (f"'{shorten(s)} {shorten(p)} {shorten(o) if isinstance(o, str) else o}': {why}, so a reasoner reading "
            f"the export would draw statements about the bundled KB; drop it: an extension describes its own nodes")


def _iri_problem(iri: str, declared: set[str], subject: bool = False) -> str | None:
    if iri.startswith("_:"):
        return None  # blank nodes are reported by validate's structure check
    if not iri.startswith(("http://", "https://")):
        return (f"<{iri}> is not an http(s) IRI (a relative IRI or an @base resolves to a local path): "
                f"use the project's prefixes, e.g. kb:my-node")
    if iri.startswith(str(RKG)):
        if iri not in declared:
            return f"{shorten(iri)} is not a term of the ontology (ontology/recipekg.ttl)"
        return f"{shorten(iri)} is an ontology term: extensions describe instances only" if subject else None
    if iri.startswith(BASE):
        if not _INSTANCE.fullmatch(iri):
            return (f"<{iri}>: an id is lowercase letters, digits and '-' in one of the project's "
                    f"namespaces ({', '.join(p + ':' for p in ('kb', 'rule', 'cond', 'dim', 'paper'))} ...)")
        return None
    if subject:
        return f"<{iri}> is outside the project's namespaces: mint extension nodes as kb:, rule:, cond: ..."
    return None  # another vocabulary's term, or a link to the web (a DOI, a licence)


def _names(triples: list[Triple]) -> dict[str, dict[str, set[str]]]:
    """Node → {"name": ..., "symbol": ..., "output": ..., "kind": ...} as queries and plan reach them."""
    out: dict[str, dict[str, set[str]]] = {}
    for s, p, o in triples:
        if not isinstance(o, Lit) or s.startswith("_:"):
            continue
        space = {SKOS.notation: "name", SKOS.altLabel: "name", RDFS.label: "name",
                 RKG.symbol: "symbol", RKG.output: "output", RKG.kindName: "kind"}.get(p)
        if space == "name":   # (and as NFKC reads it: U+2113 "ℓightgbm" is lightgbm to the eye: hostile round 9, 032)
            out.setdefault(s, {}).setdefault(space, set()).update({slug(o.lexical), slug(_nfkc(o.lexical))})
        elif space:
            out.setdefault(s, {}).setdefault(space, set()).add(o.lexical)
    return out


def _nfkc(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKC", text)


def _named_kinds(triples: list[Triple]) -> set[str]:
    """Nodes that a query reaches by name: dimensions, their values and choices (entities)."""
    types: dict[str, set[str]] = {}
    for s, p, o in triples:
        if p == RDF.type and isinstance(o, str):
            types.setdefault(s, set()).add(o)
    return {s for s, ts in types.items()
            if ts & {RKG.Dimension} or any(t.startswith(str(RKG)) and t not in _UNNAMED for t in ts)}


_UNNAMED = {RKG.Rule, RKG.DefaultRule, RKG.ComparisonRule, RKG.Condition, RKG.Paper, RKG.Reference,
            RKG.Section, RKG.Fact, RKG.ComputeEstimate, RKG.Procedure, RKG.OrderedProcedure,
            RKG.ScoringModel, RKG.Formula, RKG.Constant, RKG.Strength}


def _collisions(bundled: list[Triple], extension: list[Triple]) -> Iterator[tuple[str, str]]:
    taken: dict[tuple[str, str], str] = {}
    named = _named_kinds(bundled)
    for s, spaces in _names(bundled).items():
        for space, names in spaces.items():
            if space != "name" or s in named:
                for name in names | ({local_name(s)} if space == "name" else set()):
                    taken.setdefault((space, name), s)
    named_ext = _named_kinds(extension)
    for s, spaces in sorted(_names(extension).items()):
        for space, names in sorted(spaces.items()):
            if space == "name" and s not in named_ext:
                continue
            for name in sorted(names | ({local_name(s)} if space == "name" else set())):
                other = taken.get((space, name))
                if other and other != s:
                    what = {"name": "the name", "symbol": "the constant symbol", "output": "the output",
                            "kind": "the kind name"}[space]
                    yield (s, f"{shorten(s)} takes {what} {name!r} of bundled {shorten(other)}: choose another name")


#: Where a paper gives its arXiv id or DOI: as such, as a ``dcterms:identifier`` (``arXiv:...``,
#: ``doi:...``) or as its URL (``https://arxiv.org/abs/...``, ``https://doi.org/...``).
#: Links any node may have, read as a paper's identifiers only on a paper (a rule's rdfs:seeAlso to
#: the arXiv page of the paper it cites is no copy of that paper; hostile round 9, 042, 043).
_LINKS = ("http://purl.org/dc/terms/bibliographicCitation", "http://www.w3.org/2004/02/skos/core#exactMatch",
          "http://www.w3.org/2004/02/skos/core#closeMatch", "http://www.w3.org/2000/01/rdf-schema#seeAlso")
_ID_PROPS = (RKG.arxiv, RKG.doi, "http://purl.org/dc/terms/identifier", RKG.url,
             "http://www.w3.org/2002/07/owl#sameAs", *_LINKS)   # (sameAs: the same paper by another IRI: hostile 7, 079)
_ARXIV = re.compile(r"(?:arxiv:|(?:https?://)?(?:[a-z0-9-]+\.)*arxiv\.org/(?:abs|pdf|html|format)/|"
                    r"(?:(?:https?://)?(?:[a-z0-9-]+\.)*doi\.org/|doi:)?10\.48550/arxiv\.)"
                    r"(?P<id>[^\s]+?)(?:v\d+)?(?:\.pdf)?$")
_DOI = re.compile(r"(?:(?:https?://)?(?:[a-z0-9-]+\.)*doi\.org/|doi:)?(?P<id>10\.\d{4,9}/\S+)$")
#: A new-style arXiv id or a DOI as the last part of any URL's path (huggingface.co/papers/ID).
_ANY_ARXIV = re.compile(r"^(?:https?://)?[^/]+/(?:[^/]+/)*(?P<id>\d{4}\.\d{4,5})(?:v\d+)?(?:\.pdf)?$")
_ANY_DOI = re.compile(r"^(?:https?://)?[^/]+/(?:[^/]+/)*?(?P<id>10\.\d{4,9}/\S+)$")
#: What spelling adds around an identifier: a space after ``arXiv:`` or ``doi:``, a trailing
#: slash, a query string or a fragment (hostile round 5, 088).
_LOOSE = (re.compile(r"^(arxiv|doi)\s*:\s*"), re.compile(r"[?#].*$|/+$"))


def paper_key(p: str, value: str) -> str | None:
    """What identifies the paper a value of ``p`` names, whatever its spelling: its arXiv id
    (no version, no prefix) or its DOI (lowercase), or None.

    >>> [paper_key(RKG.arxiv, v) for v in ("2001.08361", "arXiv:2001.08361v2", "https://arxiv.org/abs/2001.08361v1")]
    ['arxiv:2001.08361', 'arxiv:2001.08361', 'arxiv:2001.08361']
    >>> paper_key(RKG.doi, "10.48550/arXiv.2001.08361"), paper_key(RKG.doi, "https://doi.org/10.3115/V1/D14-1179")
    ('arxiv:2001.08361', 'doi:10.3115/v1/d14-1179')
    >>> sorted({paper_key(RKG.url, v) for v in ("https://arxiv.org/abs/2001.08361/", "https://export.arxiv.org/abs/2001.08361",
    ...         "arxiv.org/pdf/2001.08361v3.pdf", "https://arxiv.org/abs/2001.08361?context=cs")} | {paper_key(RKG.arxiv, "arXiv: 2001.08361")})
    ['arxiv:2001.08361']
    >>> {paper_key(RKG.doi, v) for v in ("doi: 10.3115/v1/D14-1179", "https://www.doi.org/10.3115/v1/d14-1179/")}
    {'doi:10.3115/v1/d14-1179'}

    Hostile round 6 (040-044): arXiv's html path, another host naming the id, a category after
    it, invisible characters inside it, a percent-encoded DOI, ``urn:doi:`` and ``info:doi/``::

    >>> sorted({paper_key(RKG.url, v) for v in ("https://arxiv.org/html/2001.08361v1", "huggingface.co/papers/2001.08361",
    ...         "https://www.alphaxiv.org/abs/2001.08361", "https://arxiv.org/abs/\u200b2001.08361")}
    ...        | {paper_key(RKG.arxiv, "arXiv:2001.08361 [cs.LG]"), paper_key(RKG.arxiv, "arXiv:\u20602001.08361")})
    ['arxiv:2001.08361']
    >>> {paper_key(RKG.url, v) for v in ("https://doi.org/10.1145%2F2939672.2939785", "urn:doi:10.1145/2939672.2939785",
    ...                                  "info:doi/10.1145/2939672.2939785")}
    {'doi:10.1145/2939672.2939785'}

    Hostile round 7 (071-073): ``arXiv.`` before the id, fullwidth digits, a U+2010 hyphen::

    >>> {paper_key(RKG.arxiv, "arXiv.2207.08815"), paper_key(RKG.arxiv, "arXiv:\uff12\uff12\uff10\uff17.08815")}
    {'arxiv:2207.08815'}
    >>> paper_key(RKG.doi, "10.3115/v1/D14\u20101179")
    'doi:10.3115/v1/d14-1179'

    Hostile round 8 (047, 048): the prefix and the identifier parted by a space, no colon::

    >>> paper_key(RKG.doi, "DOI 10.1145/2939672.2939785"), paper_key(RKG.arxiv, "arXiv 1603.02754")
    ('doi:10.1145/2939672.2939785', 'arxiv:1603.02754')
    """
    import unicodedata
    from urllib.parse import unquote

    text = unicodedata.normalize("NFKC", unquote(value))    # fullwidth digits and colons (hostile round 7, 072)
    text = "".join("-" if unicodedata.category(ch) == "Pd" else ch for ch in text   # U+2010 and the other dashes (073)
                   if not ch.isspace() and unicodedata.category(ch) != "Cf").lower()
    text = re.sub(r"^arxiv\.?(?=\d{4}\.\d)", "arxiv:", text)    # arXiv.2207.08815 (071), "arXiv 1603.02754" (hostile 8, 048)
    text = re.sub(r"^doi(?=10\.\d)", "doi:", text)                       # "DOI 10.1145/…" (hostile 8, 047)
    text = re.sub(r"\[[a-z-]+(?:\.[a-z-]+)?\]$", "", text)               # arXiv:2001.08361 [cs.LG]
    text = re.sub(r"^(?:urn:doi:|info:doi/)", "doi:", text)
    text = text.translate(_SLASHES).rstrip(".,;:")   # U+2215 and the other slashes, a reference list's full stop (hostile 9)
    text = _LOOSE[1].sub("", _LOOSE[0].sub(r"\1:", text))
    if p == RKG.arxiv and not text.startswith(("arxiv:", "http")) and "arxiv.org/" not in text:
        text = "arxiv:" + text
    if m := _ARXIV.match(text):
        return "arxiv:" + m["id"]
    if m := _DOI.match(text):
        return "doi:" + m["id"]
    if m := _ANY_ARXIV.search(text):   # another host that names the paper by its arXiv id
        return "arxiv:" + m["id"]
    if m := _ANY_DOI.search(text):
        return "doi:" + m["id"]
    if p == _CITATION and (m := _IN_TEXT.search(value.translate(_SLASHES))):   # a whole reference: the DOI or arXiv id in it
        return paper_key(RKG.doi if m["doi"] else RKG.arxiv, (m["doi"] or m["arxiv"]).rstrip(".,;:"))
    return None


#: Slashes a DOI may be spelt with (NFKC keeps U+2215 and U+2044; hostile round 9, 040).
_SLASHES = str.maketrans({"\u2215": "/", "\u2044": "/", "\u29f8": "/", "\uff0f": "/"})
#: A reference as text (``dcterms:bibliographicCitation``): its DOI or arXiv id anywhere in it (hostile round 9, 042).
_CITATION = "http://purl.org/dc/terms/bibliographicCitation"
_IN_TEXT = re.compile(r"(?i)(?P<doi>10\.\d{4,9}/\S+)|arxiv[:. ]\s*(?P<arxiv>\d{4}\.\d{4,5})")


def _same_papers(bundled: list[Triple], extension: list[Triple]) -> Iterator[tuple[str, str]]:
    """An extension paper whose arXiv id, DOI or title another paper (bundled, or earlier in
    the extensions) has: the same evidence under a new id would count twice."""
    seen: dict[str, str] = {}
    for s, p, o in bundled:
        if p in _ID_PROPS + _TITLE_PROPS and isinstance(o, (Lit, str)) and (key := _key(p, _text(o))):
            seen.setdefault(key, s)
    # (by subject: the order the triples arrive in is not the file's, so the copy named is always the later IRI)
    papers = {t.s for t in extension if t.p == RDF.type and t.o == RKG.Paper}
    for s, p, o in sorted((t for t in extension if t.p in _ID_PROPS + _TITLE_PROPS
                           and (t.p not in _LINKS or t.s in papers)), key=lambda t: (t.s, t.p, _text(t.o))):
        key = _key(p, _text(o)) if isinstance(o, (Lit, str)) else None
        other = seen.setdefault(key, s) if key else s
        if other != s:
            kind, _, name = key.partition(":")
            what = {"arxiv": f"the arXiv id {name}", "doi": f"the DOI {name}"}.get(kind, f"the title {_text(o)!r}")
            yield (s, f"{shorten(s)} has {what} of paper {shorten(other)}: the same paper under a new id would "
                      f"count as evidence twice; cite {shorten(other)} instead")


#: Where a paper gives its title: a copy with no identifier is still the same paper (hostile round 8, 046).
_TITLE_PROPS = ("http://purl.org/dc/terms/title", RKG.publishedTitle)


def _key(p: str, value: str) -> str | None:
    return title_key(value) if p in _TITLE_PROPS else paper_key(p, value)


def title_key(value: str) -> str | None:
    """A title as its letters and digits, casefolded after NFKC (punctuation, spacing, case and
    fullwidth forms are spelling); None for a title too short to name one paper.

    >>> title_key("XGBoost: A Scalable Tree Boosting System") == title_key("xgboost - a scalable  tree-boosting system.")
    True
    >>> title_key("Notes") is None
    True
    """
    import unicodedata

    text = "".join(c for c in unicodedata.normalize("NFKC", value).casefold() if c.isalnum())
    return "title:" + text if len(text) >= 16 else None


def _text(o) -> str:
    return o.lexical if isinstance(o, Lit) else o
