"""`recipekg validate` and extensions: each kind of bad file is caught at its line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from support import TURTLE_PREFIXES

PREFIXES = TURTLE_PREFIXES

GOOD_RULE = """
rule:my-rule a rkg:Rule ;
    rdfs:label "My team's tabular rule" ;
    rkg:text "Our own finding: LightGBM for small tables." ;
    rkg:recommends kb:lightgbm ;
    rkg:condition cond:data-tabular ;
    rkg:strength rkg:weak ;
    rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom paper:grinsztajn2022 .
"""


def run(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def write(tmp_path, body, name="ext.ttl"):
    path = tmp_path / name
    path.write_text(PREFIXES + body, encoding="utf-8")
    return path


def line_of(path, needle):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_bundled_kb_validates_clean():
    code, out = run("validate")
    assert code == 0, out
    assert "0 violations" in out


def test_a_good_extension_validates_and_answers(tmp_path):
    path = write(tmp_path, GOOD_RULE)
    code, out = run("validate", str(path))
    assert code == 0, out


@pytest.mark.parametrize("body,needle,message", [
    (GOOD_RULE.replace("prov:wasDerivedFrom paper:grinsztajn2022", "prov:wasDerivedFrom paper:nobody2099"),
     "rule:my-rule", "not a paper"),
    (GOOD_RULE.replace("    prov:wasDerivedFrom paper:grinsztajn2022 .", "    rkg:step 1 ."),
     "rule:my-rule", "no source"),
    (GOOD_RULE.replace("cond:data-tabular", "cond:made-up"), "rule:my-rule", "never described"),
    (GOOD_RULE + '\ncond:odd a rkg:Condition ; rdfs:label "data = rows" ; rkg:dimension dim:data ; rkg:value kb:lightgbm .\n',
     "cond:odd", "not a value of dimension"),
    (GOOD_RULE + '\ncond:empty a rkg:Condition ; rdfs:label "empty" ; rkg:dimension dim:samples ; rkg:minInclusive 5.0e0 ; rkg:maxExclusive 1.0e0 .\n',
     "cond:empty", "empty interval"),
    (GOOD_RULE + '\nconst:odd a rkg:Constant ; rdfs:label "odd" ; rkg:value "NaN"^^xsd:double ; rkg:section sec:scaling-laws ; prov:wasDerivedFrom paper:kaplan2020 .\n',
     "const:odd", "finite"),
    (GOOD_RULE + '\nconst:odd a rkg:Constant ; rdfs:label "odd" ; rkg:value "12" ; rkg:section sec:scaling-laws ; prov:wasDerivedFrom paper:kaplan2020 .\n',
     "const:odd", "typed number"),
    (GOOD_RULE + '\nconst:odd a rkg:Constant ; rdfs:label "odd" ; rkg:value "abc"^^xsd:double ; rkg:section sec:scaling-laws ; prov:wasDerivedFrom paper:kaplan2020 .\n',
     "const:odd", "not a valid"),
    (GOOD_RULE + '\nrule:other a rkg:Rule ; rdfs:label "other"@en .\n', "rule:other", "label"),
    (GOOD_RULE + '\nrule:twin a rkg:Rule ; rdfs:label "My team\'s tabular rule" ; rkg:text "x" ; rkg:recommends kb:xgboost ; rkg:strength rkg:weak ; rkg:section sec:scaling-laws ; prov:wasDerivedFrom paper:kaplan2020 .\n',
     "rule:twin", "both"),
    (GOOD_RULE + '\nrule:blank a rkg:Rule ; rdfs:label "blank" ; rkg:condition [ rkg:dimension dim:data ] .\n',
     "rule:blank", "blank node"),
    (GOOD_RULE.replace("rkg:strength rkg:weak ;", 'rkg:strength rkg:weak ;\n    rdfs:comment "abc"^^xsd:integer ;'),
     "rule:my-rule", "rdfs:comment 'abc' is not a valid xsd:integer"),
    (GOOD_RULE.replace("rkg:strength rkg:weak ;", 'rkg:strength rkg:weak ;\n    rdfs:comment "NaN"^^xsd:double ;'),
     "rule:my-rule", "finite"),
    (GOOD_RULE.replace("rkg:strength rkg:weak ;", 'rkg:strength rkg:weak ;\n    rdfs:comment "-INF"^^xsd:float ;'),
     "rule:my-rule", "finite"),
    (GOOD_RULE.replace("rkg:recommends kb:lightgbm ;", "rkg:recommends kb:lightgbm ;\n    rkg:advisesAgainst kb:lightgbm ;"),
     "rule:my-rule", "both recommends and advises against"),
    (GOOD_RULE.replace('"Our own finding', '"Our\\u0000 own finding'), "rule:my-rule", "control character (U+0000)"),
    (GOOD_RULE + '\nkb:loop-a a rkg:Optimizer ; rdfs:label "Loop A" ; '
                 '<http://www.w3.org/2004/02/skos/core#broader> kb:loop-b .\n'
                 'kb:loop-b a rkg:Optimizer ; rdfs:label "Loop B" ; '
                 '<http://www.w3.org/2004/02/skos/core#broader> kb:loop-a .\n',
     "kb:loop-a", "skos:broader cycle"),
])
def test_each_kind_of_violation_is_reported_at_its_line(tmp_path, body, needle, message):
    path = write(tmp_path, body)
    code, out = run("validate", str(path))
    assert code == 2, out
    expected = f"{path}:{line_of(path, needle)}:"
    hits = [line for line in out.splitlines() if line.startswith(expected)]
    assert any(message in h for h in hits), out


def test_an_ill_typed_literal_is_reported_once_without_rdflibs_traceback(tmp_path):
    path = write(tmp_path, GOOD_RULE.replace("rkg:strength rkg:weak ;",
                                             'rkg:strength rkg:weak ;\n    rdfs:comment "abc"^^xsd:integer ;'))
    code, out = run("validate", str(path))
    assert code == 2 and "Traceback" not in out and "Failed to convert" not in out, out


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.ttl"
    path.write_bytes(b"\xef\xbb\xbf" + (PREFIXES + GOOD_RULE).encode("utf-8"))
    code, out = run("validate", str(path))
    assert code == 0, out
    code, out = run("query", "recommend architecture where data = tabular", "--kb", str(path), "--format", "json")
    assert code == 0 and "my-rule" in out


@pytest.mark.parametrize("raw,line,column,message", [
    (b"rule:my-rule rdfs:comment \"caf\xe9\" .\n", 1, 31, "not UTF-8: byte 0xe9"),
    (b"# an old comment: na\xefve\n" + GOOD_RULE.encode(), 1, 21, "not UTF-8: byte 0xef"),
    (b"<< rule:a rkg:b rule:c >> rkg:d rule:e .\n", 1, 1, "a quoted triple"),
])
def test_bytes_and_syntax_that_are_not_turtle_11_are_refused_at_their_line(tmp_path, raw, line, column, message):
    path = tmp_path / "ext.ttl"
    path.write_bytes(PREFIXES.encode() + raw)
    code, out = run("validate", str(path))
    assert code == 2 and "Traceback" not in out and "internal error" not in out, out
    assert f"{path}:{PREFIXES.count(chr(10)) + line}: column {column}: {message}" in out, out
    code, out = run("query", "recommend fix where symptom = nan", "--kb", str(path))
    assert code == 2 and message in out, out


def test_broken_turtle_is_refused_with_file_line_column(tmp_path):
    path = write(tmp_path, GOOD_RULE + '\nrule:x rdfs:label "unterminated .\n')
    code, out = run("validate", str(path))
    assert code == 2
    assert f"{path}:" in out and "column" in out and "Traceback" not in out


def test_a_broken_extension_is_refused_by_every_command(tmp_path):
    path = write(tmp_path, "rule:x rdfs:label oops .\n")
    code, out = run("stats", "--kb", str(path))
    assert code == 2
    assert str(path) in out and "Traceback" not in out
    code, out = run("stats", "--kb", str(path), "--format", "json")
    assert code == 2
    assert json.loads(out)["error"]["kind"] == "kb"


def test_an_invalid_extension_is_refused_before_it_changes_anything(tmp_path):
    path = write(tmp_path, GOOD_RULE.replace("paper:grinsztajn2022", "paper:nobody2099"))
    code, out = run("stats", "--kb", str(path))
    assert code == 2
    assert "paper:nobody2099" in out
    code, out = run("stats")
    assert code == 0


def test_missing_extension_file(tmp_path):
    code, out = run("validate", str(tmp_path / "nope.ttl"))
    assert code == 2 and "no such file" in out


def test_every_figure_of_hardware_and_models_is_bounded_as_plan_bounds_a_query():
    """Each numeric property of a GPU, a model configuration or a published run is bounded by the
    ontology (above 0, or at least 1 for a count) and so by the magnitudes plan computes with: a
    query's limit and the KB's are one (recipekg.limits); a model figure that plan reads as a
    whole number also by that number's range."""
    from recipekg.knowledge.bounds import ontology_bounds
    from recipekg.knowledge.compiler import Index
    from recipekg.knowledge.rdfio import read_turtle
    from recipekg.knowledge.resources import bundled_files
    from recipekg.knowledge.terms import OWL, RDFS, RKG, XSD
    from recipekg.limits import MAGNITUDES, WHOLE_NUMBERS

    ix = Index([t for p in bundled_files() for t in read_turtle(p)])
    bounds = ontology_bounds(ix)
    figures = [p for p in ix.instances(OWL.DatatypeProperty) if ix.one(p, RDFS.range) == XSD.double
               and (ix.one(p, RDFS.domain) in (RKG.Hardware, RKG.ModelConfiguration)
                    or p in (RKG.params, RKG.tokens, RKG.flops, RKG.gpuHours, RKG.mfu))]
    assert len(figures) >= 20
    for p in figures:
        ends = {(b.side, b.limit) for b in bounds.get(p, [])}
        assert ("max", MAGNITUDES[1]) in ends and ("min", MAGNITUDES[0]) in ends, p
    assert ("max", WHOLE_NUMBERS["layers"][1]) in {(b.side, b.limit) for b in bounds[RKG.layers]}


def test_a_figure_out_of_bounds_is_refused_at_its_own_line_with_or_without_shacl(tmp_path):
    path = write(tmp_path, """
kb:team-gpu a rkg:Hardware ; rdfs:label "Team GPU" ;
    rkg:memoryBytes 4.8e10 ;
    rkg:bf16PeakFlopsPerSecond 1.0e41 ;
    prov:wasDerivedFrom paper:grinsztajn2022 .
""")
    for shacl in ([], ["--no-shacl"]):
        status, out = run("validate", *shacl, str(path))
        assert status == 2 and f"{path}:{line_of(path, '1.0e41')}: rkg:bf16PeakFlopsPerSecond is 1.0e41" in out


def test_a_500000_item_collection_is_refused_before_the_parse_at_its_line(tmp_path, monkeypatch):
    """The budget: not one triple of the file is parsed, and the scan holds no more than the
    file's bytes (it was 55 s and 1 GB, the refusal at line 1)."""
    import tracemalloc

    import recipekg.knowledge.validate as validation
    from recipekg.errors import KBError
    from recipekg.knowledge.prescan import check_blank_nodes
    from recipekg.api import KnowledgeBase

    path = write(tmp_path, '\nkb:listed a rkg:Technique ; rdfs:label "Listed" ;\n    prov:wasDerivedFrom paper:grinsztajn2022 ;\n'
                           '    rdfs:seeAlso ( ' + "kb:lightgbm " * 500_000 + ") .\n")
    parsed = []
    real = validation.read_turtle
    monkeypatch.setattr(validation, "read_turtle", lambda p: parsed.append(p) or real(p))
    with pytest.raises(KBError) as caught:
        KnowledgeBase.load([path], use_cache=False, shacl=False)
    assert (caught.value.file, caught.value.line) == (str(path), line_of(path, "rdfs:seeAlso ("))
    assert "RDF collection" in caught.value.message and path not in parsed
    tracemalloc.start()
    with pytest.raises(KBError):
        check_blank_nodes(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 * path.stat().st_size


def test_a_paper_another_extension_already_has_is_refused_at_the_second_and_bundled_papers_are_unique(tmp_path):
    from recipekg.knowledge.extensions import _same_papers
    from recipekg.knowledge.rdfio import read_turtle
    from recipekg.knowledge.resources import bundled_files

    first = write(tmp_path, '\npaper:team-one a rkg:Paper ; rdfs:label "Team one" ; rkg:arxiv "2401.00001" .\n', "one.ttl")
    second = write(tmp_path, '\npaper:team-two a rkg:Paper ; rdfs:label "Team two" ;\n'
                             '    rkg:url "https://arxiv.org/pdf/2401.00001v3.pdf"^^xsd:anyURI .\n', "two.ttl")
    status, out = run("validate", "--no-shacl", str(first), str(second))
    assert status == 2 and f"{second}:{line_of(second, 'paper:team-two')}: paper:team-two has the arXiv id " \
                           f"2401.00001 of paper paper:team-one" in out, out
    assert list(_same_papers([], [t for p in bundled_files() for t in read_turtle(p)])) == []


def test_one_alias_on_nodes_of_two_extensions_is_refused_at_the_second_naming_both(tmp_path):
    body = '\nkb:{0} a rkg:Optimizer ; rdfs:label "{0}" ; skos:altLabel "team-opt" ; prov:wasDerivedFrom paper:grinsztajn2022 .\n'
    skos = "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
    first = write(tmp_path, skos + body.format("opt-one"), "one.ttl")
    second = write(tmp_path, skos + body.format("opt-two"), "two.ttl")
    status, out = run("validate", "--no-shacl", str(first), str(second))
    assert status == 2 and f"{second}:{line_of(second, 'kb:opt-two')}: kb:opt-two answers to the name 'team-opt' " \
                           f"as kb:opt-one does (a choice)" in out, out
    assert str(first) + ":" not in out


def test_one_iri_described_as_two_things_is_reported_in_the_bundled_kb_too(tmp_path):
    """Two bundled conditions once shared ``cond:params-le-13b`` (one "params <= 13B", one
    "3B < params <= 13B", in two files): the bundled KB validated clean and the second silently
    took the first's bounds. A node with two labels in one language is reported, bundled or not;
    labels in two languages are one thing."""
    from recipekg.knowledge.resources import bundled_files
    from recipekg.knowledge.validate import validate

    first, second = tmp_path / "a.ttl", tmp_path / "b.ttl"
    first.write_text(PREFIXES + 'cond:le-13b a rkg:Condition ; rdfs:label "params <= 13B" ;\n'
                     '    rkg:dimension dim:params ; rkg:maxInclusive 1.3e10 .\n')
    second.write_text(PREFIXES + 'cond:le-13b a rkg:Condition ; rdfs:label "3B < params <= 13B" ;\n'
                      '    rkg:dimension dim:params ; rkg:minExclusive 3.0e9 .\n')
    found = [str(v) for v in validate([*bundled_files(), first, second])]
    assert any("cond:le-13b has two labels, '3B < params <= 13B' and 'params <= 13B'" in v for v in found), found
    second.write_text(PREFIXES + 'cond:le-13b rdfs:label "params <= 13B"@en, "Parameter <= 13B"@de .\n')
    assert not [v for v in map(str, validate([*bundled_files(), first, second])) if "two labels" in v]
