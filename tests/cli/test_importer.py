"""The fast lane's importer (recipekg.cli.importer) gives every module what Python's own
import gives it, and leaves to Python what it cannot read.

Each test runs fresh interpreters over a byte-compiled copy of the package (the checkout's
own source tree may hold no ``.pyc``, and then the importer has nothing to do): the modules a
cold plan loads, imported once with the importer and once without, must have the same
attributes, specs, loaders, order in ``sys.modules`` and places on their packages.
"""

from __future__ import annotations

import compileall
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import recipekg

#: What a cold `recipekg plan` and `query -f` import, whatever imports it first.
ENTRY = ("import recipekg.cli.lanes, recipekg.cli.respond, recipekg.plan.planner, recipekg.render.plan, "
         "recipekg.render.recommend, recipekg.reason.recency, recipekg.plan.utilisation\n"
         "from recipekg import api, KnowledgeBase\n"
         "from recipekg.render import numbers, explain as _explain\n")

PROBE = """
import json, os, sys
use = sys.argv[1] == "1"
from recipekg.cli import importer
loaded, tried = [], []
_load = importer._load
def counted(name):
    tried.append(name)
    module = _load(name)
    if module is not None:
        loaded.append(name)
    return module
importer._load = counted
with importer.installed() if use else open(os.devnull):
    exec(sys.argv[2])
def row(name, m):
    spec = m.__spec__
    loader = m.__loader__
    return {"name": name, "file": m.__file__, "cached": m.__cached__, "package": m.__package__,
            "path": getattr(m, "__path__", None), "keys": [k for k in vars(m) if k.startswith("__")],
            "spec": [spec.name, spec.origin, spec.cached, spec.parent, spec.submodule_search_locations,
                     spec.has_location, spec.loader is loader, spec.loader_state, getattr(spec, "_initializing", None)],
            "loader": [type(loader).__module__, type(loader).__qualname__, loader.name, loader.path],
            "on_parent": getattr(sys.modules.get(name.rpartition(".")[0]), name.rpartition(".")[2], None) is m,
            "code_file": next((f.__code__.co_filename for f in vars(m).values()
                               if getattr(f, "__module__", None) == name and hasattr(f, "__code__")), None)}
modules = [row(n, m) for n, m in sys.modules.items() if n == "recipekg" or n.startswith("recipekg.")]
import builtins
print(json.dumps({"modules": modules, "ours": loaded, "tried": tried, "restored": builtins.__import__ is importer._original}))
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """A byte-compiled copy of the package (its directory goes first on PYTHONPATH)."""
    root = tmp_path_factory.mktemp("compiled")
    shutil.copytree(Path(recipekg.__file__).parent, root / "recipekg",
                    ignore=shutil.ignore_patterns("__pycache__", "data", "*.pyc"))
    assert compileall.compile_dir(root / "recipekg", quiet=1)
    return root


def _probe(root: Path, use: bool, code: str = ENTRY, *flags: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("PYTHONPYCACHEPREFIX", None)
    out = subprocess.run([sys.executable, *flags, "-c", PROBE, "1" if use else "0", code], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_modules_are_those_python_imports(compiled):
    ours, python = _probe(compiled, True), _probe(compiled, False)
    assert len(ours["ours"]) > 60  # the importer loaded them (a cold plan's modules)
    assert python["ours"] == []
    assert ours["modules"] == python["modules"]
    assert all(m["file"].startswith(str(compiled)) for m in ours["modules"])


def test_a_stale_or_missing_pyc_is_left_to_python(compiled, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(compiled, root)
    numbers = root / "recipekg" / "render" / "numbers.py"
    os.utime(numbers, (numbers.stat().st_atime, numbers.stat().st_mtime + 10))  # the .pyc is now stale
    (root / "recipekg" / "plan" / "__pycache__" / f"ledger.{sys.implementation.cache_tag}.pyc").unlink()
    ours, python = _probe(root, True), _probe(root, False)
    assert "recipekg.render.numbers" not in ours["ours"] and "recipekg.plan.ledger" not in ours["ours"]
    assert "recipekg.plan.planner" in ours["ours"]
    assert ours["modules"] == python["modules"]


@pytest.mark.parametrize("code, error", [
    ("import recipekg.no_such_module", "ModuleNotFoundError: No module named 'recipekg.no_such_module'"),
    ("from recipekg.render import no_such_module", "ImportError: cannot import name 'no_such_module'"),
])
def test_a_missing_module_fails_as_python_says(compiled, code, error):
    env = dict(os.environ, PYTHONPATH=str(compiled))
    for use in (True, False):
        out = subprocess.run([sys.executable, "-c", PROBE, "1" if use else "0", code], env=env,
                             capture_output=True, text=True)
        assert out.returncode == 1 and error in out.stderr, out.stderr


def test_a_module_that_fails_is_not_left_loaded(compiled, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(compiled, root)
    broken = root / "recipekg" / "render" / "vocab.py"
    broken.write_text(broken.read_text() + "\nraise RuntimeError('broken on purpose')\n")
    compileall.compile_file(broken, quiet=1)
    code = ("try:\n    import recipekg.render.vocab\nexcept RuntimeError:\n    pass\n"
            "import sys; assert 'recipekg.render.vocab' not in sys.modules\n"
            "import recipekg.render; assert not hasattr(recipekg.render, 'vocab')\n")
    out = _probe(root, True, code)
    assert "recipekg.render.vocab" in out["tried"] and "recipekg.render.vocab" not in out["ours"]


def test_importtime_and_optimised_interpreters_use_python_s_import(compiled):
    assert _probe(compiled, True, ENTRY, "-X", "importtime")["ours"] == []
    assert _probe(compiled, True, ENTRY, "-O")["ours"] == []


def test_the_importer_is_removed_after_the_fast_lane(compiled):
    code = "from recipekg.cli.importer import installed\nwith installed():\n    pass\n"
    assert _probe(compiled, True, code)["restored"]  # __import__ is Python's own again


LANE = """
import sys
from recipekg.cli import fast, importer
loaded = []
_load = importer._load
def counted(name):
    module = _load(name)
    if module is not None:
        loaded.append(name)
    return module
importer._load = counted
sys.argv = ["recipekg", *sys.argv[1:]]
try:
    fast.main()
except SystemExit as exc:
    sys.stdout.flush()
    print("LOADED", len(loaded), exc.code, file=sys.stderr)
"""


@pytest.fixture(scope="module")
def checkout(compiled, tmp_path_factory) -> Path:
    """The byte-compiled copy as a checkout: ``src/`` beside the repository's KB and queries."""
    from support import REPO

    root = tmp_path_factory.mktemp("checkout")
    shutil.copytree(compiled, root / "src")
    for data in ("ontology", "kb", "queries"):
        (root / data).symlink_to(REPO / data)
    return root


def _lane_env(root: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(root / "src"), RECIPEKG_CACHE_DIR=str(root / "cache"))


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["plan", "where", "params", "=", "7B", "and", "gpus", "=", "8", "and", "hardware", "=", "h100"],
    ["query", "-f", "queries/examples.rkg", "--format", "json"],
    ["plan", "where", "params", "=", "7X"],  # an error, on the lane too
])
def test_the_fast_lane_answers_the_same_through_the_importer(checkout, args):
    """The fast lane over the byte-compiled copy (with the checkout's KB beside it) loads its
    modules through the importer and prints what it prints without it (``-X importtime``
    turns the importer off)."""
    env = _lane_env(checkout)
    runs = [subprocess.run([sys.executable, *flags, "-c", LANE, *args], env=env, cwd=checkout, capture_output=True,
                           text=True) for flags in ([], ["-X", "importtime"], [])]
    ours, python = runs[2], runs[1]  # the first run built the snapshot
    assert ours.stdout == python.stdout and ours.returncode == python.returncode
    assert ours.stderr.splitlines()[:-1] == [line for line in python.stderr.splitlines()[:-1]
                                             if not line.startswith("import time:")]
    loaded, code = ours.stderr.splitlines()[-1].split()[1:]
    assert int(loaded) > (60 if code == "0" else 20)  # an error ends before plan's own modules
    assert python.stderr.splitlines()[-1].startswith("LOADED 0 ")


@pytest.mark.slow
def test_the_shell_at_a_terminal_imports_as_python_does(checkout):
    """At a terminal the shell's prompt (prompt_toolkit) may import from its threads: the
    importer is not installed there, only for answers and piped sessions."""
    import pexpect

    env = _lane_env(checkout) | {"TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1", "XDG_STATE_HOME": str(checkout)}
    child = pexpect.spawn(sys.executable, ["-c", LANE, "shell"], env=env, cwd=str(checkout), encoding="utf-8",
                          dimensions=(40, 160), timeout=60)
    child.send(".quit\r")
    child.expect(r"LOADED (\d+) (\S+)")
    # only the lane's table and formats, read before the shell starts; the KB's modules come after
    assert int(child.match.group(1)) <= 5 and child.match.group(2) == "0"
    child.expect(pexpect.EOF)
    piped = subprocess.run([sys.executable, "-c", LANE, "shell"], env=env, cwd=checkout, input=".quit\n",
                           capture_output=True, text=True)
    assert int(piped.stderr.split("LOADED ")[1].split()[0]) > 20  # from a pipe: through the importer
