"""The word list on the web: ``GET /api/vocab`` is ``recipekg vocab --format json``; the front
page's side panel lists every dimension; an answer page carries the panel's heading and a link,
and its script puts the panel (``/vocab/panel``, kept by the browser) in place; ``/vocab`` is the
list as a page; an answer's 'no advice' note; and, in Chromium, the query box completes words
from the list and the answer page's panel fills in."""

from __future__ import annotations

import json
import shutil
import re
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.web.app import create_app


@pytest.fixture(scope="module")
def app(kb):
    return create_app(kb)


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


def test_api_vocab_is_the_cli_json(client):
    response = client.get("/api/vocab")
    assert response.status_code == 200 and response.mimetype == "application/json"
    cli = CliRunner().invoke(main, ["vocab", "--format", "json"])
    assert cli.exit_code == 0
    assert response.get_data(as_text=True) == cli.output


def test_api_vocab_one_dimension_and_unknown(client, kb):
    from jsonschema import Draft202012Validator

    from recipekg.web.openapi import openapi

    one = client.get("/api/vocab?dimension=failure")
    assert one.status_code == 200 and json.loads(one.data) == kb.vocab("symptom")
    missing = client.get("/api/vocab?dimension=symptm")
    assert missing.status_code == 404
    error = json.loads(missing.data)
    assert error["error"]["suggestions"] == ["symptom"]
    doc = openapi("test")
    ref = doc["paths"]["/api/vocab"]["get"]["responses"]["404"]["content"]["application/json"]["schema"]["$ref"]
    schema = {**doc["components"]["schemas"][ref.rsplit("/", 1)[1]], "components": doc["components"]}
    Draft202012Validator(schema).validate(error)


def test_front_page_panel_lists_every_dimension_and_value(client, kb):
    _lists_every_dimension_and_value(client.get("/").get_data(as_text=True), kb)


def _lists_every_dimension_and_value(page: str, kb) -> None:
    for d in kb.vocab()["dimensions"]:
        assert f'id="vocab-{d["name"]}"' in page
        for v in d.get("values", []):
            assert f"<code>{v['id']}</code>" in page


def test_answer_page_carries_the_panel_by_reference(client, kb):
    """The panel is the same 60 KB on every page: an answer page holds its heading, a link to
    /vocab (for a browser without scripts) and where the script fetches it from, not the list."""
    front = client.get("/").get_data(as_text=True)
    page = client.get("/", query_string={"q": "recommend fix where symptom = loss-spike"}).get_data(as_text=True)
    assert 'id="vocab-symptom"' in front and 'id="vocab-symptom"' not in page
    stub = re.search(r'<aside class="vocab"[^>]*data-panel="([^"]+)"[^>]*>(.*?)</aside>', page, re.S)
    assert stub and stub.group(1) == "/vocab/panel" and 'href="/vocab"' in stub.group(2)
    assert 'querySelector("aside.vocab[data-panel]")' in page  # the script that fills it in
    panel = client.get(stub.group(1))
    assert panel.status_code == 200 and panel.mimetype == "text/html"
    body = panel.get_data(as_text=True)
    _lists_every_dimension_and_value(body, kb)
    assert body in front  # the front page's own panel, byte for byte


def test_the_panel_is_kept_by_the_browser(client):
    first = client.get("/vocab/panel")
    assert first.headers["ETag"] and first.headers["Cache-Control"] == "no-cache"
    again = client.get("/vocab/panel", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    other = client.get("/vocab/panel", headers={"If-None-Match": '"something-else"'})
    assert other.status_code == 200 and other.data == first.data


def test_vocab_page_is_the_list_and_every_page_links_it(client, kb):
    page = client.get("/vocab")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    _lists_every_dimension_and_value(html, kb)
    assert "<title>Words you can use · recipekg</title>" in html
    for path in ("/", "/papers", "/map"):
        assert '<a href="/vocab">Words</a>' in client.get(path).get_data(as_text=True)


def test_answer_page_says_no_advice_and_links_the_nearest(client):
    page = client.get("/", query_string={"q": "recommend architecture where data = images and task = segmentation"})
    html = page.get_data(as_text=True)
    note = re.search(r'<p class="no-advice".*?</p>', html, re.S)
    assert note and "task = segmentation" in note.group(0)
    assert 'href="/?q=recommend+architecture+where+data+%3D+images"' in note.group(0)


def test_csp_lets_the_page_fetch_only_its_own_origin(client):
    csp = client.get("/").headers["Content-Security-Policy"]
    assert "connect-src 'self'" in csp and "default-src 'none'" in csp


@pytest.mark.browser
def test_browser_query_box_completes_from_the_word_list(app, kb, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    from web.browser import start_chromium, submit
    from web.test_web import _serve, wait_for

    driver, profile = start_chromium("1500,1000")
    server, base = _serve(app)
    try:
        driver.get(base + "/")
        box = wait_for(driver, "#q")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(
            "return performance.getEntriesByType('resource').some(e => e.name.endsWith('/api/vocab'))"))
        box.send_keys("recommend fix where symptom = slow")
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#q-complete li"))
        shown = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#q-complete li")]
        symptoms = next(d for d in kb.vocab()["dimensions"] if d["name"] == "symptom")["values"]
        assert sorted(shown) == sorted(v["id"] for v in symptoms if v["id"].startswith("slow"))
        (tmp_path / "completion.png").write_bytes(driver.get_screenshot_as_png())
        box.send_keys(Keys.ARROW_DOWN, Keys.TAB)
        assert box.get_attribute("value") == f"recommend fix where symptom = {sorted(shown)[0]} "
        box.send_keys("and ")
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#q-complete li"))
        dims = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#q-complete li")]
        assert dims and set(dims) <= {d["name"] for d in kb.vocab()["dimensions"]}
        box.send_keys(Keys.ESCAPE)  # closes the list, keeps the text
        assert not driver.find_element(By.CSS_SELECTOR, "#q-complete").is_displayed()
        assert box.get_attribute("value").endswith(" and ")
        box.send_keys(Keys.BACKSPACE * 5)
        submit(driver, box)
        wait_for(driver, "p.no-advice")
        assert "symptom = slow-convergence" in driver.find_element(By.CSS_SELECTOR, "p.no-advice").text
        assert driver.get_log("browser") == [] if hasattr(driver, "get_log") else True
    finally:
        server.shutdown()
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)



@pytest.mark.browser
def test_browser_the_completion_list_moves_nothing_and_a_click_below_it_lands(chromium_driver, live_server):
    """The list opens as the user types, over the page: never for the page's own autofocus
    (however soon the word list came), and opening it moves nothing, so a click below it lands
    although its mousedown takes the focus from the box and closes the list (the did-you-mean
    link navigates; a list in the page's flow closed and moved the link up under the pointer,
    between the mousedown and the mouseup, and the click was lost)."""
    from urllib.parse import unquote_plus

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    from web.browser import follow, page_ready

    d = chromium_driver
    d.get(live_server + "/?q=" + quote("recommend architecture where data = tabulr"))
    page_ready(d)
    box, completions = d.find_element(By.ID, "q"), d.find_element(By.ID, "q-complete")
    d.execute_script("arguments[0].blur(); arguments[0].focus();", box)  # the autofocus, after the word list came
    assert d.switch_to.active_element == box and not completions.is_displayed()
    link = d.find_element(By.CSS_SELECTOR, "p.did-you-mean a")
    where = link.rect
    box.send_keys(Keys.END, " ")
    WebDriverWait(d, 20).until(lambda _: completions.is_displayed())
    assert [li.text for li in completions.find_elements(By.TAG_NAME, "li")] == ["and", "top"]
    assert link.rect == where
    follow(d, link)
    assert "data = tabular" in unquote_plus(d.current_url) and d.find_elements(By.CSS_SELECTOR, "li.result")


def test_api_vocab_writes_each_document_once_per_app(kb, monkeypatch):
    """Every page a browser loads asks for the word list (the query box's completion): the
    app writes each document once and sends the same bytes after; an unknown name's 404 is
    written each time, never kept."""
    from recipekg.web.app import create_app

    client = create_app(kb).test_client()
    calls = []
    real = kb.vocab

    def counted(name=None):
        calls.append(name)
        return real(name)

    monkeypatch.setattr(kb, "vocab", counted)
    first, again = client.get("/api/vocab"), client.get("/api/vocab")
    one, one_again = client.get("/api/vocab?dimension=failure"), client.get("/api/vocab?dimension=failure")
    missing, missing_again = client.get("/api/vocab?dimension=symptm"), client.get("/api/vocab?dimension=symptm")
    assert first.data == again.data and one.data == one_again.data and missing.data == missing_again.data
    assert first.json == real() and one.status_code == 200 and missing.status_code == missing_again.status_code == 404
    assert calls == [None, "failure", "symptm", "symptm"]
    assert "symptm" not in client.application.extensions["recipekg"]["vocab_documents"]


@pytest.mark.browser
def test_browser_answer_page_panel_fills_in(chromium_driver, live_server, kb):
    """On an answer page the script puts the whole word list where its heading was: every
    dimension is there to open, as on the front page, and the link for browsers without
    scripts is gone with the stub."""
    from selenium.webdriver.common.by import By

    from web.browser import page_ready

    d = chromium_driver
    d.get(live_server + "/?q=" + quote("recommend fix where symptom = loss-spike"))
    page_ready(d)
    ids = {e.get_attribute("id") for e in d.find_elements(By.CSS_SELECTOR, "aside.vocab details.vocab-dim")}
    assert ids >= {f"vocab-{x['name']}" for x in kb.vocab()["dimensions"]}
    assert not d.find_elements(By.CSS_SELECTOR, "aside.vocab[data-panel]")
    symptom = d.find_element(By.ID, "vocab-symptom")
    symptom.find_element(By.TAG_NAME, "summary").click()
    assert "loss-spike" in symptom.text
