"""`recipekg shell` as a user drives it: in a pseudo-terminal (pexpect), typing partial words
and TAB, statements over several lines, errors, format switches, history across sessions;
and from a pipe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pexpect
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import subprocess_env

ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")


class Terminal:
    """A ``recipekg shell`` in a pty; :meth:`expect` waits for text on the screen (escape
    sequences removed) and consumes the output up to it."""

    def __init__(self, state_dir, *args, command: str = "shell"):
        env = subprocess_env(TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", XDG_STATE_HOME=str(state_dir))
        self.child = pexpect.spawn(sys.executable, ["-m", "recipekg", command, *args], env=env,
                                   encoding="utf-8", dimensions=(40, 160), timeout=30)
        self.seen = ""

    def expect(self, text: str, timeout: float = 30) -> str:
        end = time.monotonic() + timeout
        while True:
            clean = ANSI.sub("", self.seen)
            if text in clean:
                at = clean.index(text)
                self.seen = clean[at + len(text):]
                return clean[:at]
            if time.monotonic() > end:
                raise AssertionError(f"{text!r} not on the screen: ...{clean[-800:]!r}")
            try:
                self.seen += self.child.read_nonblocking(65536, timeout=0.2)
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                raise AssertionError(f"the shell ended before {text!r}: ...{clean[-800:]!r}") from None

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def quit(self) -> int:
        self.send(".quit\r")
        self.child.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus


def test_tab_completes_a_statement_word_by_word_and_the_answer_follows(tmp_path):
    term = Terminal(tmp_path)
    term.expect("rkg>")
    term.send("recommend arch\t")  # one candidate: inserted (completion runs in the background:
    term.expect("architecture")    # wait for it as a user sees it before typing on)
    term.send(" where data = tabul\t")
    term.expect("tabular")
    term.send(" and rows = 30k;\r")
    # the answer echoes the statement it answered: the completed words reached the parser
    term.expect("recommend architecture where data = tabular and rows = 30k")
    term.expect("Gradient-boosted trees (LightGBM, XGBoost)")
    term.expect("rkg>")
    assert term.quit() == 0


def test_tab_lists_the_values_of_the_dimension_being_constrained(tmp_path):
    term = Terminal(tmp_path)
    term.expect("rkg>")
    term.send("plan where hardware = h10\t")  # several candidates: a menu of hardware names
    shown = term.expect("h100-pcie")
    assert "h100" in shown
    term.send("\x03")  # Ctrl-C drops the statement, the shell goes on
    term.expect("rkg>")
    term.send("explain vi\t")
    term.expect("vision-transformer")
    term.send("\x03")
    term.expect("rkg>")
    assert term.quit() == 0


def test_an_error_shows_its_position_and_the_shell_goes_on(tmp_path):
    term = Terminal(tmp_path)
    term.expect("rkg>")
    term.send("recommend fix where symptom = loss-spik;\r")
    term.expect("line 1, column 31: unknown symptom 'loss-spik'")
    term.expect("^^^^^^^^^")
    term.expect("did you mean: 'loss-spike'")
    term.expect("rkg>")
    term.send(".frobnicate\r")
    term.expect("unknown command '.frobnicate'")
    term.send("recommend fix where symptom = loss-spike top 1;\r")
    term.expect("Roll back to an earlier checkpoint")
    assert term.quit() == 0


def test_enter_answers_a_complete_statement_and_continues_an_unfinished_one(tmp_path):
    term = Terminal(tmp_path)
    term.expect("rkg>")
    term.send("recommend fix where symptom = loss-spike top 1\r")  # complete: no ';' needed
    term.expect("Roll back to an earlier checkpoint")
    term.expect("rkg>")
    term.send("plan where params = 7B and\r")  # ends in 'and': the statement goes on
    term.expect("...>")
    term.send("hardware = h100\r")  # now complete: answered on this Enter
    term.expect("plan — params = 7B and")  # the answer's head: both lines reached the parser
    term.expect("hardware = h100")
    term.expect("rkg>")
    term.send("recommend fix where\r")  # unfinished ...
    term.expect("...>")
    term.send("\r")  # ... a blank line still ends it: the error says what is missing
    term.expect("missing constraint after 'where'")
    term.expect("rkg>")
    term.send("plan where gpus == 8\r")  # cannot become a statement: its error at once
    term.expect("use '=' to compare, not '=='")
    term.expect("rkg>")
    term.send("recommend fix where symptom = nan top 1\x1b\r")  # Alt-Enter: a new line, not an answer
    term.expect("...>")
    term.send(";\r")
    term.expect("bf16 training (bf16-training)")
    assert term.quit() == 0


def test_a_statement_runs_over_lines_until_a_blank_line_and_format_switches(tmp_path):
    term = Terminal(tmp_path)
    term.expect("rkg>")
    term.send(".format json\r")
    term.expect("format: json")
    term.send("plan where params = 7B and\r")
    term.expect("...>")  # unfinished: the statement goes on
    term.send("hardware = h100 and\r")
    term.expect("...>")
    term.send("gpus = 8;\r")  # ';' ends it as in a file
    term.expect('"statement": "plan"')
    term.expect('"query": "plan where params = 7B and\\nhardware = h100 and\\ngpus = 8"')
    term.send(".format markdown\r")
    term.expect("format: markdown")
    term.send("recommend fix where symptom = loss-spike top 1;\r")
    term.expect("| # | choice | score |")
    term.send(".help\r")
    term.expect(".quit or .exit")
    assert term.quit() == 0


def test_history_persists_across_sessions(tmp_path):
    first = Terminal(tmp_path)
    first.expect("rkg>")
    first.send("recommend optimizer where prefer = low-memory top 2;\r")
    first.expect("rkg>")
    assert first.quit() == 0
    history = (tmp_path / "recipekg" / "shell-history").read_text()
    assert "recommend optimizer where prefer = low-memory top 2;" in history

    second = Terminal(tmp_path)
    second.expect("rkg>")
    second.send("\x1b[A")  # up: the last input of the first session, .quit ...
    second.expect(".quit")
    second.send("\x1b[A")  # ... and before it the statement
    second.expect("low-memory top 2;")
    second.send("\r")  # ... answered again
    second.expect("recommend optimizer where prefer = low-memory top 2")
    second.expect("rkg>")
    second.send("\x04")  # Ctrl-D leaves too
    second.child.expect(pexpect.EOF)
    second.child.close()
    assert second.child.exitstatus == 0


def test_query_without_a_statement_on_a_terminal_starts_the_shell(tmp_path):
    term = Terminal(tmp_path, "--format", "json", command="query")
    term.expect("rkg>")
    term.send("recommend fix where symptom = nan top 1;\r")
    term.expect('"statement": "recommend"')  # the query's --format carried into the shell
    assert term.quit() == 0


def _piped(text: str, *args: str):
    return subprocess.run([sys.executable, "-m", "recipekg", "shell", *args], input=text, capture_output=True,
                          text=True, env=subprocess_env())


def test_piped_into_the_shell_statements_and_commands_run_in_order():
    result = _piped(".format json\nrecommend fix where symptom = loss-spike top 1;\nplan where params = 7B\n\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["format: json"]
    decoder, out, answers = json.JSONDecoder(), result.stdout, []
    while out.strip():
        answer, end = decoder.raw_decode(out.lstrip())
        answers.append(answer["statement"])
        out = out.lstrip()[end:]
    assert answers == ["recommend", "plan"]


def test_piped_errors_are_reported_and_set_the_exit_status():
    result = _piped("recommend fix where symptom = loss-spik;\nrecommend fix where symptom = nan top 1\n")
    assert result.returncode == 2
    assert "line 1, column 31" in result.stderr and "recommend fix where symptom = nan" in result.stdout


@pytest.mark.parametrize("text, ends", [
    ("plan where gpus = 8", False),
    ("plan where gpus = 8;", True),
    ("plan where gpus = 8\n\n", True),
    ("plan where gpus = 8\n", False),
    ('explain "a;b"', False),                 # a ';' in quoted text
    ("plan where gpus = 8 # one;", False),    # ... or in a comment
    ("plan where gpus = 8; # done", True),
    (".format json", True),
    ("   ", False),
])
def test_an_input_ends_where_a_statement_ends(text, ends):
    """What a pipe (and a file) reads as the end of an input."""
    from recipekg.cli.completion import ends_input

    assert ends_input(text) is ends


def test_a_piped_line_that_is_not_utf8_is_an_error_at_its_line_and_the_rest_is_answered():
    result = subprocess.run([sys.executable, "-m", "recipekg", "shell"], capture_output=True, env=subprocess_env(),
                            input=b"recommend fix where symptom = nan top 1;\nplan where data = caf\xe9;\n"
                                  b"recommend fix where symptom = loss-spike top 1;\n")
    assert result.returncode == 2
    stderr = result.stderr.decode()
    assert "<stdin>: line 2, column 22: byte 0xe9 is not UTF-8" in stderr and "Traceback" not in stderr
    assert result.stdout.decode().count("recommend fix where symptom =") == 2


@pytest.mark.parametrize("text, complete", [
    ("plan where gpus = 8", True),
    ("recommend architecture where data = tabular and rows = 30k top 3", True),
    ("plan where gpus = 8 and", False),
    ("plan where hardware in (a100, h100", False),
    ("plan where time between 1 day", False),
    ("recommend", False),
    ("explain vit where data =", False),
    ("plan where gpus = 8;\nplan where", False),     # the last statement is unfinished
    ("plan where\n\n", True),                        # a blank line too, whatever it holds
    ("plan where gpus == 8", True),                   # no words can mend it: answered, its error shown
    ('explain "8-bit', True),                         # a string does not span lines
    ("# only a comment", False),
    ("", True),
    (".format json", True),
])
def test_enter_answers_what_parses_completely(text, complete):
    from recipekg.cli.completion import is_complete

    assert is_complete(text) is complete


def test_piped_statements_over_several_lines_with_errors_are_answered_in_order():
    """A statement runs on until ';' or a blank line (a ';' in a comment or a string does not end
    it); an error names its line and column within the statement, and the next one is answered."""
    result = _piped("plan where params = 7B and\n  gpus = 8 # a comment; not the end\n\n"
                    "recommend fix where\n  symptom = loss-spik;\n"
                    'explain "8-bit Adam" where prefer = low-memory\n.format json\n\n'
                    "recommend fix where symptom = nan top 1\n")
    assert result.returncode == 2
    errors = result.stderr.splitlines()
    assert errors[0].startswith("error: line 2, column 13: unknown symptom 'loss-spik'"), result.stderr
    assert "error: line 2, column 1: unexpected character '.'" in errors  # '.format' went on the statement
    assert "Traceback" not in result.stderr
    assert result.stdout.index("plan — params = 7B and\n  gpus = 8\n") < result.stdout.index(
        "recommend fix — recommend fix where symptom = nan top 1")  # in order, as text: '.format' was no command


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='"\\#;\n\r x=', max_size=30))
def test_the_hand_scanner_reads_code_as_the_regular_expression_does(text):
    """recipekg.cli.ends.code_of (no re on the piped shell's path) against the expression it replaces."""
    from recipekg.cli.ends import code_of

    expression = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*')
    assert code_of(text) == expression.sub(lambda m: "x" if m.group().startswith('"') else "", text)
