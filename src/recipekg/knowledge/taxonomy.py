"""The ``skos:broader`` taxonomy's checks, in time linear in its links: no node is its own
ancestor, and no chain is deeper than :data:`MAX_DEPTH`. Every node's ancestors are compiled
into the snapshot (a choice's family, the values a condition on a broader value holds for), so
a chain of n nodes costs n²/2 entries: an extension with a 3,000-deep chain took minutes to
validate and load (held-out hostile round 13, h21), while the bundled KB's deepest chain is a
few levels.

    >>> from recipekg.knowledge.compiler import Index
    >>> from recipekg.knowledge.terms import BASE, SKOS
    >>> a, b, c = (BASE + "id/" + x for x in "abc")
    >>> ix = Index([(a, SKOS.broader, b), (b, SKOS.broader, a), (c, SKOS.broader, a)])
    >>> [m for _, m in broader_problems(ix)]
    ['skos:broader cycle: kb:a is its own ancestor', 'skos:broader cycle: kb:b is its own ancestor']
    >>> chain = Index([(f"{BASE}id/n{i}", SKOS.broader, f"{BASE}id/n{i + 1}") for i in range(MAX_DEPTH + 1)])
    >>> [m for _, m in broader_problems(chain)]  # doctest: +ELLIPSIS
    ['skos:broader chain 33 levels deep above kb:n0: at most 32 ...']
"""

from __future__ import annotations

from recipekg.knowledge.compiler import Index
from recipekg.knowledge.terms import SKOS

#: The deepest ``skos:broader`` chain the KB accepts (the bundled KB's is a few levels).
MAX_DEPTH = 32


def broader_problems(ix: Index):
    """``(subject, message)`` for each node on a cycle, then for the node at the bottom of each
    chain deeper than :data:`MAX_DEPTH`."""
    yield from _chain_problems(ix, SKOS.broader, "skos:broader", "every ancestor of every node is compiled, "
                                                                 "so a deep chain costs its square", cycles_too=True)
    from recipekg.knowledge.terms import DCTERMS, RKG

    # a section's path and its place under the reference are read up its whole chain (hostile round 9, 035:
    # `stats` took 129 s over a 20,000-deep one)
    yield from _chain_problems(ix, DCTERMS.isPartOf, "dcterms:isPartOf", "a section's path is read up its whole chain",
                               cycles_too=True)
    # a claim revised by a claim that it revises: neither is the newer view (hostile round 8, 043)
    yield from _chain_problems(ix, RKG.supersededBy, "rkg:supersededBy", "a revision is read up its chain",
                               cycles_too=True)


def hierarchy_problems(ix: Index):
    """``(subject, message)`` for the bottom of each ``rdfs:subClassOf`` or ``rdfs:subPropertyOf``
    chain deeper than :data:`MAX_DEPTH` (the bundled ontology's are two or three levels): the
    SHACL check follows such a chain by recursion, one call a level, and a chain of a thousand
    levels exhausts Python's stack (hostile round 5, 066), so a deep one is said, with its line,
    before that check runs.

    >>> from recipekg.knowledge.terms import BASE, RDFS
    >>> chain = Index([(f"{BASE}ns#C{i}", RDFS.subClassOf, f"{BASE}ns#C{i + 1}") for i in range(40)])
    >>> [m for _, m in hierarchy_problems(chain)]  # doctest: +ELLIPSIS
    ['rdfs:subClassOf chain 40 levels deep above rkg:C0: at most 32 ...']
    """
    from recipekg.knowledge.terms import RDFS

    for predicate, name in ((RDFS.subClassOf, "rdfs:subClassOf"), (RDFS.subPropertyOf, "rdfs:subPropertyOf")):
        yield from _chain_problems(ix, predicate, name, "the SHACL check follows it one call a level")


def _chain_problems(ix: Index, predicate, name: str, why: str, cycles_too: bool = False):
    links = {s: ix.iris(s, predicate) for s in ix.spo if ix.iris(s, predicate)}
    cyclic = _on_cycles(links)
    for s in links if cycles_too else ():
        if s in cyclic:
            yield (s, f"{name} cycle: {_short(s)} is its own ancestor")
    depth: dict[str, int] = {}
    above = {b for ups in links.values() for b in ups}  # (a chain is said once, at its bottom)
    for s in sorted(links):
        if s not in cyclic and s not in above and _depth(s, links, cyclic, depth) > MAX_DEPTH:
            yield (s, f"{name} chain {depth[s]} levels deep above {_short(s)}: at most {MAX_DEPTH} are "
                      f"accepted ({why})")


def _depth(start: str, broader: dict, cyclic: set, depth: dict) -> int:
    """The longest chain of ``skos:broader`` links above ``start`` (memoised, iterative)."""
    stack = [start]
    while stack:
        s = stack[-1]
        if s in depth:
            stack.pop()
            continue
        ups = [b for b in broader.get(s, ()) if b not in cyclic]
        missing = [b for b in ups if b not in depth]
        if missing:
            stack.extend(missing)
            continue
        depth[s] = 1 + max((depth[b] for b in ups), default=0) if ups else 0
        stack.pop()
    return depth[start]


def _on_cycles(broader: dict) -> set[str]:
    """The nodes that are their own ancestors."""
    return {s for component in cycles(broader) for s in component}


def cycles(graph: dict) -> list[list[str]]:
    """The strongly connected components of ``graph`` (node -> the nodes it links to) that hold
    a cycle: more than one node, or one linked to itself, each sorted (Tarjan's algorithm,
    iterative: a chain thousands of links long needs no recursion). tools/check_structure.py
    finds import cycles with it.

    >>> cycles({"a": ["b"], "b": ["a", "c"], "c": ["c"], "d": ["a"]})
    [['a', 'b'], ['c']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on, stack, found = set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            s, links = work[-1]
            b = next(links, None)
            if b is not None:
                if b not in index:
                    index[b] = low[b] = len(index)
                    stack.append(b)
                    on.add(b)
                    work.append((b, iter(sorted(graph.get(b, ())))))
                elif b in on:
                    low[s] = min(low[s], index[b])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[s])
            if low[s] == index[s]:
                component = []
                while True:
                    c = stack.pop()
                    on.discard(c)
                    component.append(c)
                    if c == s:
                        break
                if len(component) > 1 or s in graph.get(s, ()):
                    found.append(sorted(component))
    return sorted(found)


def _short(iri: str) -> str:
    from recipekg.knowledge.terms import shorten
    return shorten(iri) if not iri.startswith("_:") else iri
