"""The web page under a team's load: ``recipekg serve`` started as a subprocess (the bundled
KB, its answer workers started as the server starts them), 16 client threads each keeping one
HTTP/1.1 connection, requests/s and latency.

Run by :mod:`benchmarks.worker` (task ``web``), so the clients run in a process of their own,
apart from the server's. Three workloads:

- ``mix`` (repeated pages): what people browsing do — the front page, the list of papers,
  answers to the query box (a pool of 16 questions, so most were asked before: the page cache
  answers them), paper pages and entity pages, in the proportions 1 : 1 : 8 : 6 : 4;
- ``new`` (distinct answer pages): every request a query text never asked before (numbers
  varied), so every one is parsed, answered and rendered: the page cache's worst case, and
  issue 27's goal (:data:`GOAL_RPS` requests/s at 16 threads);
- ``api`` (the JSON API): ``/api/query`` with query texts never asked before (the API keeps no
  cache), each answer checked to be JSON.

Latency is measured by the client, from sending the request to the last byte of the page;
requests/s is the number of requests over the wall time from the first to the last. The CPU
time the server's processes (the server and its answer workers) spent per request is printed
too: on a machine shared with other work it says what the server needs where requests/s says
what it got.
"""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import quote

from recipekg.web.views import EXAMPLES

QUERIES = [
    *EXAMPLES,  # the front page's examples, then more that people ask
    "explain lightgbm where data = tabular",
    "plan where params = 7B and gpus = 8 and hardware = h100",
    "plan where params = 1B and gpus = 1 and hardware = a100",
    "recommend architecture where data = text and samples = 1M",
    "recommend fix where symptom = divergence",
    "recommend optimizer where params = 70B",
    "recommend approach where gpus = 8 and time < 1 week",
    "recommend technique where params = 7B and gpus = 1",
    "recommend architecture where data = tabular and rows = 5k",
]
NEW_QUERIES = [
    "recommend architecture where data = tabular and rows = {n}",
    "plan where params = {n}M and gpus = 8 and hardware = h100",
    "recommend approach where gpus = {g} and time < {n} hours",
    "explain lightgbm where data = tabular and rows = {n}",
]


#: Issue 27's goal: distinct answer pages per second at 16 client threads.
GOAL_RPS = 300

#: One round of the browsing mix, 20 requests: Front page, List of papers, Query, Paper, Entity.
PATTERN = "FQPQPEQPQELQPQPEQPQE"


def mix_plan(thread: int, count: int, papers: list[str], entities: list[str]) -> list[str]:
    """The ``count`` paths client ``thread`` asks for in the browsing mix (1 : 1 : 8 : 6 : 4)."""
    out = []
    for j in range(count):
        kind = PATTERN[(thread + j) % len(PATTERN)]
        out.append("/" if kind == "F" else "/papers" if kind == "L"
                   else "/?q=" + quote(QUERIES[(thread * 5 + j) % len(QUERIES)]) if kind == "Q"
                   else f"/paper/{papers[(thread * 7 + j) % len(papers)]}" if kind == "P"
                   else f"/entity/{entities[(thread * 3 + j) % len(entities)]}")
    return out


def new_query_path(n: int) -> str:
    """A query text no other request of the run asks (``n`` distinct per request)."""
    text = NEW_QUERIES[n % len(NEW_QUERIES)].format(n=1000 + n, g=1 + n % 512)
    return "/?q=" + quote(text)


def new_api_path(n: int) -> str:
    """A ``/api/query`` request whose text no other request of the run asks."""
    return "/api/query" + new_query_path(n)[1:]


def start_server(args: list[str], env: dict) -> tuple[subprocess.Popen, str, int, object]:
    """``recipekg serve --port 0 ARGS``; waits for the URL it prints (60 s at most)."""
    log = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a server that logs never blocks
    exe = os.path.join(os.path.dirname(sys.executable), "recipekg")
    cmd = [exe] if os.path.isfile(exe) else [sys.executable, "-m", "recipekg"]
    proc = subprocess.Popen(cmd + ["serve", "--port", "0", *args], env=env, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        log.seek(0)
        match = re.search(r"http://([^/\s]+):(\d+)/", log.read())
        if match:
            return proc, match.group(1).strip("[]"), int(match.group(2)), log
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    log.seek(0)
    raise SystemExit(f"recipekg serve {' '.join(args)} did not start:\n{log.read()[-2000:]}")


def answered(path: str, body: bytes) -> bool:
    """Whether ``body`` is an answer to ``path``: a JSON document for ``/api/``, else a whole
    page that shows no error."""
    if path.startswith("/api/"):
        return body[:1] in (b"{", b"[") and b'"error"' not in body[:40]
    return b"</html>" in body and b'class="error' not in body


def _client(host: str, port: int, paths: list[str], latencies: list[float], errors: list[str]) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=120)
    for path in paths:
        t = time.perf_counter()
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            ok = response.status == 200 and answered(path, body)
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            errors.append(f"{path}: {exc}")
            continue
        latencies.append(time.perf_counter() - t)
        if not ok:
            errors.append(f"{path}: status {response.status}")
    conn.close()


def load(host: str, port: int, plans: list[list[str]]) -> dict:
    """Each list of paths in ``plans`` asked in order by its own thread, all at once."""
    latencies: list[float] = []
    errors: list[str] = []
    threads = [threading.Thread(target=_client, args=(host, port, p, latencies, errors)) for p in plans]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t
    lat = sorted(latencies)
    return {"requests": len(lat), "errors": len(errors), "first_errors": errors[:3], "seconds": wall,
            "rps": len(lat) / wall if wall else 0.0, "p50": percentile(lat, 50), "p99": percentile(lat, 99)}


def percentile(sorted_values: list[float], p: float) -> float | None:
    """The nearest-rank ``p``-th percentile of ascending values.

    >>> percentile([1, 2, 3, 4], 50), percentile(list(range(1, 101)), 99), percentile([], 50)
    (2, 99, None)
    """
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def server_cpu(pid: int) -> float | None:
    """Seconds of CPU (user and system) used so far by process ``pid`` and its children that
    still run (Linux: the server and its answer workers), None where /proc is not."""
    stat = _stat(pid)
    if stat is None:
        return None
    total = int(stat[11]) + int(stat[12])
    for entry in os.listdir("/proc"):
        child = _stat(int(entry)) if entry.isdigit() else None
        if child is not None and int(child[1]) == pid:
            total += int(child[11]) + int(child[12])
    return total / os.sysconf("SC_CLK_TCK")


def load_measured(pid: int, host: str, port: int, plans: list[list[str]]) -> dict:
    """:func:`load`, with the server's CPU milliseconds per request (``cpu_ms``)."""
    before = server_cpu(pid)
    out = load(host, port, plans)
    after = server_cpu(pid)
    out["cpu_ms"] = (after - before) * 1000 / out["requests"] if before is not None and out["requests"] else None
    return out


def peak_rss_mb(pid: int) -> float | None:
    """The peak resident memory of a running process (Linux), in MB."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def measure(server: list[str], clients: int, mix_requests: int, new_requests: int, env: dict) -> dict:
    """Both workloads against ``recipekg serve SERVER-ARGS``, ``clients`` threads at once."""
    import recipekg
    from recipekg.cite.graph import CiteGraph

    snap = recipekg.load().snap
    papers, entities = sorted(snap["papers"]), sorted(CiteGraph(snap).ids("choice"))
    proc, host, port, log = start_server(server, env)
    try:
        warm = load(host, port, [["/", "/papers"] + ["/?q=" + quote(q) for q in QUERIES]])  # a server in use
        mix = load_measured(proc.pid, host, port, [mix_plan(t, mix_requests, papers, entities) for t in range(clients)])
        new = load_measured(proc.pid, host, port, [[new_query_path(t * new_requests + j) for j in range(new_requests)]
                                                   for t in range(clients)])
        offset = clients * new_requests  # texts the pages did not ask
        api = load_measured(proc.pid, host, port, [[new_api_path(offset + t * new_requests + j)
                                                    for j in range(new_requests)] for t in range(clients)])
        rss = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
    return {"server": " ".join(server), "clients": clients, "warm_errors": warm["errors"], "mix": mix, "new": new,
            "api": api, "server_peak_rss_mb": rss}
