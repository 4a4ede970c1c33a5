"""Citation formats: a :class:`~recipekg.cite.bundles.Bundle` of papers as ``text``,
``bibtex``, ``csl-json`` or ``ris``::

    >>> from recipekg.cite.bundles import for_paper
    >>> print(render(for_paper(snap, "chen2016xgboost"), "bibtex").splitlines()[0])
    @inproceedings{chen2016xgboost,

Each format lives in its own module — :mod:`recipekg.cite.bibtex`, :mod:`recipekg.cite.csl`,
:mod:`recipekg.cite.ris` — and reads a paper through :mod:`recipekg.cite.entries` (its kind,
every author, the proceedings or journal, the DOI). The formats and their writers are the
``citation`` family of the one registry of output formats (:mod:`recipekg.render.formats`);
this module dispatches through it and writes the plain-text reference; it also re-exports the
names other code imports from it.
"""

from __future__ import annotations

from recipekg.cite.bibtex import bib_key, bib_url, bibtex_entry, latex, render_bibtex
from recipekg.cite.bundles import Bundle
from recipekg.cite.csl import csl_item, render_csl
from recipekg.cite.entries import authors, doi, entry_type, full_name, names, venue_details, web_kind
from recipekg.cite.ris import render_ris, ris_entry
from recipekg.render import formats as registry

FORMATS = registry.names("citation")

__all__ = ["FORMATS", "render", "reference", "render_text", "web_kind", "entry_type", "doi", "authors",
           "latex", "bib_url", "bib_key", "bibtex_entry", "render_bibtex", "csl_item", "render_csl",
           "ris_entry", "render_ris"]


def render(bundle: Bundle, fmt: str) -> str:
    """``bundle`` in the citation format ``fmt`` (an unknown one is a usage error)."""
    return registry.writer("citation", fmt)(bundle)


def reference(p: dict) -> str:
    """One line: ``Authors (year). Title. Venue. arXiv:id. doi:id. URL (version, accessed)``,
    with every author::

        >>> reference(snap["papers"]["hochreiter1997"])
        'Sepp Hochreiter, Jürgen Schmidhuber (1997). Long Short-Term Memory. Neural Computation 9(8), 1735-1780. https://doi.org/10.1162/neco.1997.9.8.1735'
    """
    people, complete = names(p)
    who = ", ".join(full_name(n) for n in people) + ("" if complete else " et al.") if people else (p.get("publisher") or "")
    d = doi(p)
    parts = [f"{who} ({p['year']})" if p.get("year") else who, p["title"], venue_details(p),
             f"Published as: {p['published_title']}" if p.get("published_title") else None,
             f"arXiv:{p['arxiv']}" if p.get("arxiv") else None,
             f"doi:{d}" if d and not (p.get("url") or "").lower().endswith(d.lower()) else None]
    text = ""
    for part in [s for s in parts if s] + ([p["url"]] if p.get("url") else []):
        text += ("" if not text else " " if text[-1] in ".?!" else ". ") + part
    living = ", ".join(s for s in (f"version {p['version']}" if p.get("version") else None,
                                   f"accessed {p['accessed']}" if p.get("accessed") else None) if s)
    return text + (f" ({living})" if living else "")


def render_text(bundle: Bundle) -> str:
    n = len(bundle.papers)
    out = [f"{bundle.title} — {n} paper{'s' * (n != 1)}", ""]
    for i, p in enumerate(bundle.papers, 1):
        out.append(f"[{i}] {p['id']}")
        out.append(f"    {reference(p)}")
        if bundle.cited_by.get(p["id"]):
            out.append(f"    cited by: {', '.join(bundle.cited_by[p['id']])}")
    if bundle.caveats:
        out += ["", "caveats"] + [f"  {what}: {text}" for what, text in bundle.caveats.items()]
    return "\n".join(out)

