"""The project's bibliography (kb/bibliography.json → kb/papers.ttl → the snapshot) and the
paste-ready citations made from it.

Every entry is round-tripped through bibtexparser (names split back into given and family
parts), the CSL project's csl-data.json schema and rispy, and each format must carry every
author the bibliography lists, the proceedings or journal, the DOI, the arXiv id and, for a
living source, its version and access date.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser import middlewares
from click.testing import CliRunner

from recipekg.cite import bundles, formats as cite
from recipekg.cite.entries import author_list
from recipekg.cli.main import main
from support import REPO, SHARED

DATA = REPO / "tests" / "data"
BIBLIOGRAPHY = json.loads((REPO / "kb" / "bibliography.json").read_text(encoding="utf-8"))
ENTRIES = {e["key"]: e for e in BIBLIOGRAPHY["entries"]}
LIVING = ("blog", "software", "webpage")


def gen_papers():
    spec = importlib.util.spec_from_file_location("gen_papers", REPO / "tools" / "gen_papers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def every_entry(snap):
    bundle = bundles.Bundle("the bibliography")
    for key in ENTRIES:
        bundle.add(key, "", snap)
    return bundle


@pytest.fixture(scope="module")
def bibtex(every_entry):
    text = cite.render(every_entry, "bibtex")
    names = [middlewares.LatexDecodingMiddleware(), middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()]
    library = bibtexparser.parse_string(text, append_middleware=names)
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    raw = bibtexparser.parse_string(text)
    return {e.key: e for e in library.entries}, {e.key: e.fields_dict for e in raw.entries}


@pytest.fixture(scope="module")
def csl(every_entry):
    schema = json.loads((DATA / "csl-data.json").read_text(encoding="utf-8"))
    items = json.loads(cite.render(every_entry, "csl-json"))
    jsonschema.validate(items, schema)
    return {i["id"]: i for i in items}


@pytest.fixture(scope="module")
def ris(every_entry):
    return {e["id"]: e for e in rispy.loads(cite.render(every_entry, "ris"))}


def authors_of(e: dict) -> list[tuple[str, str]]:
    return [(a.get("given", ""), a["family"]) for a in e["authors"]]


# ---------------------------------------------------------------------- the bibliography itself

def test_the_bibliography_passes_its_checks_and_papers_ttl_is_generated_from_it():
    tool = gen_papers()
    assert tool.problems(BIBLIOGRAPHY, tool.tsv_rows(SHARED / "reference" / "papers.tsv")) == []
    assert (REPO / "kb" / "papers.ttl").read_text(encoding="utf-8") == tool.generate(
        REPO / "kb" / "bibliography.json", SHARED / "reference" / "papers.tsv"), \
        "kb/papers.ttl is stale: run python tools/gen_papers.py > kb/papers.ttl"


@pytest.mark.parametrize("key,change,needle", [
    ("hoffmann2022", lambda e: e.update(year=1999), "year '1999' differs from the TSV's '2022'"),
    ("kaplan2020", lambda e: e.update(url="https://example.org/x"), "url 'https://example.org/x' differs"),
    ("kaplan2020", lambda e: e.update(arxiv="2001.00000"), "arxiv '2001.00000' differs"),
    ("hoffmann2022", lambda e: e["authors"].insert(0, {"given": "Ann", "family": "Other"}), "do not begin with the TSV"),
    ("hoffmann2022", lambda e: e.update(title="Another title"), "is not the TSV's"),
    ("hoffmann2022", lambda e: e.pop("booktitle"), "a inproceedings needs booktitle"),
    ("godbole2023", lambda e: e.pop("accessed"), "a software needs accessed"),
    ("hoffmann2022", lambda e: e["checks"][0].update(corpus="pages"), "unknown keys ['corpus']"),
    ("hoffmann2022", lambda e: e["checks"][0].update(evidence_url="(a find_string id 1)"), "public http(s) URL"),
])
def test_gen_papers_refuses_what_the_tsv_or_the_evidence_does_not_support(key, change, needle):
    tool = gen_papers()
    data = copy.deepcopy(BIBLIOGRAPHY)
    change(next(e for e in data["entries"] if e["key"] == key))
    found = tool.problems(data, tool.tsv_rows(SHARED / "reference" / "papers.tsv"))
    assert any(needle in p for p in found), found


def test_every_check_cites_only_public_evidence_and_its_date():
    for e in BIBLIOGRAPHY["entries"]:
        for c in e["checks"]:
            assert set(c) <= {"field", "evidence_url", "evidence_title", "note", "date"}, e["key"]
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", c["date"]) and c["date"] >= "2026-11-30", (e["key"], c["date"])
            assert c.get("evidence_url", "https://").startswith(("https://", "http://"))
        assert isinstance(e["unverified"], list) and isinstance(e["disagrees_with_tsv"], list)
    text = json.dumps(BIBLIOGRAPHY)
    assert "find_string" not in text and '"corpus"' not in text and '"query"' not in text


def test_living_sources_have_a_version_and_the_published_version_its_venue():
    for e in BIBLIOGRAPHY["entries"]:
        if e["type"] in LIVING:
            assert e.get("version"), e["key"]
        if e["type"] in ("software", "webpage"):
            assert e.get("accessed"), e["key"]
        if e["type"] == "inproceedings":
            assert e.get("booktitle"), e["key"]
        if e["type"] == "article":
            assert e.get("journal"), e["key"]
    assert ENTRIES["nvidia-dgx-spark"]["version"] == ENTRIES["nvidia-dgx-spark"]["accessed"]
    assert "year" not in ENTRIES["nvidia-dgx-spark"]


def test_the_snapshot_has_the_bibliography_fields(snap):
    for key, e in ENTRIES.items():
        p = snap["papers"][key]
        if e.get("defined_in"):  # described in another KB file: only version and access date added
            assert (p["version"], p["accessed"], p["entry_type"]) == (e["version"], e["accessed"], e["type"])
            continue
        assert [(a["given"], a["family"]) for a in author_list(p)] == authors_of(e), key
        assert p["authors_complete"] is e["authors_complete"]
        assert p["author_count"] == e.get("author_count")
        assert p["entry_type"] == e["type"]
        for field in ("published_title", "author_group", "booktitle", "journal", "volume", "number", "pages",
                      "publisher", "doi", "arxiv", "url", "version", "accessed", "venue"):
            assert p[field] == e.get(field), (key, field)
        assert p["year"] == e["year"] and p["title"] == e["title"]


# ---------------------------------------------------------------------- every entry in every format

def test_bibtex_of_every_entry_carries_every_author_and_its_venue(bibtex):
    decoded, raw = bibtex
    assert set(decoded) == set(ENTRIES)
    for key, e in ENTRIES.items():
        entry, fields = decoded[key], raw[key]
        people = [n for n in entry["author"] if n.last != ["others"]]
        if e["authors"]:
            assert [(" ".join(n.first), " ".join(n.von + n.last)) for n in people] == authors_of(e), key
            assert (entry["author"][-1].last == ["others"]) is (not e["authors_complete"]), key
        else:  # the publisher as a corporate author: braced, so that "Mistral AI" stays one name
            assert fields["author"].value == "{" + e["publisher"] + "}", key
        expected = {"inproceedings": "inproceedings", "article": "article"}.get(e["type"], "misc")
        assert entry.entry_type == expected, key
        if e["type"] == "inproceedings":
            assert entry["booktitle"] == e["booktitle"]
        if e["type"] == "article":
            assert entry["journal"] == e["journal"]
        for field in ("volume", "number", "version", "doi", "publisher"):
            if e.get(field) and e["authors"]:
                assert entry[field] == e[field], (key, field)
        if e.get("pages"):
            assert fields["pages"].value == e["pages"].replace("-", "--")
        if e.get("arxiv"):
            assert (entry["eprint"], entry["archivePrefix"]) == (e["arxiv"], "arXiv")
        if e.get("accessed"):
            assert entry["urldate"] == e["accessed"]
        assert fields["url"].value == e["url"]


def test_csl_json_of_every_entry_carries_every_author_and_its_venue(csl):
    types = {"inproceedings": "paper-conference", "article": "article-journal", "preprint": "article",
             "blog": "post-weblog", "software": "software", "webpage": "webpage"}
    assert set(csl) == set(ENTRIES)
    for key, e in ENTRIES.items():
        item = csl[key]
        assert item["type"] == types[e["type"]], key
        if e["authors"]:
            assert [(a.get("given", ""), a["family"]) for a in item["author"]] == authors_of(e), key
        else:
            assert item["author"] == [{"literal": e["publisher"]}]
        assert ("further authors: et al." in item.get("note", "")) is (not e["authors_complete"])
        assert item.get("container-title") == (e.get("booktitle") or e.get("journal")), key
        for field, name in (("volume", "volume"), ("number", "issue"), ("pages", "page"), ("doi", "DOI"),
                            ("url", "URL"), ("version", "version")):
            assert item.get(name) == e.get(field), (key, field)
        if e.get("accessed"):
            assert item["accessed"] == {"date-parts": [[int(x) for x in e["accessed"].split("-")]]}
        if e.get("year"):
            assert item["issued"] == {"date-parts": [[e["year"]]]}


def test_ris_of_every_entry_carries_every_author_and_its_venue(ris):
    types = {"inproceedings": "CPAPER", "article": "JOUR", "preprint": "UNPB", "blog": "BLOG", "software": "COMP",
             "webpage": "ELEC"}
    assert set(ris) == set(ENTRIES)
    for key, e in ENTRIES.items():
        entry = ris[key]
        assert entry["type_of_reference"] == types[e["type"]], key
        expected = [f"{f}, {g}" if g else f for g, f in authors_of(e)]
        assert entry.get("authors", []) == expected, key
        assert entry.get("secondary_title") == (e.get("booktitle") or e.get("journal") or e.get("venue"))
        if e["type"] == "article":
            assert entry["journal_name"] == e["journal"]
        if e.get("pages"):
            assert "-".join(filter(None, (entry["start_page"], entry.get("end_page")))) == e["pages"]
        for field, name in (("volume", "volume"), ("number", "number"), ("doi", "doi"), ("version", "edition")):
            assert entry.get(name) == e.get(field), (key, field)
        if e.get("accessed"):
            assert entry["access_date"] == e["accessed"].replace("-", "/")
        assert entry["urls"] == [e["url"]]


# ---------------------------------------------------------------------- what a researcher pastes

def run(*args):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_cli_cite_hoffmann2022_lists_all_22_authors_in_the_neurips_proceedings():
    out = run("cite", "--paper", "hoffmann2022", "--format", "bibtex")
    entry = bibtexparser.parse_string(out, append_middleware=[middlewares.SeparateCoAuthors()]).entries[0]
    assert entry.entry_type == "inproceedings"
    assert entry["booktitle"] == "Advances in Neural Information Processing Systems"
    assert len(entry["author"]) == 22 and "others" not in entry["author"]
    assert entry["author"][0] == "Hoffmann, Jordan" and entry["author"][-1] == "Sifre, Laurent"
    assert entry["volume"] == "35" and entry["year"] == "2022" and entry["eprint"] == "2203.15556"
    assert "An empirical analysis of compute-optimal large language model training" in entry["note"]


@pytest.mark.parametrize("key,journal,volume,number,pages", [
    ("raffel2019", "Journal of Machine Learning Research", "21", "140", "1--67"),
    ("hochreiter1997", "Neural Computation", "9", "8", "1735--1780"),
])
def test_a_journal_paper_is_an_article_with_journal_volume_and_pages(key, journal, volume, number, pages):
    entry = bibtexparser.parse_string(run("cite", "--paper", key, "--format", "bibtex")).entries[0]
    assert entry.entry_type == "article"
    assert (entry["journal"], entry["volume"], entry["number"], entry["pages"]) == (journal, volume, number, pages)


def test_a_doi_appears_wherever_the_bibliography_has_one(bibtex, csl, ris):
    with_doi = [k for k, e in ENTRIES.items() if e.get("doi")]
    assert len(with_doi) >= 20 and "hochreiter1997" in with_doi and "devlin2018" in with_doi
    for key in with_doi:
        assert bibtex[0][key]["doi"] == csl[key]["DOI"] == ris[key]["doi"] == ENTRIES[key]["doi"]
    assert bibtex[0]["devlin2018"]["doi"] == "10.18653/v1/N19-1423"


@pytest.mark.parametrize("key", ["karpathy2019", "godbole2023", "bekman2023", "nvidia-dgx-spark"])
def test_a_living_source_has_urldate_and_version(key):
    entry = bibtexparser.parse_string(run("cite", "--paper", key, "--format", "bibtex")).entries[0]
    assert entry["urldate"] == ENTRIES[key]["accessed"] and entry["version"] == ENTRIES[key]["version"]
    assert entry.entry_type == "misc" and entry["url"] == ENTRIES[key]["url"]


def test_a_consortium_paper_lists_the_verified_names_then_others():
    entry = bibtexparser.parse_string(run("cite", "--paper", "scao2022", "--format", "bibtex"),
                                      append_middleware=[middlewares.SeparateCoAuthors()]).entries[0]
    assert entry["author"][:2] == ["Le Scao, Teven", "Fan, Angela"] and entry["author"][-1] == "others"
    assert len(entry["author"]) == len(ENTRIES["scao2022"]["authors"]) + 1
    assert "BigScience Workshop" in entry["note"]


def test_the_text_reference_names_every_author_and_the_venue(snap):
    text = cite.reference(snap["papers"]["hoffmann2022"])
    assert text.startswith("Jordan Hoffmann, Sebastian Borgeaud, ") and "Laurent Sifre (2022)" in text
    assert "Advances in Neural Information Processing Systems 35 (NeurIPS 2022)" in text
    living = cite.reference(snap["papers"]["godbole2023"])
    assert "accessed 2026-11-30" in living and "version 1" in living


def test_an_extension_paper_with_free_text_authors_still_cites(tmp_path):
    import recipekg

    path = tmp_path / "ext.ttl"
    path.write_text("""\
@prefix rkg:     <https://w3id.org/recipekg/ns#> .
@prefix paper:   <https://w3id.org/recipekg/paper/> .
@prefix rdfs:    <http://www.w3.org/2000/01/rdf-schema#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix fabio:   <http://purl.org/spar/fabio/> .
@prefix xsd:     <http://www.w3.org/2001/XMLSchema#> .

paper:ours2024 a rkg:Paper, fabio:ResearchPaper ;
    rdfs:label "Our paper" ; dcterms:title "Our paper" ;
    rkg:authors "Doe, Roe et al." ;
    dcterms:issued "2024"^^xsd:gYear ;
    rkg:url "https://example.org/ours"^^xsd:anyURI ;
    rkg:venue "ICML 2024" .
""", encoding="utf-8")
    p = recipekg.load(extensions=[path]).snap["papers"]["ours2024"]
    assert author_list(p) is None and p["authors_complete"] is None and p["entry_type"] is None
    entry = bibtexparser.parse_string(cite.bibtex_entry(p), append_middleware=[middlewares.SeparateCoAuthors()]).entries[0]
    assert entry.entry_type == "inproceedings" and entry["booktitle"] == "ICML 2024"
    assert entry["author"] == ["Doe", "Roe", "others"]
