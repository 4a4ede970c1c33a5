"""Completion: the statement completer against the KB's vocabulary, and the shells' completion
of the command line run as bash, zsh and fish run it (click's ``_RECIPEKG_COMPLETE``
protocol, through the console script's fast lane)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from recipekg.cli.completion import Vocabulary, complete

from support import subprocess_env


@pytest.fixture(scope="module")
def vocab(kb):
    return Vocabulary(kb.snap)


def _values(snap, dimension):
    return set(snap["dimensions"][dimension]["values"])


def test_each_place_of_a_statement_offers_what_the_kb_holds_there(kb, vocab):
    snap = kb.snap
    assert set(complete("", vocab).words) == {"recommend", "plan", "explain", "recipe"}
    assert set(complete("recommend ", vocab).words) == set(snap["kinds"])
    assert _unquoted(complete("explain ", vocab).words) == set(snap["rule_index"]["choices"])
    assert _unquoted(complete("recommend fix where symptom = ", vocab).words) == _values(snap, "symptom")
    assert _unquoted(complete("plan where hardware in (a100, ", vocab).words) == _values(snap, "hardware")
    for statement in ("plan", "recipe"):  # recipe plans too: every spelling of every dimension
        dims = set(complete(f"{statement} where ", vocab).words)
        for name, dim in snap["dimensions"].items():
            assert {name, *dim["aliases"]} <= dims, (statement, name)
    assert "lora-rank" in complete("recipe where method = qlora and lor", vocab).words
    assert _unquoted(complete("recipe where method = ", vocab).words) == _values(snap, "method")


def _unquoted(words):
    return {w.strip('"') for w in words}


def test_every_name_offered_parses_and_means_what_it_was_offered_for(kb, vocab):
    from recipekg.query.parser import parse
    from recipekg.reason.resolve import resolve_choice, resolve_dimension, resolve_value

    snap = kb.snap
    for word in complete("explain ", vocab).words:  # '"8-bit-adam"' is quoted: a NAME may not start with a digit
        statement, = parse(f"explain {word}")
        assert resolve_choice(statement.choice, snap) == snap["rule_index"]["choices"][word.strip('"')]
    for dimension in complete("plan where ", vocab).words:
        for word in complete(f"plan where {dimension} = ", vocab).words:
            statement, = parse(f"plan where {dimension} = {word}")
            constraint, = statement.constraints
            dim = resolve_dimension(constraint.dimension, snap)
            assert resolve_value(constraint.values[0], dim, snap) == dim["values"][word.strip('"')]


def test_a_numeric_dimension_offers_no_names_and_a_constraint_is_followed_by_and(vocab):
    assert complete("plan where params = ", vocab).words == []
    assert complete("plan where params = 7 billion ", vocab).words == ["and"]
    assert complete("plan where time between 1 day ", vocab).words == ["and"]
    assert complete("recommend optimizer where prefer = low-memory ", vocab).words == ["and", "top"]
    assert complete("recommend optimizer top 3 ", vocab).words == []


def test_the_word_being_typed_is_replaced_and_only_the_current_statement_counts(vocab):
    found = complete("plan where params = 7B;\nrecommend fix where sym", vocab)
    assert found == (-3, ["symptom"])
    assert complete("recommend fix where symptom = loss-spike\n\nexpl", vocab).words == ["explain"]
    assert complete("REcommend ARCH", vocab).words == ["architecture"]  # keywords and names ignore case


def test_after_a_word_that_cannot_be_there_nothing_is_offered(vocab):
    assert complete("recommend where ", vocab).words == []
    assert complete("plan top ", vocab).words == []


def _complete(shell: str, words: str, cword: int | str):
    env = subprocess_env(_RECIPEKG_COMPLETE=f"{shell}_complete", COMP_WORDS=words, COMP_CWORD=str(cword))
    executable = shutil.which("recipekg", path=str(__import__("pathlib").Path(sys.executable).parent))
    command = [executable] if executable else [sys.executable, "-m", "recipekg"]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    assert result.returncode == 0 and not result.stderr, result.stderr
    return result.stdout


def _bash(words: str, cword: int) -> list[str]:
    return [line.split(",", 1)[1] for line in _complete("bash", words, cword).splitlines() if line]


def test_bash_completes_commands_options_choices_papers_and_statement_words():
    assert {"query", "explain", "plan", "shell", "cite"} <= set(_bash("recipekg ", 1))
    assert _bash("recipekg query --form", 2) == ["--format"]
    assert "lightgbm" in _bash("recipekg explain lightg", 2)
    assert _bash("recipekg explain lightgbm where data = tab", 6) == ["table", "tables", "tabular"]
    assert "h100-pcie" in _bash("recipekg plan where hardware = h10", 5)
    assert _bash("recipekg plan where params = 7B ", 6) == ["and"]
    assert _bash("recipekg cite --choice lightg", 3) == ["lightgbm"]
    assert "grinsztajn2022" in _bash("recipekg paper grinsz", 2)
    assert "grinsztajn2022" in _bash("recipekg cite --paper grinsz", 3)
    assert "threshold-tabular-under-10k" in _bash("recipekg cite --rule threshold-tab", 3)
    assert _bash("recipekg query 'recommend arch", 2) == ["recommend architecture"]
    assert _bash("recipekg sparql 'recommend fix where sym", 2) == ["recommend fix where symptom"]
    assert "json" in _bash("recipekg shell --format ", 3)


def test_zsh_and_fish_get_the_same_candidates():
    zsh = _complete("zsh", "recipekg explain lightgbm where data = tab", 6).splitlines()
    assert [zsh[i + 1] for i in range(0, len(zsh), 3)] == ["table", "tables", "tabular"]
    fish = _complete("fish", "recipekg explain lightg", "lightg").splitlines()
    assert "plain,lightgbm" in fish


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o nosort -F _recipekg_completion recipekg"),
                                           ("zsh", "compdef _recipekg_completion recipekg"),
                                           ("fish", "complete --no-files --command recipekg")])
def test_the_activation_script_of_each_shell(shell, marker):
    env = subprocess_env(_RECIPEKG_COMPLETE=f"{shell}_source")
    result = subprocess.run([sys.executable, "-m", "recipekg"], env=env, capture_output=True, text=True)
    assert result.returncode == 0 and marker in result.stdout


def test_a_kb_that_does_not_load_completes_nothing_and_prints_no_error(tmp_path):
    bad = tmp_path / "bad.ttl"
    bad.write_text("this is not Turtle")
    assert _bash(f"recipekg explain --kb {bad} vi", 4) == []
    assert "vit" in _bash("recipekg explain vi", 2)  # the same words with the bundled KB
