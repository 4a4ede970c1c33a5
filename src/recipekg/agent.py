"""What an LLM agent can ask the knowledge base, without any protocol: the tools that
``recipekg mcp`` serves over the Model Context Protocol (:mod:`recipekg.cli.mcp_server`).

The answering tools (query, plan, explain, recipe) return the compact answer of ``--format
summary`` by default — the decision, key quantities with their units and the ids of the
sources, at most 8 KB (:mod:`recipekg.render.summary`) — and with ``detail=True`` the JSON
document the command line prints with ``--format json`` (every rule that fired, every
derivation, every source). Citations are CSL-JSON by default. The tools raise the project's
errors, whose text (with the caret) becomes the tool error.

    >>> tools = AgentTools(kb)
    >>> import json
    >>> json.loads(tools.query("recommend fix where symptom = loss-spike top 1"))["decision"]["pick"]["id"]
    'rollback-checkpoint'
    >>> json.loads(tools.explain("vit", "data = images and samples = 3000", detail=True))["choice"]["id"]
    'vit'
    >>> json.loads(tools.recipe("data = tabular and rows = 30k"))["context"]["regimes"]
    ['boosting']
    >>> len(tools.plan("params = 70B and hardware = a100 and gpus = 8")) <= 8192
    True
    >>> tools.plan("params = 7B and hardware = h10")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    recipekg.errors.VocabularyError: line 1, column 39: unknown hardware 'h10'...
"""

from __future__ import annotations

from recipekg.errors import UsageError
from recipekg.names import quote_choice
from recipekg.render.answers import render_answers

from recipekg.render.formats import names

#: The citation formats (the registry's), CSL-JSON first: the tools' default.
CITE_FORMATS = ("csl-json", *(n for n in names("citation") if n != "csl-json"))


class AgentTools:
    """The tools over one loaded :class:`recipekg.api.KnowledgeBase`."""

    def __init__(self, kb) -> None:
        self.kb = kb

    def query(self, statements: str, detail: bool = False) -> str:
        """The compact JSON answer to one or more statements (an array for several); with
        ``detail``, the whole answer of ``--format json``."""
        return render_answers(self.kb.query(statements), "json" if detail else "summary")

    def plan(self, constraints: str = "", detail: bool = False) -> str:
        """``plan where CONSTRAINTS``'s JSON answer (``plan`` alone without constraints)."""
        return self.query(f"plan where {constraints}" if constraints.strip() else "plan", detail)

    def explain(self, choice: str, constraints: str = "", detail: bool = False) -> str:
        """``explain CHOICE where CONSTRAINTS``'s JSON answer."""
        statement = f"explain {quote_choice(choice)}"
        return self.query(f"{statement} where {constraints}" if constraints.strip() else statement, detail)

    def recipe(self, constraints: str = "", emit: str = "", detail: bool = False) -> str:
        """``recipe where CONSTRAINTS``'s JSON answer; with ``emit`` (deepspeed, hf-peft) the
        configuration ``recipekg recipe ... --emit`` writes, as JSON."""
        text = f"recipe where {constraints}" if constraints.strip() else "recipe"
        if not emit:
            return self.query(text, detail)
        import json

        from recipekg.recipe.emit import emitted

        (answer,) = self.kb.query(text)
        return json.dumps(emitted(answer, emit), indent=2)

    def cite(self, statement: str = "", choice: str = "", rule: str = "", paper: str = "", top: int = 0,
             format: str = "csl-json") -> str:
        """The papers behind exactly one of a statement's answer, a choice, a rule or a paper."""
        from recipekg.cite import bundles
        from recipekg.cite.formats import render

        if format not in CITE_FORMATS:
            raise UsageError(f"unknown citation format {format!r}", expected=list(CITE_FORMATS))
        named = {"query": ("statement", statement or None), "choice": ("choice", choice or None),
                 "rule": ("rule", rule or None), "paper": ("paper", paper or None)}
        return render(bundles.bundle_of(self.kb, *bundles.the_one(named), top or None), format)

    def vocab(self, dimension: str = "") -> str:
        """The query language's dimensions, values and choices (one dimension's when named):
        what ``recipekg vocab [DIMENSION] --format json`` prints."""
        from recipekg.render.vocab import render_vocab

        return render_vocab(self.kb.vocab(dimension or None), "json")
