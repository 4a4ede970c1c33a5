"""The web page: Flask test-client checks, then one real headless browser session (Debian's
chromium driven by Selenium) for the user's path, the screenshot and the XSS test.

Without chromium/chromedriver the browser tests fail under CI=true (tools/test.sh installs
both) and are skipped elsewhere.
"""

from __future__ import annotations

import copy
import html
import os
import re
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from html.parser import HTMLParser
from urllib.parse import quote

import bibtexparser
import pytest
from click.testing import CliRunner

import recipekg
from recipekg.cite.graph import CiteGraph
from recipekg.cli.main import main
from recipekg.api import KnowledgeBase
from recipekg.web.app import create_app, is_http_url
from web.browser import click, follow, page_ready

TABULAR = "recommend architecture where data = tabular and rows = 30k"
QUERIES = [TABULAR, "recommend fix where symptom = loss-spike", "recommend optimizer where prefer = low-memory",
           "recommend technique where hardware = dgx-spark", "recommend approach where gpus = 1 and time < 1 day"]

XSS = "<script>window.__xss=1;alert(1)</script>"
EXTENSION = """@prefix rkg: <https://w3id.org/recipekg/ns#> .
@prefix kb: <https://w3id.org/recipekg/id/> .
@prefix rule: <https://w3id.org/recipekg/rule/> .
@prefix cond: <https://w3id.org/recipekg/cond/> .
@prefix paper: <https://w3id.org/recipekg/paper/> .
@prefix sec: <https://w3id.org/recipekg/section/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix fabio: <http://purl.org/spar/fabio/> .

kb:xss-net a rkg:Architecture ;
    rdfs:label "<script>window.__xss=1;alert(1)</script>XSS net" ;
    skos:definition "<img src=x onerror=\\"window.__xss=2\\"> defined & escaped" ;
    rkg:originalPaper paper:evil2024 .

rule:xss-rule a rkg:Rule ;
    rdfs:label "<script>window.__xss=3</script>XSS rule" ;
    rkg:text "<script>window.__xss=4;alert(4)</script><a href=\\"javascript:window.__xss=5\\">click</a> our finding." ;
    rkg:recommends kb:xss-net ;
    rkg:condition cond:data-tabular ;
    rkg:strength rkg:strong ;
    rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom paper:evil2024 .

paper:evil2024 a rkg:Paper, fabio:ResearchPaper ;
    rdfs:label "<script>window.__xss=6</script>Evil paper" ;
    dcterms:title "<script>window.__xss=6</script>Evil paper" ;
    rkg:authors "<b onmouseover=\\"window.__xss=7\\">Evil</b>, O'Brien et al." ;
    dcterms:issued "2024"^^xsd:gYear ;
    rkg:url "https://example.org/x?a=\\"><script>window.__xss=8</script>"^^xsd:anyURI ;
    rkg:venue "<i>Nowhere</i> 2024" .
"""


# ---------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def app(kb):
    return create_app(kb)


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def graph(snap):
    return CiteGraph(snap)


@pytest.fixture(scope="module")
def extension(tmp_path_factory):
    path = tmp_path_factory.mktemp("xss") / "xss.ttl"
    path.write_text(EXTENSION, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def xss_app(extension):
    result = CliRunner().invoke(main, ["validate", str(extension)])
    assert result.exit_code == 0, result.output            # a valid extension, not a broken file
    return create_app(recipekg.load(extensions=[extension]))


class Links(HTMLParser):
    """Every <a>'s href and class, and every <script> tag."""

    def __init__(self):
        super().__init__()
        self.links, self.scripts = [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a":
            self.links.append((attrs.get("href"), attrs.get("class") or ""))
        if tag == "script":
            self.scripts += 1


def links(html: str) -> Links:
    parser = Links()
    parser.feed(html)
    return parser


def get(client, url, status=200) -> str:
    response = client.get(url)
    assert response.status_code == status, response.data[:500]
    return response.get_data(as_text=True)


def result_ids(html: str) -> list[str]:
    return re.findall(r'<li class="result" data-id="([^"]+)"', html)


# ---------------------------------------------------------------------- test client

@pytest.mark.parametrize("q", QUERIES)
def test_results_are_ranked_exactly_as_the_cli(client, kb, q):
    html = get(client, "/?q=" + quote(q))
    (answer,) = kb.query(q)
    assert result_ids(html) == [r["id"] for r in answer["results"]]
    assert "<svg" in html and 'class="box rule"' in html                # the picture of the path


def test_each_reason_has_rule_text_section_and_papers(client, kb):
    html = get(client, "/?q=" + quote(TABULAR))
    (answer,) = kb.query(TABULAR)
    x = answer["results"][0]["because"][0]
    block = html[html.index(f'data-rule="{x["id"]}"'):]
    block = block[:block.index("</details>")]
    assert x["text"] in block and x["section"] in block.replace("&gt;", ">")
    for s in x["sources"]:
        assert f'href="/paper/{s["id"]}"' in block


def test_errors_are_shown_inline_with_the_caret(client):
    html = get(client, "/?q=" + quote("recommend architecure where data = tabular"))
    pre = re.search(r'<pre class="error-text">(.*?)</pre>', html, re.S).group(1)
    assert "line 1, column 11: unknown kind" in pre
    assert "\n            ^^^^^^^^^^^" in pre
    fix = re.search(r'<p class="did-you-mean">(.*?)</p>', html, re.S).group(1)  # a link to the mended query
    assert 'href="/?q=recommend+architecture+where+data+%3D+tabular"' in fix and "<code>architecture</code>" in fix
    assert '<p class="error-hint">expected: ' in html  # the hint wraps, outside the caret's block


def test_security_headers(client):
    response = client.get("/")
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "http" not in csp and "*" not in csp
    nonce = re.search(r"'nonce-([^']+)'", csp).group(1)
    html = response.get_data(as_text=True)
    assert html.count("<script") == 1 and f'<script nonce="{nonce}">' in html
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert client.post("/", data={"q": TABULAR}).status_code == 405       # read-only


def test_unknown_pages_are_404_with_suggestions(client):
    html = get(client, "/paper/grinsztain2022", 404)
    assert 'href="/paper/grinsztajn2022"' in html
    assert 'href="/entity/lightgbm"' in get(client, "/entity/lightgmb", 404)
    assert 'href="/rule/threshold-tabular-under-10k"' in get(client, "/rule/threshold-tabular-under-10", 404)
    get(client, "/nowhere", 404)


def test_every_page_kind_renders(client, snap, graph):
    for kind in ("rule", "formula", "constant", "fact"):
        cid = next(iter(graph.ids(kind)))
        assert f"<code>{cid}</code>" in get(client, f"/{kind}/{cid}")
    for name in ("lightgbm", "lgbm", "a100", "qk-norm"):
        get(client, f"/entity/{name}")
    assert get(client, "/papers").count('href="/paper/') == len(snap["papers"])
    get(client, "/?q=" + quote("explain vit where data = images and samples = 3000"))


def test_paper_pages_link_every_claim_citing_them(client, snap, graph):
    """Backlink completeness through the HTML, for the most cited papers and the web pages."""
    counts = graph.claim_counts()
    sample = sorted(snap["papers"], key=lambda p: -counts[p])[:10] + ["nvidia-h100", "karpathy2019", "ke2017"]
    for pid in sample:
        html = get(client, f"/paper/{pid}")
        hrefs = {h for h, cls in links(html).links if cls.startswith("claim")}
        expected = {f"/{c['kind']}/{c['id']}" for c in graph.backlinks(pid)["claims"]}
        assert expected <= hrefs and len(expected) == counts[pid]
        for c in graph.backlinks(pid)["claims"]:              # and each claim page links back to the paper
            assert f'href="/paper/{pid}"' in get(client, f"/{c['kind']}/{c['id']}")


def test_paper_page_bibtex_parses(client):
    html = get(client, "/paper/kaplan2020")
    text = re.search(r'<textarea id="bibtex-kaplan2020"[^>]*>(.*?)</textarea>', html, re.S).group(1)
    import html as html_lib

    library = bibtexparser.parse_string(html_lib.unescape(text))
    assert [e.key for e in library.entries] == ["kaplan2020"] and library.entries[0]["eprint"] == "2001.08361"


@pytest.mark.parametrize("url,ok", [
    ("https://arxiv.org/abs/2001.08361", True), ("http://example.org", True), ("HTTPS://EXAMPLE.ORG/x", True),
    ("javascript:alert(1)", False), ("JaVaScRiPt:alert(1)", False), (" javascript:alert(1)", False),
    ("java\nscript:alert(1)", False), ("\x01javascript:alert(1)", False), ("data:text/html,<script>", False),
    ("vbscript:msgbox", False), ("https:javascript:alert(1)", False), ("//evil.example/x", False),
    ("/paper/x", False), ("ftp://example.org", False), ("", False), (None, False), ("https://", False),
])
def test_only_http_urls_become_links(url, ok):
    assert is_http_url(url) is ok


def test_a_javascript_url_is_shown_as_text(app, kb, extension):
    """Validation refuses a non-http paper URL; the web layer would still show one as text."""
    code = CliRunner().invoke(main, ["validate", str(_js_variant(extension))]).exit_code
    assert code == 2
    snap = copy.deepcopy(kb.snap)
    snap["papers"]["kaplan2020"]["url"] = "javascript:window.__xss=9"
    html = get(create_app(KnowledgeBase(snap, kb.files)).test_client(), "/paper/kaplan2020")
    assert not any(h and h.lower().startswith("javascript") for h, _ in links(html).links)
    assert '<span class="not-a-link">javascript:window.__xss=9</span>' in html
    with app.test_request_context():
        macro = app.jinja_env.from_string('{% from "_macros.html" import extlink %}{{ extlink(u) }}')
        assert "<a" not in macro.render(u="javascript:alert(1)")
        assert macro.render(u="https://example.org/?a=<b>").startswith('<a class="ext" href="https://example.org/?a=&lt;b&gt;"')


def _js_variant(extension):
    path = extension.with_name("js.ttl")
    path.write_text(re.sub(r'rkg:url "[^\n]*', 'rkg:url "javascript:alert(1)"^^xsd:anyURI .', EXTENSION), encoding="utf-8")
    return path


def test_kb_text_is_escaped_in_every_page(xss_app):
    c = xss_app.test_client()
    pages = ["/?q=" + quote(TABULAR), "/entity/xss-net", "/rule/xss-rule", "/paper/evil2024", "/papers"]
    for url in pages:
        html = get(c, url)
        assert "<script>window.__xss" not in html and "<img src=x" not in html and "<b onmouseover" not in html
        assert links(html).scripts == 1
    assert "&lt;script&gt;window.__xss=1;alert(1)&lt;/script&gt;XSS net" in get(c, "/entity/xss-net")


@pytest.mark.parametrize("server", ["waitress", "werkzeug"])
def test_serve_starts_a_local_server_and_refuses_a_busy_port(server):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "recipekg", "serve", "--port", "0", "--server", server], env=env,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        line = proc.stderr.readline()
        url = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert url, line
        with urllib.request.urlopen(url.group(0) + "?q=" + quote(TABULAR), timeout=30) as response:
            assert response.status == 200 and b'data-id="' in response.read()
        port = int(url.group(1))
        result = CliRunner().invoke(main, ["serve", "--port", str(port), "--server", server])
        assert result.exit_code == 2 and "cannot listen on 127.0.0.1" in result.output
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_loopback_hosts_are_trusted_others_refused_and_no_version_banner(kb):
    from recipekg.web.app import LOOPBACK_HOSTS, create_app

    client = create_app(kb, trusted_hosts=LOOPBACK_HOSTS).test_client()
    for host, status in (("127.0.0.1:8000", 200), ("localhost", 200), ("[::1]:8000", 200), ("[::1]", 200),
                         ("evil.example", 400), ("evil.example:8000", 400), ("[::2]:8000", 400)):
        response = client.get("/papers", headers={"Host": host})
        assert response.status_code == status, host
        assert response.headers["Server"] == "recipekg"


def test_serve_on_ipv6_loopback_answers_at_the_url_it_prints():
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "recipekg", "serve", "--host", "::1", "--port", "0"], env=env,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        line = proc.stderr.readline()
        url = re.search(r"http://\[::1\]:\d+/", line)
        assert url, line
        with urllib.request.urlopen(url.group(0) + "papers", timeout=30) as response:
            assert response.status == 200 and response.headers["Server"] == "recipekg"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# ---------------------------------------------------------------------- a real browser

@pytest.fixture(scope="module")
def driver(chromium_driver):
    return chromium_driver


def _serve(app):
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_port}"


@pytest.fixture(scope="module")
def live(app):
    server, base = _serve(app)
    yield base
    server.shutdown()


@pytest.fixture(scope="module")
def xss_live(xss_app):
    server, base = _serve(xss_app)
    yield base
    server.shutdown()


def wait_for(d, css, timeout=20):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(d, timeout).until(EC.presence_of_element_located((By.CSS_SELECTOR, css)))


@pytest.mark.browser
def test_browser_query_to_paper_to_every_claim_and_copy_bibtex(driver, live, kb, graph, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    # 1. type a query
    driver.get(live + "/")
    box = wait_for(driver, "input#q")
    page_ready(driver)
    box.send_keys(TABULAR)
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form.query button[type=submit]"))
    wait_for(driver, "li.result")
    shown = [li.get_attribute("data-id") for li in driver.find_elements(By.CSS_SELECTOR, "li.result")]
    (answer,) = kb.query(TABULAR)
    assert shown == [r["id"] for r in answer["results"]]

    # 2. expand the top answer's first reason: rule text, section, papers
    top = driver.find_element(By.CSS_SELECTOR, "li.result")
    details = top.find_element(By.CSS_SELECTOR, "details.reason")
    text = details.find_element(By.CSS_SELECTOR, "p.rule-text")
    assert details.get_attribute("open") is None and not text.is_displayed()
    click(driver, details.find_element(By.TAG_NAME, "summary"))
    assert details.get_attribute("open") is not None and text.is_displayed()
    reason = answer["results"][0]["because"][0]
    assert text.text == reason["text"] and reason["section"] in details.text

    # 3. follow the paper behind it
    link = details.find_element(By.CSS_SELECTOR, "ul.papers a.paper")
    pid = link.text
    assert pid == reason["sources"][0]["id"]
    link.click()
    WebDriverWait(driver, 20).until(lambda d: d.current_url.endswith(f"/paper/{pid}"))
    assert driver.find_element(By.TAG_NAME, "h1").text == kb.snap["papers"][pid]["title"]

    # 4. the paper page lists every claim citing it; follow another one and come back
    listed = {(li.get_attribute("data-kind"), li.get_attribute("data-id"))
              for li in driver.find_elements(By.CSS_SELECTOR, "li.backlink")}
    assert listed == {(c["kind"], c["id"]) for c in graph.backlinks(pid)["claims"]}
    other = next(li for li in driver.find_elements(By.CSS_SELECTOR, "li.backlink")
                 if li.get_attribute("data-id") != reason["id"])
    other_id = other.get_attribute("data-id")
    other.find_element(By.CSS_SELECTOR, "a.claim").click()
    WebDriverWait(driver, 20).until(lambda d: f"/{other_id}" in d.current_url)
    assert other_id in driver.find_element(By.CSS_SELECTOR, "dl.meta").text
    driver.find_element(By.CSS_SELECTOR, f'a.paper[href="/paper/{pid}"]').click()
    WebDriverWait(driver, 20).until(lambda d: d.current_url.endswith(f"/paper/{pid}"))

    # 5. copy its BibTeX
    origin = live
    try:
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin,
                                                            "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    except Exception:  # an older chromium: the page falls back to selecting the text
        pass
    button = driver.find_element(By.CSS_SELECTOR, "button.copy")
    button.click()
    WebDriverWait(driver, 10).until(lambda d: button.get_attribute("data-copied") is not None)
    bibtex = driver.find_element(By.CSS_SELECTOR, "textarea.bibtex").get_attribute("value")
    library = bibtexparser.parse_string(bibtex)
    assert [e.key for e in library.entries] == [pid] and not library.failed_blocks
    status = driver.find_element(By.CSS_SELECTOR, ".copy-status").text
    if button.get_attribute("data-copied") == "yes":
        assert status == "Copied."
        pasted = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "navigator.clipboard.readText().then(done, () => done(null));")
        assert pasted in (None, bibtex)             # None: reading back not permitted here
    else:
        assert "Ctrl+C" in status

    # 6. a screenshot of the page: a real, non-empty PNG
    png = driver.get_screenshot_as_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    width, height = struct.unpack(">II", png[16:24])
    assert width > 600 and height > 400
    (tmp_path / "paper.png").write_bytes(png)


@pytest.mark.browser
def test_browser_flow_picture_links_to_rules(driver, live):
    from selenium.webdriver.common.by import By

    driver.get(live + "/?q=" + quote(TABULAR))
    svg = wait_for(driver, "figure.flow svg")
    assert svg.size["width"] > 300 and svg.size["height"] > 50
    boxes = driver.find_elements(By.CSS_SELECTOR, "figure.flow g.box")
    assert {b.get_attribute("class").split()[-1] for b in boxes} == {"constraint", "rule", "choice"}
    assert driver.find_elements(By.CSS_SELECTOR, "figure.flow path.edge.because")
    png = driver.get_screenshot_as_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


@pytest.mark.browser
def test_browser_error_is_shown_with_the_caret(driver, live):
    driver.get(live + "/?q=" + quote("recommend architecture where data = tabulr"))
    pre = wait_for(driver, "pre.error-text").text
    page_ready(driver)
    assert "unknown value 'tabulr'" in pre or "tabulr" in pre
    assert "^" in pre
    from selenium.webdriver.common.by import By

    hint = driver.find_element(By.CSS_SELECTOR, "p.error-hint")  # wraps within the page at 1280 px
    assert hint.text.startswith("expected: ") and hint.rect["x"] + hint.rect["width"] <= 1280
    link = driver.find_element(By.CSS_SELECTOR, "p.did-you-mean a")
    assert link.text == "tabular"
    follow(driver, link)
    wait_for(driver, "li.result")
    assert "data = tabular" in driver.current_url.replace("+", " ").replace("%3D", "=")


@pytest.mark.browser
def test_browser_runs_no_script_from_the_kb(driver, xss_live):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    for path in ("/?q=" + quote(TABULAR), "/entity/xss-net", "/rule/xss-rule", "/paper/evil2024", "/papers"):
        driver.get(xss_live + path)
        wait_for(driver, "footer")
        for summary in driver.find_elements(By.CSS_SELECTOR, "details.reason summary")[:6]:
            summary.click()
        time.sleep(0.2)
        with pytest.raises(NoAlertPresentException):
            driver.switch_to.alert.text
        assert driver.execute_script("return typeof window.__xss") == "undefined", path
        assert driver.execute_script("return document.scripts.length") == 1
        assert "<script>window.__xss" in driver.find_element(By.TAG_NAME, "body").text, path
    driver.get(xss_live + "/paper/evil2024")
    link = wait_for(driver, "a.ext")
    assert link.get_attribute("href").startswith("https://example.org/x?a=")
    assert driver.execute_script("return typeof window.__xss") == "undefined"


@pytest.mark.browser
def test_browser_plan_leads_with_its_verdict_and_keeps_the_whole_answer_folded(driver, live):
    from selenium.webdriver.common.by import By

    driver.get(live + "/?q=" + quote("plan where params = 7B and hardware = h100 and gpus = 8"))
    wait_for(driver, "h3.headline")
    page_ready(driver)
    fold = driver.find_element(By.CSS_SELECTOR, "details.quantities-fold")
    table = fold.find_element(By.CSS_SELECTOR, "table.quantities")
    assert fold.get_attribute("open") is None and not table.is_displayed()
    assert driver.find_element(By.CSS_SELECTOR, "h3.headline").is_displayed()
    click(driver, fold.find_element(By.TAG_NAME, "summary"))  # one click: every quantity, formula and paper
    assert table.is_displayed() and "hoffmann2022" in table.text


@pytest.mark.browser
def test_browser_no_pick_is_not_shown_as_a_decision(driver, live):
    from selenium.webdriver.common.by import By

    driver.get(live + "/?q=" + quote("recommend fix where symptom = slow convergence"))
    wait_for(driver, "section.answer")
    assert driver.find_elements(By.CSS_SELECTOR, "div.decision") == []  # nothing to decide: no empty strip
    driver.get(live + "/?q=" + quote("recommend architecture where data = tabular"))
    strip = wait_for(driver, "div.decision")
    assert "no-pick" in strip.get_attribute("class") and "No pick yet" in strip.text
    assert strip.value_of_css_property("border-left-color") != "rgba(44, 110, 73, 1)"  # not the pick's green


def test_a_recipe_page_says_whether_it_trains_or_serves(client):
    """The recipe page's context line: training for a method that updates weights (with its
    optimizer), serving for inference (no optimizer named: the KB says inference trains no weight)."""
    serving = client.get("/?q=" + quote("recipe where model = llama-2-7b and method = inference and hardware = h100"))
    training = client.get("/?q=" + quote("recipe where model = llama-2-7b and method = qlora and hardware = rtx-4090"))
    assert serving.status_code == training.status_code == 200
    context = lambda page: page.get_data(as_text=True).split('<div class="recipe-context">')[1].split("</p>")[0]  # noqa: E731
    assert "<strong>Serving</strong>" in context(serving) and "optimizer" not in context(serving)
    assert "<strong>Training</strong>" in context(training) and "optimizer" in context(training)


def test_a_recipe_page_marks_a_value_waiting_for_the_query(client):
    """A setting that holds once the query gives what it waits for (QLoRA's clipping at 0.3, for a
    transformer) shows its condition and what to give, as the text's [give more] does."""
    page = client.get("/?q=" + quote("recipe where method = qlora and params = 7B")).get_data(as_text=True)
    row = page.split("<td>gradient-clipping max norm</td>")[1].split("</tr>")[0]
    assert "if architecture = transformer" in row and '<span class="needs-tag">give architecture</span>' in row
    assert "unsourced-tag" not in row


def test_a_recipe_page_shows_plans_warnings(client):
    """A recipe's plan warning (a sequence longer than the model was trained on) is on the
    recipe page, as on the plan page, not only in the JSON."""
    q = "recipe where model = llama-3-8b and method = lora and hardware = h100 and gpus = 8 and seq-length = 64k"
    page = client.get("/?q=" + quote(q)).get_data(as_text=True)
    context = page.split('<div class="recipe-context">')[1].split("</div>")[0]
    assert '<p class="plan-warning" role="note"><strong>Warning:</strong>' in context
    assert "longer than the 8,192 positions Llama 3 8B was trained with" in context


@pytest.mark.parametrize("query, note", [
    # a number another constraint disagrees with (the page failed on it: the figures are numbers)
    ("recommend approach where params = 13B and hardware = a100 and gpus = 32 and bandwidth = 25Gb/s",
     "hardware = a100 implies bandwidth = 2.039TB/s, which bandwidth = 3.125GB/s does not agree with"),
    ("recommend architecture where data = tabular and task = forecasting",
     "task = forecasting implies data = time-series, which data = tabular does not agree with"),
])
def test_the_page_says_what_another_constraint_implies_as_the_text_does(client, query, note):
    response = client.get("/?q=" + quote(query))
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "cannot be answered" not in page
    assert note in html.unescape(page)


def test_the_page_says_a_tie_at_any_rank_as_the_text_does(client):
    """explain of a choice tied with another but not first (SOAP and Muon for a Mixtral): the page
    names the choice the advice does not separate it from."""
    page = html.unescape(client.get("/?q=" + quote("explain soap where model = mixtral-8x7b")).get_data(as_text=True))
    assert "the advice does not separate it from Muon" in page


def test_the_page_says_what_puts_an_equal_score_above_as_the_text_does(client):
    """explain of a choice ranked below another at the same score (FT-Transformer below its
    family's entry): the page names the entry and the tie-break, with the words of the text."""
    q = "explain ft-transformer where data = tabular and rows = 200k"
    page = html.unescape(client.get("/?q=" + quote(q)).get_data(as_text=True))
    assert "It ranks just below" in page and "Neural tabular models" in page
    assert "a family comes before its members" in page
