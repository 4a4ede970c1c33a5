"""``python -m benchmarks``: every figure of issues 7 and 16, measured in one run, each next
to its target and whether it is met.

    python -m benchmarks                      # bundled KB, 10K, 100K and 1M triples
    python -m benchmarks --sizes 10k          # a quick run (the bundled KB is always measured)
    python -m benchmarks --sizes 1m,3m --markdown   # the 3M size (opt-in), and the README's table

Run it from the repository root with recipekg installed (``pip install .``: the installed
copy is byte-compiled, as a user's is). Synthetic KBs and their snapshots and SPARQL exports
are cached under ``benchmarks/.data/`` (git-ignored), so only the first run pays for
generating them (about 2 minutes for 1M triples on 2 cores). Every figure is the median of
repeated runs; slow ones are repeated fewer times within a time budget, and a SPARQL query
that outlasts ``--timeout`` is reported as a lower bound (``>30s``), which is what it is.

Measured:

- cold (:mod:`benchmarks.cold`): ``recipekg query "..." --format json``, ``recipekg plan where
  ...``, ``recipekg explain ... where ...`` and ``recipekg cite --query "..."`` on the bundled
  KB against ``python -c pass``, each a fresh process, interleaved, warm snapshot cache;
- cold by KB size: the topic query with ``--kb synthetic-XX.ttl`` against the query on the
  bundled KB (whose values the topic query's don't exist in), interleaved;
- KB load: the snapshot (``recipekg.load``) against parsing the Turtle files with rdflib and
  with pyoxigraph, at each size;
- warm query, text in and answer out: native (``kb.query(text)``) against the exported SPARQL
  (``recipekg.sparql.generate`` run by ``recipekg.sparql.backend``) on rdflib and on pyoxigraph;
  the engines' answers are checked equal to the native one;
- peak memory (resident set) of the process doing each of those, at each size;
- web (:mod:`benchmarks.web`): requests/s and p50/p99 latency of ``recipekg serve --server
  waitress`` (and, for comparison, werkzeug) on the bundled KB, 16 client threads.

Above 100K triples the synthetic extension is validated without the SHACL shapes
(``RECIPEKG_SHACL=0``, documented in the README): pyshacl needs about 20 s per 100K triples.
The structural checks (sources, labels, blank nodes, conditions, literals) still run. The
1M-triple extension is larger than the 32 MiB cap on an extension, so the benchmark raises it
(``RECIPEKG_MAX_EXTENSION_MB``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import cold as coldrun
from benchmarks.cold import QUERY, TOPIC_QUERY
from benchmarks.report import report

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000, "3m": 3_000_000}
SHACL_UP_TO = 100_000
#: Web load: client threads, requests per client in the browsing mix and in new queries.
CLIENTS, MIX_REQUESTS, NEW_REQUESTS = 16, 100, 40


def _env(shacl: bool = True) -> dict:
    env = dict(os.environ, RECIPEKG_CACHE_DIR=str(DATA / "cache"), RECIPEKG_MAX_EXTENSION_MB="256")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure byte-compiled code, as users run it
    if not shacl:
        env["RECIPEKG_SHACL"] = "0"  # the snapshot `prepare` cached for this size
    return env


def _worker(task: str, args: dict) -> dict:
    proc = subprocess.run([sys.executable, "-m", "benchmarks.worker", task, json.dumps(args)],
                          cwd=HERE.parent, env=_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark worker {task} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def synthetic(label: str) -> tuple[str, bool]:
    """The cached synthetic extension for a size label, and whether SHACL validates it."""
    from benchmarks.synthetic import generate

    path = DATA / f"synthetic-{label}.ttl"
    if not path.is_file():
        DATA.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        n = generate(str(path), SIZES[label])
        print(f"  generated {path.relative_to(HERE.parent)}: {n} triples in {time.perf_counter() - t:.1f}s",
              flush=True)
    return str(path), SIZES[label] <= SHACL_UP_TO


def measure(label: str, args: argparse.Namespace) -> dict:
    extension, shacl = (None, True) if label == "bundled" else synthetic(label)
    big = label in ("1m", "3m")
    common = {"extension": extension, "shacl": shacl, "query": args.query}
    t = time.perf_counter()
    prepared = _worker("prepare", common)
    print(f"  {label}: {prepared['triples']} triples, {prepared['rules']} rules "
          f"(snapshot and export ready in {time.perf_counter() - t:.1f}s)", flush=True)
    native = _worker("native", dict(common, repeat=5 if big else 20, query_repeat=300, budget=10.0,
                                    topic_query=TOPIC_QUERY if extension else None,
                                    pair_bundled=bool(extension)))
    ox = _worker("oxigraph", dict(common, repeat=3 if big else 5, query_repeat=3 if big else 15,
                                  budget=20.0, timeout=args.timeout))
    rd = _worker("rdflib", dict(common, repeat=1 if big else 3, query_repeat=1 if big else 5,
                                budget=20.0, timeout=args.timeout))
    for name, r in (("oxigraph", ox), ("rdflib", rd)):
        if r["answer"] is not None and r["answer"] != native["answer"]:
            print(f"  WARNING: {name} answered differently from the native reasoner at {label}")
    cold = None
    if extension:  # whole processes: the topic query on this KB against the query on the bundled KB
        cold = coldrun.by_size(label, extension, max(5, args.cold_runs // 2) if big else args.cold_runs,
                               _env(shacl), args.query)
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    return {
        "label": label, "triples": prepared["triples"], "rules": prepared["rules"], "shacl": shacl,
        "candidates": native["candidates"], "cold": cold,
        "pair": ({"bundled": statistics.median(native["pair"]["bundled"]),
                  "this": statistics.median(native["pair"]["this"])} if "pair" in native else None),
        "topic": ({"query": statistics.median(native["topic"]["query"]),
                   "evaluated": native["topic"]["candidates"]["evaluated"],
                   "results": native["topic"]["results"]} if "topic" in native else None),
        "load": {"snapshot": med(native["load"]), "rdflib": med(rd["load"]), "oxigraph": med(ox["load"])},
        "load_runs": {"snapshot": len(native["load"]), "rdflib": len(rd["load"]), "oxigraph": len(ox["load"])},
        "query": {"native": med(native["query"]), "oxigraph": med(ox["query"]) or ox.get("timeout"),
                  "rdflib": med(rd["query"]) or rd.get("timeout")},
        "query_runs": {"native": len(native["query"]), "oxigraph": len(ox["query"]), "rdflib": len(rd["query"])},
        "timeout": {"oxigraph": bool(ox.get("timeout")), "rdflib": bool(rd.get("timeout"))},
        "same_answer": {"oxigraph": ox["answer"] == native["answer"] if ox["answer"] is not None else None,
                        "rdflib": rd["answer"] == native["answer"] if rd["answer"] is not None else None},
        "memory_mb": {"native": native["peak_rss_mb"], "oxigraph": ox["peak_rss_mb"], "rdflib": rd["peak_rss_mb"]},
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10k,100k,1m",
                    help="comma-separated synthetic sizes among 10k, 100k, 1m, 3m (the bundled KB always runs; "
                         "3m is opt-in: about 2 minutes and 4 GB to generate and compile once)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds a SPARQL engine may take for one query before it counts as a lower bound")
    ap.add_argument("--cold-runs", type=int, default=21, help="runs of each cold command")
    ap.add_argument("--query", default=QUERY, help="the recommend statement measured")
    ap.add_argument("--no-web", action="store_true", help="skip the web server's load test")
    ap.add_argument("--markdown", action="store_true", help="also print the targets as the README's Markdown table")
    args = ap.parse_args(argv)
    sizes = [s.strip().lower() for s in args.sizes.split(",") if s.strip()]
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        ap.error(f"unknown size {unknown[0]!r}: choose among {', '.join(SIZES)}")
    import recipekg

    where = Path(recipekg.__file__).resolve().parent
    print(f"recipekg {recipekg.__version__} from {where}; python {sys.version.split()[0]}; "
          f"{os.cpu_count()} CPUs", flush=True)
    if "site-packages" not in str(where):
        print("  note: recipekg is not installed; `pip install .` measures the byte-compiled copy users run")
    started = time.perf_counter()
    print("cold runs ...", flush=True)
    result = {"cold": coldrun.commands(args.cold_runs, _env(), args.query), "sizes": []}
    for label in ["bundled", *sizes]:
        print(f"{label} ...", flush=True)
        result["sizes"].append(measure(label, args))
    if not args.no_web:
        print("web ...", flush=True)
        servers = [["--server", "waitress"], ["--server", "werkzeug"]]
        result["web"] = _worker("web", {"servers": servers, "clients": CLIENTS, "mix_requests": MIX_REQUESTS,
                                        "new_requests": NEW_REQUESTS})["web"]
    text, targets = report(result)
    result["targets"] = [{"target": n, "value": v, "pass": ok} for n, v, ok in targets]
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / "results.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    print()
    print(text)
    if args.markdown:
        from benchmarks.report import markdown

        print("\n" + markdown(targets))
    print(f"\n(total {time.perf_counter() - started:.0f}s; figures also in {(DATA / 'results.json').relative_to(HERE.parent)})")


if __name__ == "__main__":
    main()
