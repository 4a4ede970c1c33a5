"""Clean bytes and bounded work at the command line (docs/security.md): files written with
the umask, paths that are not regular files, the size cap in validate, literals over the
parser's limit, numbers that underflow, control characters in the caret line, and linear
work for validation and the shell's pipe."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from support import TURTLE_PREFIXES, subprocess_env


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "recipekg", *args], env=subprocess_env(**(env or {})),
                          capture_output=True, timeout=300)


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_follow_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        for args, name in ((["export", "--format", "ntriples"], "kb.nt"),
                           (["cite", "--choice", "lightgbm", "--format", "csl-json"], "c.json")):
            result = CliRunner().invoke(main, [*args, "-o", str(tmp_path / name)])
            assert result.exit_code == 0, result.output
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode
    finally:
        os.umask(old)


def test_a_replaced_file_keeps_its_mode_and_an_unwritable_path_is_exit_2(tmp_path):
    target = tmp_path / "kb.nt"
    target.write_text("old")
    target.chmod(0o640)
    assert CliRunner().invoke(main, ["export", "-o", str(target)]).exit_code == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() != "old"
    result = CliRunner().invoke(main, ["export", "-o", str(tmp_path / "no" / "such" / "dir.nt")])
    assert result.exit_code == 2 and "cannot write" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_a_path_that_is_not_a_regular_file_is_said_to_be_one(tmp_path, kind):
    path = "/dev/zero" if kind == "device" else str(tmp_path / "pipe.ttl")
    if kind == "fifo":
        os.mkfifo(path)
    for args in (["query", "recommend fix where symptom = nan", "--kb", path], ["validate", path], ["audit", path]):
        done = run(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert b"not a regular file but a" in done.stderr and b"no such file" not in done.stderr


def test_validate_applies_the_extension_size_cap(tmp_path):
    big = tmp_path / "big.ttl"
    big.write_bytes(b"# padding\n" * 220_000)
    done = run("validate", str(big), env={"RECIPEKG_MAX_EXTENSION_MB": "1"})
    assert done.returncode == 2 and b"an extension is at most 1 MiB" in done.stderr


def test_a_literal_over_16_mib_is_refused_at_its_line(tmp_path):
    path = tmp_path / "long.ttl"
    path.write_text(TURTLE_PREFIXES + '\nkb:long a rkg:Architecture ; rdfs:label "Long" ;\n'
                    f'    rdfs:comment "{"x" * (17 << 20)}" .\n', encoding="utf-8")
    line = TURTLE_PREFIXES.count("\n") + 3
    for args in (["validate", str(path)], ["query", "recommend fix where symptom = nan", "--kb", str(path)]):
        done = run(*args)
        out = done.stdout + done.stderr  # validate prints its violations on stdout
        assert done.returncode == 2 and b"internal error" not in out, out[-500:]
        assert f"{path}:{line}".encode() in out or f"{path}: line {line}".encode() in out
        assert b"longer than 16 MiB" in out


@pytest.mark.parametrize("text,column", [("recommend architecture where data = tabular and rows = 1e-400", 56),
                                         ("plan where gpu-memory = 1e-400 GB", 25)])
def test_a_number_that_underflows_is_an_error_at_its_position(text, column):
    done = run("query", text, "--format", "json")
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and (error["kind"], error["line"], error["column"]) == ("value", 1, column)
    assert "too small" in error["message"]


def test_an_escape_sequence_in_a_query_is_written_out_with_the_caret_under_it():
    done = run("query", "recommend architecture where data = tab\x1b[31mular")
    err = done.stderr.decode()
    assert done.returncode == 2 and "\x1b" not in err
    source, caret = err.splitlines()[1:3]
    assert source == "  recommend architecture where data = tab\\u001b[31mular"
    assert caret.index("^") == source.index("\\u001b") and caret.count("^") >= len("\\u001b")


def test_validation_is_linear_in_the_objects_of_one_subject_and_predicate():
    """Index keeps a set of the triples it has: an object is compared with a handful of others,
    not with every object of its subject and predicate before it (60,000 aliases took 32 s)."""
    from recipekg.knowledge.compiler import Index
    from recipekg.knowledge.rdfio import Triple

    compared = {"n": 0}

    class Object(str):
        def __eq__(self, other):
            compared["n"] += 1
            return str.__eq__(self, other)

        __hash__ = str.__hash__

    n = 5_000
    triples = [Triple("s", "p", Object(f"o{i}")) for i in range(n)] * 2  # each twice
    ix = Index(triples)
    assert len(ix.all("s", "p")) == n
    assert compared["n"] < 4 * n  # the list's membership test made n * n / 2 comparisons


def test_the_shell_reads_a_pipe_looking_at_each_line_once(kb, monkeypatch, capsys):
    from recipekg.cli import session
    from recipekg.cli.shell import Session, run_lines

    seen = {"chars": 0}
    real = session.line_ends_input

    def counting(line, first):
        seen["chars"] += len(line)
        return real(line, first)

    monkeypatch.setattr(session, "line_ends_input", counting)
    lines = ["recommend architecture where data = tabular\n"] + ["and rows > %d\n" % i for i in range(3000)] + [";\n"]
    assert run_lines(Session(kb, "json"), lines) == 0
    assert seen["chars"] == sum(map(len, lines))
    assert '"statement": "recommend"' in capsys.readouterr().out


def test_printable_writes_out_exactly_the_hidden_characters():
    """printable() returns a text unchanged when it holds nothing to write out, which is exact
    only if every character it writes out is one str.isprintable() refuses."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import unicodedata

    from recipekg import errors

    hidden = [*range(0x20), *range(0x7F, 0xA0), *errors._INVISIBLE]  # noqa: SLF001 (the table's own list)
    assert not any(chr(o).isprintable() for o in hidden)

    @settings(max_examples=300, deadline=None)
    @given(st.text(), st.sampled_from(["\n\t", "\t", ""]))
    def same_as_the_table(text, keep):
        """The table's characters, then every other format character (Unicode category Cf: an
        invisible separator, a tag character; hostile round 7, 081-083), as JSON writes it."""
        table = {o: f"\\u{o:04x}" for o in hidden if chr(o) not in keep}
        expected = "".join(errors._escaped(ch) if unicodedata.category(ch) == "Cf" and ch not in keep else ch  # noqa: SLF001
                           for ch in text.translate(table))
        assert errors.printable(text, keep) == expected

    same_as_the_table()
