"""Every option and argument that names a file says what is wrong with a bad path (a directory,
a missing, unreadable or not UTF-8 file) through the project's error path: the JSON error object
under ``--format json``, one clear line otherwise, exit status 2; never click's usage text."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main

#: Each command line with a file option or argument, ``{}`` for the path, and whether it takes
#: ``--format json`` (the commands without it print one line on stderr).
READERS = [("query --kb {} 'plan where params = 7B'", True), ("plan --kb {} where params = 7B", True),
           ("explain adamw --kb {} where data = text", True), ("recipe --kb {} where params = 7B", True),
           ("cite -q 'plan where params = 7B' --kb {}", False), ("vocab --kb {}", True), ("stats --kb {}", True),
           ("export --kb {}", False), ("audit {}", True), ("validate {}", False),
           ("query -f {}", True), ("sparql -f {}", False)]
WRITERS = ["export -o {}", "schema -o {}", "cite -q 'plan where params = 7B' -o {}"]


def bad_path(tmp_path, what):
    path = tmp_path / "bad.ttl"
    if what == "directory":
        path.mkdir()
    elif what == "not UTF-8":
        path.write_bytes(b'kb:x rdfs:label "caf\xe9" .\n')
    elif what == "unreadable":
        path.write_text("# nothing\n")
    return path


def invoke(line: str, path, fmt: str | None):
    import shlex

    args = [a.replace("{}", str(path)) for a in shlex.split(line)]
    if fmt:
        args[1:1] = ["--format", fmt]
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize("what", ["directory", "missing", "not UTF-8", "unreadable"])
@pytest.mark.parametrize("line, formats", READERS, ids=[r[0].split()[0] + " " + r[0].split()[1] for r in READERS])
def test_a_bad_path_is_the_projects_error_in_every_format(line, formats, what, tmp_path, monkeypatch):
    path = bad_path(tmp_path, what)
    if what == "unreadable":  # root reads every file: make the checks see what a user would
        real_access, real_open = os.access, open
        monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(path) else real_access(p, mode))
        monkeypatch.setattr("builtins.open", lambda p, *a, **k: (_ for _ in ()).throw(PermissionError(13, "Permission denied"))
                            if str(p) == str(path) else real_open(p, *a, **k))
    for fmt in (["text", "json"] if formats else [None]):
        result = invoke(line, path, fmt)
        assert result.exit_code == 2, (fmt, result.output)
        assert "Usage:" not in result.output and "Invalid value" not in result.output and "Traceback" not in result.output
        assert str(path) in result.output, result.output
        if fmt == "json":
            error = json.loads(result.stdout)["error"]
            assert error["kind"] in ("kb", "usage", "syntax") and error["file"] == str(path)


@pytest.mark.parametrize("line", WRITERS)
def test_writing_to_a_directory_is_the_projects_error(line, tmp_path):
    path = bad_path(tmp_path, "directory")
    result = invoke(line, path, None)
    assert result.exit_code == 2 and "Usage:" not in result.output and f"cannot write {path}" in result.output
    assert os.listdir(path) == []  # nothing half-written left beside it or in it


@pytest.mark.parametrize("line", ["query --kb {} 'plan where params = 7B'", "query -f {}", "plan --kb {} where gpus = 8"])
def test_the_fast_lane_answers_a_directory_as_click_does(line, tmp_path):
    import shlex

    from recipekg.cli.fast import fast_request

    path = bad_path(tmp_path, "directory")
    assert fast_request([a.replace("{}", str(path)) for a in shlex.split(line)]) is not None
