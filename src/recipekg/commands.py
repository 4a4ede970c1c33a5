"""Every command of the command line as a method of the loaded knowledge base: the same data
its ``--format json`` prints, as Python objects that a notebook shows as HTML
(:mod:`recipekg.notebook`). :class:`recipekg.api.KnowledgeBase` has them all; the click
commands call them, so the two cannot differ.

    >>> kb.plan("params = 7B and hardware = h100 and gpus = 8")["fit"]["fits"]
    True
    >>> kb.recommend("fix", "symptom = loss-spike", top=1)["results"][0]["id"]
    'rollback-checkpoint'
    >>> kb.explain("vit", "data = images and samples = 3000")["rank"]
    3
    >>> kb.recipe("data = tabular and rows = 30k")["context"]["architecture"]
    'gradient-boosted-trees'
    >>> kb.papers()[0]["id"], kb.paper("hoffmann2022")["paper"]["year"]
    ('reference', 2022)
    >>> kb.cite(choice="lightgbm")[0]["id"], kb.cite(paper="ke2017", format="bibtex").split("{")[0]
    ('ke2017', '@inproceedings')
    >>> kb.validate(shacl=False), kb.audit()["scope"], kb.stats()["rules"] > 0, kb.export("ntriples")[:1]
    ([], 'bundled KB', True, b'<')

========================  ===========================================================
command                   method
========================  ===========================================================
``query``                 ``kb.query(text)`` (a list of answers)
``recommend``, ``explain``,  ``kb.recommend(kind, constraints, top)``, ``kb.explain(choice, constraints)``,
``plan``, ``recipe``      ``kb.plan(constraints)``, ``kb.recipe(constraints, emit=None)``
``stats``, ``vocab``      ``kb.stats()``, ``kb.vocab(dimension=None)``
``papers``, ``paper``     ``kb.papers()``, ``kb.paper(paper_id)``
``cite``                  ``kb.cite(statement=, choice=, rule=, paper=, top=, format="csl-json")``
``audit``, ``validate``   ``kb.audit(files=())``, ``kb.validate(files=(), shacl=True)``
``export``, ``sparql``    ``kb.export(format="turtle")``, ``kb.to_sparql(text)``
``load``                  ``kb.load_into(endpoint, graph=None, ...)``
========================  ===========================================================

``serve``, ``shell`` and ``mcp`` run servers and prompts, not answers: :func:`recipekg.web.app.create_app`
(kb) is the web app, :class:`recipekg.agent.AgentTools` (kb) the MCP tools.
"""

from __future__ import annotations

from recipekg.notebook import Report, Rows


def _where(statement: str, constraints: str) -> str:
    return f"{statement} where {constraints}" if constraints.strip() else statement


class Commands:
    """The commands of the CLI, on a loaded knowledge base (mixed into ``KnowledgeBase``)."""

    def recommend(self, kind: str, constraints: str = "", top: int | None = None):
        """``recommend KIND where CONSTRAINTS [top N]``'s answer."""
        (answer,) = self.query(_where(f"recommend {kind}", constraints) + (f" top {int(top)}" if top else ""))
        return answer

    def explain(self, choice: str, constraints: str = ""):
        """``recipekg explain CHOICE where CONSTRAINTS``'s answer."""
        from recipekg.names import quote_choice

        (answer,) = self.query(_where(f"explain {quote_choice(choice)}", constraints))
        return answer

    def plan(self, constraints: str = ""):
        """``recipekg plan where CONSTRAINTS``'s answer."""
        (answer,) = self.query(_where("plan", constraints))
        return answer

    def recipe(self, constraints: str = "", emit: str | None = None):
        """``recipekg recipe where CONSTRAINTS``'s answer; with ``emit`` (``deepspeed``,
        ``hf-peft``) the configuration ``--emit`` writes."""
        (answer,) = self.query(_where("recipe", constraints))
        if emit is None:
            return answer
        from recipekg.recipe.emit import emitted

        return Report(emitted(answer, emit), "config")

    def papers(self) -> Rows:
        """``recipekg papers --format json``: every paper with the claims citing it, most cited first."""
        from recipekg.cite.graph import CiteGraph

        snap, graph = self.snap, CiteGraph(self.snap)
        rows = []
        for pid, claims, entities in graph.ranked_papers():
            paper = snap["papers"][pid]
            row = {"id": pid, "claims": claims, "roles": graph.role_counts(pid), "entities": entities,
                   "year": paper["year"], "title": paper["title"], "url": paper["url"]}
            if paper.get("origin"):   # (an extension's paper, or claims of one citing a bundled paper: hostile 8, 049, 046)
                row["origin"] = paper["origin"]
            if added := graph.extension_claims(pid):
                row["claims_from_extensions"] = added
            rows.append(row)
        return Rows(rows, "papers")

    def paper(self, paper_id: str) -> Report:
        """``recipekg paper ID --format json``: every claim citing the paper, and the choices."""
        from recipekg.cite.graph import CiteGraph

        return Report(CiteGraph(self.snap).backlinks(paper_id), "paper")

    def cite(self, statement: str | None = None, choice: str | None = None, rule: str | None = None,
             paper: str | None = None, top: int | None = None, format: str = "csl-json"):
        """``recipekg cite``: the papers behind exactly one of a statement's answer, a choice, a
        rule or a paper; CSL-JSON as a list of items, any other format as its text."""
        from recipekg.cite import bundles
        from recipekg.cite.formats import render
        from recipekg.errors import UsageError

        named = {"query": ("statement", statement), "choice": ("choice", choice), "rule": ("rule", rule),
                 "paper": ("paper", paper)}
        what, value = bundles.the_one(named)
        if top is not None and what != "query":
            raise UsageError("top goes with statement")
        text = render(bundles.bundle_of(self, what, value, top), format)
        if format != "csl-json":
            return text
        import json

        return Rows(json.loads(text), "citations")

    def audit(self, files=()) -> Report:
        """``recipekg audit [FILES] --format json``: links by role, claims on the reference
        alone, gaps; of ``files``' own claims when given (the bundled KB's otherwise)."""
        from recipekg.knowledge.provenance import audit_files

        return Report(audit_files(files), "audit")

    def validate(self, files=(), shacl: bool = True) -> Rows:
        """``recipekg validate``: the violations of this KB's files merged with ``files``, each
        ``{"file", "line", "message"}`` (none: an empty list)."""
        from pathlib import Path

        from recipekg.knowledge.resources import shapes_file
        from recipekg.knowledge.validate import validate

        found = validate(self.files + [Path(f) for f in files], shapes=shapes_file() if shacl else None)
        return Rows([{"file": v.file, "line": v.line, "message": v.message} for v in found], "violations")

    def export(self, format: str = "turtle") -> bytes:
        """``recipekg export --format FORMAT``: the merged graph, as bytes."""
        from recipekg.knowledge.export import export

        return export(self.files, format)

    def load_into(self, endpoint: str, graph: str | None = None, *, user: str | None = None,
                  password: str | None = None, protocol: str = "update", replace: bool = False, chunk: int = 500,
                  timeout: float = 300.0) -> dict:
        """``recipekg load``: the export put into a SPARQL server; what was sent."""
        from recipekg.sparql.load import load_endpoint

        count = load_endpoint(endpoint, self.files, graph=graph, user=user, password=password, protocol=protocol,
                              replace=replace, chunk=chunk, timeout=timeout)
        return Report({"triples": count, "endpoint": endpoint, "graph": graph}, "load")
