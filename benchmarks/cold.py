"""Whole-process timings: each command a fresh process, the compared commands interleaved,
the median of repeated runs (run by :mod:`benchmarks.run`).

- :func:`commands`: ``recipekg query`` (``--format json``), ``plan``, ``explain``, ``cite
  --query``, ``vocab``, ``query -f queries/examples.rkg`` (9 statements) and the shell's first
  answer (``recipekg shell`` with the query piped in: from the start to the answer and the exit
  at the input's end) on the bundled KB against ``python -c pass``;
- :func:`by_size`: the cold topic query on a synthetic KB (``--kb synthetic-XX.ttl``) against
  the cold query on the bundled KB, and the bundled KB's own query on the synthetic KB too;
  the plan and the broad question on the synthetic KB against each on the bundled KB.

Every command runs twice before it is timed, so that the snapshot cache, the byte code and
the OS file cache are warm: what is measured is a user's second and later calls.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERY = "recommend architecture where data = tabular and rows = 30k"
#: Engages the rules of one group of 8 synthetic topics, whatever the size (native only).
TOPIC_QUERY = "recommend architecture where data = syn-data-g0 and rows = 30k"
PLAN = "where params = 7B and gpus = 8 and hardware = h100"
EXPLAIN = "lightgbm where data = tabular and rows = 30k"
#: A broad question: thousands of results on a large KB (issue 27; the answer shows 50).
BROAD = "recommend approach where gpus = 64 and time < 100 hours"
#: The 9-statement file of the query-language contract's examples.
FILE = str(Path(__file__).resolve().parent.parent / "queries" / "examples.rkg")


def executable() -> list[str]:
    """The installed ``recipekg`` next to this Python, else ``python -m recipekg``."""
    exe = Path(sys.executable).parent / "recipekg"
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "recipekg"]


def interleaved(cmds: dict[str, list[str] | tuple[list[str], str]], runs: int, env: dict) -> dict[str, float]:
    """The median wall time of each command, run ``runs`` times in turn (after two warm-up runs
    each); a command given as ``(command, text)`` reads ``text`` on its input. A command that
    fails stops the benchmark."""
    for name, cmd in cmds.items():
        for _ in range(2):
            _run(name, cmd, env)
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            t = time.perf_counter()
            _run(name, cmd, env)
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _run(name: str, cmd, env: dict) -> None:
    cmd, text = cmd if isinstance(cmd, tuple) else (cmd, None)
    proc = subprocess.run(cmd, env=env, input=text,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"cold command {name} failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")


def commands(runs: int, env: dict, query: str = QUERY) -> dict:
    """``query``, ``plan``, ``explain``, ``cite``, ``vocab`` and ``query -f queries/examples.rkg``
    against ``python -c pass``, interleaved."""
    exe = executable()
    cmds = {
        "pass": [sys.executable, "-c", "pass"],
        "query": exe + ["query", query, "--format", "json"],
        "plan": exe + ["plan", *PLAN.split()],
        "explain": exe + ["explain", *EXPLAIN.split()],
        "cite": exe + ["cite", "--query", query],
        "vocab": exe + ["vocab"],
        "file": exe + ["query", "-f", FILE],
        "shell": (exe + ["shell"], query + "\n"),
    }
    medians = interleaved(cmds, runs, env)
    return {"runs": runs, "pass": medians["pass"],
            "commands": {k: {"command": shown(c), "median": medians[k]} for k, c in cmds.items() if k != "pass"}}


def shown(cmd) -> str:
    """A command as a user would type it (the executable's name, arguments quoted; the text
    piped in first).

    >>> shown((["/venv/bin/recipekg", "shell"], "plan where params = 7B\\n"))
    'echo "plan where params = 7B" | recipekg shell'
    """
    if isinstance(cmd, tuple):
        return f'echo "{cmd[1].strip()}" | {shown(cmd[0])}'
    words = ["recipekg" if i == 0 and w.endswith("recipekg") else w for i, w in enumerate(cmd)]
    return " ".join(f'"{w}"' if " " in w else w for w in words)


def by_size(label: str, extension: str, runs: int, env: dict, query: str = QUERY) -> dict:
    """The cold topic query with ``--kb extension`` against the cold query on the bundled KB
    (interleaved), and the bundled KB's query with ``--kb extension`` (the same text on both);
    the plan and the broad question (:data:`BROAD`) with ``--kb extension`` against each on the
    bundled KB."""
    exe = executable()
    cmds = {
        "bundled": exe + ["query", query, "--format", "json"],
        "topic": exe + ["query", TOPIC_QUERY, "--format", "json", "--kb", extension],
        "same_query": exe + ["query", query, "--format", "json", "--kb", extension],
        "plan_bundled": exe + ["plan", *PLAN.split()],
        "plan": exe + ["plan", *PLAN.split(), "--kb", extension],
        "broad_bundled": exe + ["query", BROAD],
        "broad": exe + ["query", BROAD, "--kb", extension],
    }
    medians = interleaved(cmds, runs, env)
    return {"label": label, "runs": runs, **medians,
            "commands": {k: shown(c).replace(extension, f"synthetic-{label}.ttl") for k, c in cmds.items()}}
