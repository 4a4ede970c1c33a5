"""Every output format, in one registry: the command line's ``--format`` choices
(:mod:`recipekg.cli.common`, :mod:`recipekg.cli.lanes`), the shell's ``.format``, the web API's
``format`` parameter, the MCP tools and the README's table of options all read it.

A format belongs to a family — the documents it writes:

- ``answer``: the answers to statements (``query``, ``explain``, ``plan``, ``recipe``, the
  shell, ``/api/query``, MCP);
- ``report``: what the KB holds (``stats``, ``vocab``, ``papers``, ``paper``, ``audit``);
- ``citation``: the papers behind an answer, a choice, a rule or a paper (``cite``);
- ``graph``: the merged RDF graph (``export``).

Each format names its writer as ``"module:function"``, imported only when a document is
written in that format (so ``--format json`` loads no text renderer, and a new format costs
the others nothing)::

    >>> names("answer")
    ('text', 'json', 'markdown', 'summary')
    >>> names("citation")
    ('text', 'bibtex', 'csl-json', 'ris')
    >>> get("answer", "summary").media_type
    'application/json'
    >>> get("answer", "yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    recipekg.errors.UsageError: unknown answer format 'yaml'
    ...

An answer writer takes ``(answers, detail)``: ``detail`` asks the text format for every
derivation, rule and source (``--detail``); the other answer formats always carry
everything they carry. A citation writer takes a :class:`~recipekg.cite.bundles.Bundle`; a
report's formats are written by that report's renderer (:mod:`recipekg.render.reports`,
:mod:`recipekg.render.vocab`); a graph writer is a class taking the binary stream it writes
to, fed one triple at a time as the export reads them (:mod:`recipekg.knowledge.export`).

This module imports nothing: the fast lane reads it before it answers.
"""

from __future__ import annotations

__all__ = ["Format", "FAMILIES", "FORMATS", "names", "get", "writer"]


class Format:
    """One output format of one family: its ``name`` as ``--format`` takes it, the
    ``media_type`` of what it writes, its ``writer`` (``"module:function"``; for a graph,
    ``"module:class"``) and ``help``, what it is for."""

    __slots__ = ("name", "family", "media_type", "writer", "help")

    def __init__(self, name: str, family: str, media_type: str, writer: str, help: str) -> None:
        self.name, self.family, self.media_type, self.writer, self.help = name, family, media_type, writer, help

    def __repr__(self) -> str:
        return f"Format({self.family}:{self.name})"


#: The families, and the commands that write each.
FAMILIES = {
    "answer": ("query", "explain", "plan", "recipe", "shell"),
    "report": ("stats", "vocab", "papers", "paper", "audit"),
    "citation": ("cite",),
    "graph": ("export",),
}

_ANSWERS = "recipekg.render.answers"
FORMATS = (
    Format("text", "answer", "text/plain", f"{_ANSWERS}:text_answers",
           "for a terminal: the verdict and the lines that decide it (--detail: every derivation, rule and source)"),
    Format("json", "answer", "application/json", f"{_ANSWERS}:json_answers",
           "the whole answer, every field, for programs (the published schema)"),
    Format("markdown", "answer", "text/markdown", f"{_ANSWERS}:markdown_answers",
           "the whole answer as Markdown, for documents"),
    Format("summary", "answer", "application/json", "recipekg.render.summary:summary_answers",
           "compact JSON for agents: the decision, key quantities with units, source ids (about 8 KB at most)"),
    Format("text", "report", "text/plain", "", "for a terminal"),
    Format("json", "report", "application/json", "", "every field, for programs"),
    Format("markdown", "report", "text/markdown", "", "Markdown, for documents"),
    Format("text", "citation", "text/plain", "recipekg.cite.formats:render_text", "one reference per paper"),
    Format("bibtex", "citation", "application/x-bibtex", "recipekg.cite.bibtex:render_bibtex",
           "BibTeX entries keyed by the paper ids"),
    Format("csl-json", "citation", "application/vnd.citationstyles.csl+json", "recipekg.cite.csl:render_csl",
           "CSL-JSON, for Zotero, Pandoc and citeproc"),
    Format("ris", "citation", "application/x-research-info-systems", "recipekg.cite.ris:render_ris", "RIS"),
    Format("turtle", "graph", "text/turtle", "recipekg.knowledge.export:TurtleWriter", "Turtle"),
    Format("ntriples", "graph", "application/n-triples", "recipekg.knowledge.export:NTriplesWriter",
           "N-Triples, one triple a line"),
    Format("jsonld", "graph", "application/ld+json", "recipekg.knowledge.export:JsonLdWriter", "JSON-LD (expanded)"),
)


def names(family: str) -> tuple[str, ...]:
    """The format names of ``family``, in the order ``--help`` lists them."""
    return tuple(f.name for f in FORMATS if f.family == family)


def get(family: str, name: str) -> Format:
    """The format ``name`` of ``family``; an unknown one is a usage error listing them."""
    for f in FORMATS:
        if f.family == family and f.name == name:
            return f
    from recipekg.errors import UsageError

    raise UsageError(f"unknown {family} format '{name}'", expected=list(names(family)))


def writer(family: str, name: str):
    """The function that writes ``family`` documents in format ``name``, imported now."""
    module, _, function = get(family, name).writer.partition(":")
    return getattr(__import__(module, fromlist=[function]), function)
