"""`stats`, `export` and the installed wheel."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from support import REPO


def run(*args):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_stats_text_lists_sections_and_nothing_uncovered():
    code, out = run("stats")
    assert code == 0, out
    assert "sections with nothing encoded: 0" in out
    assert "  Tabular: the tree boundary" in out and "Data Scale Thresholds" in out


def test_stats_json_counts():
    code, out = run("stats", "--format", "json")
    data = json.loads(out)
    assert data["kinds"]["architecture"] >= 40
    assert data["classes"]["Optimizer"] >= 10
    assert data["uncovered_sections"] == []


@pytest.mark.parametrize("fmt,parse_as", [("turtle", "turtle"), ("ntriples", "nt"), ("jsonld", "json-ld")])
def test_export_loads_in_rdflib_and_oxigraph(tmp_path, fmt, parse_as):
    import pyoxigraph
    import rdflib

    out = tmp_path / f"kb.{fmt}"
    code, text = run("export", "--format", fmt, "-o", str(out))
    assert code == 0, text
    g = rdflib.Graph().parse(out, format=parse_as)
    assert len(g) > 2000
    closure = rdflib.URIRef("https://w3id.org/recipekg/ns#broaderTransitive")
    assert (rdflib.URIRef("https://w3id.org/recipekg/id/vit"), closure,
            rdflib.URIRef("https://w3id.org/recipekg/id/transformer")) in g
    if fmt != "jsonld":
        store = pyoxigraph.Store()
        store.load(path=str(out), format=pyoxigraph.RdfFormat.TURTLE if fmt == "turtle"
                   else pyoxigraph.RdfFormat.N_TRIPLES)
        assert len(store) == len(g)


def test_wheel_ships_the_kb_and_answers_from_any_directory(tmp_path):
    """Build the wheel, install it alone into a folder, run it from elsewhere."""
    wheel_dir = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheel_dir), str(REPO)],
                   check=True)
    wheel = next(wheel_dir.glob("recipekg-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "recipekg/data/kb/papers.ttl" in names
    assert "recipekg/data/ontology/shapes.ttl" in names
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PYTHONPATH": str(target), "RECIPEKG_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "recipekg", "stats", "--format", "json"], cwd=elsewhere,
                            env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["uncovered_sections"] == []
    check = subprocess.run([sys.executable, "-c", "import recipekg.knowledge.resources as f; print(f.data_root())"],
                           cwd=elsewhere, env=env, capture_output=True, text=True)
    assert str(target) in check.stdout
