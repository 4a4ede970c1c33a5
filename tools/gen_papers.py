"""Print kb/papers.ttl from the project's bibliography (kb/bibliography.json), after checking it
against the verified seed it grew from (../shared/reference/papers.tsv).

Run:   python tools/gen_papers.py > kb/papers.ttl
       python tools/gen_papers.py --check      # exit 1 if kb/papers.ttl is not what this prints
Paths: python tools/gen_papers.py [--bibliography kb/bibliography.json] [--tsv ../shared/reference/papers.tsv]

The checks (any failure stops the generation): every TSV paper has one entry and no entry is
unknown to the TSV (vendor pages described elsewhere say where, ``defined_in``); an entry's title
is the TSV's; its year, arXiv id and URL are the TSV's unless the entry records the TSV's value
under ``tsv`` and explains the difference in ``disagrees_with_tsv``; the TSV's surnames open its
author list; each type has the fields it needs (a proceedings for a conference paper, a journal
for an article, a version and access date for a repository or a vendor page); every check is
dated and cites a public http(s) source when it cites one. tests/cite/test_bibliography.py runs
the same checks and compares kb/papers.ttl with this script's output.
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIBLIOGRAPHY = ROOT / "kb" / "bibliography.json"
TSV = ROOT.parent / "shared" / "reference" / "papers.tsv"
PAPERS_TTL = ROOT / "kb" / "papers.ttl"

KEY_REFERENCES = {  # papers the reference lists under "Key References", by subsection
    "scaling-laws": ["kaplan2020", "hoffmann2022", "muennighoff2023"],
    "architecture-selection": ["dosovitskiy2020", "liu2022convnext", "grinsztajn2022"],
    "alternative-architectures": ["gu2023", "peng2023", "sun2023"],
    "training-recipes-methodology": ["karpathy2019", "wightman2021", "yang2022", "godbole2023",
                                     "bekman2023", "geiping2022"],
    "training-at-scale": ["zhang2022opt", "chowdhery2022", "touvron2023"],
}

FABIO = {"inproceedings": "fabio:ConferencePaper", "article": "fabio:JournalArticle",
         "preprint": "fabio:Preprint", "blog": "fabio:BlogPost", "software": "fabio:ComputerProgram",
         "webpage": "fabio:WebPage"}
LIVING = ("blog", "software", "webpage")
NEEDS = {"inproceedings": ("booktitle",), "article": ("journal",), "software": ("version", "accessed"),
         "webpage": ("version", "accessed"), "blog": ("version",)}
#: Optional fields, in the order they are written, and their property.
FIELDS = [("venue", "rkg:venue"), ("booktitle", "rkg:booktitle"), ("journal", "rkg:journal"),
          ("volume", "rkg:volume"), ("number", "rkg:number"), ("pages", "rkg:pages"),
          ("publisher", "dcterms:publisher"), ("doi", "rkg:doi"), ("arxiv", "rkg:arxiv"),
          ("url", "rkg:url"), ("version", "rkg:version"), ("accessed", "rkg:accessed")]
INTERNAL = re.compile(r"find_string|read_file|\bcorpus\b|\bcorpora\b", re.I)
DATE = re.compile(r"^\d{4}-\d\d-\d\d$")


class BibliographyError(ValueError):
    pass


# ---------------------------------------------------------------------- checks

def tsv_rows(path: Path) -> dict[str, dict]:
    return {r["key"]: r for r in csv.DictReader(open(path, encoding="utf-8"), delimiter="\t")}


def tsv_surnames(text: str) -> tuple[list[str], bool]:
    """``"Kaplan, McCandlish, Henighan et al."`` → (["Kaplan", "McCandlish", "Henighan"], True)."""
    text = re.sub(r"\s*\([^)]*\)", "", text).strip()
    et_al = bool(re.search(r"\bet al\.?$", text))
    text = re.sub(r",?\s*\bet al\.?$", "", text)
    return [n.strip() for n in text.split(",") if n.strip()], et_al


def problems(data: dict, rows: dict[str, dict]) -> list[str]:
    """Every way the bibliography fails the checks (empty when it passes)."""
    out, seen = [], set()
    for e in data["entries"]:
        key = e.get("key", "?")
        if key in seen:
            out.append(f"{key}: listed twice")
        seen.add(key)
        if e.get("defined_in"):
            if key in rows:
                out.append(f"{key}: in papers.tsv, so it cannot be defined in {e['defined_in']}")
            out += [f"{key}: {p}" for p in _entry_problems(e)]
        elif key not in rows:
            out.append(f"{key}: not in papers.tsv")
        else:
            out += [f"{key}: {p}" for p in _entry_problems(e) + _tsv_problems(e, rows[key])]
    out += [f"{key}: in papers.tsv but not in the bibliography" for key in rows if key not in seen]
    return out


def _entry_problems(e: dict) -> list[str]:
    out = []
    if e.get("type") not in FABIO:
        return [f"unknown type {e.get('type')!r} (one of {', '.join(FABIO)})"]
    out += [f"a {e['type']} needs {f}" for f in NEEDS.get(e["type"], ()) if not e.get(f)]
    if not e.get("authors") and e["type"] != "webpage":
        out.append("no authors")
    for a in e.get("authors", []):
        if set(a) - {"given", "family"} or not a.get("family") or any(c in v for v in a.values() for c in ";,"):
            out.append(f"author {a!r}: give 'family' (and 'given'), without ';' or ','")
    if not isinstance(e.get("authors_complete"), bool):
        out.append("authors_complete must be true or false")
    elif e["authors_complete"] and e.get("author_count", len(e["authors"])) != len(e["authors"]):
        out.append("author_count differs from the number of authors of a complete list")
    if e.get("accessed") and not DATE.match(e["accessed"]):
        out.append(f"accessed {e['accessed']!r} is not YYYY-MM-DD")
    if e.get("url") and not re.match(r"^https?://\S+$", e["url"]):
        out.append(f"url {e['url']!r} is not an http(s) URL")
    if e.get("doi") and not re.match(r"^10\.\d{4,9}/\S+$", e["doi"]):
        out.append(f"doi {e['doi']!r} does not look like 10.NNNN/...")
    for c in e.get("checks", []):
        if not DATE.match(c.get("date", "")) or not c.get("field") or not c.get("evidence_title"):
            out.append(f"check {c.get('field')!r}: give field, evidence_title and date")
        if c.get("evidence_url") and not re.match(r"^https?://\S+$", c["evidence_url"]):
            out.append(f"check {c.get('field')!r}: evidence_url must be a public http(s) URL")
        if set(c) - {"field", "evidence_url", "evidence_title", "note", "date"}:
            out.append(f"check {c.get('field')!r}: unknown keys {sorted(set(c) - {'field', 'evidence_url', 'evidence_title', 'note', 'date'})}")
        if any(INTERNAL.search(str(v)) for v in c.values()):
            out.append(f"check {c.get('field')!r}: cites something other than a public source")
    return out


def _tsv_problems(e: dict, row: dict) -> list[str]:
    out = []
    if e["title"] != row["title"]:
        out.append(f"title {e['title']!r} is not the TSV's {row['title']!r} (put a published title in published_title)")
    notes = " ".join(e.get("disagrees_with_tsv", [])).lower()
    for field, mine, theirs in (("year", str(e.get("year", "")), row["year"]), ("arxiv", e.get("arxiv") or "", row["arxiv"]),
                                ("url", e.get("url") or "", row["url"])):
        if mine == theirs:
            continue
        recorded = str(e.get("tsv", {}).get(field, ""))
        if recorded != theirs or field not in notes:
            out.append(f"{field} {mine!r} differs from the TSV's {theirs!r}: record tsv.{field} and explain it in disagrees_with_tsv")
    surnames, et_al = tsv_surnames(row["authors"])
    families = [a["family"] for a in e.get("authors", [])]
    if families[:len(surnames)] != surnames or (not et_al and len(families) != len(surnames)):
        out.append(f"authors {families[:len(surnames) + 1]} do not begin with the TSV's {row['authors']!r}")
    return out


# ---------------------------------------------------------------------- Turtle

def lit(text) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def authors_literal(authors: list[dict]) -> str:
    """``Family, Given; Family, Given; ...`` (a name without a given part is its family alone)."""
    return "; ".join(f"{a['family']}, {a['given']}" if a.get("given") else a["family"] for a in authors)


def value(field: str, v) -> str:
    if field == "url":
        return f"{lit(v)}^^xsd:anyURI"
    if field == "accessed":
        return f"{lit(v)}^^xsd:date"
    return lit(v)


def paper(e: dict, section: str | None) -> str:
    key = e["key"]
    lines = [f"paper:{key} a rkg:Paper, {FABIO[e['type']]}",
             f"rdfs:label {lit(e['title'])}", f"dcterms:title {lit(e['title'])}"]
    if e.get("published_title"):
        lines.append(f"rkg:publishedTitle {lit(e['published_title'])}")
    lines += [f"rkg:key {lit(key)}", f"rkg:authors {lit(authors_literal(e['authors']))}",
              f"rkg:authorsComplete {'true' if e['authors_complete'] else 'false'}"]
    if e.get("author_count"):
        lines.append(f"rkg:authorCount {int(e['author_count'])}")
    if e.get("author_group"):
        lines.append(f"rkg:authorGroup {lit(e['author_group'])}")
    if e.get("year"):
        lines.append(f'dcterms:issued "{int(e["year"])}"^^xsd:gYear')
    lines += [f"{prop} {value(f, e[f])}" for f, prop in FIELDS if e.get(f)]
    ids = ([f"arXiv:{e['arxiv']}"] if e.get("arxiv") else []) + ([f"doi:{e['doi']}"] if e.get("doi") else [])
    lines += [f"dcterms:identifier {lit(i)}" for i in ids]
    if section:
        lines.append(f"rkg:section sec:key-references--{section}")
    return " ;\n    ".join(lines) + " .\n"


def described_elsewhere(e: dict) -> str:
    """A source another KB file describes gets only what this bibliography adds to it."""
    lines = [f"paper:{e['key']} rkg:version {lit(e['version'])}"]
    if e.get("accessed"):
        lines.append(f"rkg:accessed {value('accessed', e['accessed'])}")
    return f"# described in {e['defined_in']}\n" + " ;\n    ".join(lines) + " .\n"


def turtle(data: dict) -> str:
    section = {k: s for s, keys in KEY_REFERENCES.items() for k in keys}
    own = [paper(e, section.get(e["key"])) for e in data["entries"] if not e.get("defined_in")]
    elsewhere = [described_elsewhere(e) for e in data["entries"] if e.get("defined_in")]
    return HEADER + "\n" + "\n".join(own) + ("\n" + "\n".join(elsewhere) if elsewhere else "")


HEADER = '''# The bibliography (generated by tools/gen_papers.py from kb/bibliography.json, which was built
# from the verified ../shared/reference/papers.tsv; do not edit by hand: edit the JSON, regenerate).
#
# rkg:authors lists every author in order as one literal, "Family, Given; Family, Given; ..."
# (a name without a given part is its family name alone); rkg:authorsComplete false says the list
# holds only the leading names of a larger author group (rkg:authorCount, where known, the total).
# dcterms:title is the title the reference and papers.tsv use; rkg:publishedTitle the published
# version's, where it differs. dcterms:issued, rkg:venue, rkg:booktitle / rkg:journal, rkg:volume,
# rkg:number, rkg:pages, dcterms:publisher, rkg:doi and rkg:url describe the version recorded (the
# published one where there is one); rkg:arxiv the arXiv preprint. Living sources (blog posts,
# repositories, vendor pages) carry rkg:version (commit, edition or date) and rkg:accessed.
# The evidence for every field is in kb/bibliography.json (checks, unverified, disagrees_with_tsv).

@prefix rkg:     <https://w3id.org/recipekg/ns#> .
@prefix paper:   <https://w3id.org/recipekg/paper/> .
@prefix sec:     <https://w3id.org/recipekg/section/> .
@prefix rdfs:    <http://www.w3.org/2000/01/rdf-schema#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix fabio:   <http://purl.org/spar/fabio/> .
@prefix xsd:     <http://www.w3.org/2001/XMLSchema#> .
'''


def generate(bibliography: Path = BIBLIOGRAPHY, tsv: Path = TSV) -> str:
    data = json.loads(bibliography.read_text(encoding="utf-8"))
    found = problems(data, tsv_rows(tsv))
    if found:
        raise BibliographyError("\n".join(found))
    return turtle(data)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bibliography", type=Path, default=BIBLIOGRAPHY)
    ap.add_argument("--tsv", type=Path, default=TSV)
    ap.add_argument("--check", action="store_true", help=f"compare with {PAPERS_TTL.relative_to(ROOT)} instead of printing")
    args = ap.parse_args(argv)
    try:
        text = generate(args.bibliography, args.tsv)
    except BibliographyError as e:
        print(f"the bibliography fails its checks:\n{e}", file=sys.stderr)
        return 1
    if args.check:
        same = PAPERS_TTL.read_text(encoding="utf-8") == text
        print("kb/papers.ttl is up to date" if same else "kb/papers.ttl is stale: run python tools/gen_papers.py > kb/papers.ttl",
              file=sys.stderr)
        return 0 if same else 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
