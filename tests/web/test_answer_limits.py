"""The time limit of ``/api/query`` and the pages (recipekg/web/answering.py): a query runs in
a worker process that is stopped at the limit (503, kind ``limit``), so slow requests cannot
hold a small server's threads, and every other page is answered meanwhile."""

from __future__ import annotations

import json
import threading
import time
from urllib.parse import quote

import pytest

from http_server import request, served
from recipekg.web.app import create_app
from web.pools import close_answers

#: 200 statements of a plan: seconds of work, far more than the limits below.
SLOW = "; ".join(["plan where params = 70B and hardware = a100 and gpus = 2"] * 200)
FAST = "recommend fix where symptom = loss-spike top 1"
#: A limit no answer of these tests but SLOW's reaches, however loaded the machine (a fast
#: query took more than 0.5 s of a loaded machine: its page said "time limit").
AMPLE = 120


@pytest.fixture(scope="module")
def limited(kb):
    app = create_app(kb, answers={"timeout": 0.5, "size": 2})
    yield app
    close_answers(app)


@pytest.fixture(scope="module")
def unlimited(kb):
    """Workers whose limit is never reached: for the tests that compare a worker's answer with
    the app's own, whatever the load."""
    app = create_app(kb, answers={"timeout": AMPLE, "size": 2})
    yield app
    close_answers(app)


def test_a_worker_answers_as_the_app_itself_does(unlimited, kb):
    plain = create_app(kb).test_client().get(f"/api/query?q={quote(FAST)}")
    pooled = unlimited.test_client().get(f"/api/query?q={quote(FAST)}")
    assert pooled.status_code == plain.status_code == 200 and pooled.json == plain.json
    error = unlimited.test_client().get("/api/query?q=recommend fix where symptom = loss-spik")
    assert error.status_code == 400 and error.json["error"]["kind"] == "unknown-name"
    assert error.json == create_app(kb).test_client().get("/api/query?q=recommend fix where symptom = loss-spik").json


def test_a_query_past_the_limit_is_stopped_with_503(limited):
    r = limited.test_client().post("/api/query", json={"q": SLOW})
    assert r.status_code == 503 and r.headers["Retry-After"] == "5"
    assert r.json["error"]["kind"] == "limit" and "0.5 seconds" in r.json["error"]["message"]
    pool = limited.extensions["recipekg"]["answers"]
    pool.timeout = AMPLE  # the next answer is not stopped, however slow the machine
    try:
        again = limited.test_client().get(f"/api/query?q={quote(FAST)}")  # the stopped worker was replaced
    finally:
        pool.timeout = 0.5
    assert again.status_code == 200 and again.json["statement"] == "recommend"


def test_the_page_says_so_inline_and_does_not_keep_it(limited):
    q = "; ".join(["plan where params = 70B and hardware = a100 and gpus = 2"] * 170)
    page = limited.test_client().get("/", query_string={"q": q})
    assert page.status_code == 200 and b"time limit" in page.data
    assert ("", q) not in limited.extensions["recipekg"]["pages"]


def test_two_slow_requests_do_not_hold_a_two_thread_server():
    """Two slow plans take both threads of the server; the limit stops them (503) and frees
    the threads, and a page asked for meanwhile is answered."""
    with served("--threads", "2", "--query-timeout", "1") as base:
        assert request(f"{base}/api/query?q={quote(FAST)}")[0] == 200  # the workers started
        done: dict[str, tuple] = {}

        def slow(name):
            status, _, body = request(f"{base}/api/query", data=json.dumps({"q": SLOW}).encode(),
                                      headers={"Content-Type": "application/json"})
            done[name] = (status, json.loads(body)["error"]["kind"])

        threads = [threading.Thread(target=slow, args=(n,)) for n in ("a", "b")]
        for t in threads:
            t.start()
        time.sleep(0.3)
        page = request(f"{base}/paper/hoffmann2022")
        answer = request(f"{base}/api/query?q={quote(FAST)}")
        for t in threads:
            t.join()
    assert set(done.values()) == {(503, "limit")}
    assert page[0] == 200 and answer[0] == 200


def _without_nonce(page: bytes) -> bytes:
    import re

    return re.sub(rb'nonce="[^"]*"', b'nonce=""', page)


@pytest.mark.parametrize("q", [FAST, "plan where params = 7B and hardware = h100 and gpus = 8",
                               "explain lightgbm where data = tabular and rows = 5k",
                               "recommend fix where symptom = loss-spik"])
def test_a_worker_renders_the_page_the_app_itself_renders(unlimited, kb, q):
    """The worker sends back the whole page: byte for byte the page rendered in the app's
    own thread (but for the nonce), answers and errors alike."""
    plain = create_app(kb).test_client().get("/", query_string={"q": q})
    pooled = unlimited.test_client().get("/", query_string={"q": q})
    assert pooled.status_code == plain.status_code == 200
    assert _without_nonce(pooled.data) == _without_nonce(plain.data)
    assert ("", q) in unlimited.extensions["recipekg"]["pages"]  # kept: it was answered within the limit


def test_a_warm_pool_starts_its_workers_and_never_more_than_its_size(kb):
    from recipekg.web.answering import answer_text, pool_for

    pool = pool_for(kb, size=2, timeout=30)
    try:
        pool.warm()
        deadline = time.monotonic() + 120
        while len(pool.idle) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(pool.idle) == 2
        threads = [threading.Thread(target=answer_text, args=(kb, pool, FAST, "json")) for _ in range(4)]
        for t in threads:
            t.start()
        pool.warm()  # with both workers started, warming again starts none
        for t in threads:
            t.join()
        time.sleep(0.2)
        assert len(pool.idle) == 2
    finally:
        pool.close()


def test_a_worker_keeps_no_page_s_state_for_the_next(kb, monkeypatch):
    """The worker pushes one request context per script root again for each page: a page
    stopped by a limit is not kept, the next one is, and each page links under its own root."""
    from recipekg.errors import LimitError
    from recipekg.web.answer_worker import respond
    from recipekg.web.views import answer_page

    app = create_app(kb)
    real = kb.query

    def limited_query(text):
        if text == "stopped":
            raise LimitError("the query was stopped after 1 seconds, this server's time limit")
        return real(text)

    monkeypatch.setattr(kb, "query", limited_query)
    header, body = respond(app, {"page": "stopped", "nonce": "N", "root": ""})
    assert header == {"status": 200, "keep": False} and b"time limit" in body
    header, body = respond(app, {"page": FAST, "nonce": "N", "root": ""})
    assert header == {"status": 200, "keep": True} and b'href="/paper/' in body
    _, under = respond(app, {"page": FAST, "nonce": "N", "root": "/kg"})
    assert b'href="/kg/paper/' in under and b'href="/paper/' not in under
    with create_app(kb).test_request_context("/", base_url="http://localhost/kg/"):  # a context of its own
        assert under.decode() == answer_page(FAST, "N")
