"""Citation formats: a :class:`~recipekg.cite.bundles.Bundle` of papers as ``text``,
``bibtex``, ``csl-json`` or ``ris``::

    >>> from recipekg.cite.bundles import for_paper
    >>> print(render(for_paper(snap, "chen2016xgboost"), "bibtex").splitlines()[0])
    @inproceedings{chen2016xgboost,

BibTeX keys are the paper ids; text fields escape LaTeX's special characters and spell
accented letters as LaTeX accents; arXiv papers carry ``eprint`` + ``archivePrefix``, web
sources ``url`` and ``howpublished``. CSL-JSON follows the CSL project's csl-data.json
schema; RIS is the tagged format reference managers import.
"""

from __future__ import annotations

import json
import re
import unicodedata
from urllib.parse import quote

from recipekg.cite.bundles import Bundle
from recipekg.errors import UsageError

FORMATS = ("text", "bibtex", "csl-json", "ris")


# ---------------------------------------------------------------------- what a paper is

_JOURNAL = re.compile(r"\b(journal|transactions|letters|TMLR|JMLR|neural computation|PeerJ|nature|science)\b", re.I)
_DOI = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\S+)$", re.I)


def web_kind(p: dict) -> str | None:
    """``blog``, ``repository`` or ``web page`` for web sources; None for papers."""
    types = set(p["types"])
    if "BlogPost" in types:
        return "blog"
    if "WebContent" in types:
        return "repository"
    if types & {"WebPage", "Reference", "Website"}:
        return "web page"
    return None


def entry_type(p: dict) -> str:
    """The BibTeX entry type: ``article``, ``inproceedings`` or ``misc``."""
    types, venue = set(p["types"]), (p.get("venue") or "").strip()
    if "JournalArticle" in types:
        return "article"
    if "ConferencePaper" in types:
        return "inproceedings"
    if web_kind(p) or "Preprint" in types or not venue or venue.lower().startswith("arxiv"):
        return "misc"
    return "article" if _JOURNAL.search(venue) else "inproceedings"


def doi(p: dict) -> str | None:
    m = _DOI.match(p.get("url") or "")
    return m.group(1) if m else None


def authors(p: dict) -> tuple[list[str], bool]:
    """The author names of ``p["authors"]`` (surnames as printed) and whether the list
    ends in *et al.*: ``"Kaplan, McCandlish, Henighan et al."`` → (3 names, True)."""
    text = re.sub(r"\s*\([^)]*\)", "", p.get("authors") or "").strip()
    et_al = bool(re.search(r"\bet\s+al\.?$", text))
    text = re.sub(r",?\s*\bet\s+al\.?$", "", text)
    names = [n.strip() for n in re.split(r",|;|\band\b|&", text) if n.strip()]
    return names, et_al


def _authors_note(p: dict) -> str | None:
    """The part of the authors string in parentheses (a team): ``Llama Team, AI @ Meta``."""
    m = re.search(r"\(([^)]*)\)", p.get("authors") or "")
    return m.group(1).strip() if m else None


def _how_published(p: dict) -> str:
    kind = web_kind(p)
    if p.get("venue"):
        return p["venue"]
    if kind == "web page" and p.get("publisher"):
        return f"{p['publisher']} web page"
    return {"blog": "Blog post", "repository": "Repository"}.get(kind, "Web page")


# ---------------------------------------------------------------------- text

def render(bundle: Bundle, fmt: str) -> str:
    if fmt not in _RENDERERS:
        raise UsageError(f"unknown citation format '{fmt}'", expected=list(FORMATS))
    return _RENDERERS[fmt](bundle)


def reference(p: dict) -> str:
    """One line: ``Authors (year). Title. Venue. arXiv:id. URL``."""
    names, et_al = authors(p)
    who = ", ".join(names) + (" et al." if et_al else "") if names else (p.get("publisher") or "")
    parts = [f"{who} ({p['year']})" if p.get("year") else who, p["title"],
             p.get("venue") or (_how_published(p) if web_kind(p) else None),
             f"arXiv:{p['arxiv']}" if p.get("arxiv") else None]
    text = ""
    for part in [s for s in parts if s] + ([p["url"]] if p.get("url") else []):
        text += ("" if not text else " " if text[-1] in ".?!" else ". ") + part
    return text


def render_text(bundle: Bundle) -> str:
    n = len(bundle.papers)
    out = [f"{bundle.title} — {n} paper{'s' * (n != 1)}", ""]
    for i, p in enumerate(bundle.papers, 1):
        out.append(f"[{i}] {p['id']}")
        out.append(f"    {reference(p)}")
        if bundle.cited_by.get(p["id"]):
            out.append(f"    cited by: {', '.join(bundle.cited_by[p['id']])}")
    return "\n".join(out)


# ---------------------------------------------------------------------- BibTeX

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


def _bib_name(name: str) -> str:
    return "{" + latex(name) + "}" if " " in name.strip() or "{" in name or "}" in name else latex(name)


def bib_url(url: str) -> str:
    """A URL for the ``url`` field: kept verbatim except characters that break BibTeX or
    URLs (braces, backslashes, quotes, spaces, non-ASCII), which are percent-encoded."""
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~-._")


def bib_key(pid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.:+-]", "-", pid) or "paper"


def render_bibtex(bundle: Bundle) -> str:
    entries, keys = [], set()
    for p in bundle.papers:
        key = bib_key(p["id"])
        while key in keys:
            key += "-"
        keys.add(key)
        entries.append(bibtex_entry(p, key))
    return "\n\n".join(entries) + "\n"


def bibtex_entry(p: dict, key: str | None = None) -> str:
    kind, web = entry_type(p), web_kind(p)
    names, et_al = authors(p)
    fields: list[tuple[str, str]] = []
    if names:
        fields.append(("author", " and ".join(_bib_name(n) for n in names) + (" and others" if et_al else "")))
    elif p.get("publisher"):
        fields.append(("author", "{" + latex(p["publisher"]) + "}"))
    fields.append(("title", _title(p["title"] or p["id"])))
    venue = (p.get("venue") or "").strip()
    if kind == "inproceedings":
        fields.append(("booktitle", latex(venue)))
    elif kind == "article":
        fields.append(("journal", latex(venue)))
    if p.get("year"):
        fields.append(("year", str(p["year"])))
    if web:
        fields.append(("howpublished", latex(_how_published(p))))
    if p.get("publisher") and names:
        fields.append(("publisher", latex(p["publisher"])))
    if p.get("arxiv"):
        fields += [("eprint", latex(p["arxiv"])), ("archivePrefix", "arXiv")]
    if d := doi(p):
        fields.append(("doi", bib_url(d)))
    if p.get("url"):
        fields.append(("url", bib_url(p["url"])))
    notes = []
    if kind == "misc" and p.get("arxiv") and not web:
        notes.append(f"arXiv preprint arXiv:{p['arxiv']}")
    if _authors_note(p):
        notes.append(_authors_note(p))
    if web == "web page" and not names:
        notes.append("Vendor web page" if p.get("publisher") else "Web page")
    if notes:
        fields.append(("note", latex("; ".join(notes))))
    width = max(len(f) for f, _ in fields)
    body = ",\n".join(f"  {f.ljust(width)} = {{{v}}}" for f, v in fields)
    return f"@{kind}{{{key or bib_key(p['id'])},\n{body}\n}}"


# ---------------------------------------------------------------------- CSL-JSON

def csl_item(p: dict) -> dict:
    """One CSL-JSON item (valid against csl-data.json: no property outside the schema)."""
    kind, web = entry_type(p), web_kind(p)
    names, et_al = authors(p)
    item: dict = {"id": p["id"], "type": _csl_type(p, kind, web), "title": p["title"] or p["id"]}
    if names:
        item["author"] = [{"family": n} for n in names]
    elif p.get("publisher"):
        item["author"] = [{"literal": p["publisher"]}]
    if p.get("year"):
        item["issued"] = {"date-parts": [[p["year"]]]}
    venue = (p.get("venue") or "").strip()
    if kind in ("inproceedings", "article"):
        item["container-title"] = venue
    elif web and venue:
        item["genre"] = venue
    if "Preprint" in p["types"] or (kind == "misc" and p.get("arxiv") and not web):
        item["publisher"] = "arXiv"
        if p.get("arxiv"):
            item["number"] = f"arXiv:{p['arxiv']}"
    elif p.get("publisher"):
        item["publisher"] = p["publisher"]
    if d := doi(p):
        item["DOI"] = d
    if p.get("url"):
        item["URL"] = p["url"]
    notes = []
    if p.get("arxiv") and "number" not in item:
        notes.append(f"arXiv:{p['arxiv']}")
    if et_al:
        notes.append("further authors: et al.")
    if _authors_note(p):
        notes.append(_authors_note(p))
    if notes:
        item["note"] = "; ".join(notes)
    return item


def _csl_type(p: dict, kind: str, web: str | None) -> str:
    if web == "blog":
        return "post-weblog"
    if web:
        return "webpage"
    return {"inproceedings": "paper-conference", "article": "article-journal"}.get(kind, "article")


def render_csl(bundle: Bundle) -> str:
    return json.dumps([csl_item(p) for p in bundle.papers], indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------- RIS

def ris_entry(p: dict) -> str:
    kind, web = entry_type(p), web_kind(p)
    names, et_al = authors(p)
    ty = {"blog": "BLOG", "repository": "ELEC", "web page": "ELEC"}.get(web) or {
        "inproceedings": "CPAPER", "article": "JOUR"}.get(kind) or ("UNPB" if p.get("arxiv") else "GEN")
    tags: list[tuple[str, str]] = [("TY", ty), ("ID", p["id"])]
    tags += [("AU", n) for n in names]
    tags.append(("TI", p["title"] or p["id"]))
    if p.get("year"):
        tags.append(("PY", str(p["year"])))
    if p.get("venue"):
        tags.append(("T2", p["venue"]))
    if p.get("publisher"):
        tags.append(("PB", p["publisher"]))
    if d := doi(p):
        tags.append(("DO", d))
    if p.get("url"):
        tags.append(("UR", p["url"]))
    if p.get("arxiv"):
        tags.append(("N1", f"arXiv:{p['arxiv']}"))
    if et_al:
        tags.append(("N1", "further authors: et al."))
    if _authors_note(p):
        tags.append(("N1", _authors_note(p)))
    lines = [f"{tag}  - {_one_line(value)}" for tag, value in tags]
    return "\n".join(lines + ["ER  - "])


def _one_line(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip()


def render_ris(bundle: Bundle) -> str:
    return "\n\n".join(ris_entry(p) for p in bundle.papers) + "\n"


_RENDERERS = {"text": render_text, "bibtex": render_bibtex, "csl-json": render_csl, "ris": render_ris}
