"""The /sparql endpoint's worker pool on its own: a query that outlasts the timeout is
stopped and its worker replaced, a pool with every worker busy says so, a worker that died
while idle is replaced."""

from __future__ import annotations

import json
import time

import pytest

from recipekg.sparql.worker import Timeout, WorkerPool

ENDLESS = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.fixture
def pool(kb):
    pool = WorkerPool(kb.files, size=1, timeout=2, max_results=5)
    yield pool
    pool.close()


def count(pool) -> int:
    header, body = pool.run(COUNT, "")
    assert header["status"] == 200
    return int(json.loads(body)["results"]["bindings"][0]["n"]["value"])


def test_an_endless_query_is_stopped_and_the_next_one_gets_a_fresh_worker(pool):
    triples = count(pool)
    first = pool.idle[0].proc
    started = time.monotonic()
    with pytest.raises(Timeout) as caught:
        pool.run(ENDLESS, "")
    assert not caught.value.busy and 2 <= time.monotonic() - started < 20
    assert first.poll() is not None  # killed, not left running
    assert count(pool) == triples and pool.idle[0].proc is not first


def test_a_busy_pool_says_so_after_its_timeout(pool):
    count(pool)
    pool.slots.acquire()  # the one worker is taken, as by a long query in another thread
    started = time.monotonic()
    with pytest.raises(Timeout) as caught:
        pool.run(COUNT, "")
    assert caught.value.busy and time.monotonic() - started >= 2
    pool.slots.release()
    assert count(pool) > 5


def test_the_cap_and_a_dead_idle_worker(pool):
    header, body = pool.run("SELECT * WHERE { ?s ?p ?o }", "text/csv")
    assert header["truncated"] and len(body.decode().splitlines()) == 1 + 5
    pool.idle[0].proc.kill()
    pool.idle[0].proc.wait()
    assert count(pool) > 5


def test_a_worker_that_does_not_start_in_time_leaves_no_process(kb, monkeypatch):
    """A worker past its start-up time raises Timeout and is stopped: its process was left
    running before (Worker.__init__ stopped it only on a wrong first line)."""
    import subprocess

    from recipekg.sparql.worker import Worker

    started = []
    real = subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(subprocess, "Popen", popen)
    with pytest.raises(Timeout):
        Worker(kb.files, startup_seconds=0.0)
    assert started and started[0].poll() is not None  # stopped, not left running
