"""``python -m benchmarks``: every figure of issue 7, measured in one run, with its target.

    python -m benchmarks                      # bundled KB, 10K, 100K and 1M triples
    python -m benchmarks --sizes 10k,100k     # a subset (the bundled KB is always measured)

Run it from the repository root with recipekg installed (``pip install .``: the installed
copy is byte-compiled, as a user's is). Synthetic KBs and their snapshots and SPARQL exports
are cached under ``benchmarks/.data/`` (git-ignored), so only the first run pays for
generating them (about 2 minutes for 1M triples on 2 cores). Every figure is the median of
repeated runs; slow ones are repeated fewer times within a time budget, and a SPARQL query
that outlasts ``--timeout`` is reported as a lower bound (``>30s``), which is what it is.

Measured:

- cold: ``recipekg query "..." --format json`` on the bundled KB (warm snapshot cache) and
  ``python -c pass``, each a fresh process, interleaved;
- KB load: the snapshot (``recipekg.load``) against parsing the Turtle files with rdflib and
  with pyoxigraph, at each size;
- warm query, text in and answer out: native (``kb.query(text)``) against the exported SPARQL
  (``recipekg.sparql.generate`` run by ``recipekg.sparql.backend``) on rdflib and on pyoxigraph;
  the engines' answers are checked equal to the native one;
- peak memory (resident set) of the process doing each of those, at each size.

Above 100K triples the synthetic extension is validated without the SHACL shapes
(``RECIPEKG_SHACL=0``, documented in the README): pyshacl needs about 20 s per 100K triples.
The structural checks (sources, labels, blank nodes, conditions, literals) still run.
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

HERE = Path(__file__).resolve().parent
DATA = HERE / ".data"
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
SHACL_UP_TO = 100_000
QUERY = "recommend architecture where data = tabular and rows = 30k"
#: Engages the rules of one group of 8 synthetic topics, whatever the size (native only).
TOPIC_QUERY = "recommend architecture where data = syn-data-g0 and rows = 30k"


def _env() -> dict:
    env = dict(os.environ, RECIPEKG_CACHE_DIR=str(DATA / "cache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure byte-compiled code, as users run it
    return env


def _worker(task: str, args: dict) -> dict:
    proc = subprocess.run([sys.executable, "-m", "benchmarks.worker", task, json.dumps(args)],
                          cwd=HERE.parent, env=_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark worker {task} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _executable() -> list[str]:
    exe = Path(sys.executable).parent / "recipekg"
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "recipekg"]


def cold(runs: int, query: str) -> dict:
    """Median wall time of ``recipekg query ... --format json`` and of ``python -c pass``."""
    env = _env()
    cmds = {"query": _executable() + ["query", query, "--format", "json"],
            "pass": [sys.executable, "-c", "pass"]}
    for cmd in cmds.values():  # warm the snapshot cache, the byte code and the OS file cache
        for _ in range(2):
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            t = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - t)
    return {"command": " ".join(cmds["query"][:-4]) + f" query {query!r} --format json",
            "query": statistics.median(times["query"]), "pass": statistics.median(times["pass"]),
            "runs": runs}


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
    big = label == "1m"
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
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    return {
        "label": label, "triples": prepared["triples"], "rules": prepared["rules"], "shacl": shacl,
        "candidates": native["candidates"],
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


# ----------------------------------------------------------------------------- report

def _ms(seconds: float | None, lower: bool = False) -> str:
    if seconds is None:
        return "-"
    text = f"{seconds * 1000:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"
    return (">" + text) if lower else text


def _ratio(x: float, lower: bool = False) -> str:
    return (">" if lower else "") + (f"{x:,.0f}x" if x >= 10 else f"{x:.2g}x")


def report(result: dict) -> tuple[str, list[tuple[str, str, bool]]]:
    rows = result["sizes"]
    c = result["cold"]
    out = [f"cold: {c['command']}: {_ms(c['query'])}; python -c pass: {_ms(c['pass'])}; "
           f"ratio {c['query'] / c['pass']:.2f}x (median of {c['runs']} runs each)", ""]
    head = ["KB", "triples", "rules evaluated", "load snapshot", "load rdflib", "load pyoxigraph",
            "query native", "query pyoxigraph", "query rdflib", "pyoxigraph/native", "rdflib/native",
            "peak MB native/pyox/rdflib", "topic query native"]
    table = [head]
    for r in rows:
        q, t = r["query"], r["timeout"]
        cand = r["candidates"]
        table.append([
            r["label"] + ("" if r["shacl"] else " (no SHACL)"), f"{r['triples']:,}",
            f"{cand.get('evaluated', '-')} of {cand.get('of_kind', '-')}",
            _ms(r["load"]["snapshot"]), _ms(r["load"]["rdflib"]), _ms(r["load"]["oxigraph"]),
            _ms(q["native"]), _ms(q["oxigraph"], t["oxigraph"]), _ms(q["rdflib"], t["rdflib"]),
            _ratio(q["oxigraph"] / q["native"], t["oxigraph"]), _ratio(q["rdflib"] / q["native"], t["rdflib"]),
            f"{r['memory_mb']['native']:.0f} / {r['memory_mb']['oxigraph']:.0f} / {r['memory_mb']['rdflib']:.0f}",
            (f"{_ms(r['topic']['query'])} ({r['topic']['evaluated']} rules)" if r["topic"] else "-"),
        ])
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for i, row in enumerate(table):
        out.append("  ".join(cell.rjust(w) if j else cell.ljust(w) for j, (cell, w) in enumerate(zip(row, widths))))
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    out.append("")
    out.append("load: median seconds to get a queryable KB in a running process (snapshot: recipekg.load "
               "from the warm cache; rdflib/pyoxigraph: parse the Turtle files); query: median of "
               "text in, answer out, warm; '>' = the query outlasted --timeout (a lower bound); "
               f"rules evaluated: by the native reasoner, of the rules of that kind; topic query: "
               f"{TOPIC_QUERY!r}, which the rules of 8 synthetic topics answer at every size.")
    by = {r["label"]: r for r in rows}
    targets = [("cold query <= 6x python -c pass", f"{c['query'] / c['pass']:.2f}x", c["query"] / c["pass"] <= 6)]
    for r in rows:
        q = r["query"]
        targets.append((f"native faster than pyoxigraph at {r['label']}", _ratio(q["oxigraph"] / q["native"],
                        r["timeout"]["oxigraph"]), q["oxigraph"] > q["native"]))
    if "bundled" in by:
        q = by["bundled"]["query"]
        targets.append(("native >= 100x faster than rdflib at bundled",
                        _ratio(q["rdflib"] / q["native"], by["bundled"]["timeout"]["rdflib"]),
                        q["rdflib"] / q["native"] >= 100))
    if "1m" in by:
        q, t = by["1m"]["query"], by["1m"]["timeout"]
        targets.append(("native >= 10x faster than pyoxigraph at 1m", _ratio(q["oxigraph"] / q["native"], t["oxigraph"]),
                        q["oxigraph"] / q["native"] >= 10))
        targets.append(("native >= 1000x faster than rdflib at 1m", _ratio(q["rdflib"] / q["native"], t["rdflib"]),
                        q["rdflib"] / q["native"] >= 1000))
        pair = by["1m"]["pair"]  # measured interleaved in one process
        ratio = pair["this"] / pair["bundled"]
        targets.append(("native at 1m <= 3x native at bundled", f"{ratio:.2f}x "
                        f"({_ms(pair['this'])} vs {_ms(pair['bundled'])}, interleaved)", ratio <= 3))
    for r in rows:
        for name, same in r["same_answer"].items():
            if same is False:
                targets.append((f"{name} answer equals native at {r['label']}", "differs", False))
    out.append("")
    width = max(len(t[0]) for t in targets)
    for name, value, ok in targets:
        out.append(f"{'PASS' if ok else 'FAIL'}  {name.ljust(width)}  {value}")
    return "\n".join(out), targets


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10k,100k,1m",
                    help="comma-separated synthetic sizes among 10k, 100k, 1m (the bundled KB always runs)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds a SPARQL engine may take for one query before it counts as a lower bound")
    ap.add_argument("--cold-runs", type=int, default=21, help="runs of each cold command")
    ap.add_argument("--query", default=QUERY, help="the recommend statement measured")
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
    result = {"cold": cold(args.cold_runs, args.query), "sizes": []}
    for label in ["bundled", *sizes]:
        print(f"{label} ...", flush=True)
        result["sizes"].append(measure(label, args))
    text, targets = report(result)
    result["targets"] = [{"target": n, "value": v, "pass": ok} for n, v, ok in targets]
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / "results.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    print()
    print(text)
    print(f"\n(total {time.perf_counter() - started:.0f}s; figures also in {(DATA / 'results.json').relative_to(HERE.parent)})")


if __name__ == "__main__":
    main()
