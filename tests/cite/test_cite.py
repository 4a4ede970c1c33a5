"""Citation bundles and formats, the citation graph, and `recipekg cite / papers / paper`.

Every format is read back by a parser of that format: bibtexparser (BibTeX), jsonschema
against the CSL project's csl-data.json (CSL-JSON), rispy (RIS). tests/data/csl-data.json is
the CSL input-data schema as published in github.com/citation-style-language/schema
(schemas/input/csl-data.json, MIT licence), unchanged in content.
"""

from __future__ import annotations

import json
import subprocess
import sys

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser import middlewares
from click.testing import CliRunner

from recipekg.cite import bundles, formats as cite
from recipekg.cite.graph import CLAIM_KINDS, SNAP_KEYS, CiteGraph, claims
from recipekg.cli.main import main
from support import REPO

DATA = REPO / "tests" / "data"
TABULAR = "recommend architecture where data = tabular and rows = 30k"
SPECIAL = {"id": "special2024", "title": "100% of $x_1$ & {a} #1 ~ ^ \\ Müller: Veličković — naïve BERT-style",
           "authors": "Müller, Le Scao, O'Brien et al. (Some Team)", "year": 2024, "arxiv": "2401.00001",
           "url": "https://example.org/a_b?c={d}&e=\"f\"", "venue": "ICML 2024",
           "types": ["ResearchPaper", "Paper"], "publisher": None}


@pytest.fixture(scope="module")
def graph(snap):
    return CiteGraph(snap)


@pytest.fixture(scope="module")
def every_paper(snap):
    bundle = bundles.Bundle("every paper")
    for pid in snap["papers"]:
        bundle.add(pid, "", snap)
    return bundle


@pytest.fixture(scope="module")
def csl_schema():
    schema = json.loads((DATA / "csl-data.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return schema


def run(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def parse_bibtex(text, *middleware):
    library = bibtexparser.parse_string(text, append_middleware=list(middleware))
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    return library


# ---------------------------------------------------------------------- BibTeX

def test_bibtex_of_every_paper_parses_with_unique_keys_and_arxiv_fields(snap, every_paper):
    library = parse_bibtex(cite.render(every_paper, "bibtex"))
    keys = [e.key for e in library.entries]
    assert len(keys) == len(set(keys)) == len(snap["papers"])
    assert set(keys) == set(snap["papers"])
    for entry in library.entries:
        p = snap["papers"][entry.key]
        fields = entry.fields_dict
        assert entry.entry_type in ("article", "inproceedings", "misc")
        assert fields["title"].value
        if p["arxiv"]:
            assert fields["eprint"].value == p["arxiv"]
            assert fields["archivePrefix"].value == "arXiv"
        if p["url"]:
            assert fields["url"].value == p["url"]
        if p["year"]:
            assert fields["year"].value == str(p["year"])
        if cite.web_kind(p):
            assert entry.entry_type == "misc" and "howpublished" in fields


def test_bibtex_entry_types_and_authors(snap):
    ids = ["hochreiter1997", "hoffmann2022", "kaplan2020", "nvidia-h100", "karpathy2019", "bekman2023", "scao2022"]
    bundle = bundles.Bundle("some")
    for pid in ids:
        bundle.add(pid, "", snap)
    library = parse_bibtex(cite.render(bundle, "bibtex"), middlewares.SeparateCoAuthors())
    by_key = {e.key: e for e in library.entries}
    assert by_key["hochreiter1997"].entry_type == "article"          # Neural Computation
    assert by_key["hoffmann2022"].entry_type == "inproceedings"      # NeurIPS, and on arXiv
    assert by_key["hoffmann2022"]["booktitle"] == "Advances in Neural Information Processing Systems"
    assert by_key["hoffmann2022"]["eprint"] == "2203.15556"
    assert by_key["kaplan2020"].entry_type == "misc"                 # a preprint
    assert by_key["kaplan2020"]["author"][:3] == ["Kaplan, Jared", "McCandlish, Sam", "Henighan, Tom"]
    assert len(by_key["kaplan2020"]["author"]) == 10                 # every author, no "others"
    assert by_key["scao2022"]["author"][0] == "Le Scao, Teven"       # a two-word surname stays one name
    assert by_key["scao2022"]["author"][-1] == "others"              # a consortium: the verified names, then others
    assert by_key["hochreiter1997"]["doi"] == "10.1162/neco.1997.9.8.1735"
    web = by_key["nvidia-h100"]                                      # a vendor page (fabio:WebPage) is a paper too
    assert web.entry_type == "misc" and web["url"].startswith("https://www.nvidia.com/")
    assert web["author"] == ["{NVIDIA}"] and "web page" in web["howpublished"]
    assert "Blog post" in by_key["karpathy2019"]["howpublished"]
    assert "GitHub repository" in by_key["bekman2023"]["howpublished"]


def test_bibtex_escapes_latex_specials_and_accents_and_decodes_back():
    text = cite.bibtex_entry(SPECIAL)
    assert r"100\% of \$x\_1\$ \& \{a\} \#1" in text
    assert r"M{\"u}ller" in text and r"Veli{\v{c}}kovi{\'c}" in text
    assert "{BERT-style}" in text                                    # capitals protected from bibstyles
    raw = parse_bibtex(text).entries[0]
    assert raw["url"] == "https://example.org/a_b?c=%7Bd%7D&e=%22f%22"  # verbatim, braces and quotes encoded
    decoded = parse_bibtex(text, middlewares.LatexDecodingMiddleware()).entries[0]
    title = decoded["title"].replace("ˆ", "^").replace("{BERT-style}", "BERT-style")
    assert title == SPECIAL["title"]
    assert decoded["author"] == "Müller and Le Scao and O'Brien and others"
    assert "Some Team" in decoded["note"]


def test_bibtex_keys_are_sanitised_and_unique(snap):
    odd = dict(SPECIAL, id="odd key,{1}")
    twin = dict(SPECIAL, id="odd key;{1}")
    bundle = bundles.Bundle("odd", papers=[odd, twin], cited_by={odd["id"]: [], twin["id"]: []})
    keys = [e.key for e in parse_bibtex(cite.render(bundle, "bibtex")).entries]
    assert len(set(keys)) == 2 and all(" " not in k and "," not in k and "{" not in k for k in keys)


# ---------------------------------------------------------------------- CSL-JSON and RIS

def test_csl_json_of_every_paper_is_valid_against_the_csl_schema(snap, every_paper, csl_schema):
    items = json.loads(cite.render(every_paper, "csl-json"))
    jsonschema.validate(items, csl_schema)
    assert [i["id"] for i in items] == list(snap["papers"])
    by_id = {i["id"]: i for i in items}
    assert by_id["kaplan2020"]["type"] == "article" and by_id["kaplan2020"]["number"] == "arXiv:2001.08361"
    assert by_id["hoffmann2022"]["type"] == "paper-conference"
    assert by_id["hochreiter1997"]["type"] == "article-journal"
    assert by_id["nvidia-h100"]["type"] == "webpage" and by_id["nvidia-h100"]["URL"]
    assert by_id["karpathy2019"]["type"] == "post-weblog"
    assert by_id["kaplan2020"]["issued"] == {"date-parts": [[2020]]}


def test_csl_schema_rejects_what_it_should(csl_schema):
    """The schema file is the real one: it refuses an unknown property and an unknown type."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"id": "x", "type": "article", "arxiv": "1"}], csl_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"id": "x", "type": "preprint"}], csl_schema)
    jsonschema.validate([cite.csl_item(SPECIAL)], csl_schema)


def test_ris_of_every_paper_parses(snap, every_paper):
    entries = rispy.loads(cite.render(every_paper, "ris"))
    assert [e["id"] for e in entries] == list(snap["papers"])
    for e in entries:
        p = snap["papers"][e["id"]]
        assert e["title"] == p["title"]
        assert e["type_of_reference"] in ("JOUR", "CPAPER", "UNPB", "GEN", "ELEC", "BLOG", "COMP")
        if p["url"]:
            assert e["urls"] == [p["url"]]
        if p["arxiv"]:
            assert f"arXiv:{p['arxiv']}" in e["notes"]
    special = rispy.loads(cite.ris_entry(SPECIAL))[0]
    assert special["authors"] == ["Müller", "Le Scao", "O'Brien"] and special["title"] == SPECIAL["title"]


def test_text_format_lists_reference_and_what_cites_it(kb):
    text = cite.render(bundles.for_query(kb, TABULAR), "text")
    assert text.startswith(f"papers behind: {TABULAR}")
    assert "grinsztajn2022" in text and "arXiv:2207.08815" in text and "cited by: rule " in text


# ---------------------------------------------------------------------- bundles

def test_query_bundle_lists_each_source_of_each_reason_once(kb):
    (answer,) = kb.query(TABULAR)
    bundle = bundles.for_query(kb, TABULAR)
    expected = {s["id"] for r in answer["results"] for side in ("because", "against") for x in r[side]
                for s in x["sources"]}
    assert len(bundle.ids) == len(set(bundle.ids))
    assert set(bundle.ids) == expected
    top1 = bundles.for_query(kb, TABULAR, top=1)
    assert set(top1.ids) == {s["id"] for x in answer["results"][0]["because"] + answer["results"][0]["against"]
                             for s in x["sources"]}
    assert set(top1.ids) <= set(bundle.ids)


def test_several_statements_share_one_bundle(kb):
    text = TABULAR + "; recommend fix where symptom = loss-spike; explain vit where data = images and samples = 3000"
    bundle = bundles.for_query(kb, text)
    assert len(bundle.ids) == len(set(bundle.ids))
    assert {"grinsztajn2022", "chowdhery2022", "dosovitskiy2020"} <= set(bundle.ids)


def test_choice_bundle_has_original_papers_and_every_claim_naming_it(snap, graph):
    bundle = bundles.for_choice(snap, "lightgbm", graph)
    iri = graph.resolve("choice", "lightgbm")
    expected = set(snap["nodes"][iri]["papers"]) | set(snap["nodes"][iri]["sources"])
    for kind, _, claim in claims(snap):
        named = {"rule": claim.get("recommends", []) + claim.get("against", []), "fact": claim.get("about", []),
                 "constant": claim.get("applies_to", []), "formula": []}[kind]
        if iri in named:
            expected |= set(claim["sources"])
    assert set(bundle.ids) == expected and "ke2017" in bundle.ids
    assert len(bundle.ids) == len(set(bundle.ids))
    assert bundles.for_choice(snap, "lgbm", graph).ids == bundle.ids   # aliases work


def test_rule_and_paper_bundles(snap):
    rule = snap["rules"]["https://w3id.org/recipekg/rule/threshold-tabular-under-10k"]
    assert bundles.for_rule(snap, "threshold-tabular-under-10k").ids == rule["sources"]
    assert bundles.for_paper(snap, "kaplan2020").ids == ["kaplan2020"]


def test_rule_bundles_carry_the_rules_caveat_into_the_text(snap):
    with_caveat = [r for r in snap["rules"].values() if r.get("caveat")]
    assert with_caveat, "the bundled KB has rules with caveats"
    for rule in with_caveat + [r for r in snap["rules"].values() if not r.get("caveat")][:3]:
        bundle = bundles.for_rule(snap, rule["id"])
        text = cite.render(bundle, "text")
        if rule.get("caveat"):
            assert bundle.caveats == {f"rule {rule['id']}": rule["caveat"]}
            assert f"caveats\n  rule {rule['id']}: {rule['caveat']}" in text
        else:
            assert bundle.caveats == {} and "caveats" not in text


def test_query_and_choice_bundles_collect_every_cited_claims_caveat(kb, snap, graph):
    rule = next(r for r in snap["rules"].values() if r.get("caveat") and r.get("recommends"))
    choice = snap["nodes"][rule["recommends"][0]]["id"]
    assert f"rule {rule['id']}" in bundles.for_choice(snap, choice, graph).caveats
    statement = "plan where params = 7B and hardware = h100 and gpus = 8"
    (answer,) = kb.query(statement)
    expected = {c["of"]: c["text"] for q in answer["quantities"] for c in q.get("caveats") or []}
    assert expected and bundles.for_query(kb, statement).caveats == expected


# ---------------------------------------------------------------------- the citation graph

def test_every_source_of_every_claim_is_a_backlink_of_its_paper(snap, graph):
    backlinks = {pid: {(c["kind"], c["id"]) for c in graph.backlinks(pid)["claims"]} for pid in snap["papers"]}
    checked = 0
    for kind, iri, claim in claims(snap):
        assert claim["sources"], f"{kind} {claim['id']} has no source"
        for pid in claim["sources"]:
            assert (kind, claim["id"]) in backlinks[pid], f"{kind} {claim['id']} missing from paper {pid}"
            checked += 1
    assert checked > 300
    # and nothing else: every backlink really cites the paper
    for pid, items in backlinks.items():
        for kind, cid in items:
            iri = graph.ids(kind)[cid]
            assert pid in snap[SNAP_KEYS[kind]][iri]["sources"]


def test_backlinks_lead_to_the_choices_of_each_claim(snap, graph):
    back = graph.backlinks("grinsztajn2022")
    rule = next(c for c in back["claims"] if c["id"] == "threshold-tabular-under-10k")
    rels = {(ch["id"], r) for ch in rule["choices"] for r in ch["rels"]}
    assert ("lightgbm", "recommends") in rels and ("neural-tabular", "advises against") in rels
    assert {c["kind"] for c in back["claims"]} <= set(CLAIM_KINDS)
    assert any(e["id"] == "a100" for e in graph.backlinks("nvidia-a100-datasheet")["entities"])


def test_rests_on_reaches_papers_through_formulas(snap, graph):
    cases = [(f, c, t) for f in snap["formulas"].values() for c in f["constants"]
             for t in snap["constants"][c]["applies_to"]]
    assert cases, "the KB has a formula using a constant about some choice"
    for formula, _, target in cases:
        reached = {item["paper"]: item["via"] for item in graph.rests_on(target)}
        for pid in formula["sources"]:
            assert pid in reached
            assert any(v["kind"] in ("formula", "constant") for v in reached[pid]) or pid in snap["nodes"][target]["papers"]


def test_claim_counts_match_backlinks(snap, graph):
    counts = graph.claim_counts()
    assert set(counts) == set(snap["papers"])
    for pid in ("bekman2023", "grinsztajn2022", "nvidia-h200"):
        assert counts[pid] == len(graph.backlinks(pid)["claims"])


def test_networkx_and_flask_stay_off_the_query_path():
    code = ("import sys, recipekg, recipekg.cli; kb = recipekg.load(); "
            f"kb.query({TABULAR!r}); print(sorted(m for m in ('networkx', 'flask') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ---------------------------------------------------------------------- the CLI

@pytest.mark.parametrize("fmt", cite.FORMATS)
def test_cli_cite_query_in_every_format(fmt, snap):
    code, out = run("cite", "--query", TABULAR, "--format", fmt)
    assert code == 0, out
    if fmt == "bibtex":
        assert {e.key for e in parse_bibtex(out).entries} >= {"grinsztajn2022"}
    elif fmt == "csl-json":
        assert "grinsztajn2022" in {i["id"] for i in json.loads(out)}
    elif fmt == "ris":
        assert "grinsztajn2022" in {e["id"] for e in rispy.loads(out)}
    else:
        assert "grinsztajn2022" in out


def test_cli_cite_choice_rule_paper_and_output_file(tmp_path):
    code, out = run("cite", "--choice", "lightgbm", "--format", "bibtex")
    assert code == 0 and "@inproceedings{ke2017," in out
    code, out = run("cite", "--rule", "threshold-tabular-under-10k")
    assert code == 0 and "grinsztajn2022" in out
    target = tmp_path / "refs.json"
    code, out = run("cite", "--paper", "kaplan2020", "--format", "csl-json", "-o", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text(encoding="utf-8"))[0]["id"] == "kaplan2020"
    assert [p.name for p in tmp_path.iterdir()] == ["refs.json"]       # no temporary file left behind


@pytest.mark.parametrize("args,needle", [
    (["cite", "--paper", "grinsztain2022"], "did you mean: 'grinsztajn2022'"),
    (["cite", "--choice", "lightgmb"], "did you mean: 'lightgbm'"),
    (["cite", "--rule", "threshold-tabular-under-10"], "threshold-tabular-under-10k"),
    (["cite"], "exactly one of"),
    (["cite", "--paper", "kaplan2020", "--choice", "vit"], "exactly one of"),
    (["cite", "--paper", "kaplan2020", "--top", "2"], "--top goes with --query"),
    (["cite", "--query", "recommend architecure where data = tabular"], "^^^"),
    (["cite", "--query", "# nothing"], "no statement"),
    (["paper", "grinsztain2022"], "did you mean: 'grinsztajn2022'"),
    (["paper", "nobody2099"], "unknown paper 'nobody2099'"),
])
def test_cli_bad_input_exits_2_with_a_clear_message(args, needle):
    code, out = run(*args)
    assert code == 2, out
    assert needle in out and "Traceback" not in out


def test_cli_cite_bad_format_and_top_are_usage_errors():
    assert run("cite", "--paper", "kaplan2020", "--format", "pdf")[0] == 2
    assert run("cite", "--query", TABULAR, "--top", "0")[0] == 2


def test_cli_papers_every_format(snap, graph):
    code, out = run("papers", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    counts = graph.claim_counts()
    assert sorted(r["id"] for r in rows) == sorted(snap["papers"])
    assert all(r["claims"] == counts[r["id"]] for r in rows)
    assert [r["claims"] for r in rows] == sorted((r["claims"] for r in rows), reverse=True)
    code, out = run("papers")
    assert code == 0 and out.splitlines()[4].split()[0] == rows[0]["id"]  # title, blank, header, rule
    code, out = run("papers", "--format", "markdown")
    assert code == 0 and f"| `{rows[0]['id']}` | {rows[0]['claims']} |" in out


def test_cli_paper_lists_every_claim_citing_it_and_the_choices(graph):
    code, out = run("paper", "grinsztajn2022")
    assert code == 0, out
    back = graph.backlinks("grinsztajn2022")
    for c in back["claims"]:
        assert f"{c['kind']} {c['id']}" in out
    assert "advises against: Neural tabular models (neural-tabular)" in out
    code, out = run("paper", "grinsztajn2022", "--format", "json")
    assert code == 0 and len(json.loads(out)["claims"]) == len(back["claims"])
    code, out = run("paper", "nvidia-a100-datasheet", "--format", "markdown")
    assert code == 0 and "cited by 0 claims" in out and "(a100): source" in out
