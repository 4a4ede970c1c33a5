"""The package keeps the shape docs/architecture.md describes (tools/check_structure.py):
no import cycle, small modules and functions, no private name used across modules, lean
layers that import only the standard library."""

from __future__ import annotations

import re
import sys
import tomllib

from support import REPO

sys.path.insert(0, str(REPO / "tools"))
import check_structure  # noqa: E402


def test_the_package_keeps_its_structure():
    assert check_structure.breaches() == []


def test_the_checker_finds_a_cycle_a_long_function_and_a_private_import(tmp_path):
    pkg = tmp_path / "recipekg"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""x"""\n')
    (pkg / "a" / "__init__.py").write_text('"""x"""\n')
    (pkg / "a" / "one.py").write_text("def f():\n    from recipekg.a.two import _g\n")
    body = "".join(f"    x{i} = {i}\n" for i in range(90))
    (pkg / "a" / "two.py").write_text(f"import recipekg.a.one\n\n\ndef _g():\n{body}")
    found = "\n".join(check_structure.breaches(tmp_path))
    assert "import cycle: recipekg.a.one -> recipekg.a.two" in found
    assert "function _g has 91 lines" in found
    assert "imports the private name recipekg.a.two._g" in found


def test_the_version_is_the_package_metadata_s():
    import recipekg

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert recipekg.__version__ == project["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", recipekg.__version__)
