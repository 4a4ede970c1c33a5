"""Every docstring example of the package runs, and every module has one: the examples are
documentation, so they must stay true. Examples see ``kb`` (the bundled knowledge base),
``snap`` (its snapshot) and ``parse``, besides what they import."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import recipekg

MODULES = sorted(m.name for m in pkgutil.walk_packages(recipekg.__path__, "recipekg.")
                 if not m.name.endswith(("._standalone", ".__main__")))
PACKAGES = sorted(m.name for m in pkgutil.walk_packages(recipekg.__path__, "recipekg.") if m.ispkg)
# The command line's modules show shell commands (``$ recipekg ...``), not Python.
SHELL_EXAMPLES = ("recipekg.cli.", "recipekg.__main__")


def _examples(name: str) -> list[doctest.DocTest]:
    return [t for t in doctest.DocTestFinder(exclude_empty=True).find(importlib.import_module(name), name)
            if t.examples]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, kb):
    from recipekg.query.parser import parse

    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in _examples(name):
        test.globs.update(kb=kb, snap=kb.snap, parse=parse)
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_every_module_has_a_docstring_and_an_example():
    undocumented = [n for n in MODULES if not (importlib.import_module(n).__doc__ or "").strip()]
    assert undocumented == []
    without = [n for n in MODULES if n not in PACKAGES and not n.startswith(SHELL_EXAMPLES) and not _examples(n)]
    assert without == []
