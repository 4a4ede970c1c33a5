"""The lean hot path answers exactly as the full machinery does.

- ``recipekg query ... --format json`` imports neither rdflib, networkx, pyoxigraph, flask,
  pyshacl, lark, the SPARQL modules nor :mod:`ast` (the formulas come parsed in the snapshot;
  checked in a fresh interpreter);
- the lean parser (recipekg.query.lean.lean_parse) gives the generated LALR parser's
  statements whenever it answers, and leaves every error to it;
- the fast lane of the executable (recipekg.cli.fast) prints the bytes the click command
  prints, with the same exit status.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipekg.query import lean, literals, parser
from recipekg.errors import RecipeKGError

from support import CASES, REPO, subprocess_env  # noqa: E402
TABULAR = "recommend architecture where data = tabular and rows = 30k"
HEAVY = ("rdflib", "networkx", "pyoxigraph", "flask", "pyshacl", "lark", "prompt_toolkit", "pandas", "recipekg.sparql.generate",
         "recipekg.sparql.engines", "recipekg.query._standalone", "recipekg.knowledge.compiler", "recipekg.knowledge.rdfio",
         "recipekg.knowledge.validate", "recipekg.cite.graph", "recipekg.formula.syntax",
         "recipekg.contracts.common", "recipekg.contracts.errors", "recipekg.contracts.schema")
#: Beyond HEAVY, on the fast lane (click itself imports them, through inspect)
FAST_ONLY = ("ast", "inspect", "typing")


def _env(**extra):
    return subprocess_env(**extra)


# ============================================================================ imports

# one call of each command of the fast lane (recipekg.cli.lanes.COMMANDS), JSON where it has it
FAST_CALLS = {
    "query": ["query", TABULAR, "--format", "json"],
    "explain": ["explain", "vit", "where", "data", "=", "images", "--format", "json"],
    "plan": ["plan", "where", "params", "=", "7B", "and", "gpus", "=", "8", "--format", "json"],
    "recipe": ["recipe", "where", "params", "=", "7B", "and", "hardware", "=", "h100", "and", "gpus", "=", "8",
               "--format", "json"],
    "cite": ["cite", "--query", TABULAR, "--format", "csl-json"],
    "vocab": ["vocab", "--format", "json"],
    "shell": ["shell", "--format", "json"],  # with its statements piped in (FAST_INPUT)
}
#: What a fast-lane call reads on stdin (the shell answers on the fast lane when it is not a terminal)
FAST_INPUT = {"shell": TABULAR + "\n"}


def test_every_command_of_the_fast_lane_is_checked():
    from recipekg.cli.lanes import COMMANDS

    assert set(FAST_CALLS) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(FAST_CALLS))
@pytest.mark.parametrize("entry", ["recipekg.cli.fast", "recipekg.cli.main"])
def test_a_warm_json_query_imports_nothing_heavy(entry, command, tmp_path):
    code = f"""
import json, sys
sys.argv = ["recipekg", *{FAST_CALLS[command]!r}]
from {entry} import main
try:
    main()
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
banned = {HEAVY!r} + ({FAST_ONLY!r} if {entry!r} == "recipekg.cli.fast" else ())
heavy = sorted(m for m in sys.modules if m.split(".")[0] in banned or m in banned)
print("HEAVY", json.dumps(heavy), file=sys.stderr)
"""
    # the first run builds the snapshot (pyoxigraph); check a fresh interpreter on a warm cache
    env, text = _env(RECIPEKG_CACHE_DIR=str(tmp_path)), FAST_INPUT.get(command)
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True, input=text, text=True)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, input=text)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    expected = {"query": "results", "explain": "rules", "plan": "quantities", "recipe": "sections", "cite": 0,
                "vocab": "dimensions", "shell": "results"}[command]
    assert answer[expected], result.stdout  # an answer, not an error
    heavy = json.loads(result.stderr.rsplit("HEAVY ", 1)[1])
    assert heavy == [], f"the {command} path imported {heavy}"


@pytest.mark.parametrize("query, loaded", [(TABULAR, []), ("plan where gpu-memory = 80 GB", []),
                                           ("recommend approach where time < 100 hours\n# a comment\n\n"
                                            'explain "8-bit Adam" where rows = 7 billion', []),
                                           ("plan where time < 90 min", ["decimal"])])
def test_parsing_a_well_formed_query_stays_lean(query, loaded):
    """The lean parser answers it: neither the generated parser (nor lark) is loaded, nor
    re, nor decimal (unless a quantity's factor is not an integer: seconds, minutes),
    dataclasses, typing or inspect."""
    code = f"""
import sys
import recipekg.query.parser as p
p.parse({query!r})
heavy = ("recipekg.query._standalone", "recipekg.query.syntax_errors", "lark", "decimal",
         "dataclasses", "typing", "inspect", "re")
print(sorted(m for m in heavy if m in sys.modules))
"""
    result = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == repr(loaded)


@pytest.mark.parametrize("command", sorted(FAST_CALLS))
def test_the_fast_lane_does_not_import_click(command, tmp_path):
    """Nor dataclasses (with inspect) nor pathlib: a fifth of a cold query each."""
    code = f"""
import sys
sys.argv = ["recipekg", *{FAST_CALLS[command]!r}]
from recipekg.cli.fast import main
try:
    main()
except SystemExit as exc:
    assert exc.code == 0, exc.code
heavy = ("click", "rdflib", "pyoxigraph", "networkx", "lark", "flask", "pyshacl")
print("HEAVY", sorted(m for m in sys.modules if m.split(".")[0] in heavy), file=sys.stderr)
print("LIGHT", "dataclasses" in sys.modules, "pathlib" in sys.modules, file=sys.stderr)
"""
    env, text = _env(RECIPEKG_CACHE_DIR=str(tmp_path)), FAST_INPUT.get(command)
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True, input=text, text=True)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, input=text)
    assert result.returncode == 0, result.stderr
    assert "HEAVY []" in result.stderr and "LIGHT False False" in result.stderr, result.stderr


#: Modules a cold command does not need, imported where they are used (docs/performance.md, wave 10):
#: a plan ranks techniques without recommend's questions, boundaries, families, shortfall and
#: savings; a text answer is written without the Markdown table writer.
UNNEEDED = {
    ("plan", "where", "params", "=", "7B", "and", "gpus", "=", "8", "and", "hardware", "=", "h100"):
        ("recipekg.reason.shortfall", "recipekg.reason.ask", "recipekg.reason.boundaries",
         "recipekg.reason.families", "recipekg.plan.savings", "recipekg.render.tables"),
    ("query", TABULAR): ("recipekg.render.tables",),
}


@pytest.mark.parametrize("args", sorted(UNNEEDED))
def test_a_cold_command_imports_only_what_it_needs(args, tmp_path):
    code = f"""
import sys
sys.argv = ["recipekg", *{list(args)!r}]
from recipekg.cli.fast import main
try:
    main()
except SystemExit as exc:
    assert exc.code == 0, exc.code
print("LOADED", sorted(m for m in {UNNEEDED[args]!r} if m in sys.modules), file=sys.stderr)
"""
    env = _env(RECIPEKG_CACHE_DIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True, text=True)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stderr, result.stderr


# ============================================================================ lean parser

def _terminals_of_grammar() -> dict[str, str]:
    grammar = (REPO / "src" / "recipekg" / "query" / "grammar.lark").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r'^([A-Z_]+)(?:\.\d+)?:\s*(/(.*)/|"(.*)")\s*$', grammar, re.M):
        name, regex, literal = m.group(1), m.group(3), m.group(4)
        out[name] = regex if regex is not None else re.escape(literal)
    return out


def test_lean_terminals_are_the_grammar_s():
    grammar = _terminals_of_grammar()
    terminals = dict(lean.TERMINALS)
    assert set(terminals) == set(grammar)
    for name, pattern in grammar.items():
        assert terminals[name] == pattern, name
    # where two terminals can match at one place, lark's order: priority, then longer first
    order = [name for name, _ in lean.TERMINALS]
    for first, then in (("QUANTITY", "NUMBER"), ("LE", "LT"), ("GE", "GT")):
        assert order.index(first) < order.index(then)


def test_lean_parser_answers_every_accepted_case_as_the_generated_parser():
    for case in json.loads((CASES / "parse.json").read_text(encoding="utf-8")):
        answer = lean.lean_parse(case["query"])
        assert answer is not None, case["query"]
        assert answer == parser.full_parse(case["query"]), case["query"]


def test_lean_parser_leaves_every_rejected_case_to_the_generated_parser():
    for case in json.loads((CASES / "parse_errors.json").read_text(encoding="utf-8")):
        assert lean.lean_parse(case["query"]) is None, case["query"]


def test_lean_parser_answers_every_example_query():
    for path in sorted((REPO / "queries").glob("*.rkg")):
        text = path.read_text(encoding="utf-8")
        assert lean.lean_parse(text) == parser.full_parse(text), path.name


_WORDS = ["recommend", "plan", "explain", "recipe", "where", "and", "top", "between", "in", "Recommend",
          "WHERE", "data", "rows", "tabular", "x", "in-house", "top-k", "andy", "a_b", "'", "ſ"]
_VALUES = ["30k", "30_000", "1.5M", "2.5e20", "1E-3", "80GB", "80 GB", "3 days", "40%", "12h",
           "7B", "0", "1_000.5", '"8-bit Adam"', '"a \\"b\\""', "30 k", "3GB", "1e999",
           "123456789012345678901234567890", "1.00000000000000000001k"]
_PUNCT = ["=", "!=", "<", "<=", ">", ">=", "==", "=<", "(", ")", ",", ";", "\n", "\n\n", "\n \n",
          " ", "\t", "# c\n", "!", "[", ".", "-", '"']


@st.composite
def query_like(draw):
    """Statements from the grammar's pieces, well formed or not."""
    pieces = draw(st.lists(st.sampled_from(_WORDS + _VALUES + _PUNCT), min_size=1, max_size=14))
    seps = draw(st.lists(st.sampled_from([" ", "", "\n", "  "]), min_size=len(pieces), max_size=len(pieces)))
    return "".join(p + s for p, s in zip(pieces, seps))


@st.composite
def valid_query(draw):
    kw = draw(st.sampled_from(["recommend architecture", "plan", "explain vit", 'explain "8-bit Adam"',
                               "RECOMMEND Fix"]))
    constraints = []
    for _ in range(draw(st.integers(0, 3))):
        dim = draw(st.sampled_from(["data", "rows", "gpu-memory", "time", "hardware", "x_1"]))
        form = draw(st.integers(0, 2))
        if form == 0:
            op = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">="]))
            constraints.append(f"{dim} {op} {draw(st.sampled_from(_VALUES[:17] + ['tabular', 'h100']))}")
        elif form == 1:
            a, b = sorted(draw(st.lists(st.integers(0, 10**6), min_size=2, max_size=2)))
            constraints.append(f"{dim} between {a} and {b}")
        else:
            values = draw(st.lists(st.sampled_from(["a", "b", "30k", '"c"', "80GB"]), min_size=1, max_size=3))
            trailing = draw(st.sampled_from(["", ","]))
            constraints.append(f"{dim} in ({', '.join(values)}{trailing})")
    text = kw + (" where " + draw(st.sampled_from([" and ", "\nand ", " AND "])).join(constraints) if constraints else "")
    if kw.startswith(("recommend", "RECOMMEND")) and draw(st.booleans()):
        text += f" top {draw(st.integers(0, 12))}"
    sep = draw(st.sampled_from([";", "\n\n", ";\n", "\n\n\n", " ; "]))
    return text + sep + draw(st.sampled_from(["", "plan", "# done\n", "explain x where y = 1"]))


def _check_lean(text: str) -> None:
    answer = lean.lean_parse(text)
    try:
        full = parser.full_parse(text)
    except RecipeKGError:
        assert answer is None, f"lean parser accepted what the generated parser rejects: {text!r}"
        return
    assert answer is None or answer == full, text


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(valid_query(), query_like()))
def test_lean_parser_agrees_with_the_generated_parser(text):
    _check_lean(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_query())
def test_lean_parser_answers_well_formed_queries(text):
    try:
        full = parser.full_parse(text)
    except RecipeKGError:
        return  # e.g. top 0
    assert lean.lean_parse(text) == full, text


def test_lean_parser_agrees_on_mutated_queries():
    from strategies import mutated_queries

    @settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(mutated_queries())
    def check(text):
        _check_lean(text)

    check()


@settings(max_examples=500, deadline=None)
@given(st.from_regex(r"[0-9]{1,12}(_[0-9]{1,3})?(\.[0-9]{1,9})?([eE][+-]?[0-9]{1,3}|[kKMBGT])?", fullmatch=True))
def test_numbers_without_decimal_equal_the_decimal_path(text):
    from decimal import Decimal, InvalidOperation

    class Tok:
        value, line, column = text, 1, 1

        def __len__(self):
            return len(text)

    s = text.replace("_", "")
    mult = 1
    if s[-1] in literals.SUFFIXES:
        s, mult = s[:-1], literals.SUFFIXES[s[-1]]
    try:
        expected = float(Decimal(s) * mult)
    except (ArithmeticError, InvalidOperation):
        expected = float("inf")
    try:
        assert literals.number(Tok()) == expected
    except RecipeKGError:  # too large for a float, or so small it would be 0 (issue 24)
        assert expected in (float("inf"), float("-inf")) or (expected == 0.0 and Decimal(s) != 0)


# ============================================================================ fast lane

def _run(args, entry, env, text=None):
    """``recipekg ARGS`` (``text`` on stdin) on the fast lane or straight to click: the exit
    status, stdout and stderr."""
    if entry == "fast":
        cmd = [sys.executable, "-m", "recipekg", *args]
    else:
        cmd = [sys.executable, "-c", "import sys; sys.argv[0] = 'recipekg'; "
                                     "from recipekg.cli.main import main; main(prog_name='recipekg')", *args]
    result = subprocess.run(cmd, env=env, capture_output=True, input=text)
    return result.returncode, result.stdout, result.stderr


def test_fast_lane_recognises_only_what_it_answers():
    from recipekg.cli.fast import fast_request

    assert fast_request(["query", TABULAR]) == {"answer": "respond", "text": TABULAR, "fmt": "text",
                                                "extensions": [], "no_cache": False, "detail": False}
    assert fast_request(["query", "--format=json", "--kb", "a.ttl", TABULAR, "--no-cache", "--kb=b.ttl"]) == {
        "answer": "respond", "text": TABULAR, "fmt": "json", "extensions": ["a.ttl", "b.ttl"], "no_cache": True,
        "detail": False}
    assert fast_request(["plan", "where", "gpus", "=", "8", "--detail", "--format", "summary"]) == {
        "answer": "respond", "text": "plan where gpus = 8", "fmt": "summary", "extensions": [], "no_cache": False,
        "detail": True}
    assert fast_request(["query", "-f", "x.rkg", "--format", "json"]) == {
        "answer": "respond_file", "path": "x.rkg", "fmt": "json", "extensions": [], "no_cache": False, "detail": False}
    assert fast_request(["vocab", "gpus"]) == {"answer": "respond_vocab", "dimension": "gpus", "fmt": "text",
                                               "extensions": [], "no_cache": False}
    assert fast_request(["query", "-f", str(REPO)])["path"] == str(REPO)  # a directory: the project's error
    assert fast_request(["query", TABULAR, "--kb", str(REPO)])["extensions"] == [str(REPO)]
    for args in (["query"], ["query", "-f", "-"], ["query", TABULAR, "-f", "x.rkg"], ["query", "-fx.rkg"],
                 ["query", "-f", "x.rkg", "-f", "y.rkg"], ["vocab", "a", "b"],
                 ["vocab", "--format", "yaml"], ["query", TABULAR, "--engine", "oxigraph"],
                 ["query", TABULAR, "--format", "yaml"], ["query", TABULAR, "--format"],
                 ["query", TABULAR, "--format", "json", "--format", "text"], ["query", TABULAR, TABULAR],
                 ["query", "--help"], ["query", "--", TABULAR], ["query", "-"], ["explain"],
                 ["explain", "--help"], ["plan", "where", "gpus", "=", "-1"], ["summary"],
                 ["query", TABULAR, "--kb", "--format"], ["--version"],
                 ["query", TABULAR, "--no-cache", "--no-cache"], ["query", TABULAR, "-h"],
                 ["query", TABULAR, "--no-cache=1"], ["plan", "--format", "bibtex"], ["plan", "--detail=1"],
                 ["cite"], ["cite", TABULAR], ["cite", "--choice", "lightgbm"], ["cite", "--query", TABULAR, "x"],
                 ["cite", "--query", TABULAR, "--choice", "vit"], ["cite", "--query", TABULAR, "-o", "x.bib"],
                 ["cite", "-q" + TABULAR], ["cite", "--query", TABULAR, "--format", "json"],
                 ["cite", "--query", TABULAR, "--no-cache"], ["cite", "--query", TABULAR, "--top", "0"],
                 ["cite", "--query", TABULAR, "--top", "+2"], ["cite", "--query", TABULAR, "--top", "2.0"],
                 ["cite", "--query", TABULAR, "--query", TABULAR], ["cite", "--query", "-x"]):
        assert fast_request(args) is None, args
    assert fast_request(["explain", "8-bit Adam", "where", "prefer", "=", "low-memory", "--format", "json"]) == {
        "answer": "respond", "text": 'explain "8-bit Adam" where prefer = low-memory', "fmt": "json",
        "extensions": [], "no_cache": False, "detail": False}
    assert fast_request(["plan", "where", "params", "=", "7B"])["text"] == "plan where params = 7B"
    assert fast_request(["plan"])["text"] == "plan"
    assert fast_request(["cite", "--top=3", "-q", TABULAR, "--kb", "a.ttl", "--format", "ris"]) == {
        "answer": "respond_cite", "statement": TABULAR, "top": 3, "fmt": "ris", "extensions": ["a.ttl"]}
    assert fast_request(["cite", "--query=" + TABULAR]) == {
        "answer": "respond_cite", "statement": TABULAR, "top": None, "fmt": "text", "extensions": []}


TYPO = "recommend architecture where data = tabluar"
# (arguments, what they are): the fast lane answers all but the "click" ones itself; both must
# print the same bytes and exit with the same status
SAME_BYTES = [
    (["query", TABULAR, "--format", "json"], "ok"),
    (["query", TABULAR], "ok"),
    (["query", "--format=markdown", "recommend fix where symptom = loss-spike; plan where params = 7B"], "ok"),
    (["query", "explain vit where data = images and samples = 3000", "--format", "json"], "ok"),
    (["query", TYPO], "unknown name"),
    (["query", TYPO, "--format", "json"], "unknown name"),
    (["query", "recomend architecture"], "syntax"),
    (["query", "recomend architecture", "--format", "json"], "syntax"),
    (["query", "# only a comment"], "syntax"),
    (["query", "# only a comment", "--format", "json"], "syntax"),
    (["query", TABULAR, "--kb", "missing.ttl"], "bad kb"),
    (["query", TABULAR, "--kb", "missing.ttl", "--format", "json"], "bad kb"),
    (["query", TABULAR, "--no-cache", "--format", "json"], "ok"),
    (["query", "plan where gpus = 8 and time < 1 day\n\nrecommend approach where gpus = 1 and time = 12h"], "ok"),
    (["query", TABULAR, "--format", "yaml"], "click"),
    (["query", TABULAR, "--format", "json", "--format", "text"], "click"),
    (["explain", "vit", "where", "data", "=", "images", "and", "samples", "=", "3000"], "ok"),
    (["explain", "8-bit Adam", "--format", "json"], "ok"),
    (["explain", "vitt", "where", "data", "=", "images"], "unknown name"),
    (["explain", "vitt", "where", "data", "=", "images", "--format", "json"], "unknown name"),
    (["explain", "vit", "where", "data", "images"], "syntax"),
    (["explain", "vit", "where", "data", "images", "--format", "json"], "syntax"),
    (["explain", "vit", "--kb", "missing.ttl", "--format", "json"], "bad kb"),
    (["explain", 'odd "quoted\\ name', "--format", "json"], "ok"),
    (["explain"], "click"),
    (["explain", "--format", "json"], "click"),
    (["plan", "where", "params", "=", "7B", "and", "hardware", "=", "h100", "and", "gpus", "=", "8"], "ok"),
    (["plan", "--format", "markdown", "where", "params", "=", "70B", "and", "gpu-memory", "=", "80", "GB"], "ok"),
    (["plan", "where", "params", "=", "banana"], "unknown name"),
    (["plan", "where", "params", "=", "banana", "--format", "json"], "unknown name"),
    (["plan", "where", "gpus", "=", "8", "--kb", "missing.ttl"], "bad kb"),
    (["plan", "where", "gpus", "=", "8", "--kb", "missing.ttl", "--format", "json"], "bad kb"),
    (["plan", "where", "gpus", "=", "-1", "--format", "json"], "click"),
    (["plan", "where", "flops", "=", "3"], "unknown name"),
    (["plan", "where", "params", "7B", "--format", "json"], "syntax"),
    (["plan"], "ok"),
    (["plan", "where", "params", "=", "7B", "and", "gpus", "=", "8", "--no-cache", "--format", "json"], "ok"),
    (["recipe", "where", "data", "=", "tabular", "and", "rows", "=", "30k"], "ok"),
    (["recipe", "where", "params", "=", "7B", "and", "hardware", "=", "h100", "--format", "json"], "ok"),
    (["recipe", "where", "data", "=", "tabluar"], "unknown name"),
    (["recipe", "where", "data", "=", "tabluar", "--format", "json"], "unknown name"),
    (["recipe", "where", "data", "tabular"], "syntax"),
    (["recipe", "where", "data", "tabular", "--format", "json"], "syntax"),
    (["recipe", "--kb", "missing.ttl"], "bad kb"),
    (["recipe", "--kb", "missing.ttl", "--format", "json"], "bad kb"),
    (["recipe", "where", "data", "=", "tabular", "--emit", "deepspeed"], "click"),
    (["recipe", "where", "data", "=", "tabular", "--emit", "deepspeed", "--format", "json"], "click"),
    (["query", TABULAR, "--detail"], "ok"),
    (["plan", "where", "params", "=", "7B", "and", "hardware", "=", "h100", "--format", "summary"], "ok"),
    (["recipe", "where", "data", "=", "tabular", "and", "rows", "=", "30k", "--detail"], "ok"),
    (["explain", "vit", "where", "data", "=", "images", "--format", "summary", "--detail"], "ok"),
    (["cite", "--query", TABULAR], "ok"),
    (["cite", "-q", TABULAR, "--top", "1", "--format", "bibtex"], "ok"),
    (["cite", "--query=" + TABULAR, "--format", "csl-json"], "ok"),
    (["cite", "--format", "ris", "--query", "plan where params = 7B and gpus = 8"], "ok"),
    (["cite", "--query", "explain vit where data = images and samples = 3000"], "ok"),
    (["cite", "--query", "recommend fix where symptom = loss-spike; plan where params = 7B", "--top", "2"], "ok"),
    (["cite", "--query", TYPO], "unknown name"),
    (["cite", "--query", TYPO, "--format", "csl-json"], "unknown name"),
    (["cite", "--query", "explain vitt"], "unknown name"),
    (["cite", "--query", "recomend architecture"], "syntax"),
    (["cite", "--query", "# nothing"], "syntax"),
    (["cite", "--query", ""], "syntax"),
    (["cite", "--query", TABULAR, "--kb", "missing.ttl"], "bad kb"),
    (["cite", "--query", TABULAR, "--kb", "missing.ttl", "--format", "csl-json"], "bad kb"),
    (["cite", "--query", TABULAR, "--format", "json"], "click"),
    (["cite", "--query", TABULAR, "--top", "0"], "click"),
    (["cite", "--query", TABULAR, "--top", "02"], "click"),
    (["cite", "--query", TABULAR, "--top", "two"], "click"),
    (["cite", "--query", TABULAR, "--choice", "vit"], "click"),
    (["cite", "--query"], "click"),
    (["cite"], "click"),
    (["query", "-f", str(REPO / "queries" / "examples.rkg")], "ok"),
    (["query", "-f", str(REPO / "queries" / "plan.rkg"), "--format", "json"], "ok"),
    (["query", "-f", "-", "--format", "json"], "click"),
    (["vocab"], "ok"),
    (["vocab", "gpus", "--format", "json"], "ok"),
    (["vocab", "--format", "markdown"], "ok"),
    (["vocab", "gpuss"], "unknown name"),
    (["vocab", "gpuss", "--format", "json"], "unknown name"),
    (["vocab", "--kb", "missing.ttl"], "bad kb"),
    (["vocab", "--kb", "missing.ttl", "--format", "json"], "bad kb"),
    (["vocab", "gpus", "params"], "click"),
    (["vocab", "--format", "json", "--format", "text"], "click"),
]


@pytest.mark.parametrize("args, what", SAME_BYTES)
def test_fast_lane_prints_what_the_click_command_prints(args, what, tmp_path):
    from recipekg.cli.fast import fast_request

    assert (fast_request(args) is not None) == (what != "click")
    env = _env(RECIPEKG_CACHE_DIR=str(tmp_path))
    fast = _run(args, "fast", env)
    slow = _run(args, "click", env)
    assert fast == slow
    assert fast[0] in (0, 2)
    assert fast[1] if fast[0] == 0 else (fast[1] if b'"error"' in fast[1] else fast[2])


# (arguments, what is piped in, what they are): `recipekg shell` from a pipe, on the fast lane
# (recipekg.cli.session) but for the "click" ones; both print the same bytes, with the same status
SHELL_BYTES = [
    (["shell"], TABULAR + "\n", "ok"),
    (["shell", "--format", "json"], "recommend fix where symptom = loss-spike top 1;\nplan where params = 7B and\n"
                                    "  gpus = 8 # a comment; not the end\n\nexplain vit where data = images", "ok"),
    (["shell", "--detail", "--format", "markdown"], ".detail\n.format\n.help\nrecommend optimizer where prefer = "
                                                    "low-memory\n\n.detail off\n.quit\nplan\n", "ok"),
    (["shell", "--format", "summary", "--no-cache"], "\n\n   \n", "ok"),
    (["shell"], TYPO + "\n", "unknown name"),
    (["shell", "--format", "json"], TYPO + ";\n" + TABULAR + "\n", "unknown name"),
    (["shell"], "recomend architecture\n\nrecommend fix where symptom = nan top 1;\n.bogus\n.format yaml\n", "syntax"),
    (["shell", "--format", "json"], 'plan where params = 7B and\nexplain "8-bit\n# only a comment\n', "syntax"),
    (["shell"], b"\xef\xbb\xbfplan where gpus = 8;\nplan where data = caf\xe9;\nplan where gpus = 1\r\n", "syntax"),
    (["shell", "--kb", "missing.ttl"], "plan\n", "bad kb"),
    (["shell", "--kb", "missing.ttl", "--format", "json"], "plan\n", "bad kb"),
    (["shell", "--format", "yaml"], "plan\n", "click"),
    (["shell", "--format", "json", "--format", "text"], "plan\n", "click"),
    (["shell", "plan"], "plan\n", "click"),
]


@pytest.mark.parametrize("args, text, what", SHELL_BYTES)
def test_the_piped_shell_on_the_fast_lane_prints_what_the_click_command_prints(args, text, what, tmp_path,
                                                                               monkeypatch):
    import io

    from recipekg.cli.fast import fast_request

    monkeypatch.setattr(sys, "stdin", io.StringIO())  # not a terminal
    assert (fast_request(args) is not None) == (what != "click")
    env = _env(RECIPEKG_CACHE_DIR=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"))
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    fast, slow = _run(args, "fast", env, data), _run(args, "click", env, data)
    assert fast == slow
    assert fast[0] == {"ok": 0, "click": 2}.get(what, 2)
    assert b"Traceback" not in fast[2]
    if what == "bad kb":
        assert b"missing.ttl" in (fast[1] if "json" in args else fast[2])


def test_the_shell_is_on_the_fast_lane_at_a_terminal_and_from_a_pipe(monkeypatch):
    """The prompt (recipekg.cli.session.start) needs prompt_toolkit, not click."""
    import io

    from recipekg.cli.fast import fast_request

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    request = {"answer": "respond_shell", "fmt": "json", "extensions": [], "no_cache": False, "detail": False}
    for stdin, stdout in ((Terminal(), Terminal()), (io.StringIO(), Terminal()), (Terminal(), io.StringIO())):
        monkeypatch.setattr(sys, "stdin", stdin)
        monkeypatch.setattr(sys, "stdout", stdout)
        assert fast_request(["shell", "--format", "json"]) == request


def test_the_byte_comparison_covers_every_command_in_success_and_error():
    from recipekg.cli.lanes import COMMANDS

    for name in COMMANDS:
        cases = [(args, what) for args, what in SAME_BYTES + [(a, w) for a, _, w in SHELL_BYTES] if args[0] == name]
        has_json = "json" in COMMANDS[name].option("--format").choices
        for what in ("ok", "unknown name", "syntax", "bad kb", "click"):
            if name == "vocab" and what == "syntax":
                continue  # vocab reads no statement
            assert any(w == what for _, w in cases), (name, what)
            if has_json or what == "click":  # cite has no --format json: click refuses it
                assert any(w == what and "json" in args for args, w in cases), (name, what, "--format json")


@pytest.mark.parametrize("command", sorted(FAST_CALLS))
def test_fast_lane_with_an_extension_prints_what_the_click_command_prints(command, tmp_path):
    ext = tmp_path / "ext.ttl"
    ext.write_text(EXTENSION.format(text="Prefer the synthetic choice."), encoding="utf-8")
    env = _env(RECIPEKG_CACHE_DIR=str(tmp_path / "cache"))
    args = {"query": ["query", "recommend architecture where data = tabular", "--format", "json"],
            "explain": ["explain", "lightgbm", "where", "data", "=", "tabular", "--format", "json"],
            "plan": ["plan", "where", "params", "=", "7B"],
            "recipe": ["recipe", "where", "data", "=", "tabular", "and", "rows", "=", "30k"],
            "cite": ["cite", "--query", "recommend architecture where data = tabular"],
            "vocab": ["vocab", "data", "--format", "json"], "shell": ["shell", "--format", "json"]}[command]
    text = b"recommend architecture where data = tabular\n" if command == "shell" else None
    fast, slow = (_run(args + ["--kb", str(ext)], entry, env, text) for entry in ("fast", "click"))
    assert fast == slow and fast[0] == 0
    if command in ("query", "explain", "shell"):
        assert b"Prefer the synthetic choice." in fast[1]
    if command == "cite":
        assert b"rule ext-tabular-choice" in fast[1]
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix rkg: <https://w3id.org/recipekg/ns#> .\nrkg:x rkg:y", encoding="utf-8")
    fast, slow = (_run(args + ["--kb", str(bad)], entry, env, text) for entry in ("fast", "click"))
    assert fast == slow and fast[0] == 2
    assert b"not valid Turtle" in (fast[1] if "json" in args else fast[2])


from support import EXTENSION  # noqa: E402  (a valid one-rule extension, "{text}" to fill)


def _default(param):
    return None if "UNSET" in repr(param.default) else param.default  # click 8.2+: a sentinel


@pytest.mark.parametrize("what, text", [("ok", "recommend fix where symptom = loss-spike\n\nplan where params = 7B"),
                                        ("unknown name", "plan where gpus = 8\nrecommend fix where symptom = los-spike"),
                                        ("syntax", "plan where gpus = 8\nrecomend fix"), ("syntax", ""),
                                        ("syntax", b"plan where data = caf\xe9"), ("missing", None),
                                        ("directory", None)])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_fast_lane_reads_a_file_as_the_click_command_does(what, text, fmt, tmp_path):
    """``query -f FILE``: the same bytes and status, errors located in the file."""
    from recipekg.cli.fast import fast_request

    path = tmp_path / "q.rkg"
    if isinstance(text, (str, bytes)):
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    elif what == "directory":
        path.mkdir()
    args = ["query", "-f", str(path), "--format", fmt]
    assert fast_request(args) is not None  # a directory too: the project's error, not click's
    env = _env(RECIPEKG_CACHE_DIR=str(tmp_path / "cache"))
    fast, slow = _run(args, "fast", env), _run(args, "click", env)
    assert fast == slow
    assert fast[0] == (0 if what == "ok" else 2)
    if what in ("unknown name", "syntax") and text:
        assert str(path).encode() in (fast[1] if fmt == "json" else fast[2])


@pytest.mark.parametrize("name", ["query", "explain", "plan", "recipe", "cite", "vocab", "shell"])
def test_the_fast_lane_knows_every_option_of_each_command_it_shadows(name):
    """A new parameter of a command the fast lane answers (or a default read from the
    environment) must be taught to recipekg.cli.lanes, or deliberately left to click,
    or the fast lane would answer without it."""
    import click

    from recipekg.cli.lanes import COMMANDS, COUNT, FILE, FLAG, TEXT
    from recipekg.cli.main import main

    lane, command = COMMANDS[name], main.commands[name]
    assert main.context_settings.get("auto_envvar_prefix") is None and command.context_settings == {}
    seen = set()
    for param in command.params:
        assert getattr(param, "envvar", None) is None, param.name
        seen.add(param.name)
        if isinstance(param, click.Argument):
            assert lane.arguments.get(param.name) == param.nargs, f"{name}: argument {param.name}"
            if param.nargs == 1:
                assert (param.name in lane.optional) == (not param.required), f"{name}: argument {param.name}"
            continue
        if param.name in lane.to_click:  # left to click when given, its default assumed when not
            assert (_default(param) or None) == lane.to_click[param.name], f"{name} --{param.name}"
            continue
        option = next((o for o in lane.options if o.dest == param.name), None)
        assert option is not None, f"recipekg.cli.lanes does not know {name} --{param.name}"
        assert sorted(option.names) == sorted(param.opts + param.secondary_opts), param.name
        assert option.repeatable == param.multiple, param.name
        assert (option.kind == FLAG) == param.is_flag, param.name
        if isinstance(param.type, click.Choice):
            assert option.choices == tuple(param.type.choices), param.name
        elif isinstance(param.type, click.IntRange):
            assert option.kind == COUNT and (param.type.min, param.type.max) == (1, None), param.name
            assert not param.type.min_open and not param.type.clamp
        elif isinstance(param.type, click.Path):
            assert option.kind == FILE and param.type.dir_okay and not (param.type.exists or param.type.readable), param.name
            assert option.dash == param.type.allow_dash, param.name
        elif not param.is_flag:
            assert option.kind == TEXT and param.type is click.STRING, param.name
        if option.repeatable:
            assert tuple(option.default) == tuple(_default(param) or ()), param.name
        else:
            assert option.default == (_default(param) or (False if param.is_flag else None)), param.name
    # and nothing the click command does not have
    assert {o.dest for o in lane.options} | set(lane.to_click) | set(lane.arguments) == seen


_NUMBERISH = ["8 and", "7B and", "8 million", "8 millionaire", "5 min", "5 minutes", "7k hours", "1.5", "1.",
              "7Bx", "7b", "30k,", "2 in", "3 where", "4 d", "4 days", "9\twhere", "6 w", "6 where", "0.5;",
              "12 between", "1 top", "5 TB", "5 t", "7 B", "7Trillion", "7 billions", "1e3k", "1_ GB", "5 GB/s",
              "5GB/x", "3 PF-days", "2 FLOPS", "1.5e", "2e+3 h", "40%", "40%x", '"a\\"b"', '"a', "# c", "\r\n",
              "\n\t\n", "10 min)", "3 mins,"]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(valid_query(), query_like(),
                 st.lists(st.sampled_from(_WORDS + _NUMBERISH + _PUNCT), min_size=1, max_size=10).map(" ".join)))
def test_the_hand_scanner_makes_the_terminals_tokens(text):
    """Whenever the hand scanner answers, its tokens are the terminals' (type, text, place)."""
    quick = lean.quick_tokens(text)
    if quick is None:
        return
    full = lean.terminal_tokens(text)
    assert full is not None, text
    shape = [(t.type, t.value, t.line, t.column, t.start_pos, t.end_pos) for t in quick]
    assert shape == [(t.type, t.value, t.line, t.column, t.start_pos, t.end_pos) for t in full], text


def test_the_hand_scanner_answers_the_examples_of_the_front_page_and_the_benchmark():
    for text in ("recommend architecture where data = tabular and rows = 30k",
                 "plan where params = 7B and gpus = 8 and hardware = h100", "explain lightgbm where data = tabular"):
        assert lean.quick_tokens(text) is not None, text
    for path in sorted((REPO / "queries").glob("*.rkg")):  # comments, blank lines, quantities, strings
        assert lean.quick_tokens(path.read_text(encoding="utf-8")) is not None, path.name


def _spellings(unit: str) -> list[str]:
    return sorted({unit, unit.upper(), unit.capitalize(), unit[:1].upper() + unit[1:2] + unit[2:].upper()})


@pytest.mark.parametrize("unit", sorted(lean.UNITS_LEXED))
def test_every_unit_of_the_hand_scanner_is_one_of_the_terminal(unit):
    """Each unit the hand scanner reads is a QUANTITY by the terminals, in every case and
    spacing, and a letter, digit or dot after it makes neither read a quantity."""
    for spelt in _spellings(unit):
        for text in (f"5{spelt}", f"5 {spelt}", f"1.5e3\t{spelt}", f"7_000 {spelt})", f"2{spelt}x", f"2{spelt}.",
                     f"2{spelt}/", f"2 {spelt}-"):
            quick, full = lean.quick_tokens(text), lean.terminal_tokens(text)
            if quick is not None:
                assert full is not None, text
                assert [(t.type, t.value, t.column) for t in quick] == [(t.type, t.value, t.column) for t in full]
        assert [t.type for t in lean.quick_tokens(f"5 {spelt}")] == ["QUANTITY"]


def test_the_terminal_knows_no_unit_the_hand_scanner_does_not():
    """Every word the QUANTITY terminal takes after a number is in UNITS_LEXED (the terminal's
    pattern and the set are two writings of one list)."""
    quantity = dict(lean.TERMINALS)["QUANTITY"]
    alternatives = quantity[quantity.index("(?ai:") + 5:quantity.rindex("))")]
    words = {w for w in re.findall(r"[a-z%/-]+", alternatives.replace("\\/", "/"))}
    candidates = {p + i + w + s for p in ("", "k", "m", "g", "t", "p") for i in ("", "i") for w in words
                  for s in ("", "s", "/s", "-day", "-days")}
    unit = re.compile(rf"(?:%|(?ai:{alternatives}))(?![a-zA-Z0-9_.%-])")
    for word in candidates | lean.UNITS_LEXED:
        assert bool(unit.fullmatch(word)) == (word in lean.UNITS_LEXED), word


@settings(max_examples=800, deadline=None)
@given(st.from_regex(r"[0-9]{1,14}(_[0-9]{1,3})?(\.[0-9]{1,9})?([eE][+-]?[0-9]{1,4})?", fullmatch=True),
       st.sampled_from(sorted(lean.UNITS_LEXED)), st.sampled_from(["", " ", "\t"]))
def test_quantities_without_decimal_equal_the_decimal_path(digits, unit, space):
    """The lean quantity (an exact integer product written out) is the Decimal path's float,
    or the same error."""
    from decimal import Decimal, InvalidOperation

    text = digits + space + unit

    class Tok:
        value, line, column = text, 1, 1

        def __len__(self):
            return len(text)

    key = literals.unit_kind(unit)
    kind, factor = literals.unit_factor(key)
    try:
        expected = float(Decimal(digits.replace("_", "")) * factor)
    except (ArithmeticError, InvalidOperation):
        expected = float("inf")
    try:
        assert literals.quantity(Tok()) == (expected, kind)
    except RecipeKGError:
        assert expected in (float("inf"), 0.0)
