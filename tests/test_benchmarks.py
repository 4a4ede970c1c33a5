"""The benchmark's own logic (not its timings): the report puts each figure next to its target
and says whether it is met; the web load's mix and percentiles are what benchmarks/web.py says."""

from __future__ import annotations

import doctest
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import cold  # noqa: E402
from benchmarks import report as report_module  # noqa: E402
from benchmarks import web  # noqa: E402
from benchmarks.report import report  # noqa: E402


def _size(label, native, oxigraph, rdflib, cold=None, pair=None):
    return {"label": label, "triples": 1000, "rules": 10, "shacl": True, "candidates": {"evaluated": 1, "of_kind": 2},
            "cold": cold, "pair": pair, "topic": None,
            "load": {"snapshot": 0.01, "rdflib": 1.0, "oxigraph": 0.1},
            "query": {"native": native, "oxigraph": oxigraph, "rdflib": rdflib},
            "timeout": {"oxigraph": False, "rdflib": False}, "same_answer": {"oxigraph": True, "rdflib": True},
            "memory_mb": {"native": 50, "oxigraph": 60, "rdflib": 70}}


def _result():
    commands = {name: {"command": f"recipekg {name} ...", "median": m}
                for name, m in (("query", 0.025), ("plan", 0.040), ("explain", 0.029), ("cite", 0.031),
                                ("shell", 0.100))}
    cold_1m = {"label": "1m", "runs": 5, "bundled": 0.05, "topic": 0.5, "same_query": 0.5,
               "commands": {"bundled": "recipekg query 'q' --format json", "topic": "t", "same_query": "s"}}
    mix = {"requests": 1600, "errors": 0, "rps": 700.0, "p50": 0.018, "p99": 0.064, "cpu_ms": 2.5}
    return {"cold": {"runs": 21, "pass": 0.010, "commands": commands},
            "sizes": [_size("bundled", 0.001, 0.01, 0.2),
                      _size("1m", 0.001, 0.02, 2.0, cold=cold_1m, pair={"bundled": 0.001, "this": 0.002})],
            "web": [{"server": "--server waitress", "clients": 16, "warm_errors": 0, "mix": mix,
                     "new": dict(mix, errors=2, rps=250.0), "api": dict(mix, rps=320.0, cpu_ms=None),
                     "server_peak_rss_mb": 74.0}]}


def test_every_target_is_printed_with_its_value_and_whether_it_is_met():
    text, targets = report(_result())
    met = {name: ok for name, _, ok in targets}
    assert met["cold query <= 2.5x python -c pass"] is True       # 2.5x
    assert met["cold plan <= 2.5x python -c pass"] is False       # 4x
    assert met["cold topic query at 1m <= 2x cold query at bundled"] is False  # 10x
    assert met["native >= 10x faster than pyoxigraph at 1m"] is True
    assert met["native >= 1000x faster than rdflib at 1m"] is True
    assert met["native at 1m <= 3x native at bundled"] is True
    assert met["cold shell <= 2.5x python -c pass"] is False      # 10x: the shell has the query's target
    assert met["web: every request answered (--server waitress)"] is False
    assert met["web distinct answer pages >= 300 req/s at 16 threads (--server waitress)"] is False  # 250
    lines = text.splitlines()
    assert any(line.strip().startswith("NOT MET") and "cold plan <= 2.5x" in line and "4.00x" in line for line in lines)
    assert any(line.strip().startswith("met") and "cold query <= 2.5x" in line and "2.50x" in line for line in lines)
    assert any("--server waitress" in line and "browsing mix" in line and "700" in line and "18 ms" in line
               and "2.5 ms" in line for line in lines)
    assert any("JSON API" in line and "320" in line and line.split()[-2:] == ["-", "74"] for line in lines)
    assert any(line.strip().startswith("NOT MET") and "250 req/s (0.83x the goal; p99 64 ms)" in line for line in lines)


def test_without_1m_there_is_no_size_target_and_without_web_no_web_section():
    result = _result()
    result["sizes"] = result["sizes"][:1]
    del result["web"]
    text, targets = report(result)
    assert not any("1m" in name for name, _, _ in targets) and "web," not in text


def test_the_browsing_mix_has_its_proportions_and_new_queries_never_repeat():
    plan = web.mix_plan(3, 200, ["p1", "p2"], ["e1"])
    kinds = Counter("F" if p == "/" else "L" if p == "/papers" else p[1] for p in plan)
    assert kinds == {"?": 80, "p": 60, "e": 40, "F": 10, "L": 10}
    assert len({p for p in plan if p.startswith("/?q=")}) == len(web.QUERIES)
    paths = [web.new_query_path(n) for n in range(16 * 40)]
    assert len(set(paths)) == len(paths)
    api = [web.new_api_path(n) for n in range(16 * 40, 2 * 16 * 40)]
    assert all(p.startswith("/api/query?q=") for p in api) and not {p[len("/api/query"):] for p in api} & set(paths)


def test_an_answer_is_a_page_without_an_error_or_json():
    assert web.answered("/?q=x", b"<html>...</html>") and not web.answered("/?q=x", b'<p class="error">..</html>')
    assert web.answered("/api/query?q=x", b'{"statement": "plan"}')
    assert not web.answered("/api/query?q=x", b'{"error": {"kind": "syntax"}}')
    assert not web.answered("/api/query?q=x", b"<html></html>")


@pytest.mark.parametrize("module", [report_module, web, cold])
def test_the_benchmark_modules_examples_run(module):
    assert doctest.testmod(module).failed == 0
