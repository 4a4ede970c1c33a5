"""The JSON API over real HTTP, against ``recipekg serve`` (waitress): ``/api/query`` gives
``recipekg query --format json``'s document, errors included; the answer page gives it too
when JSON is preferred; CORS only for the origins ``--cors`` names."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

import pytest

from http_server import cli_json, request, served

STATEMENTS = [
    "recommend architecture where data = tabular and rows = 30k",
    "plan where params = 7B and hardware = h100 and gpus = 8",
    "explain vit where data = images and samples = 3000",
    "recommend fix where symptom = loss-spike; recommend optimizer where prefer = low-memory",
]


@pytest.fixture(scope="module")
def base():
    with served() as url:
        yield url


@pytest.mark.parametrize("text", STATEMENTS)
def test_get_and_every_post_body_give_the_cli_json(base, text):
    status, expected = cli_json("query", text)
    assert status == 0
    got = request(f"{base}/api/query?q={quote(text)}")
    assert got[0] == 200 and got[1]["Content-Type"].startswith("application/json")
    assert json.loads(got[2]) == expected
    bodies = [(json.dumps({"q": text}).encode(), "application/json"),
              (urlencode({"q": text}).encode(), "application/x-www-form-urlencoded"),
              (text.encode(), "text/plain; charset=utf-8")]
    for body, media_type in bodies:
        status, _, data = request(f"{base}/api/query", data=body, headers={"Content-Type": media_type})
        assert (status, json.loads(data)) == (200, expected), media_type


@pytest.mark.parametrize("text", ["recommend architecture where data = tabluar",
                                  "recommend architecture where",
                                  "plan where params = 7B and gpus = -3"])
def test_an_error_is_the_cli_json_error_with_status_400(base, text):
    status, expected = cli_json("query", text)
    assert status == 2 and set(expected) == {"error"}
    got = request(f"{base}/api/query?q={quote(text)}")
    assert got[0] == 400 and json.loads(got[2]) == expected
    posted = request(f"{base}/api/query", data=json.dumps({"q": text}).encode(),
                     headers={"Content-Type": "application/json"})
    assert posted[0] == 400 and json.loads(posted[2]) == expected


def test_a_missing_or_too_long_query_is_a_json_usage_error(base):
    for status, _, body in (request(f"{base}/api/query"),
                            request(f"{base}/api/query", data=b'{"query": "x"}',
                                    headers={"Content-Type": "application/json"}),
                            request(f"{base}/api/query?q={'x' * 10_001}")):
        assert status == 400 and json.loads(body)["error"]["kind"] == "usage"


def test_the_answer_page_speaks_json_when_asked_and_html_otherwise(base):
    text = STATEMENTS[0]
    _, expected = cli_json("query", text)
    url = f"{base}/?q={quote(text)}"
    status, headers, body = request(url, headers={"Accept": "application/json"})
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert json.loads(body) == expected
    assert "Accept" in headers["Vary"]
    for accept in ("text/html,application/xhtml+xml,*/*;q=0.8", "*/*", "application/json;q=0.5, text/html"):
        status, headers, body = request(url, headers={"Accept": accept})
        assert status == 200 and headers["Content-Type"].startswith("text/html"), accept
        assert b"<html" in body.lower()
    status, _, body = request(f"{base}/?q={quote('recommend fix where symptom = nope')}",
                              headers={"Accept": "application/json"})
    assert status == 400 and json.loads(body)["error"]["kind"] == "unknown-name"


def test_no_cors_unless_asked(base):
    headers = {"Origin": "https://notebook.example.org"}
    for path in ("/api/query?q=plan", "/sparql?query=ASK%7B%7D"):
        _, got, _ = request(base + path, headers=headers)
        assert "Access-Control-Allow-Origin" not in got


def test_cors_for_the_named_origin_only_and_its_preflight():
    with served("--cors", "https://notebook.example.org") as url:
        _, got, _ = request(f"{url}/api/query?q=plan", headers={"Origin": "https://notebook.example.org"})
        assert got["Access-Control-Allow-Origin"] == "https://notebook.example.org"
        _, got, _ = request(f"{url}/api/query?q=plan", headers={"Origin": "https://evil.example"})
        assert "Access-Control-Allow-Origin" not in got
        status, got, _ = request(f"{url}/sparql", method="OPTIONS",
                                 headers={"Origin": "https://notebook.example.org",
                                          "Access-Control-Request-Method": "POST",
                                          "Access-Control-Request-Headers": "Content-Type"})
        assert status == 200 and "POST" in got["Access-Control-Allow-Methods"]
        assert "Content-Type" in got["Access-Control-Allow-Headers"]
        _, got, _ = request(f"{url}/papers", headers={"Origin": "https://notebook.example.org"})
        assert "Access-Control-Allow-Origin" not in got  # the pages stay same-origin


def test_cors_refuses_an_origin_that_is_not_one():
    import subprocess
    import sys

    from support import subprocess_env

    done = subprocess.run([sys.executable, "-m", "recipekg", "serve", "--cors", "notebook.example.org/x"],
                          env=subprocess_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--cors takes an origin" in done.stderr
