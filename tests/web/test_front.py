"""Answer pages before Flask (recipekg/web/front.py): ``GET /?q=`` on an app with answer
workers is answered without Flask's request machinery, with the response Flask's own path
gives for the same request (the nonce aside); every other request is Flask's."""

from __future__ import annotations

import re

import pytest
from werkzeug.test import Client

from recipekg.web.app import create_app
from web.pools import close_answers

HOST = {"Host": "localhost"}
QUERIES = ["recommend fix where symptom = loss-spike top 1",
           "plan where params = 7B and hardware = h100 and gpus = 8",
           "explain lightgbm where data = tabular and rows = 5k",
           "recommend fix where symptom = loss-spik",  # the user's error: a page that says so
           "recommend architecture where data = tabular and rows = 30k and rows = 40k"]


@pytest.fixture(scope="module")
def pooled(kb):
    app = create_app(kb, answers={"timeout": 120, "size": 1}, trusted_hosts=["localhost"])
    yield app
    close_answers(app)


def _both(app, path: str = "/", **kwargs):
    """The response of the app (its fast path first) and of Flask's path under it."""
    fast = Client(app.wsgi_app).open(path, **kwargs)
    flask = Client(app.wsgi_app.flask).open(path, **kwargs)
    return fast, flask


def _same(fast, flask) -> None:
    def nonce_free(headers):
        return sorted((k, re.sub(r"'nonce-[^']*'", "'nonce-'", v)) for k, v in headers.items())

    assert fast.status_code == flask.status_code
    assert nonce_free(fast.headers) == nonce_free(flask.headers)
    assert re.sub(rb'nonce="[^"]*"', b"", fast.data) == re.sub(rb'nonce="[^"]*"', b"", flask.data)


@pytest.mark.parametrize("q", QUERIES)
def test_an_answer_page_is_the_page_flask_serves(pooled, q):
    fast, flask = _both(pooled, query_string={"q": q}, headers=HOST)
    assert fast.status_code == 200 and fast.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "script-src 'nonce-" in fast.headers["Content-Security-Policy"] and fast.headers["Vary"] == "Accept"
    _same(fast, flask)
    nonce = re.search(r"'nonce-([^']*)'", fast.headers["Content-Security-Policy"]).group(1)
    assert f'nonce="{nonce}"'.encode() in fast.data  # the page's script carries the header's nonce
    assert ("", q) in pooled.extensions["recipekg"]["pages"]


def test_the_links_of_a_page_served_under_a_root_are_under_it(pooled):
    fast, flask = _both(pooled, "/", query_string={"q": QUERIES[0]}, headers=HOST,
                        environ_overrides={"SCRIPT_NAME": "/kg"})
    _same(fast, flask)
    assert b'href="/kg/paper/' in fast.data


@pytest.mark.parametrize("request_", [
    {"query_string": {"q": QUERIES[0]}, "headers": {**HOST, "Accept": "application/json"}},  # JSON asked for
    {"query_string": {"q": QUERIES[0]}, "headers": {"Host": "evil.example"}},  # a host the app does not serve
    {"query_string": {"q": QUERIES[0]}, "headers": HOST, "method": "HEAD"},
    {"query_string": {"q": QUERIES[0]}, "headers": HOST, "method": "POST"},
    {"query_string": {"q": "  "}, "headers": HOST},  # no query: the front page
    {"query_string": {"q": "recommend fix where symptom = " + "x" * 5000}, "headers": HOST},  # too long
    {"path": "/papers", "headers": HOST},
])
def test_every_other_request_is_flask_s(pooled, request_):
    fast, flask = _both(pooled, **request_)
    assert fast.status_code == flask.status_code and fast.headers.get("Content-Type") == flask.headers.get("Content-Type")
    assert fast.headers.get("Content-Length") == flask.headers.get("Content-Length")


def test_a_failure_met_first_is_shown_by_the_view_without_asking_again(kb, monkeypatch):
    """The worker's failure (here the time limit) goes to Flask's view with the request, which
    shows it on the page (not kept in the cache) and does not ask a worker a second time."""
    from recipekg.errors import LimitError
    from recipekg.web import answering

    asked = []

    def limited(pool, q, nonce, root):
        asked.append(q)
        raise LimitError("the query was stopped after 1 seconds, this server's time limit")

    monkeypatch.setattr(answering, "page_text", limited)
    monkeypatch.setattr(answering, "pool_of", lambda state: None)
    app = create_app(kb, answers={"timeout": 1, "size": 1})
    page = app.test_client().get("/", query_string={"q": QUERIES[0]})
    assert page.status_code == 200 and b"time limit" in page.data
    assert asked == [QUERIES[0]] and ("", QUERIES[0]) not in app.extensions["recipekg"]["pages"]


def test_a_page_is_kept_for_the_root_it_was_asked_under(kb):
    """The page cache keys a page by the root its links are under as well as by its query: the
    same question asked under two roots (two proxies in front of one server) gets two pages."""
    app = create_app(kb)
    client, q = app.test_client(), {"q": QUERIES[0]}
    plain = client.get("/", query_string=q)
    under = client.get("/", query_string=q, environ_overrides={"SCRIPT_NAME": "/kg"})
    assert b'href="/paper/' in plain.data and b'href="/kg/paper/' in under.data and b'href="/paper/' not in under.data
    assert set(app.extensions["recipekg"]["pages"].keys()) == {("", QUERIES[0]), ("/kg", QUERIES[0])}


def test_a_bug_before_flask_is_answered_by_flask_s_own_path(kb, monkeypatch):
    """An unexpected error in the path before Flask (here, a worker's reply the server cannot
    read) is never a bare server error: Flask's own path answers the request, with its headers."""
    from recipekg.web import answering

    calls = []

    def broken(pool, q, nonce, root):
        calls.append(q)
        if len(calls) == 1:
            raise KeyError("keep")  # the first call, before Flask
        return f'<p nonce="{nonce}">{q}</p>'.encode(), True

    monkeypatch.setattr(answering, "page_text", broken)
    monkeypatch.setattr(answering, "pool_of", lambda state: object())
    monkeypatch.setattr("recipekg.web.views.page_text", broken)
    monkeypatch.setattr("recipekg.web.views.app_pool", lambda: object())
    app = create_app(kb, answers={"timeout": 1, "size": 1})
    page = app.test_client().get("/", query_string={"q": QUERIES[0]})
    assert page.status_code == 200 and QUERIES[0].encode() in page.data and len(calls) == 2
    assert "script-src 'nonce-" in page.headers["Content-Security-Policy"]
