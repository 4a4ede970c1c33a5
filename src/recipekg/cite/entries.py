"""What a paper of the snapshot is, for every citation format: its kind, its authors, its
venue, its identifiers::

    >>> p = snap["papers"]["raffel2019"]
    >>> kind(p), entry_type(p), p["journal"], venue_details(p)
    ('article', 'article', 'Journal of Machine Learning Research', 'Journal of Machine Learning Research 21(140), 1-67')
    >>> len(names(p)[0]), names(p)[1]
    (9, True)

Papers of the bundled bibliography carry their structured fields (authors in the
bibliography's form, read by :func:`author_list`, ``booktitle``, ``journal``, ``doi``,
``entry_type`` ...; see ``knowledge/compiler.py``).
Papers of an extension may give only free text (``rkg:authors "Kaplan, McCandlish et al."``,
``rkg:venue "ICML 2024"``): their surnames and kind are read off that text.
"""

from __future__ import annotations

import re

_JOURNAL = re.compile(r"\b(journal|transactions|letters|TMLR|JMLR|neural computation|PeerJ|nature|science)\b", re.I)
_DOI = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\S+)$", re.I)
_WEB = {"blog": "blog", "software": "repository", "webpage": "web page"}
KINDS = ("inproceedings", "article", "preprint", "blog", "software", "webpage")


def web_kind(p: dict) -> str | None:
    """``blog``, ``repository`` or ``web page`` for web sources; None for papers."""
    if p.get("entry_type") in _WEB:
        return _WEB[p["entry_type"]]
    types = set(p.get("types") or [])
    if "BlogPost" in types:
        return "blog"
    if types & {"WebContent", "ComputerProgram"}:
        return "repository"
    if types & {"WebPage", "Reference", "Website"}:
        return "web page"
    return None


def kind(p: dict) -> str:
    """The kind of source: one of :data:`KINDS` (the bibliography's own ``type``)."""
    if p.get("entry_type") in KINDS:
        return p["entry_type"]
    web = web_kind(p)
    if web:
        return {"blog": "blog", "repository": "software"}.get(web, "webpage")
    types, venue = set(p.get("types") or []), (p.get("venue") or "").strip()
    if "JournalArticle" in types:
        return "article"
    if "ConferencePaper" in types:
        return "inproceedings"
    if "Preprint" in types or not venue or venue.lower().startswith("arxiv"):
        return "preprint"
    return "article" if _JOURNAL.search(venue) else "inproceedings"


def entry_type(p: dict) -> str:
    """The BibTeX entry type: ``article``, ``inproceedings`` or ``misc`` (preprints and web
    sources, repositories included)."""
    return {"article": "article", "inproceedings": "inproceedings"}.get(kind(p), "misc")


def doi(p: dict) -> str | None:
    if p.get("doi"):
        return p["doi"]
    m = _DOI.match(p.get("url") or "")
    return m.group(1) if m else None


def author_list(p: dict) -> list[dict] | None:
    """The authors as ``{"given", "family"}`` when the paper's authors are in the
    bibliography's form (``authors_structured``: "Family, Given; Family, Given"), else None.

    >>> author_list({"authors": "Hoffmann, Jordan; de Las Casas, Diego", "authors_structured": True})
    [{'given': 'Jordan', 'family': 'Hoffmann'}, {'given': 'Diego', 'family': 'de Las Casas'}]
    >>> author_list({"authors": "Kaplan, McCandlish et al.", "authors_structured": False}) is None
    True
    """
    if not p.get("authors_structured") or p.get("authors") is None:
        return None
    out = []
    for part in p["authors"].split(";"):
        family, _, given = part.strip().partition(",")
        if family.strip():
            out.append({"given": given.strip(), "family": family.strip()})
    return out


def names(p: dict) -> tuple[list[dict], bool]:
    """The authors as ``{"given", "family"}`` (given may be empty) and whether the list is
    complete. Free text gives surnames only and is complete unless it ends in *et al.*."""
    if (listed := author_list(p)) is not None:
        return listed, p.get("authors_complete") is not False
    surnames, et_al = authors(p)
    return [{"given": "", "family": n} for n in surnames], not et_al


def authors(p: dict) -> tuple[list[str], bool]:
    """The authors' family names and whether the list stops short (*et al.*):
    ``"Kaplan, McCandlish, Henighan et al."`` → (3 names, True)."""
    if (listed := author_list(p)) is not None:
        return [n["family"] for n in listed], p.get("authors_complete") is False
    text = re.sub(r"\s*\([^)]*\)", "", p.get("authors") or "").strip()
    et_al = bool(re.search(r"\bet\s+al\.?$", text))
    text = re.sub(r",?\s*\bet\s+al\.?$", "", text)
    return [n.strip() for n in re.split(r",|;|\band\b|&", text) if n.strip()], et_al


def full_name(n: dict) -> str:
    return f"{n['given']} {n['family']}".strip() if n.get("given") else n["family"]


def author_note(p: dict) -> str | None:
    """The group the authors publish as: ``rkg:authorGroup``, or the part of a free-text
    authors string in parentheses (``Dubey et al. (Llama Team, AI @ Meta)``)."""
    if p.get("author_group"):
        return p["author_group"]
    if p.get("authors_structured"):
        return None
    m = re.search(r"\(([^)]*)\)", p.get("authors") or "")
    return m.group(1).strip() if m else None


def notes(p: dict, complete: bool, *, arxiv: bool = True) -> list[str]:
    """The free-text notes CSL-JSON and RIS keep: the arXiv id (unless ``arxiv`` is False),
    the published title, missing authors and the author group.

    >>> notes({"arxiv": "2203.15556", "authors_structured": True, "authors": ""}, complete=False)
    ['arXiv:2203.15556', 'further authors: et al.']
    """
    out = [f"arXiv:{p['arxiv']}"] if arxiv and p.get("arxiv") else []
    if p.get("published_title"):
        out.append(f"Published as: {p['published_title']}")
    if not complete:
        out.append("further authors: et al.")
    if author_note(p):
        out.append(author_note(p))
    return out


def container(p: dict) -> str | None:
    """The proceedings or journal (free-text papers: their venue)."""
    return p.get("booktitle") or p.get("journal") or (
        (p.get("venue") or "").strip() or None if kind(p) in ("inproceedings", "article") else None)


def page_range(p: dict) -> tuple[str | None, str | None]:
    """``"1735-1780"`` → ("1735", "1780"); one page → (page, None)."""
    if not p.get("pages"):
        return None, None
    parts = re.split(r"\s*[-–—]+\s*", p["pages"].strip())
    return parts[0], (parts[-1] if len(parts) > 1 else None)


def how_published(p: dict) -> str:
    web = web_kind(p)
    if p.get("venue"):
        return p["venue"]
    if web == "web page" and p.get("publisher"):
        return f"{p['publisher']} web page"
    return {"blog": "Blog post", "repository": "Repository"}.get(web, "Web page")


def venue_details(p: dict) -> str | None:
    """The venue as a reference prints it: ``Neural Computation 9(8), 1735-1780``,
    ``Advances in Neural Information Processing Systems 35 (NeurIPS 2022)``."""
    where = container(p)
    if not where:
        return p.get("venue") or (how_published(p) if web_kind(p) else None)
    volume = (p.get("volume") or "") + (f"({p['number']})" if p.get("number") else "")
    text = f"{where} {volume}".strip()
    if p.get("venue") and p["venue"] != where and kind(p) == "inproceedings":
        text += f" ({p['venue']})"
    return text + (f", {p['pages']}" if p.get("pages") else "")
