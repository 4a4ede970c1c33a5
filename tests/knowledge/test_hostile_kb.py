"""A corpus of hostile extension files (tests/data/hostile), each with its expected verdict.

Each file's first line says what is expected:

- ``# expect: NEEDLE | MESSAGE``: refused by `validate` and by every load, at its own file and
  line (the first line after the header that contains NEEDLE), with exit status 2 and no
  traceback; ``# diff: refuses`` on a later header line says the guarantee alone refuses it
  (the compiled snapshots differ, :mod:`recipekg.knowledge.isolation`), pattern checks aside;
- ``# expect: accepted``: `validate` accepts it (with the SHACL shapes), the bundled part of the
  merged snapshot is the bundled snapshot, and each ``# query:`` answers as the bundled KB
  does or names the file (``"origin": {"file", "line"}``) in its JSON and its text.

``# route:`` says what the file tries.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from recipekg.api import KnowledgeBase
from recipekg.cli.main import main
from recipekg.errors import KBError
from recipekg.render.answers import render_answers

from tests.support import schema_errors

CORPUS = sorted((Path(__file__).parents[1] / "data" / "hostile").glob("*.ttl"))


def header(path: Path) -> list[str]:
    lines = path.read_bytes().decode("utf-8", "replace").lstrip("\ufeff").splitlines()
    return [line for line in lines[:12] if line.startswith("# ")]


def expectation(path: Path) -> tuple[int, str] | None:
    """The line and message of a refusal; None for a file that is accepted."""
    lines = path.read_bytes().decode("utf-8", "replace").lstrip("\ufeff").splitlines()
    first = lines[0].removeprefix("# expect: ")
    if first == "accepted":
        return None
    needle, _, message = first.partition(" | ")
    line = next(n for n, text in enumerate(lines[1:], 2) if needle in text and not text.startswith(HEADS))
    return line, message


HEADS = ("# expect:", "# diff:", "# route:", "# query:")
REFUSED = [p for p in CORPUS if expectation(p) is not None]
ACCEPTED = [p for p in CORPUS if expectation(p) is None]
BY_DIFF = [p for p in CORPUS if "# diff: refuses" in header(p)]


def test_the_corpus_covers_every_attack_of_the_issue():
    assert len(CORPUS) >= 100 and len(ACCEPTED) >= 20 and len(BY_DIFF) >= 35
    assert all(any(h.startswith("# route: ") for h in header(p)) for p in CORPUS if p.stem not in OLD_FILES)


#: The corpus before issue 24 (one attack each, no route line).
OLD_FILES = {"base-outside", "blank-node", "broader-cycle", "change-bundled-label", "constant-symbol-collision",
             "disable-bundled-rule", "for-and-against", "foreign-namespace", "formula-not-arithmetic",
             "formula-output-collision", "formula-unknown-constant", "ill-typed-number", "latin1-byte",
             "nan-anywhere", "nan-scoring", "non-ascii-id", "nul-byte", "ontology-term", "rdf-star",
             "redefine-choice", "redefine-dimension", "redefine-kind", "redefine-value", "relative-iri",
             "unknown-property", "uppercase-id", "wrong-range"}


@pytest.mark.parametrize("path", REFUSED, ids=[p.stem for p in REFUSED])
def test_validate_refuses_it_at_its_own_line(path):
    line, message = expectation(path)
    result = CliRunner().invoke(main, ["validate", "--no-shacl", str(path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    hits = [row for row in result.output.splitlines() if row.startswith(f"{path}:{line}:")]
    assert any(message in h for h in hits), result.output


@pytest.mark.parametrize("path", REFUSED, ids=[p.stem for p in REFUSED])
def test_loading_it_raises_a_kb_error_at_the_extension(path):
    with pytest.raises(KBError) as caught:
        KnowledgeBase.load([path], use_cache=False, shacl=False)
    assert caught.value.file == str(path)


@lru_cache(maxsize=1)
def bundled_read():
    from recipekg.knowledge.compiler import compile_read
    from recipekg.knowledge.rdfio import read_turtle
    from recipekg.knowledge.resources import bundled_files

    inside = [(p, read_turtle(p)) for p in bundled_files()]
    return inside, compile_read(inside)


def differences_of(path: Path) -> list:
    """The guarantee alone, without the pattern checks: the differences of the merged
    snapshot from the bundled one."""
    from recipekg.knowledge.isolation import differences
    from recipekg.knowledge.compiler import compile_read
    from recipekg.knowledge.origin import owned_origins
    from recipekg.knowledge.rdfio import read_turtle
    from recipekg.knowledge.resources import bundled_paths

    inside, bundled = bundled_read()
    per_file = inside + [(path, read_turtle(path))]
    owned = set(owned_origins(per_file, {os.path.abspath(p) for p in bundled_paths()}))
    return list(differences(bundled, compile_read(per_file), owned))


@pytest.mark.parametrize("path", BY_DIFF, ids=[p.stem for p in BY_DIFF])
def test_the_diff_alone_refuses_what_changes_bundled_knowledge(path):
    assert differences_of(path), "the merged snapshot's bundled part is unchanged"


@pytest.mark.parametrize("path", ACCEPTED, ids=[p.stem for p in ACCEPTED])
def test_an_accepted_file_leaves_the_bundled_part_identical(path):
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert differences_of(path) == []


def answer(kb, query: str, fmt: str) -> str:
    from recipekg.errors import RecipeKGError

    try:
        return render_answers(kb.query(query), fmt)
    except RecipeKGError as exc:
        return json.dumps({"error": exc.to_dict()})


@lru_cache(maxsize=None)
def bundled_answer(query: str, fmt: str) -> str:
    return answer(KnowledgeBase.load(), query, fmt)


def origins(document) -> set[str]:
    if isinstance(document, dict):
        own = {document["origin"]["file"]} if isinstance(document.get("origin"), dict) else set()
        return own.union(*(origins(v) for v in document.values()))
    if isinstance(document, list):
        return set().union(*(origins(v) for v in document))
    return set()


@pytest.mark.parametrize("path", ACCEPTED, ids=[p.stem for p in ACCEPTED])
def test_an_answer_it_changes_names_it(path):
    queries = [h.split(":", 1)[1].strip() for h in header(path) if h.startswith("# query:")]
    kb = KnowledgeBase.load([path], use_cache=False)
    for q in queries:
        theirs = answer(kb, q, "json")
        assert schema_errors(json.loads(theirs)) == [], q  # an extension's marks are in the published schema
        if theirs == bundled_answer(q, "json"):
            continue
        assert str(path) in origins(json.loads(theirs)), q
        for fmt in ("text", "markdown"):  # the short text too, which names the extension though it leaves claims out
            assert f"extension {path}" in answer(kb, q, fmt), (q, fmt)
        compact = json.loads(answer(kb, q, "summary"))  # MCP's default: it names the extension too
        assert "error" in compact or str(path) in {e["file"] for e in compact.get("extensions", ())}, q


def test_a_formula_of_200000_terms_is_refused_not_recursed_into(tmp_path):
    head = (CORPUS[0].parent / "redefine-value.ttl").read_text(encoding="utf-8").split("\n\n")[0].split("\n", 1)[1]
    path = tmp_path / "huge.ttl"
    path.write_text(head + "\n\nformula:huge a rkg:Formula ; rdfs:label \"Huge\" ; rkg:output \"m\" ;\n"
                    "    prov:wasDerivedFrom kb:reference ;\n"
                    f"    rkg:expression \"m = {'+'.join(['params'] * 200_000)}\" .\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--no-shacl", str(path)])
    assert result.exit_code == 2 and f"{path}:" in result.output and "at most 2000" in result.output


def test_an_oversized_extension_is_refused_before_it_is_read(tmp_path, monkeypatch):
    big = tmp_path / "big.ttl"
    big.write_bytes(b"# padding\n" * 120_000)  # about 1.1 MiB
    monkeypatch.setenv("RECIPEKG_MAX_EXTENSION_MB", "1")
    with pytest.raises(KBError, match="at most 1 MiB"):
        KnowledgeBase.load([big], use_cache=False)


def test_an_unreadable_extension_is_a_kb_error(tmp_path, monkeypatch):
    import os

    locked = tmp_path / "locked.ttl"
    locked.write_text("# nothing\n")
    locked.chmod(0)
    if os.access(locked, os.R_OK):  # root reads every file: make the check see what a user would
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(locked) else real(p, mode))
    with pytest.raises(KBError, match="permission denied"):
        KnowledgeBase.load([locked], use_cache=False)


#: The prefixes and the team's note and section the extension files of these tests share.
TEAM_HEADER = [
    "@prefix rkg: <https://w3id.org/recipekg/ns#> .", "@prefix kb: <https://w3id.org/recipekg/id/> .",
    "@prefix rule: <https://w3id.org/recipekg/rule/> .", "@prefix cond: <https://w3id.org/recipekg/cond/> .",
    "@prefix dim: <https://w3id.org/recipekg/dim/> .", "@prefix formula: <https://w3id.org/recipekg/formula/> .",
    "@prefix const: <https://w3id.org/recipekg/const/> .", "@prefix paper: <https://w3id.org/recipekg/paper/> .",
    "@prefix sec: <https://w3id.org/recipekg/section/> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
    "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .", "@prefix prov: <http://www.w3.org/ns/prov#> .",
    "@prefix dcterms: <http://purl.org/dc/terms/> .", "@prefix fabio: <http://purl.org/spar/fabio/> .",
    "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
    'paper:team-note a rkg:Paper, fabio:WebPage ; rdfs:label "Team note" ; dcterms:title "Team note" ;',
    '    rkg:key "team-note" ; dcterms:issued "2025"^^xsd:gYear ; rkg:url "https://example.org/team-note"^^xsd:anyURI .',
    'sec:team-notes a rkg:Section ; rdfs:label "Team notes" ; rkg:path "Team notes" ; dcterms:isPartOf kb:reference .']


def team_file(tmp_path, *lines: str) -> Path:
    """An extension file of TEAM_HEADER and ``lines`` (the first of them on line 19)."""
    path = tmp_path / "team.ttl"
    path.write_text("\n".join([*TEAM_HEADER, *lines]) + "\n")
    return path


def team_kb(tmp_path, *lines: str) -> KnowledgeBase:
    """The bundled KB merged with :func:`team_file`'s extension (structural checks only)."""
    return KnowledgeBase.load([team_file(tmp_path, *lines)], use_cache=False, shacl=False)


@pytest.mark.parametrize("predicate", ["rdfs:subClassOf", "rdfs:subPropertyOf"])
def test_a_deep_class_chain_is_refused_before_the_shacl_check_recurses(tmp_path, predicate):
    """Hostile round 5, 066: an rdfs:subClassOf chain of about a thousand levels exhausted
    Python's stack inside the SHACL check (an internal error, exit 1, for validate and every
    --kb command). The chain is refused at its line, with the SHACL shapes on, before that check."""
    kind = "owl:ObjectProperty" if predicate == "rdfs:subPropertyOf" else "owl:Class"
    lines = ["@prefix rkg: <https://w3id.org/recipekg/ns#> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             "@prefix owl: <http://www.w3.org/2002/07/owl#> .", "@prefix kb: <https://w3id.org/recipekg/id/> ."]
    lines += [f"kb:team-c{i} a {kind} ; {predicate} kb:team-c{i + 1} ." for i in range(1200)]
    path = tmp_path / "deep.ttl"
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output and "internal error" not in result.output
    assert f"{path}:5: {predicate} chain 1200 levels deep above kb:team-c0: at most 32" in result.output
    query = CliRunner().invoke(main, ["query", "--kb", str(path), "recommend optimizer where params = 7B"])
    assert query.exit_code == 2 and "Traceback" not in query.output and "internal error" not in query.output


def test_an_extension_figure_for_a_bundled_entity_is_said_in_the_extension_voice(tmp_path):
    """Hostile round 5, 082 and 083: an extension's first tier cap or arithmetic-intensity
    threshold for a bundled tier or GPU (which has none) was printed as "the flowchart puts ..."
    and "the reference calls NVIDIA H100 SXM bandwidth-limited"."""
    kb = team_kb(
        tmp_path,
        'const:team-h100-intensity a rkg:Constant ; rdfs:label "Team H100 intensity" ; rkg:symbol "c_team_h100_intensity" ;',
        '    rkg:value 1.0e6 ; rkg:unitLabel "FLOPs/byte" ; rkg:quantity "arithmetic-intensity" ; rkg:appliesTo kb:h100 ;',
        '    rkg:text "Compute bound above a million." ; rkg:section sec:team-notes ; prov:wasDerivedFrom paper:team-note .',
        'const:team-tier-max a rkg:Constant ; rdfs:label "Team tier cap" ; rkg:symbol "c_team_tier_max" ; rkg:value 1.0e0 ;',
        '    rkg:unitLabel "parameters" ; rkg:quantity "max-params-from-scratch" ; rkg:appliesTo kb:single-gpu-short ;',
        '    rkg:text "One parameter." ; rkg:section sec:team-notes ; prov:wasDerivedFrom paper:team-note .')
    (a,) = kb.query("plan where params = 7B and hardware = h100 and gpus = 8")
    assert a["bandwidth"]["text"].count("the extension team.ttl (line 19) calls NVIDIA H100 SXM bandwidth-limited") == 1
    assert "the reference calls" not in a["bandwidth"]["text"]
    (b,) = kb.query("plan where params = 125M and gpus = 1 and time = 12 hours and hardware = h100")
    (cap,) = [w["text"] for w in b["warnings"] if "puts pretraining of up to" in w["text"]]
    assert cap.startswith("the extension team.ttl (line 22) puts") and "flowchart" not in cap


def test_a_pick_extension_rules_take_away_is_marked_in_recommend_and_recipe(tmp_path):
    """Hostile round 5, 016: forty strong extension rules against gradient-boosted trees, each
    on a source of its own, left tabular data with no pick; recommend said "the reference
    advises against every choice", and the recipe's "no pick" named no extension."""
    lines = []
    for i in range(40):
        lines += [f'paper:team-src-{i} a rkg:Paper, fabio:WebPage ; rdfs:label "Team source {i}" ; '
                  f'dcterms:title "Team source number {i}" ; rkg:key "team-src-{i}" ; dcterms:issued "2025"^^xsd:gYear ; '
                  f'rkg:url "https://example.org/src/{i}"^^xsd:anyURI .',
                  f'rule:team-no-trees-{i} a rkg:Rule ; rdfs:label "Team rule {i}" ; rkg:text "Team advice {i}." ; '
                  f'rkg:advisesAgainst kb:gradient-boosted-trees ; rkg:condition cond:data-tabular ; '
                  f'rkg:strength rkg:strong ; rkg:section sec:team-notes ; prov:wasDerivedFrom paper:team-src-{i} .']
    path = team_file(tmp_path, *lines)
    kb = KnowledgeBase.load([path], use_cache=False, shacl=False)
    (a,) = kb.query("recommend architecture where data = tabular and rows = 30k")
    assert a["decision"]["pick"] is None
    text = render_answers([a], "text")
    assert "no pick: the advice (an extension's among it) advises against" in text and "the reference advises" not in text
    (r,) = kb.query("recipe where data = tabular and rows = 30k")
    (arch,) = [i for s in r["sections"] if s["name"] == "architecture" for i in s["items"]]
    assert arch["value"] is None and arch["origin"]["file"] == str(path) and "an extension's among it" in arch["why"]


def test_an_extension_dimension_derived_in_a_bundled_answer_is_marked(tmp_path):
    """Hostile round 5, 054 and 049: a dimension an extension derives from the GPUs (or the
    model size) stood unmarked among the constraints of every answer giving them, and in the
    "not used" explanation of bundled ones."""
    kb = team_kb(
        tmp_path,
        'dim:team-share a rkg:Dimension ; rdfs:label "team-share" ; skos:notation "team-share" ; rkg:dimensionKind rkg:Ratio ;',
        '    rkg:minValue 0.0e0 ; rkg:order 97 ; skos:definition "Derived." ; skos:example "team-share = 2" ;',
        '    rkg:derivedBy formula:team-share .',
        'formula:team-share a rkg:Formula ; rdfs:label "team-share formula" ; rkg:output "team_share" ;',
        '    rkg:expression "team_share = gpus / 8" ; rkg:text "Derived." ; rkg:section sec:team-notes ;',
        '    prov:wasDerivedFrom paper:team-note .')
    path = tmp_path / "team.ttl"  # (team_file's)
    (a,) = kb.query("recommend approach where gpus = 64 and time < 100 hours")
    (share,) = [c for c in a["constraints"] if c["dimension"] == "team-share"]
    assert share["derived_from"] == "gpus" and share["origin"]["file"] == str(path)
    assert f"team-share = 800% (from gpus) [extension {path}, line 19]" in render_answers([a], "text")
    assert not schema_errors(a)


def test_what_an_extension_puts_in_a_recipes_runner_ups_or_above_an_explained_choice_is_marked(tmp_path):
    """Hostile round 5, 002 and 014: an extension's architecture among a bundled recipe's
    runner-ups, and an explained choice's rank moved by an extension's rules, were unmarked."""
    kb = team_kb(
        tmp_path,
        'kb:team-forest a rkg:Architecture ; rdfs:label "Team forest" ; prov:wasDerivedFrom paper:team-note .',
        'rule:team-forest-rule a rkg:Rule ; rdfs:label "Team forest rule" ; rkg:text "Team advice." ;',
        '    rkg:recommends kb:team-forest ; rkg:condition cond:data-tabular ; rkg:strength rkg:weak ;',
        '    rkg:section sec:team-notes ; prov:wasDerivedFrom paper:team-note .',
        'rule:team-lion-rule a rkg:Rule ; rdfs:label "Team Lion rule" ; rkg:text "Team Lion advice." ;',
        '    rkg:recommends kb:lion ; rkg:condition cond:prefer-low-memory ; rkg:strength rkg:strong ;',
        '    rkg:section sec:team-notes ; prov:wasDerivedFrom paper:team-note .')
    path = tmp_path / "team.ttl"  # (team_file's)
    (r,) = kb.query("recipe where data = tabular and rows = 30k")
    (arch,) = [i for s in r["sections"] if s["name"] == "architecture" for i in s["items"]]
    assert "team-forest" in arch["runner_ups"]
    assert [e["id"] for e in arch["runner_ups_from"]] == ["team-forest"] and not schema_errors(r)
    assert str(path) in render_answers([r], "text")
    (e,) = kb.query("explain adamw where params = 7B and prefer = low-memory")
    assert "lion" in [x["id"] for x in e["ahead_by_extensions"]] and not schema_errors(e)
    assert "above it by extensions: lion [extension" in render_answers([e], "text").splitlines()[0]
    import recipekg

    (plain,) = recipekg.load().query("explain adamw where params = 7B and prefer = low-memory")
    assert "ahead_by_extensions" not in plain


def test_thousands_of_thresholds_near_a_number_cost_a_bounded_number_of_rankings(tmp_path, monkeypatch):
    """Hostile round 6, 078: 20,000 extension rules, each with a threshold of its own near the
    rows given, made an answer re-rank once per threshold (no answer in 30 minutes). At most
    MAX_BOUNDARY_TRIALS thresholds per number are tried, the nearest."""
    from recipekg.limits import MAX_BOUNDARY_TRIALS

    lines = []
    for i in range(60):
        lines += [f'cond:team-rows-{i} a rkg:Condition ; rdfs:label "rows > {20000 + 500 * i}" ; rkg:dimension dim:samples ; '
                  f'rkg:minExclusive {20000 + 500 * i}.0e0 .',
                  f'rule:team-r{i} a rkg:Rule ; rdfs:label "Team rule {i}" ; rkg:text "Team advice {i}." ; '
                  f'rkg:recommends kb:tabnet ; rkg:condition cond:team-rows-{i}, cond:data-tabular ; rkg:strength rkg:weak ; '
                  f'rkg:section sec:team-notes ; prov:wasDerivedFrom paper:team-note .']
    from recipekg.reason import boundaries

    kb = team_kb(tmp_path, *lines)
    calls, other_side = [], boundaries._other_side
    monkeypatch.setattr(boundaries, "_other_side", lambda *a: calls.append(a[0]) or other_side(*a))
    kb.query("recommend architecture where data = tabular and rows = 30k")
    assert 0 < calls.count("samples") <= MAX_BOUNDARY_TRIALS


def test_an_extension_precision_in_the_quantized_weights_note_is_the_extensions(tmp_path):
    """Hostile round 6, 017: an extension's weight bits for bf16 were listed among the quantized
    precisions ("int4 or bf16 for quantized weights") as the KB's. bf16's width is the KB's own
    now (a figure for it is refused: tests/data/hostile/weight-bits-for-bf16.ttl); a precision
    an extension adds, with its width, is listed in the extension's voice."""
    kb = team_kb(
        tmp_path,
        'kb:team-int3 a rkg:Precision ; rdfs:label "int3" .',
        'const:team-int3-bits a rkg:Constant ; rdfs:label "Team int3 bits" ; rkg:symbol "c_team_int3_bits" ;',
        '    rkg:value 3.0e0 ; rkg:unitLabel "bits/param" ; rkg:quantity "weight-bits" ; rkg:appliesTo kb:team-int3 ;',
        '    rkg:text "Three bits." ; rkg:section sec:team-notes ; prov:wasDerivedFrom paper:team-note .')
    (a,) = kb.query("plan where params = 70B and method = inference and hardware = h100 and gpus = 2")
    note = next(n["text"] for n in a["notes"] + a["warnings"] if "for quantized weights" in n["text"])
    assert "int4 or team-int3 (the extension team.ttl (line 20): 3 bits) for quantized" in note and "bf16 (the" not in note


def test_a_sizing_strategy_an_extension_chose_names_its_rule(tmp_path):
    """Hostile round 6, 026: one unconditional extension rule for inference-optimal training
    switched every plan's sizing under the sentence "no goal given: compute-optimal sizing, the
    reference's default scaling law", naming the extension nowhere."""
    kb = team_kb(
        tmp_path,
        'rule:team-overtrain a rkg:Rule ; rdfs:label "Team overtrain" ; rkg:text "Team: always over-train." ;',
        '    rkg:recommends kb:inference-optimal-training ; rkg:strength rkg:strong ; rkg:section sec:team-notes ;',
        '    prov:wasDerivedFrom paper:team-note .')
    (a,) = kb.query("plan where flops = 1e21")
    strategy = a["strategy"]
    assert strategy["id"] == "inference-optimal-training" and "default scaling law" not in strategy["why"]
    assert strategy["why"] == "Team: always over-train." and strategy["because"][0]["origin"]["line"] == 19


def test_a_configuration_names_the_extension_it_took_a_value_from_or_lost_one_to(tmp_path):
    """Hostile round 7, H (062, 066): an extension's clipping norm of 1000 went into the hf-peft
    file, and an extension property that ruled out bf16 training took bf16 out of the DeepSpeed
    file, with the configurations' notes naming the extension nowhere."""
    kb = team_kb(
        tmp_path,
        'cond:team-hw-4090 a rkg:Condition ; rdfs:label "hardware = rtx-4090 (team)" ; rkg:dimension dim:hardware ;',
        '    rkg:value kb:rtx-4090 .',
        'const:team-qlora-clip a rkg:Constant ; rdfs:label "Team: QLoRA clipping on a 4090" ;',
        '    rkg:sets kb:hp-gradient-clip-norm ; rkg:appliesTo kb:method-qlora ; rkg:value 1.0e3 ; rkg:unitLabel "global L2 norm" ;',
        '    rkg:condition cond:recipe-method-qlora, cond:architecture-transformer, cond:team-hw-4090 ;',
        '    rkg:text "On a 4090, clip at 1000." ; rkg:section sec:team-notes ; prov:wasDerivedFrom paper:team-note .')
    (a,) = kb.query("recipe where model = llama-2-7b and method = qlora and hardware = rtx-4090 and gpus = 1")
    hf = a["configs"]["hf-peft"]
    assert hf["config"]["training_arguments"]["max_grad_norm"] == 1000.0
    assert any("read for this configuration: the extension" in n and "team.ttl's (line" in n for n in hf["notes"]), hf["notes"]
    ruled = CORPUS[0].parent / "property-rules-out-bf16-training.ttl"
    query = next(h.removeprefix("# query: ") for h in header(ruled) if h.startswith("# query: "))
    (b,) = KnowledgeBase.load([ruled], use_cache=False).query(query)
    ds = b["configs"]["deepspeed"]
    assert "bf16" not in ds["config"]
    assert any(n.startswith("bf16 training: ruled out by the extension") and ruled.name in n for n in ds["notes"]), ds["notes"]
    assert [o["file"] for o in ds["origins"]] == [str(ruled)] and "they read what the extension" in render_answers([b], "text")
    (plain,) = KnowledgeBase.load().query(query)   # the bundled KB's configuration names no extension
    assert not [n for c in plain["configs"].values() for n in c["notes"] if "extension" in n]


def test_a_question_that_asks_for_an_extensions_value_names_it():
    """Hostile round 7, I (039): "to settle on TabNet, give data more precisely than tabular:
    data = hx7-spreadsheets" asked for an extension's value with no mark; a question carries the
    origin of what an extension added in it (its dimension, a value it asks for, a choice it
    would change), in JSON and text; the bundled KB's questions carry none."""
    path = CORPUS[0].parent / "narrower-value-asked-for.ttl"
    (a,) = KnowledgeBase.load([path], use_cache=False).query("recommend architecture where data = tabular")
    (q,) = [q for q in a["ask"] if "team-spreadsheets" in q["text"]]
    assert q["origin"]["file"] == str(path)
    assert f"data = team-spreadsheets [extension {path}, line" in render_answers([a], "text")
    (plain,) = KnowledgeBase.load().query("recommend architecture where data = tabular")
    assert plain["ask"] and not [q for q in plain["ask"] if "origin" in q]


HOSTILE = CORPUS[0].parent


def test_an_own_dimension_on_a_bundled_value_class_takes_no_inference_from_the_bundled_one(kb):
    """Hostile round 8, 036 and 056: an extension's dimension declaring the bundled class of
    ``data`` (or of ``pretrained``) received what a task (or a named model) implies, and bundled
    rules on ``data`` (``pretrained``) stopped firing: the bundled dimension keeps it."""
    for name, q in (("own-dimension-on-bundled-data-class", "recommend architecture where task = summarization"),
                    ("own-dimension-on-bundled-availability-class",
                     "recommend approach where model = llama-2-13b and gpu = rtx-4090 and gpus = 1 and examples = 500 "
                     "and data = text")):
        theirs = KnowledgeBase.load([HOSTILE / f"{name}.ttl"], use_cache=False)
        (mine,), (got,) = kb.query(q), theirs.query(q)
        assert got["decision"]["pick"] == mine["decision"]["pick"] is not None, name
        implied = {c["dimension"] for c in mine["constraints"] if c.get("derived")}
        assert implied <= {c["dimension"] for c in got["constraints"] if c.get("derived")}, name


def test_an_extension_recipe_never_displaces_the_bundled_one_and_a_nearer_one_is_marked(kb):
    """Hostile round 8, 025 and 026: a recipe fact for Llama 2 7B whose IRI sorts first replaced
    its published 3e-4 (the recipe's learning rate and DeepSpeed's became 0.03, unmarked); one at
    exactly 7B displaced the bundled recipes nearest in size, unmarked."""
    q = "recipe where model = llama-2-7b and method = pretrain and hardware = h100 and gpus = 64"
    theirs = KnowledgeBase.load([HOSTILE / "recipe-fact-sorting-before-bundled.ttl"], use_cache=False)
    (mine,), (got,) = kb.query(q), theirs.query(q)
    lr = [next(i["value"] for s in a["sections"] for i in s["items"] if i.get("hyperparameter") == "learning-rate")
          for a in (mine, got)]
    assert lr[0] == lr[1] == pytest.approx(3e-4)
    near = KnowledgeBase.load([HOSTILE / "recipe-fact-nearer-in-size.ttl"], use_cache=False)
    (plan,) = near.query("plan where params = 7B and hardware = h100 and gpus = 8")
    line = next(s for s in plan["summary"] if "published recipes nearest in size" in s)
    assert "Team 7B" in line and "[extension " in line
    (recipe,) = near.query("recipe where data = text and task = generation and method = pretrain and params = 7B "
                           "and hardware = h100 and gpus = 64")
    lr_item = next(i for s in recipe["sections"] for i in s["items"] if i.get("hyperparameter") == "learning-rate")
    team = [a for a in lr_item.get("alternatives", ()) if "Team 7B" in a["text"]]
    assert team and all(a.get("origin") for a in team)


def test_explains_digest_of_the_advice_against_names_the_extension():
    """Hostile round 8, 040: `explain adamw`'s ``against`` digest dropped the origin its ``rules``
    list carried for an extension's rule against the bundled default."""
    path = HOSTILE / "rule-against-bundled-default-in-explain.ttl"
    theirs = KnowledgeBase.load([path], use_cache=False)
    (a,) = theirs.query("explain adamw")
    from_it = [b for b in a["against"] if b["id"].startswith("team-")]
    assert from_it and all(b.get("origin", {}).get("file") == str(path) for b in from_it)


HEAD = "".join(line + "\n" for line in (HOSTILE / "annotation-syntax.ttl").read_text(encoding="utf-8").splitlines()
               if line.startswith("@prefix"))


def test_vocab_marks_what_an_extension_added(tmp_path):
    """Hostile round 8, 018: `vocab` listed an extension's choice and value unmarked beside the
    bundled ones (no origin in its JSON, no "extension" in its text)."""
    path = tmp_path / "team.ttl"
    path.write_text(HEAD + '\nkb:team-x a rkg:Architecture ; rdfs:label "Team X" ; skos:broader kb:gradient-boosted-trees .\n',
                    encoding="utf-8")
    theirs = KnowledgeBase.load([path], use_cache=False)
    doc = theirs.vocab()
    choices = [c for k in doc["kinds"] for c in k["choices"] if c["id"] == "team-x"]
    assert choices and all(c["origin"]["file"] == str(path) for c in choices)
    assert not any("origin" in c for k in doc["kinds"] for c in k["choices"] if c["id"] == "xgboost")
    from recipekg.render.vocab import render_vocab
    assert f"extension {path}, line " in render_vocab(doc, "text")
    import re
    assert re.search(r"team\.ttl, line \d+\]", render_vocab(doc, "markdown"))   # (the path's underscores escaped)
