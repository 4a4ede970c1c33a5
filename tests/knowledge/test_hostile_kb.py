"""A corpus of hostile extension files (tests/data/hostile): each is refused by `validate`
and by every load, at its own file and line, with exit status 2 and no traceback.

Each file's first line says what is expected: ``# expect: NEEDLE | MESSAGE``, where the
violation is reported at the first line after the header that contains NEEDLE.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from recipekg.api import KnowledgeBase
from recipekg.cli.main import main
from recipekg.errors import KBError

CORPUS = sorted((Path(__file__).parents[1] / "data" / "hostile").glob("*.ttl"))


def expectation(path: Path) -> tuple[int, str]:
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    needle, _, message = lines[0].removeprefix("# expect: ").partition(" | ")
    line = next(n for n, text in enumerate(lines[1:], 2) if needle in text)
    return line, message


def test_the_corpus_covers_every_attack_of_the_issue():
    assert len(CORPUS) >= 25


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_validate_refuses_it_at_its_own_line(path):
    line, message = expectation(path)
    result = CliRunner().invoke(main, ["validate", "--no-shacl", str(path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    hits = [row for row in result.output.splitlines() if row.startswith(f"{path}:{line}:")]
    assert any(message in h for h in hits), result.output


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_loading_it_raises_a_kb_error_at_the_extension(path):
    with pytest.raises(KBError) as caught:
        KnowledgeBase.load([path], use_cache=False, shacl=False)
    assert caught.value.file == str(path)


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
