"""The query-language front end: grammar, AST, errors, generated parser.

Language-neutral cases live in ``tests/cases/parse.json`` (accepted queries and their
AST rendered by :func:`recipekg.query.ast.plain`) and ``tests/cases/parse_errors.json``
(rejected queries: error kind, line, column and a phrase the error must contain).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipekg.query.ast import Explain, Name, Number, Plan, Position, Quantity, \
    Recommend, String, plain
from recipekg.errors import (KBError, QuerySyntaxError, RangeError, RecipeKGError,
                             VocabularyError, closest)
from recipekg.query.parser import parse

from support import CASES, REPO  # noqa: E402
ACCEPTED = json.loads((CASES / "parse.json").read_text(encoding="utf-8"))
REJECTED = json.loads((CASES / "parse_errors.json").read_text(encoding="utf-8"))

# every phrase the parser may put in `expected`: the language's words, never terminal names
EXPECTED_WORDS = {
    "'recommend'", "'plan'", "'explain'", "'recipe'", "'where'", "'and'", "'top'", "'('", "')'", "','",
    "';'", "'\"'", "the end of the statement", "a name", "a number", "a whole number",
    "a quoted string", "a quantity (e.g. 80GB, 12h, 40%)",
    "an operator (=, !=, <, <=, >, >=, between, in)",
}


def error(query: str) -> RecipeKGError:
    with pytest.raises(RecipeKGError) as info:
        parse(query)
    return info.value


def rendered(query: str) -> RecipeKGError:
    """The error of ``query`` with its source line, as recipekg.api.KnowledgeBase.query gives it."""
    err = error(query)
    assert err.source_line is None  # parse() leaves the source text to its caller
    return err.with_source(query)


# ============================================================================ JSON cases

@pytest.mark.parametrize("case", ACCEPTED, ids=[c["query"][:40] for c in ACCEPTED])
def test_accepted_cases(case):
    assert plain(parse(case["query"])) == case["ast"]


@pytest.mark.parametrize("case", REJECTED, ids=[c["query"][:40] for c in REJECTED])
def test_rejected_cases(case):
    err = error(case["query"])
    assert (err.kind, err.line, err.column) == (case["kind"], case["line"], case["column"]), str(err)
    if "expected_contains" in case:
        assert case["expected_contains"] in err.expected, str(err)
    if "suggestions_contains" in case:
        assert case["suggestions_contains"] in err.suggestions, str(err)
    if "message_contains" in case:
        assert case["message_contains"] in err.message, str(err)
    assert set(err.expected) <= EXPECTED_WORDS, err.expected


def test_cases_cover_every_operator_and_statement():
    ops = {c["op"] for case in ACCEPTED for s in case["ast"] for c in s["constraints"]}
    assert ops == {"=", "!=", "<", "<=", ">", ">=", "between", "in"}
    assert {s["statement"] for case in ACCEPTED for s in case["ast"]} == {"recommend", "plan", "explain", "recipe"}
    kinds = {k for case in REJECTED for k in [case["kind"]]}
    assert kinds == {"syntax", "value"}


# ============================================================================ statements

def test_recommend_fields():
    (s,) = parse("recommend Architectures where data = tabular top 3")
    assert isinstance(s, Recommend)
    assert s.kind == Name("architectures", Position(1, 11, 1, 24, 10, 23))
    assert s.top == 3
    assert s.constraints[0].dimension.text == "data"
    assert s.constraints[0].op == "=" and s.constraints[0].value == s.constraints[0].values[0]
    assert s.text == "recommend Architectures where data = tabular top 3"


def test_plan_and_explain_fields():
    plan_, explain_, explain2 = parse('plan; explain ViT where x = 1; explain "8-bit Adam"')
    assert isinstance(plan_, Plan) and plan_.constraints == ()
    assert isinstance(explain_, Explain) and explain_.choice.text == "vit"
    assert isinstance(explain2.choice, String) and explain2.choice.text == "8-bit Adam"


def test_empty_statements_produce_nothing():
    for text in ["", ";", ";;", " ; ;\n;", "# only a comment", "#\n#\n", "\n\n\n", "\n;\n\n;"]:
        assert parse(text) == ()


def test_value_types():
    (s,) = parse('plan where a in (tabular, 30k, 80 GB, "Free Text")')
    name, number, quantity, string = s.constraints[0].values
    assert isinstance(name, Name) and name.text == "tabular"
    assert isinstance(number, Number) and (number.value, number.text) == (30000.0, "30k")
    assert isinstance(quantity, Quantity)
    assert (quantity.value, quantity.unit_kind, quantity.text) == (80e9, "bytes", "80 GB")
    assert isinstance(string, String) and string.text == "Free Text"


@pytest.mark.parametrize("text, value", [
    ("30000", 30000), ("30_000", 30000), ("30k", 30000), ("30K", 30000), ("1.5M", 1.5e6),
    ("7B", 7e9), ("7G", 7e9), ("1.4T", 1.4e12), ("1e21", 1e21), ("2.5e20", 2.5e20),
    ("1E-3", 0.001), ("0", 0), ("1_000.5", 1000.5),
])
def test_numbers(text, value):
    (s,) = parse(f"plan where n = {text}")
    v = s.constraints[0].value
    assert isinstance(v, Number) and v.value == value and v.text == text


@pytest.mark.parametrize("text, value, kind", [
    ("80GB", 80e9, "bytes"), ("80 GB", 80e9, "bytes"), ("24GiB", 24 * 2**30, "bytes"),
    ("512MB", 512e6, "bytes"), ("512MiB", 512 * 2**20, "bytes"), ("2TB", 2e12, "bytes"),
    ("2TiB", 2 * 2**40, "bytes"), ("4kb", 4e3, "bytes"), ("1PiB", 2**50, "bytes"),
    ("12h", 12, "hours"), ("12 hours", 12, "hours"), ("1 hr", 1, "hours"),
    ("3 days", 72, "hours"), ("1d", 24, "hours"), ("2 weeks", 336, "hours"), ("1w", 168, "hours"),
    ("1 month", 720, "hours"), ("2 months", 1440, "hours"), ("30min", 0.5, "hours"),
    ("45 minutes", 0.75, "hours"), ("7200 s", 2, "hours"), ("40%", 0.4, "ratio"),
    ("40 %", 0.4, "ratio"), ("1e3 GB", 1e12, "bytes"),
])
def test_quantities(text, value, kind):
    (s,) = parse(f"plan where q = {text}")
    v = s.constraints[0].value
    assert isinstance(v, Quantity)
    assert v.value == pytest.approx(value, rel=1e-15) and v.unit_kind == kind and v.text == text


def test_string_escapes():
    (s,) = parse(r'explain "a \"b\" c\\d\te\nf\qg"')
    assert s.choice.text == 'a "b" c\\d\te\nf' + "qg"


def test_names_are_lowercased_strings_are_not():
    (s,) = parse('plan where DATA = Time-Series and note = "Keep Case"')
    assert [c.dimension.text for c in s.constraints] == ["data", "note"]
    assert s.constraints[0].value.text == "time-series"
    assert s.constraints[1].value.text == "Keep Case"


# ============================================================================ keywords

@pytest.mark.parametrize("text", [
    "RECOMMEND ARCHITECTURE WHERE DATA = IMAGES AND ROWS BETWEEN 1K AND 2K TOP 3",
    "Recommend Architecture Where data In (a) Top 3",
    "rEcOmMeNd architecture wHeRe data = images",
])
def test_keywords_are_case_insensitive(text):
    (s,) = parse(text)
    assert isinstance(s, Recommend) and s.kind.text == "architecture"


@pytest.mark.parametrize("dimension", ["whereabouts", "topology", "android", "inn", "in-house",
                                       "top-k", "and_more", "planned", "betweenness", "explainer",
                                       "recommender", "where2"])
def test_keyword_prefixed_names_are_names(dimension):
    (s,) = parse(f"plan where {dimension} = x")
    assert s.constraints[0].dimension.text == dimension


def test_keywords_are_whole_words():
    err = error("recommendarchitecture")
    assert (err.kind, err.line, err.column) == ("syntax", 1, 1)
    assert err.suggestions == ["recommend architecture"]
    assert error("plan where x = 1 andy = 2").kind == "syntax"


def test_keywords_are_reserved():
    assert error("plan where and = 1").column == 12
    assert error("plan where x = where").column == 16


# ============================================================================ layout

def test_comments():
    (s,) = parse("# a\nplan # b\n  where gpus = 8 # c ; not a separator\n# d")
    assert len(s.constraints) == 1


def test_separators_and_blank_lines():
    text = "plan; explain x\n\nrecommend fix\n \t \n\nplan where a = 1;\n\n;"
    assert [type(s).__name__ for s in parse(text)] == ["Plan", "Explain", "Recommend", "Plan"]


def test_multi_line_statement_positions_and_text():
    text = "plan;\nrecommend architecture\n  where data = tabular\n  and rows = 30k\n  top 3\n"
    plan_, rec = parse(text)
    assert (plan_.pos.line, plan_.pos.column, plan_.text) == (1, 1, "plan")
    assert (rec.pos.line, rec.pos.column, rec.pos.end_line, rec.pos.end_column) == (2, 1, 5, 8)
    assert rec.text == "recommend architecture\n  where data = tabular\n  and rows = 30k\n  top 3"
    rows = rec.constraints[1]
    assert (rows.pos.line, rows.pos.column, rows.pos.end_column) == (4, 7, 17)
    assert text[rows.pos.start:rows.pos.end] == "rows = 30k"
    v = rows.value
    assert (v.pos.line, v.pos.column, v.pos.length) == (4, 14, 3)


def test_statement_text_is_a_slice_of_the_source():
    text = "  recommend x where a between 1 and 2 top 4 ;\n\n  explain \"q\"  # c\n"
    for s in parse(text):
        assert text[s.pos.start:s.pos.end] == s.text
    assert [s.text for s in parse(text)] == ["recommend x where a between 1 and 2 top 4", 'explain "q"']


def test_crlf_line_endings():
    a, b = parse("plan where x = 1\r\n  and y = 2\r\n\r\nexplain z")
    assert len(a.constraints) == 2 and b.pos.line == 4


# ============================================================================ errors

def test_error_on_line_three_of_several_statements():
    text = "recommend architecture where data = tabular;\nplan where gpus = 8\n\nexplain vit where data == images"
    err = error(text)
    assert (err.kind, err.line, err.column) == ("syntax", 4, 24)
    text = "plan;\nrecommend optimizer;\nexplain vit where data images"
    err = rendered(text)
    assert (err.line, err.column) == (3, 24)
    assert err.source_line == "explain vit where data images"
    assert "an operator (=, !=, <, <=, >, >=, between, in)" in err.expected


def test_error_rendering():
    err = rendered("recommend architecture where data = = tabular")
    text = str(err)
    lines = text.splitlines()
    assert lines[0].startswith("line 1, column 35: ")
    assert lines[1] == "  recommend architecture where data = = tabular"
    assert lines[2] == "  " + " " * 34 + "^^^"
    assert lines[3].startswith("expected: ")
    assert lines[4] == "did you mean: '='"


def test_error_caret_spans_the_token():
    err = rendered("plan where x = 30kx")
    assert str(err).splitlines()[2] == "  " + " " * 15 + "^^^^"


def test_error_at_end_of_input_points_after_last_token():
    err = error("plan where data =   # nothing follows\n")
    assert (err.line, err.column) == (1, 18)
    assert err.message == "missing value after '='"


def test_error_to_dict():
    d = error("recomend architecture").to_dict()
    assert set(d) == {"kind", "message", "line", "column", "expected", "suggestions"}
    assert d["kind"] == "syntax" and d["suggestions"] == ["recommend"]
    assert d["expected"] == ["'recommend'", "'plan'", "'explain'", "'recipe'"]
    json.dumps(d)


def test_range_errors():
    for q in ["recommend x top 0", "recommend x top 1.5", "plan where x between 5 and 1",
              "plan where x between 2 days and 1 day", "plan where x between 1 and 1GB",
              "plan where x = 1e400"]:
        err = error(q)
        assert isinstance(err, RangeError) and err.kind == "value", q
    assert parse("plan where x between 5 and 5")


def test_negative_numbers_are_syntax_errors():
    err = error("plan where gpus = -8")
    assert isinstance(err, QuerySyntaxError)
    assert (err.line, err.column, err.length) == (1, 19, 2)
    assert "negative" in err.message


def test_unclosed_paren_and_string():
    err = error("plan where data in (images, video")
    assert "unclosed '('" in err.message and "column 20" in err.message
    err = error('explain "vit where data = images')
    assert "unclosed string" in err.message and err.column == 9


def test_error_classes_and_helpers():
    for cls, kind in [(QuerySyntaxError, "syntax"), (VocabularyError, "unknown-name"),
                      (RangeError, "value"), (KBError, "kb")]:
        assert issubclass(cls, RecipeKGError) and cls("x").kind == kind
    (s,) = parse("plan where dta = images")
    err = VocabularyError.at(s.constraints[0].dimension.pos, "unknown dimension 'dta'",
                             suggestions=closest("dta", ["data", "task", "gpus"]))
    err.with_source("plan where dta = images")
    assert str(err).splitlines() == ["line 1, column 12: unknown dimension 'dta'",
                                     "  plan where dta = images", "             ^^^",
                                     "did you mean: 'data'"]
    kb = KBError("not valid Turtle: x", file="kb/a.ttl", line=3, column=2, source_line="ex:a ex:b")
    assert str(kb).startswith("kb/a.ttl: line 3, column 2: not valid Turtle: x")
    assert kb.to_dict()["file"] == "kb/a.ttl"
    assert str(RecipeKGError("plain")) == "plain"


def test_closest():
    assert closest("recomend", ["recommend", "plan", "explain"]) == ["recommend"]
    assert closest("TABULR", ["tabular", "text"]) == ["tabular"]
    assert closest("zzz", ["tabular"]) == []
    assert len(closest("a", ["a", "ab", "abc", "abcd", "b"], n=2)) == 2


def test_position_length():
    assert Position(1, 5, 1, 9, 4, 8).length == 4
    assert Position(1, 5, 2, 3, 4, 12).length == 1


# ============================================================================ properties

from strategies import mutated_queries  # noqa: E402  (shared with tests/cli/test_hot_path.py)


def check_total(text: str) -> None:
    """parse(text) returns statements or raises a well-formed RecipeKGError, nothing else."""
    try:
        statements = parse(text)
    except RecipeKGError as err:
        assert err.kind in {"syntax", "value"}, err
        assert err.line is not None and err.line >= 1 and err.column >= 1
        assert err.source_line is None  # attached by the caller (recipekg.api), not by parse()
        err.with_source(text)
        assert err.source_line == text.split("\n")[err.line - 1].rstrip("\r")
        assert set(err.expected) <= EXPECTED_WORDS, err.expected
        for internal in ("__ANON", "$END", "_BLANK_LINE", "_SEMI", "QUANTITY", "LPAR", "RPAR"):
            assert internal not in err.message or internal in text, err.message
        str(err), err.to_dict()
    else:
        assert isinstance(statements, tuple)
        for s in statements:
            assert text[s.pos.start:s.pos.end] == s.text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_any_text_parses_or_raises_recipekg_error(text):
    check_total(text)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_queries())
def test_mutated_queries_parse_or_raise_recipekg_error(text):
    check_total(text)


# ============================================================================ generated parser

def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"_gen_{abs(hash(str(path)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _canonical_table(data: dict):
    """The LALR table with states renumbered in breadth-first order from the start state.

    lark numbers states and tokens differently from run to run (it iterates over sets of
    objects hashed by identity), so the generated file is compared up to that renumbering.
    """
    table = data["parser"]["parser"]
    names, states = table["tokens"], table["states"]
    start = table["start_states"]["start"]
    order, queue, rows = {start: 0}, [start], []
    while queue:
        state = queue.pop(0)
        row = []
        for tok, (action, arg) in sorted(states[state].items(), key=lambda kv: names[kv[0]]):
            if action == 0:  # shift / goto
                if arg not in order:
                    order[arg] = len(order)
                    queue.append(arg)
                row.append((names[tok], "shift", order[arg]))
            else:
                row.append((names[tok], "reduce", arg["@"]))
        rows.append(row)
    return rows, len(states), order.get(table["end_states"]["start"])


def _without_table(data: dict) -> dict:
    data = json.loads(json.dumps(data, default=repr))
    data["parser"]["parser"] = None
    return data


def test_standalone_parser_matches_grammar(tmp_path):
    pytest.importorskip("lark")
    import lark

    committed = REPO / "src" / "recipekg" / "query" / "_standalone.py"
    header = committed.read_text(encoding="utf-8").splitlines()[0]
    if not header.endswith(f"Lark v{lark.__version__}"):
        pytest.skip(f"generated with another lark ({header}); installed {lark.__version__}")
    fresh = tmp_path / "fresh.py"
    env = dict(os.environ, PYTHON=sys.executable)
    subprocess.run(["sh", str(REPO / "tools" / "gen_parser.sh"), str(fresh)], check=True,
                   env=env, cwd=REPO, capture_output=True)

    def code(path):  # everything but the serialized parse table
        lines = path.read_text(encoding="utf-8").splitlines()
        i = lines.index("DATA = (")
        return lines[:i + 1] + lines[i + 2:]

    assert code(fresh) == code(committed), "run: sh tools/gen_parser.sh"
    a, b = _load(fresh), _load(committed)
    assert a.MEMO == b.MEMO, "run: sh tools/gen_parser.sh"
    assert _without_table(a.DATA) == _without_table(b.DATA), "run: sh tools/gen_parser.sh"
    assert _canonical_table(a.DATA) == _canonical_table(b.DATA), "run: sh tools/gen_parser.sh"


def test_parser_module_does_not_import_lark():
    code = ("import sys, recipekg.query.parser as p; p.parse('recommend x where a = 1 top 2'); "
            "bad = sorted(m for m in sys.modules if m == 'lark' or m.startswith('lark.')); "
            "print(bad); sys.exit(1 if bad else 0)")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_query_text_over_the_size_cap_is_refused_with_a_clear_message():
    from recipekg.errors import UsageError
    from recipekg.limits import MAX_QUERY_CHARS

    with pytest.raises(UsageError, match="too long"):
        parse("plan where params = 7B " + " " * MAX_QUERY_CHARS)


def test_more_statements_than_the_cap_are_refused_at_the_first_one_over():
    from recipekg.errors import UsageError
    from recipekg.limits import MAX_STATEMENTS

    text = "plan;\n" * (MAX_STATEMENTS + 1)
    with pytest.raises(UsageError, match="too many statements") as caught:
        parse(text)
    assert caught.value.line == MAX_STATEMENTS + 1
    assert len(parse("plan;\n" * MAX_STATEMENTS)) == MAX_STATEMENTS


def test_the_caps_reach_the_command_line_as_exit_2(tmp_path):
    from click.testing import CliRunner

    from recipekg.cli.main import main

    path = tmp_path / "many.rkg"
    path.write_text("plan;\n" * 1000, encoding="utf-8")
    result = CliRunner().invoke(main, ["query", "-f", str(path)])
    assert result.exit_code == 2 and "too many statements" in result.output and "Traceback" not in result.output
