"""BibTeX: ``@inproceedings`` with its ``booktitle``, ``@article`` with ``journal``, volume,
number and pages, ``@misc`` for preprints, web pages, blog posts and repositories::

    >>> print(bibtex_entry(snap["papers"]["hochreiter1997"]))
    @article{hochreiter1997,
      author    = {Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen},
      title     = {Long {Short-Term} Memory},
      journal   = {Neural Computation},
      volume    = {9},
      number    = {8},
      pages     = {1735--1780},
      year      = {1997},
      publisher = {MIT Press},
      doi       = {10.1162/neco.1997.9.8.1735},
      url       = {https://doi.org/10.1162/neco.1997.9.8.1735}
    }

Every author is listed as ``Family, Given``; a list that holds only the leading names (a
consortium paper) ends in ``and others``. Keys are the paper ids; text fields escape LaTeX's
special characters and spell accented letters as LaTeX accents; arXiv papers carry ``eprint``
+ ``archivePrefix``; living sources ``url``, ``urldate`` (the access date) and ``version``.
"""

from __future__ import annotations

import re
import unicodedata

from recipekg.cite.entries import (author_note, container, doi, entry_type, how_published, kind, names,
                                   web_kind)

_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$",
             "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "=",
            "\u0307": ".", "\u030c": "v", "\u0306": "u", "\u030a": "r", "\u030b": "H", "\u0327": "c",
            "\u0328": "k"}
_LETTERS = {"ß": r"{\ss}", "ø": r"{\o}", "Ø": r"{\O}", "æ": r"{\ae}", "Æ": r"{\AE}", "œ": r"{\oe}",
            "Œ": r"{\OE}", "ł": r"{\l}", "Ł": r"{\L}", "ı": r"{\i}", "–": "--", "—": "---",
            "‘": "`", "’": "'", "“": "``", "”": "''", "…": r"\ldots{}", "\u00a0": "~", "·": r"\textperiodcentered{}",
            "×": r"$\times$", "−": "-", "→": r"$\rightarrow$"}


def latex(text: str) -> str:
    """``text`` safe inside a BibTeX field: specials escaped, accents as LaTeX accents,
    other non-ASCII characters kept as UTF-8, line breaks as spaces."""
    out = []
    for ch in re.sub(r"\s+", " ", text):
        if ch in _SPECIALS:
            out.append(_SPECIALS[ch])
        elif ord(ch) < 128:
            out.append(ch)
        elif ch in _LETTERS:
            out.append(_LETTERS[ch])
        else:
            out.append(_accented(ch) or ch)
    return "".join(out)


def _accented(ch: str) -> str | None:
    base, *marks = unicodedata.normalize("NFD", ch)
    if len(marks) != 1 or marks[0] not in _ACCENTS or ord(base) >= 128:
        return None
    accent = _ACCENTS[marks[0]]
    base = r"\i" if base == "i" and accent in "'`^\"~=.u" else base
    return f"{{\\{accent}{base}}}" if accent in "'`^\"~=." else f"{{\\{accent}{{{base}}}}}"


def _title(text: str) -> str:
    """A title with words that must keep their capitals protected: ``{XGBoost}``, ``{BERT}``."""
    words = []
    for w in text.split():
        lead, core, trail = re.match(r"^(\W*)(.*?)(\W*)$", w).groups()
        needs = any(c.isupper() for c in core[1:]) or (len(core) > 1 and core.isupper())
        words.append(latex(lead) + ("{" + latex(core) + "}" if needs else latex(core)) + latex(trail))
    return " ".join(words)


def _braced(part: str) -> str:
    """A name part that BibTeX would misread (the word *and*, braces) kept as one unit."""
    text = latex(part)
    return "{" + text + "}" if re.search(r"\band\b", part, re.I) or "{" in part or "}" in part else text


def _bib_name(n: dict) -> str:
    """``Family, Given``; a family name alone is braced when it has several words (``{Le Scao}``)."""
    if n.get("given"):
        return f"{_braced(n['family'])}, {_braced(n['given'])}"
    family = n["family"]
    return "{" + latex(family) + "}" if " " in family.strip() or "{" in family or "}" in family else _braced(family)


def bib_url(url: str) -> str:
    """A URL for the ``url`` field: kept verbatim except characters that break BibTeX or
    URLs (braces, backslashes, quotes, spaces, non-ASCII), which are percent-encoded.

    >>> bib_url("https://example.org/a b{c}")
    'https://example.org/a%20b%7Bc%7D'
    """
    from urllib.parse import quote  # here, not at the top: a cold ``cite`` in text does not need it

    return quote(url, safe=":/?#[]@!$&'()*+,;=%~-._")


def bib_key(pid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.:+-]", "-", pid) or "paper"


def render_bibtex(bundle, entry=None) -> str:
    """The BibTeX of ``bundle``'s papers, each under a key of its own; ``entry(paper, key)``
    writes one (default :func:`bibtex_entry`; the web page passes one that remembers)."""
    entry = entry or bibtex_entry
    entries, keys = [], set()
    for p in bundle.papers:
        key = bib_key(p["id"])
        while key in keys:
            key += "-"
        keys.add(key)
        entries.append(entry(p, key))
    return "\n\n".join(entries) + "\n"


def bibtex_entry(p: dict, key: str | None = None) -> str:
    fields = _people(p) + [("title", _title(p["title"] or p["id"]))] + _venue(p) + _identifiers(p)
    notes = _notes(p)
    if notes:
        fields.append(("note", latex("; ".join(notes))))
    width = max(len(f) for f, _ in fields)
    body = ",\n".join(f"  {f.ljust(width)} = {{{v}}}" for f, v in fields)
    return f"@{entry_type(p)}{{{key or bib_key(p['id'])},\n{body}\n}}"


def _people(p: dict) -> list[tuple[str, str]]:
    people, complete = names(p)
    if people:
        return [("author", " and ".join(_bib_name(n) for n in people) + ("" if complete else " and others"))]
    if p.get("publisher"):
        return [("author", "{" + latex(p["publisher"]) + "}")]
    return []


def _venue(p: dict) -> list[tuple[str, str]]:
    kind_, fields = entry_type(p), []
    if kind_ in ("inproceedings", "article") and container(p):
        fields.append(("booktitle" if kind_ == "inproceedings" else "journal", latex(container(p))))
    for name in ("volume", "number"):
        if p.get(name):
            fields.append((name, latex(p[name])))
    if p.get("pages"):
        fields.append(("pages", latex(re.sub(r"\s*[-–—]+\s*", "--", p["pages"]))))
    if p.get("year"):
        fields.append(("year", str(p["year"])))
    if web_kind(p):
        fields.append(("howpublished", latex(how_published(p))))
    if p.get("publisher") and names(p)[0]:
        fields.append(("publisher", latex(p["publisher"])))
    if p.get("version"):
        fields.append(("version", latex(p["version"])))
    return fields


def _identifiers(p: dict) -> list[tuple[str, str]]:
    fields = []
    if p.get("arxiv"):
        fields += [("eprint", latex(p["arxiv"])), ("archivePrefix", "arXiv")]
    if d := doi(p):
        fields.append(("doi", bib_url(d)))
    if p.get("url"):
        fields.append(("url", bib_url(p["url"])))
    if p.get("accessed"):
        fields.append(("urldate", latex(p["accessed"])))
    return fields


def _notes(p: dict) -> list[str]:
    notes = []
    if kind(p) == "preprint" and p.get("arxiv"):
        notes.append(f"arXiv preprint arXiv:{p['arxiv']}")
    if p.get("published_title"):
        notes.append(f"Published as: {p['published_title']}")
    if author_note(p):
        notes.append(author_note(p))
    if web_kind(p) == "web page" and not names(p)[0]:
        notes.append("Vendor web page" if p.get("publisher") else "Web page")
    return notes
