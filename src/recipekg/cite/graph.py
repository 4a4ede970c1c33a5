"""The citation graph: papers ↔ claims ↔ choices, as a networkx view of the snapshot.

Nodes are IRIs with a ``kind`` — ``paper``, the four kinds of claim (``rule``, ``formula``,
``constant``, ``fact``) and ``choice`` (an entity a claim names or that has papers of its
own). Edges run from what depends to what it stands on or leads to, each with its ``rels``:

    claim  → paper     cites               (prov:wasDerivedFrom, every link whatever its role;
                                          the edge keeps the role and where of the typed citation)
    rule   → choice    recommends / advises against
    fact   → choice    about / on hardware
    const  → choice    applies to
    formula → constant uses
    choice → paper     introduced in (rkg:originalPaper) / source (the entity's own provenance)

Backlinks read the graph backwards (which claims cite a paper and which choices they lead
to); :meth:`CiteGraph.rests_on` reads it forwards from a choice's claims, directly or through
the formulas that use its constants::

    >>> cg = CiteGraph(kb.snap)
    >>> [c["id"] for c in cg.backlinks("grinsztajn2022")["claims"]][:2]
    ['threshold-tabular-10k-50k-neural', 'threshold-tabular-10k-50k-trees']

networkx is imported here only, when a graph is built — never on the query path.
"""

from __future__ import annotations

from collections import Counter

from recipekg.errors import VocabularyError, closest

CLAIM_KINDS = ("rule", "formula", "constant", "fact")
SNAP_KEYS = {"rule": "rules", "formula": "formulas", "constant": "constants", "fact": "facts"}


def claims(snap: dict):
    """``(kind, iri, claim)`` for every rule, formula, constant and fact of the snapshot."""
    for kind in CLAIM_KINDS:
        for iri, claim in sorted(snap[SNAP_KEYS[kind]].items()):
            yield kind, iri, claim


def _named(kind: str, claim: dict) -> list[tuple[str, str]]:
    """The choices a claim names: ``(iri, relation)``."""
    if kind == "rule":
        return [(t, "recommends") for t in claim["recommends"]] + [(t, "advises against") for t in claim["against"]]
    if kind == "fact":
        return [(t, "about") for t in claim["about"]] + (
            [(claim["hardware"], "on hardware")] if claim.get("hardware") else [])
    if kind == "constant":
        return [(t, "applies to") for t in claim["applies_to"]]
    return []


def build(snap: dict):
    """The DiGraph of the snapshot (see the module docstring for its nodes and edges)."""
    import networkx as nx

    g = nx.DiGraph()
    nodes, papers = snap["nodes"], snap["papers"]

    def edge(u: str, v: str, rel: str) -> None:
        if g.has_edge(u, v):
            g[u][v]["rels"] = tuple(sorted(set(g[u][v]["rels"]) | {rel}))
        else:
            g.add_edge(u, v, rels=(rel,))

    def choice(iri: str) -> str:
        if iri not in g:
            node = nodes.get(iri, {})
            g.add_node(iri, kind="choice", id=node.get("id", iri.rsplit("/", 1)[-1]),
                       label=node.get("label", iri))
        return iri

    for pid, p in papers.items():
        g.add_node(p["iri"], kind="paper", id=pid, label=p["title"])
    claimed = set()
    for kind, iri, claim in claims(snap):
        g.add_node(iri, kind=kind, id=claim["id"], label=claim["label"], extension=bool(claim.get("origin")))
        claimed.add(iri)
        citations = claim.get("citations") or {}
        for pid in claim["sources"]:
            if pid in papers:
                edge(iri, papers[pid]["iri"], "cites")
                cited = citations.get(pid) or {}
                g[iri][papers[pid]["iri"]].update(role=cited.get("role"), where=cited.get("where"))
    for kind, iri, claim in claims(snap):
        for target, rel in _named(kind, claim):
            if target not in claimed:
                edge(iri, choice(target), rel)
        if kind == "formula":
            for c in claim["constants"]:
                edge(iri, c, "uses")
    paper_iris = {p["iri"] for p in papers.values()}
    for iri, node in sorted(nodes.items()):
        if iri in claimed or iri in paper_iris:
            continue
        if node["papers"] or node["sources"] or node["kinds"]:
            choice(iri)
        for pid in node["papers"]:
            edge(iri, papers[pid]["iri"], "introduced in")
        for pid in node["sources"]:
            if pid in papers:
                edge(iri, papers[pid]["iri"], "source")
    return g


class CiteGraph:
    """Questions about who cites what, answered from :func:`build`'s graph."""

    def __init__(self, snap: dict):
        self.snap = snap
        self.g = build(snap)
        self._paper_iri = {pid: p["iri"] for pid, p in snap["papers"].items()}
        self._by_kind: dict[str, dict[str, str]] = {}
        for iri, data in sorted(self.g.nodes(data=True)):
            self._by_kind.setdefault(data["kind"], {}).setdefault(data["id"], iri)

    # ------------------------------------------------------------------ lookups

    def ids(self, kind: str) -> dict[str, str]:
        """id → IRI of every node of ``kind`` (``paper``, ``rule``, ..., ``choice``)."""
        return self._by_kind.get(kind, {})

    def resolve(self, kind: str, name: str) -> str:
        """The IRI of the ``kind`` node called ``name``; unknown → error with suggestions.

        Choices are also found by alias (``lgbm``, ``"8-bit Adam"``).
        """
        ids = self.ids(kind)
        if name in ids:
            return ids[name]
        if kind == "choice":
            from recipekg.knowledge.compiler import slug

            key = slug(name)
            for iri in ids.values():
                node = self.snap["nodes"].get(iri, {})
                if key == node.get("id") or key in node.get("aliases", ()):
                    return iri
        what = {"choice": "an entity of the KB (architecture, optimizer, approach, technique, fix, hardware)",
                "paper": "a paper id of the bibliography (recipekg papers lists them)"}.get(kind, f"a {kind} id of the KB")
        raise VocabularyError(f"unknown {kind} '{name}'", expected=[what], suggestions=closest(name, ids))

    def node(self, iri: str) -> dict:
        data = self.g.nodes[iri]
        return {"kind": data["kind"], "id": data["id"], "label": data["label"], "iri": iri}

    def claim(self, iri: str) -> dict:
        """A claim's node plus its text, caveat and section path."""
        kind = self.g.nodes[iri]["kind"]
        c = self.snap[SNAP_KEYS[kind]][iri]
        section = self.snap["sections"].get(c["section"], {}).get("path")
        return {**self.node(iri), "text": c["text"], "caveat": c.get("caveat"), "section": section}

    # ------------------------------------------------------------------ questions

    def papers_of(self, iri: str) -> list[str]:
        """The paper ids ``iri`` cites directly, in the order of the snapshot."""
        return [self.g.nodes[v]["id"] for v in self.g.successors(iri) if self.g.nodes[v]["kind"] == "paper"]

    def choices_of(self, claim_iri: str) -> list[dict]:
        """The choices a claim leads to, each with its relation(s)."""
        return [{**self.node(v), "rels": list(self.g[claim_iri][v]["rels"])}
                for v in self.g.successors(claim_iri) if self.g.nodes[v]["kind"] == "choice"]

    def backlinks(self, pid: str) -> dict:
        """Every claim citing paper ``pid`` (with the choices it leads to) and every entity
        that names it as original paper or source."""
        iri = self._paper_iri.get(pid) or self.resolve("paper", pid)
        claims_, entities = [], []
        for u in self.g.predecessors(iri):
            kind = self.g.nodes[u]["kind"]
            if kind in CLAIM_KINDS:
                cited = self.g[u][iri]
                claims_.append({**self.claim(u), "role": cited.get("role"), "where": cited.get("where"),
                                "choices": self.choices_of(u)})
            else:
                entities.append({**self.node(u), "rels": list(self.g[u][iri]["rels"])})
        order = {k: i for i, k in enumerate(CLAIM_KINDS)}
        claims_.sort(key=lambda c: (order[c["kind"]], c["id"]))
        entities.sort(key=lambda e: e["id"])
        return {"paper": self.snap["papers"][self.g.nodes[iri]["id"]], "claims": claims_, "entities": entities}

    def claim_counts(self) -> Counter:
        """paper id → number of claims citing it (papers nobody cites count 0)."""
        counts = Counter({pid: 0 for pid in self._paper_iri})
        for pid, iri in self._paper_iri.items():
            counts[pid] = sum(1 for u in self.g.predecessors(iri) if self.g.nodes[u]["kind"] in CLAIM_KINDS)
        return counts

    def extension_claims(self, pid: str) -> int:
        """How many of the claims citing paper ``pid`` an extension added (hostile round 8, 046)."""
        iri = self._paper_iri[pid]
        return sum(1 for u in self.g.predecessors(iri)
                   if self.g.nodes[u]["kind"] in CLAIM_KINDS and self.g.nodes[u].get("extension"))

    def role_counts(self, pid: str) -> dict[str, int]:
        """How the claims citing paper ``pid`` use it: role → number of claims (sorted by role)."""
        iri = self._paper_iri[pid]
        counts = Counter(self.g[u][iri].get("role") or "untyped" for u in self.g.predecessors(iri)
                         if self.g.nodes[u]["kind"] in CLAIM_KINDS)
        return dict(sorted(counts.items()))

    def entity_counts(self) -> Counter:
        """paper id → number of entities naming it as original paper or source."""
        return Counter({pid: sum(1 for u in self.g.predecessors(iri) if self.g.nodes[u]["kind"] == "choice")
                        for pid, iri in self._paper_iri.items()})

    def ranked_papers(self) -> list[tuple[str, int, int]]:
        """``(paper id, claims citing it, entities naming it)``, most cited first, then by id."""
        claims, entities = self.claim_counts(), self.entity_counts()
        return sorted(((pid, claims[pid], entities[pid]) for pid in self._paper_iri),
                      key=lambda row: (-row[1], -row[2], row[0]))

    def claims_naming(self, choice_iri: str) -> list[dict]:
        """The claims that name a choice (rules for and against it, facts and constants about it)."""
        out = [{**self.claim(u), "rels": list(self.g[u][choice_iri]["rels"])}
               for u in self.g.predecessors(choice_iri) if self.g.nodes[u]["kind"] in CLAIM_KINDS]
        return sorted(out, key=lambda c: (CLAIM_KINDS.index(c["kind"]), c["id"]))

    def rests_on(self, choice_iri: str) -> list[dict]:
        """The papers a choice rests on, each once, with the ways it reaches them.

        Directly: the choice's original papers and sources, and the papers of every claim
        naming it. Through formulas: the papers of each formula that uses a constant about
        the choice. Each paper comes as ``{"paper": id, "via": [{"kind", "id", "rels"}]}``,
        in the order direct → claims → formulas.
        """
        g = self.g
        found: dict[str, list[dict]] = {}

        def reach(via: dict, papers: list[str]) -> None:
            for pid in papers:
                found.setdefault(pid, [])
                if via not in found[pid]:
                    found[pid].append(via)

        for v in g.successors(choice_iri):
            if g.nodes[v]["kind"] == "paper":
                reach({"kind": "choice", "id": g.nodes[choice_iri]["id"], "rels": list(g[choice_iri][v]["rels"])},
                      [g.nodes[v]["id"]])
        naming = [u for u in g.predecessors(choice_iri) if g.nodes[u]["kind"] in CLAIM_KINDS]
        for u in sorted(naming, key=lambda u: (CLAIM_KINDS.index(g.nodes[u]["kind"]), g.nodes[u]["id"])):
            reach({"kind": g.nodes[u]["kind"], "id": g.nodes[u]["id"], "rels": list(g[u][choice_iri]["rels"])},
                  self.papers_of(u))
        for c in naming:
            if g.nodes[c]["kind"] != "constant":
                continue
            for f in sorted(g.predecessors(c)):
                if g.nodes[f]["kind"] == "formula":
                    reach({"kind": "formula", "id": g.nodes[f]["id"], "rels": [f"uses {g.nodes[c]['id']}"]},
                          self.papers_of(f))
        return [{"paper": pid, "via": via} for pid, via in found.items()]
