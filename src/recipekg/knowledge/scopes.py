"""Every name a query resolves means one node where it is resolved.

A query reaches a node by name in one of three scopes, each as the compiler indexes it: a
**choice** (``explain adamw``: every node of a kind, ``rule_index.choices``), a **value of a
dimension** (``data = tabular``: the dimension's value class, ``dimensions.*.values``) and a
**dimension** (``rows``, ``n-samples``). A node answers to its id (``skos:notation``, else its
local name) and its aliases (its label and each ``skos:altLabel``, as :func:`recipekg.names.slug`
spells them; a dimension's alternative labels as written). Where two nodes of one scope answer
to one name the index keeps one of them silently, so the KB may not hold such a pair: the
bundled KB has none (``recipekg validate``), and an extension node that would make one is
refused at its own line, naming the other node.

    >>> from recipekg.knowledge.compiler import Index
    >>> from recipekg.knowledge.rdfio import Triple, Lit
    >>> from recipekg.knowledge.terms import KB, RDF, RDFS, RKG, SKOS
    >>> s = lambda text: Lit(text, "xsd:string")
    >>> ix = Index([Triple(RKG.Optimizer, RKG.kindName, s("optimizer")),
    ...             Triple(KB.one, RDF.type, RKG.Optimizer), Triple(KB.one, RDFS.label, s("One")),
    ...             Triple(KB.two, RDF.type, RKG.Optimizer), Triple(KB.two, RDFS.label, s("Two")),
    ...             Triple(KB.one, SKOS.altLabel, s("Shared Opt")), Triple(KB.two, SKOS.altLabel, s("shared-opt"))])
    >>> [m for _, m in ambiguous_names(ix, [KB.one, KB.two])]
    ["kb:two answers to the name 'shared-opt' as kb:one does (a choice): a query would reach only one of them; give kb:two another name"]
"""

from __future__ import annotations

import re

from recipekg.knowledge.terms import RDFS, RKG, SKOS, local_name, shorten
from recipekg.names import slug


def ambiguous_names(ix, order: list[str], bundled: frozenset = frozenset()):
    """``(node, message)`` for each node (in ``order``: the first of a pair keeps the name) that
    answers to a name another node of one of its scopes answers to. A pair of an extension
    node and a ``bundled`` one is left to :mod:`recipekg.knowledge.extensions`, which refuses
    every bundled name whatever its scope."""
    from recipekg.query.lean import KEYWORDS

    rank = {s: i for i, s in enumerate(order)}
    said = set()
    for root in (c for c in ix.spo if (ix.text(c, RKG.kindName) or "").lower() in KEYWORDS):  # (hostile 5, 007)
        yield (root, f"{shorten(root)}'s kind name {ix.text(root, RKG.kindName)!r} is a word of the query language: "
                     f"'recommend {ix.text(root, RKG.kindName)} where ...' could never be read; give it another name")
    for scope, members in _scopes(ix):
        taken: dict[str, str] = {}
        for s in sorted(members, key=lambda s: (rank.get(s, len(rank)), s)):
            for name in sorted(_names(ix, s, dimension=scope == "a dimension")):
                if name.lower() in KEYWORDS and (s, name) not in said:  # (hostile round 5, 005: a dimension 'top')
                    said.add((s, name))
                    yield (s, f"{shorten(s)} answers to the name {name!r}, a word of the query language: a query "
                              f"could never name it; give {shorten(s)} another name")
                other = taken.setdefault(name, s)
                if other != s and (s in bundled or other not in bundled) and (s, other) not in said:
                    said.add((s, other))
                    yield (s, f"{shorten(s)} answers to the name {name!r} as {shorten(other)} does ({scope}): "
                              f"a query would reach only one of them; give {shorten(s)} another name")


def _scopes(ix):
    """``(what, nodes)`` of each scope a name is resolved in."""
    roots = [c for c in ix.spo if ix.text(c, RKG.kindName)]
    yield "a choice", {i for root in roots for i in ix.instances_of(root)}
    yield "a dimension", set(ix.instances(RKG.Dimension))
    for d in ix.instances(RKG.Dimension):
        value_class = ix.one(d, RKG.valueClass)
        if value_class:
            yield f"a value of {shorten(d)}", set(ix.instances_of(value_class))


def _names(ix, s: str, dimension: bool) -> set[str]:
    label = ix.text(s, RDFS.label)
    if label is None:
        return set()  # not a node the compiler names (validate reports the missing label)
    own = ix.text(s, SKOS.notation) or local_name(s)
    if dimension:
        return {own, *ix.texts(s, SKOS.altLabel)}
    return {own, slug(label), *(slug(a) for a in ix.texts(s, SKOS.altLabel))}


#: The longest label, alias or notation accepted (the bundled KB's longest is under 200).
MAX_NAME = 500


def label_problems(ix):
    """``(node, message)`` for an IRI described as two things: a node with two labels in one
    language (two bundled conditions shared ``cond:params-le-13b``, one labelled "params <= 13B"
    and one "3B < params <= 13B", and only an extension's load said so; "Optimizer"@en beside
    "Optimierer"@de is one thing), and two nodes of one class with one label."""
    from recipekg.knowledge.rdfio import Lit

    def short(iri: str) -> str:
        return iri if iri.startswith("_:") else shorten(iri)

    for s in sorted(ix.spo):
        for p in (RDFS.label, SKOS.altLabel, SKOS.notation):
            long = next((t for t in ix.texts(s, p) if len(t) > MAX_NAME), None)
            if long is not None:   # (a 4 MB label was printed whole by vocab and every answer: hostile round 9, 027)
                yield (s, f"{short(s)}'s {shorten(p)} has {len(long):,} characters: a name is at most {MAX_NAME}")
        by_language: dict = {}
        for o in ix.all(s, RDFS.label):
            if isinstance(o, Lit):
                by_language.setdefault(o.lang, set()).add(o.lexical)
        labels = next((sorted(x) for x in by_language.values() if len(x) > 1), None)
        if labels:
            yield (s, f"{short(s)} has two labels, {labels[0]!r} and {labels[1]!r}: one IRI names one thing; "
                      f"give the other its own IRI")
    seen: dict[tuple[str, str], str] = {}
    for cls, members in sorted(ix.by_type.items()):
        for s in sorted(set(members)):
            for label in ix.texts(s, RDFS.label):
                other = seen.setdefault((cls, label.casefold()), s)
                if other != s:
                    yield (s, f"{short(s)} and {short(other)} are both {short(cls)} labelled {label!r}")


#: Default-ignorable code points outside category Cf, which print as nothing (Unicode's
#: Default_Ignorable_Code_Point): the combining grapheme joiner, Hangul fillers, Khmer vowels
#: inherent, Mongolian variation selectors, variation selectors, musical formatting, tags' block.
IGNORABLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
                        "\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
                        "\ufdd0-\ufdef\ufffe\uffff]")   # (and the noncharacters, never text: hostile round 8, 018)


def format_character(text: str) -> str | None:
    """The first format character (Unicode category Cf: invisible separators, joiners, tag
    characters, bidirectional marks) or other default-ignorable character (U+034F, which is
    printable: hostile round 8, 060) in ``text``, or None (hostile round 7, 081-083).

    >>> format_character("XG\u034fBoost"), format_character("XG\u2063Boost"), format_character("XGBoost")
    ('\u034f', '\u2063', None)
    >>> format_character("Team\ufffeX")
    '\ufffe'
    """
    import unicodedata

    return next((ch for ch in text if unicodedata.category(ch) == "Cf" or IGNORABLE.match(ch)), None)
