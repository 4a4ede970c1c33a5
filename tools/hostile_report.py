"""Run a folder of hostile extension files and count what each does: the measure of
docs/security.md ("What an extension may do"), for the project's corpus or anyone else's.

    python tools/hostile_report.py tests/data/hostile          # the project's corpus
    python tools/hostile_report.py ~/held-out --queries q.rkg  # a corpus nobody here has seen

Each ``*.ttl`` file is one of:

- ``refused``: ``recipekg validate`` exits 2 and names the file (so does loading it);
- ``harmless``: accepted, and every answer of the battery is what the bundled KB answers;
- ``marked``: accepted, some answers change, and every changed answer names the file
  (``"origin": {"file", "line"}`` in its JSON);
- ``changed``: accepted, and some answer changes without naming the file, or the bundled part
  of the merged snapshot differs from the bundled KB (a hijack);
- ``crash``: exit status 1, a traceback, an exception that is not the project's, or more than
  ``--timeout`` seconds.

The battery is the file's own ``# query:`` lines, else ``--queries`` (one statement per line),
else :data:`BATTERY`. Exit status 1 when any file is ``changed`` or ``crash``.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

BATTERY = (
    "recommend architecture where data = tabular and rows = 30k",
    "recommend architecture where data = images and images between 10k and 50k",
    "recommend architecture where data = time-series and samples = 5k",
    "recommend optimizer where prefer = low-memory",
    "recommend technique where hardware = dgx-spark",
    "recommend fix where symptom = loss-spike",
    "recommend approach where gpus = 1 and time < 1 day",
    "explain gradient-boosted-trees where data = tabular and rows = 30k",
    "explain vit where data = images and samples = 3000",
    "plan where params = 7B and hardware = h100 and gpus = 8",
    "plan where params = 1B and tokens = 100B and unique-tokens = 10B",
    "plan where flops = 1e21 and hardware = a100 and gpus = 64",
)


class Hang(Exception):
    pass


def _alarm(seconds: int):
    def ring(*_):
        raise Hang()
    signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)


def queries_of(path: Path, fallback) -> list[str]:
    lines = path.read_bytes().decode("utf-8", "replace").lstrip("\ufeff").splitlines()
    own = [line.split(":", 1)[1].strip() for line in lines if line.startswith("# query:")]
    return own or list(fallback)


def answers(kb, queries) -> dict[str, str]:
    from recipekg.errors import RecipeKGError
    from recipekg.render.answers import render_answers

    out = {}
    for q in queries:
        try:
            out[q] = render_answers(kb.query(q), "json")
        except RecipeKGError as exc:
            out[q] = json.dumps({"error": exc.to_dict()}, sort_keys=True)
    return out


def verdict(path: Path, bundled: dict, queries, timeout: int) -> tuple[str, str]:
    """``(verdict, detail)`` of one file."""
    from click.testing import CliRunner

    from recipekg.api import KnowledgeBase
    from recipekg.cli.main import main
    from recipekg.errors import RecipeKGError

    try:
        _alarm(timeout)
        result = CliRunner().invoke(main, ["validate", str(path)])
        if result.exit_code not in (0, 2) or "Traceback" in result.output or "internal error" in result.output:
            return "crash", f"validate exit {result.exit_code}: {result.output.strip()[-200:]}"
        if result.exit_code == 2:
            if str(path) not in result.output:
                return "crash", f"refused without naming the file: {result.output.strip()[:200]}"
            return "refused", result.output.strip().splitlines()[0][len(str(path)):][:160]
        try:
            kb = KnowledgeBase.load([path], use_cache=False)
        except RecipeKGError as exc:
            return "crash", f"validate accepts it, loading refuses it: {exc.message[:160]}"
        hijack = _hijack(path)
        if hijack:
            return "changed", hijack
        theirs = answers(kb, queries)
        unmarked = [q for q in queries if theirs[q] != bundled[q] and str(path) not in _origins(theirs[q])]
        if unmarked:
            return "changed", f"unmarked change: {unmarked[0]}"
        changed = [q for q in queries if theirs[q] != bundled[q]]
        return ("marked", f"{len(changed)} answers changed, each naming the file") if changed else ("harmless", "")
    except Hang:
        return "crash", f"no verdict within {timeout} s"
    except Exception as exc:  # noqa: BLE001 — counting crashes is the point
        return "crash", f"{type(exc).__name__}: {exc}"[:200]
    finally:
        signal.alarm(0)


def _origins(document: str) -> set[str]:
    found = set()

    def walk(x):
        if isinstance(x, dict):
            if isinstance(x.get("origin"), dict) and "file" in x["origin"]:
                found.add(x["origin"]["file"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(json.loads(document))
    return found


def _hijack(path: Path) -> str:
    """The first difference of the merged snapshot's bundled part from the bundled KB."""
    try:
        from recipekg.knowledge.isolation import differences
    except ImportError:  # a version without the guarantee: answers are the only measure
        return ""
    from recipekg.knowledge.compiler import compile_read
    from recipekg.knowledge.origin import owned_origins
    from recipekg.knowledge.rdfio import read_turtle
    from recipekg.knowledge.resources import bundled_files
    import os

    inside = [(p, read_turtle(p)) for p in bundled_files()]
    per_file = inside + [(path, read_turtle(path))]
    owned = set(owned_origins(per_file, {os.path.abspath(p) for p in bundled_files()}))
    first = next(iter(differences(compile_read(inside), compile_read(per_file), owned)), None)
    return first.message if first else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--queries", type=Path, help="a file of statements, one per line")
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per file")
    args = parser.parse_args(argv)
    import recipekg

    fallback = BATTERY
    if args.queries:
        fallback = [q.strip() for q in args.queries.read_text(encoding="utf-8").splitlines() if q.strip()]
    kb = recipekg.load()
    files = sorted(args.folder.glob("*.ttl"))
    counts: dict[str, int] = {}
    cache: dict = {}
    for path in files:
        queries = queries_of(path, fallback)
        missing = [q for q in queries if q not in cache]
        cache.update(answers(kb, missing))
        result, detail = verdict(path, cache, queries, args.timeout)
        counts[result] = counts.get(result, 0) + 1
        if args.verbose or result in ("changed", "crash"):
            print(f"{result:9} {path.name}: {detail}")
    order = ("refused", "harmless", "marked", "changed", "crash")
    print(f"{len(files)} files: " + ", ".join(f"{counts.get(k, 0)} {k}" for k in order))
    return 1 if counts.get("changed") or counts.get("crash") else 0


if __name__ == "__main__":
    sys.exit(main())
