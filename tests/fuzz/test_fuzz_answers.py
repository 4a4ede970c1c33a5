"""Fuzzing the whole answering path: statements built from the KB's own vocabulary, mutated
examples and raw text, through the API and every output format, then a sample through the
real executable. The only outcomes allowed are an answer (exit 0) or the user's error (exit 2,
one of recipekg's errors with a position); never a bug (exit 1), a traceback or a hang; and
every JSON answer and error validates against the published schema (``recipekg schema``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipekg.cli.respond import exit_status
from recipekg.errors import RecipeKGError
from recipekg.render.answers import render_answers
from strategies import mutated_queries
from support import schema_errors

FORMATS = ("text", "json", "markdown")
NUMBERS = ["0", "1", "8", "30k", "1.5M", "7B", "7 billion", "1e-200", "1e400", "80GB", "80Gb", "3.35TB/s",
           "2 weeks", "14d", "0.4", "40%", "-3", "1_000", "nan", "inf", "9" * 40]
BY_KIND = {"count": ["1", "8", "64", "30k", "1.5M", "7B", "70B", "1.4T"], "bytes": ["24GB", "80GB", "1TB"],
           "duration": ["10h", "14d", "2 weeks"], "ratio": ["0.4", "40%"]}
CONNECT = [" and ", " AND ", "\nand "]


@st.composite
def vocabulary_statements(draw, snap):
    """A statement a user could type: real kinds, dimensions, values and choices, some wrong."""
    dims = snap["dimensions"]
    choices = sorted({n["id"] for n in snap["nodes"].values() if n["kinds"]})
    head = draw(st.sampled_from(["recommend", "plan", "explain"]))
    if head == "recommend":
        text = "recommend " + draw(st.sampled_from(sorted(dict(snap["kinds"])) + ["widget"]))
    elif head == "explain":
        text = "explain " + draw(st.sampled_from(choices + ['"8-bit Adam"', "nothing-here"]))
    else:
        text = "plan"
    parts = [draw(st.sampled_from(["params = 7B", "params = 70B and tokens = 2T", "flops = 1e21", "params = 125M",
                                   "params = 7B and gpus = 8 and hardware = h100"]))] if head == "plan" else []
    for _ in range(draw(st.integers(0, 4))):
        name = draw(st.sampled_from(sorted(dims) + ["colour"]))
        dim = dims.get(name, {})
        values = sorted(dim.get("values", {})) or BY_KIND.get(dim.get("kind"), NUMBERS)
        if draw(st.integers(0, 9)) == 0:
            values = NUMBERS + ["tabular", "h100"]  # now and then, the wrong sort of value
        ops = ["=", "=", "=", "!=", "in"] if dim.get("values") else ["=", "<", "<=", ">", ">=", "between"]
        op = draw(st.sampled_from(ops))
        if op == "in":
            parts.append(f"{name} in ({', '.join(draw(st.lists(st.sampled_from(values), min_size=1, max_size=3)))})")
        elif op == "between":
            parts.append(f"{name} between {draw(st.sampled_from(NUMBERS))} and {draw(st.sampled_from(NUMBERS))}")
        else:
            parts.append(f"{name} {op} {draw(st.sampled_from(values))}")
    if parts:
        text += " where " + draw(st.sampled_from(CONNECT)).join(parts)
    if head == "recommend" and draw(st.booleans()):
        text += f" top {draw(st.integers(0, 30))}"
    return text


def outcome(kb, text: str, fmt: str) -> int:
    """The exit status the CLI would give, after rendering in ``fmt``; JSON (an answer, several,
    or the error) validates against the published schema."""
    try:
        out = render_answers(kb.query(text), fmt)
    except RecipeKGError as exc:
        assert exc.kind != "internal", f"{text!r}: {exc}"
        from recipekg.render.errors import error_output

        shown, _ = error_output(exc, fmt)  # the error renders too
        if fmt == "json":
            assert schema_errors(json.loads(shown)) == [], text
        return exit_status(exc)
    assert isinstance(out, str)
    if fmt == "json":
        assert schema_errors(json.loads(out)) == [], text
    return 0


def test_vocabulary_statements_answer_or_fail_cleanly_in_every_format(kb):
    @settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(vocabulary_statements(kb.snap), st.sampled_from(FORMATS))
    def check(text, fmt):
        assert outcome(kb, text, fmt) in (0, 2)

    check()


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated_queries(), st.text(max_size=200)), st.sampled_from(FORMATS))
def test_mutated_and_raw_text_answer_or_fail_cleanly(kb, text, fmt):
    assert outcome(kb, text, fmt) in (0, 2)


def _executable(args: list[str], stdin: bytes | None = None, env_extra: dict | None = None):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "recipekg", *args], input=stdin, capture_output=True,
                          env=env, timeout=60)


@pytest.mark.slow
def test_the_executable_never_prints_a_traceback(kb):
    """A sample through the real process (fast lane, click, stdin, odd bytes, a strict locale)."""
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(vocabulary_statements(kb.snap), st.sampled_from(FORMATS), st.sampled_from(["arg", "stdin", "ascii"]))
    def check(text, fmt, how):
        if how == "arg":
            done = _executable(["query", text, "--format", fmt])
        elif how == "stdin":
            done = _executable(["query", "--format", fmt], stdin=text.encode() + b"\xff\xfe")
        else:
            done = _executable(["query", text, "--format", fmt],
                               env_extra={"LC_ALL": "C", "PYTHONIOENCODING": "ascii:strict"})
        assert done.returncode in (0, 2), done.stderr
        assert b"Traceback" not in done.stderr + done.stdout

    check()


#: Characters a terminal acts on or that hide text: C0 (ESC, BEL, CR), C1 (CSI), bidi overrides.
CONTROLS = st.sampled_from(["\x1b", "\x1b[2J", "\x1b]0;x\x07", "\x07", "\r", "\x00", "\x9b", "\x85", "\u202e",
                            "\u2066", "\u2028", "\ufeff", "\x7f"])


@st.composite
def with_controls(draw, snap):
    text = draw(st.one_of(vocabulary_statements(snap), mutated_queries()))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        text = text[:i] + draw(CONTROLS) + text[i:]
    return text


def hidden(text: str) -> list[str]:
    """The control characters of ``text`` that would reach a terminal as they are."""
    return [c for c in text if c not in "\n\t" and (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F
                                                     or ord(c) in (0x2028, 0x2029, 0xFEFF)
                                                     or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069)]


def test_control_characters_never_reach_a_message_raw(kb):
    """Every error message, its caret line included, writes control characters out (\\u001b),
    and the caret stays under the spot it names."""
    @settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(with_controls(kb.snap), st.sampled_from(FORMATS))
    def check(text, fmt):
        try:
            render_answers(kb.query(text), fmt)
        except RecipeKGError as exc:
            assert exc.kind != "internal", f"{text!r}: {exc}"
            shown = str(exc)
            assert hidden(shown) == [], (text, shown)
            lines = shown.split("\n")
            carets = [i for i, line in enumerate(lines) if line.strip() and set(line.strip()) == {"^"}]
            if carets and exc.source_line is not None:
                from recipekg.errors import printable

                under, caret = lines[carets[0] - 1], lines[carets[0]]
                start = len(caret) - len(caret.lstrip())
                before = printable(exc.source_line[: exc.column - 1], keep="\t")
                assert start - 2 == len(before) or "\t" in before, (text, shown)
                assert under.startswith("  ")

    check()


@pytest.mark.slow
def test_the_executable_never_writes_a_control_character_raw(kb):
    """Through the real process, in every format: no byte sequence a terminal would act on."""
    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(with_controls(kb.snap), st.sampled_from(FORMATS))
    def check(text, fmt):
        done = _executable(["query", text.replace("\x00", ""), "--format", fmt])
        assert done.returncode in (0, 2), done.stderr
        out = (done.stdout + done.stderr).decode("utf-8", "replace")
        assert hidden(out) == [], (text, out[:500])

    check()
