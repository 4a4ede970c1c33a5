"""Units as people write them (issue 12): bandwidth, FLOP/s, FLOPs and PF-days, numbers in
words, bits against bytes; a unit of the wrong kind for its dimension is an error at its
position; and whatever the renderer prints parses back to the value it stands for."""

from __future__ import annotations

import json
import math
import re

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from recipekg.cli.main import main
from recipekg.errors import RangeError
from recipekg.query import lean, parser
from recipekg.query.ast import Number, Quantity
from recipekg.query.parser import parse
from recipekg.reason.resolve import resolve_value
from recipekg.render import numbers


def value_of(text: str):
    """The one value of ``plan where x = <text>``, from both parsers (which must agree)."""
    query = f"plan where x = {text}"
    (stmt,) = parse(query)
    assert lean.lean_parse(query) == parser.full_parse(query), text
    return stmt.constraints[0].value


# ------------------------------------------------------------------ parsing

@pytest.mark.parametrize("text, value, kind", [
    ("3.35TB/s", 3.35e12, "bytes/s"), ("273 GB/s", 273e9, "bytes/s"), ("273 GB/S", 273e9, "bytes/s"),
    ("1.5TiB/s", 1.5 * 2**40, "bytes/s"),
    ("100 Gb/s", 100e9, "bits/s"), ("400Gbit/s", 400e9, "bits/s"), ("80Gb", 80e9, "bits"),
    ("80 Gbit", 80e9, "bits"), ("80GB", 80e9, "bytes"), ("80gb", 80e9, "bytes"), ("80kB", 80e3, "bytes"),
    ("989 TFLOPS", 989e12, "flop/s"), ("989 TFLOP/s", 989e12, "flop/s"), ("1.98 PFLOPS", 1.98e15, "flop/s"),
    ("989 tflop/s", 989e12, "flop/s"), ("989 Tflops", 989e12, "flop"),
    ("5.88e21 FLOPs", 5.88e21, "flops"), ("1e21 FLOP", 1e21, "flops"), ("3 PFLOPs", 3e15, "flops"),
    ("1 PF-day", 8.64e19, "flops"), ("10 PF-days", 8.64e20, "flops"), ("2 petaflop-days", 1.728e20, "flops"),
    ("1 year", 8760.0, "hours"), ("2.4 years", 2.4 * 8760, "hours"), ("3.33 months", 3.33 * 720, "hours"),
])
def test_quantities(text, value, kind):
    v = value_of(text)
    assert isinstance(v, Quantity) and v.unit_kind == kind and v.text == text
    assert v.value == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text, value", [
    ("7 billion", 7e9), ("1.4 trillion", 1.4e12), ("70 million", 7e7), ("2 thousand", 2e3),
    ("7billion", 7e9), ("1.5 Billion", 1.5e9), ("989T", 989e12), ("2048", 2048.0),
])
def test_numbers_in_words_and_suffixes(text, value):
    v = value_of(text)
    assert isinstance(v, Number) and v.value == value


@pytest.mark.parametrize("query", ["plan where x = 7 billions", "plan where x = 7 gazillion",
                                   "plan where x = 3 TB/h", "plan where x = 7 billion tokens"])
def test_near_misses_are_syntax_errors(query):
    with pytest.raises(Exception) as info:
        parse(query)
    assert type(info.value).__name__ == "QuerySyntaxError"


# ------------------------------------------------------------------ units against dimensions

DIMS = {
    "gpu-memory": {"name": "gpu-memory", "kind": "bytes", "unit": "BYTE", "min": 0.0, "max": None},
    "bandwidth": {"name": "bandwidth", "kind": "count", "unit": "BYTE-PER-SEC", "min": 0.0, "max": None},
    "flops": {"name": "flops", "kind": "count", "unit": "FLOP", "min": 0.0, "max": None},
    "peak-flops": {"name": "peak-flops", "kind": "count", "unit": "FLOP-PER-SEC", "min": 0.0, "max": None},
    "time": {"name": "time", "kind": "duration", "unit": "HR", "min": 0.0, "max": None},
    "params": {"name": "params", "kind": "count", "unit": None, "min": 0.0, "max": None},
}


@pytest.mark.parametrize("dim, text, expected", [
    ("gpu-memory", "80Gb", 10e9), ("gpu-memory", "80GB", 80e9), ("bandwidth", "3.35TB/s", 3.35e12),
    ("bandwidth", "100 Gb/s", 12.5e9), ("bandwidth", "3.35T", 3.35e12),
    ("flops", "10 PF-days", 8.64e20), ("flops", "5.88e21 FLOPs", 5.88e21), ("flops", "1e21", 1e21),
    ("flops", "1e21 flops", 1e21),
    ("peak-flops", "989T", 989e12), ("peak-flops", "989 TFLOPS", 989e12), ("peak-flops", "989 TFLOP/s", 989e12),
    ("peak-flops", "989 Tflops", 989e12), ("time", "1 year", 8760.0), ("params", "7 billion", 7e9),
])
def test_units_fit_their_dimension(dim, text, expected):
    assert resolve_value(value_of(text), DIMS[dim], {}) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("dim, text, words", [
    ("gpu-memory", "3.35TB/s", "not a bandwidth"), ("gpu-memory", "3 days", "not a duration"),
    ("bandwidth", "80GB", "not a size"), ("bandwidth", "989 TFLOPS", "a bandwidth such as 3.35TB/s"),
    ("flops", "989 TFLOPS", "not a rate (FLOP/s)"), ("flops", "989 TFLOP/s", "not a rate"),
    ("flops", "80GB", "a compute budget such as"), ("peak-flops", "10 PF-days", "not an amount of compute"),
    ("peak-flops", "5.88e21 FLOPs", "not an amount of compute"), ("time", "80Gb", "not a size in bits"),
    ("params", "80GB", "a number such as 30k"), ("params", "989 TFLOPS", "not a rate"),
])
def test_a_unit_of_the_wrong_kind_is_an_error_at_its_position(dim, text, words):
    v = value_of(text)
    with pytest.raises(RangeError) as info:
        resolve_value(v, DIMS[dim], {})
    assert words in str(info.value)
    assert (info.value.line, info.value.column) == (1, len("plan where x = ") + 1)


@pytest.mark.parametrize("query, column", [
    ("plan where params = 7B and bandwidth = 80 GB", 40),
    ("plan where flops = 989 TFLOPS", 20),
    ("plan where params = 7B and gpu-memory = 3.35TB/s", 41),
])
def test_cli_wrong_unit_exits_2_at_the_value(kb, query, column):
    # (kb first: the session's KB is compiled, not read back from the cache the CLI writes)
    result = CliRunner().invoke(main, ["query", "--format", "json", query])
    assert result.exit_code == 2
    err = json.loads(result.output)["error"]
    assert (err["line"], err["column"]) == (1, column)


def test_bits_for_bytes_are_converted_and_the_answer_says_so(kb):
    (a,) = kb.query("plan where params = 7B and gpu-memory = 80Gb and bandwidth = 100 Gb/s")
    mem = next(c for c in a["constraints"] if c["dimension"] == "gpu-memory")
    bw = next(c for c in a["constraints"] if c["dimension"] == "bandwidth")
    assert mem["value"] == 10e9 and mem["given_as"] == "80Gb" and mem["note"] == "Gb is gigabits"
    assert bw["value"] == 12.5e9 and bw["note"] == "Gb/s is gigabits per second"
    result = CliRunner().invoke(main, ["query", "plan where params = 7B and gpu-memory = 80Gb"])
    assert result.exit_code == 0
    assert "gpu-memory = 10GB (given as 80Gb: Gb is gigabits, 8 bits to a byte)" in result.output
    (b,) = kb.query("plan where params = 7B and gpu-memory = 80GB")
    assert next(c for c in b["constraints"] if c["dimension"] == "gpu-memory")["value"] == 80e9


# ------------------------------------------------------------------ what is printed parses back

VALUE_UNITS = {"count": (1.0, 1e24), "bytes": (1e3, 1e16), "bytes/s": (1e6, 1e16),
               "FLOP/s": (1e3, 1e18), "hours": (0.01, 1e6), "fraction": (1e-4, 1.0)}
PARSED_AS = {"count": None, "bytes": "bytes", "bytes/s": "bytes/s", "FLOP/s": "flop/s",
             "hours": "hours", "fraction": "ratio"}


@settings(max_examples=400, deadline=None)
@given(unit=st.sampled_from(sorted(VALUE_UNITS)), data=st.data())
def test_constraint_values_parse_back_exactly(unit, data):
    """The constraint echo (THE constraint formatter) prints every unit so that it parses back
    to the same value, to every digit the query could have given."""
    low, high = VALUE_UNITS[unit]
    x = data.draw(st.floats(low, high).map(lambda v: float(f"{v:.6g}")))
    text = numbers.value(x, unit)
    v = value_of(text)
    assert (v.unit_kind if isinstance(v, Quantity) else None) == PARSED_AS[unit], text
    assert v.value == pytest.approx(x, rel=1e-11), text


AMOUNT_UNITS = {"bytes": ("bytes", (1e3, 1e16)), "hours": ("hours", (0.01, 1e6)),
                "bytes/s": ("bytes/s", (1e6, 1e16)), "FLOP/s": ("flop/s", (1e3, 1e18)),
                "FLOPs": (None, (1e15, 1e27)), "parameters": (None, (1e3, 1e14)),
                "tokens": (None, (1e3, 1e15)), "GPUs": (None, (1, 1e6))}


@settings(max_examples=400, deadline=None)
@given(unit=st.sampled_from(sorted(AMOUNT_UNITS)), data=st.data())
def test_plan_amounts_parse_back(unit, data):
    """Every value the plan prints with a unit is a value of the language: the number (with
    its unit where the unit is a quantity's) parses back to within its printed rounding."""
    kind, (low, high) = AMOUNT_UNITS[unit]
    x = data.draw(st.floats(low, high))
    text = numbers.amount(x, unit=unit)
    if kind is None:       # a count followed by its word (7B parameters, 2,048 GPUs, 5.88e21 FLOPs)
        pasted = text.rsplit(" ", 1)[0].replace(",", "") if unit != "FLOPs" else text
    else:
        pasted = text
    v = value_of(pasted)
    if unit == "FLOPs":
        assert v.unit_kind == "flops"
    else:
        assert (v.unit_kind if isinstance(v, Quantity) else None) == kind, text
    rel = 1e-11 if unit in ("GPUs", "bytes/s", "FLOP/s") else (0.021 if unit == "hours" else 0.006)
    assert math.isclose(v.value, x, rel_tol=rel), (text, x)


@pytest.mark.parametrize("query", [
    "plan where params = 7B and gpus = 8 and hardware = h100",
    "plan where params = 70B and gpus = 2048 and hardware = a100 and time < 3 months",
    "plan where params = 7 billion and tokens = 2 trillion and hardware = dgx-spark and gpu-memory = 128GB",
    "plan where params = 7B and bandwidth = 273 GB/s and gpu-memory = 80Gb and mfu = 40%",
])
def test_the_constraint_line_pasted_back_gives_the_same_constraints(kb, query):
    """`bandwidth = 3.35TB/s (from hardware)` as plan prints it: pasted into a query, every
    constraint of the line parses and resolves to the same values."""
    result = CliRunner().invoke(main, ["query", query])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("constraints: "))
    pasted = re.sub(r" \((?:from [a-z-]+|given as [^)]*)\)", "", line.removeprefix("constraints: "))
    again = CliRunner().invoke(main, ["query", "--format", "json", "plan where " + pasted.replace(", ", " and ")])
    assert again.exit_code == 0, (pasted, again.output)
    (first,) = kb.query(query)
    values = {c["dimension"]: c["value"] for c in json.loads(again.output)["constraints"]}
    for c in first["constraints"]:
        expected = c["value"] if isinstance(c["value"], str) else pytest.approx(c["value"], rel=1e-12)
        assert values[c["dimension"]] == expected, c


def test_between_bounds_of_one_family_may_mix_bits_and_bytes():
    (stmt,) = parse("plan where gpu-memory between 40Gb and 80GB and bandwidth between 100 Gb/s and 3.35TB/s")
    mem, bw = stmt.constraints
    assert [v.unit_kind for v in mem.values] == ["bits", "bytes"]
    assert resolve_value(mem.values[0], DIMS["gpu-memory"], {}) == 5e9
    assert [v.unit_kind for v in bw.values] == ["bits/s", "bytes/s"]
    with pytest.raises(RangeError, match="same kind of unit"):
        parse("plan where gpu-memory between 40GB and 3 days")
