"""The web page under hostile and heavy use: path traversal, fuzzed queries, a bug inside a
view, and 16 concurrent clients × 100 requests against each server `serve` runs."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipekg.errors import INTERNAL_ERROR
from recipekg.web.app import create_app
from strategies import mutated_queries

TRAVERSAL = [
    "/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/static/..%2f..%2fetc%2fpasswd",
    "/static/%252e%252e/etc/passwd", "/static/....//....//etc/passwd", "/static/..\\..\\etc\\passwd",
    "/paper/..%2f..%2f..%2fetc%2fpasswd", "/entity/../../etc/passwd", "/entity/%00", "/paper/%00%2e%2e",
    "/claim/rule/..%2f..%2fsrc", "//etc/passwd", "/static//etc/passwd", "/static/%c0%ae%c0%ae/etc/passwd",
    "/static/app.css%00.txt", "/../recipekg/api.py", "/static/../__init__.py", "/static/../app.py",
]


@pytest.fixture(scope="module")
def client(kb):
    return create_app(kb).test_client()


@pytest.mark.parametrize("path", TRAVERSAL)
def test_path_traversal_reaches_nothing_outside_the_site(client, path):
    response = client.get(path, follow_redirects=True)  # "//" is redirected to "/" first
    body = response.get_data()
    assert response.status_code in (400, 404), path
    for hop in response.history:  # a redirect stays on this site
        assert urlsplit(hop.location).netloc in ("", "localhost"), hop.location
    assert b"root:" not in body and b"import " not in body and b"Traceback" not in body


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.one_of(mutated_queries(), st.text(max_size=120)))
def test_any_query_text_gives_a_page_never_a_500(client, q):
    response = client.get("/?q=" + quote(q.encode("utf-8", "surrogatepass"), safe=""))  # odd bytes too
    assert response.status_code == 200, q
    assert b"Traceback" not in response.get_data()


def test_a_bug_inside_a_view_is_the_one_line_500_page(kb, monkeypatch):
    from recipekg.web import views

    def broken(answer):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(views, "answer_view", broken)
    response = create_app(kb).test_client().get("/?q=" + quote("recommend fix where symptom = loss-spike"))
    body = response.get_data(as_text=True)
    assert response.status_code == 500
    assert INTERNAL_ERROR in body and "Traceback" not in body and "simulated bug" not in body


LOAD_PATHS = ["/", "/papers", "/paper/kaplan2020", "/entity/vit",
              "/?q=" + quote("recommend architecture where data = tabular and rows = 30k"),
              "/?q=" + quote("plan where params = 7B and gpus = 8 and hardware = h100"),
              "/?q=" + quote("explain lightgbm where data = tabular"), "/?q=" + quote("recommend nothing")]


@pytest.mark.slow
@pytest.mark.parametrize("server_name", ["waitress", "werkzeug"])
def test_sixteen_clients_times_a_hundred_requests_all_answered(kb, server_name):
    from recipekg.web.server import make_server

    server = make_server(create_app(kb), "127.0.0.1", 0, server=server_name)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    base, errors, done = f"http://127.0.0.1:{server.port}", [], []

    def client(n: int) -> None:
        for i in range(100):
            path = LOAD_PATHS[(n + i) % len(LOAD_PATHS)]
            try:
                with urllib.request.urlopen(base + path, timeout=60) as response:
                    ok = response.status == 200 and b"</html>" in response.read()
                (done if ok else errors).append(path)
            except (urllib.error.URLError, OSError) as exc:
                errors.append(f"{path}: {exc}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(16)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
    finally:
        server.shutdown()
        serving.join(timeout=30)
        server.close()
    assert errors == [] and len(done) == 1600 and not serving.is_alive()
