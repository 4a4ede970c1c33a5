"""The plan page (verdict first, the memory bar, the layout), reasons in human text, the
reasoning picture's labels, the front page's examples and the decision-tree map: Flask
test-client checks, then real-browser checks (Debian's chromium) that save screenshots."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import quote, unquote_plus, urlsplit

import pytest

from recipekg.query.parser import parse
from recipekg.web.app import create_app

PLANS = [
    "plan where params = 7B and hardware = h100 and gpus = 8",           # fits
    "plan where params = 70B and hardware = a100 and gpus = 2",          # does not fit
    "plan where params = 70B and hardware = h100 and gpus = 64 and zero = 3",
    "plan where params = 13B and hardware = a100 and gpus = 16 and zero = 2 and tensor-parallel = 2",
    "plan where params = 1B and hardware = a100 and gpus = 1 and zero = 0 and recompute = full",
]
PICTURES = [
    "recommend architecture where data = tabular and rows = 30k",
    "recommend architecture where data = images and images between 10k and 50k top 3",
    "recommend architecture where data = images and samples = 5k top 5",
    "recommend architecture where data = video and samples = 2M",
    "recommend architecture where data = time-series and samples = 5k",
    "recommend optimizer where prefer = low-memory",
    "recommend fix where symptom = loss-spike",
    "recommend approach where gpus = 1 and time < 1 day",
    "explain vit where data = images and samples = 3000",
]


@pytest.fixture(scope="module")
def client(kb):
    return create_app(kb).test_client()


def page(client, q: str | None = None, url: str | None = None) -> str:
    response = client.get(url or "/?q=" + quote(q))
    assert response.status_code == 200, response.data[:300]
    return response.get_data(as_text=True)


def answer(kb, q: str) -> dict:
    (a,) = kb.query(q)
    return a


class Tree(HTMLParser):
    """Elements by class with their attributes and text: enough to read the pages' parts."""

    def __init__(self):
        super().__init__()
        self.stack: list[dict] = []
        self.elements: list[dict] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        el = {"tag": tag, "attrs": dict(attrs), "text": "", "class": (dict(attrs).get("class") or "").split(),
              "children": []}
        if self.stack:
            self.stack[-1]["children"].append(el)
        self.elements.append(el)
        if tag not in ("rect", "path", "line", "input", "link", "meta", "br", "img"):
            self.stack.append(el)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        for el in self.stack:
            el["text"] += data
        if not any(el["tag"] in ("script", "style", "title", "textarea") for el in self.stack):
            self.text.append(data)

    def find(self, tag: str | None = None, cls: str | None = None) -> list[dict]:
        return [e for e in self.elements if (tag is None or e["tag"] == tag) and (cls is None or cls in e["class"])]


def tree(html: str) -> Tree:
    t = Tree()
    t.feed(html)
    return t


def quantity(a: dict, name: str) -> dict:
    return next(q for q in a["quantities"] if q["name"] == name)


def numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


# ---------------------------------------------------------------------- the plan page

@pytest.mark.parametrize("q", PLANS)
def test_plan_page_leads_with_the_verdict(client, kb, q):
    html, a = page(client, q), answer(kb, q)
    order = [html.find(marker) for marker in
             ('class="plan-verdict', 'class="memory-bar"', 'class="layout-head"', "Quantities and their sources",
              'class="plan-text"')]
    assert -1 not in order and order == sorted(order), order
    verdict = tree(html).find("div", "plan-verdict")[0]
    headline = verdict["children"][0]["text"]
    fit = a["fit"]
    assert headline.startswith("Fits on" if fit["fits"] else "Does not fit on")
    assert f"{int(fit['gpus']):,} × {fit['hardware']['label']}" in headline
    assert ("fits" in verdict["class"]) == fit["fits"]


@pytest.mark.parametrize("q", PLANS[:2])
def test_the_verdict_says_how_long_with_the_mfu_range(client, kb, q):
    verdict = tree(page(client, q)).find("div", "plan-verdict")[0]["text"]
    a = answer(kb, q)
    hours, mfu = quantity(a, "gpu_hours"), quantity(a, "mfu")
    shown = numbers(verdict[verdict.index("How long"):verdict.index("GPU-hours")])
    assert shown[0] == pytest.approx(hours["low"], rel=5e-3) and shown[1] == pytest.approx(hours["high"], rel=5e-3)
    low, high = re.search(r"MFU of ([\d.]+)%–([\d.]+)%", verdict).groups()
    assert float(low) / 100 == pytest.approx(mfu["low"], rel=5e-3)
    assert float(high) / 100 == pytest.approx(mfu["high"], rel=5e-3)
    assert "wall-clock" in verdict


def test_the_verdict_says_what_attention_the_time_counts(client, kb):
    """At 32,768 tokens the attention's FLOPs outweigh 6·N·D (formula:training-attention-flops):
    the verdict says what it counted, the exact sequence and the share of the model FLOPs."""
    q = ("plan where model = llama-2-7b and method = lora and tokens = 2B and seq-length = 32768 "
         "and hardware = a100 and gpus = 8")
    verdict = tree(page(client, q)).find("div", "plan-verdict")[0]["text"]
    a = answer(kb, q)
    attention, flops = quantity(a, "attention_flops")["value"], quantity(a, "flops")["value"]
    line = verdict[verdict.index("Counted: the attention's"):]
    assert "32,768 tokens" in line and f"{attention / (attention + flops):.0%} of the model FLOPs" in line
    assert numbers(line)[0] == pytest.approx(float(f"{attention:.3g}") / 1e20, rel=1e-3)


@pytest.mark.parametrize("q, head", [
    ("plan where params = 3B and hardware = h100 and gpus = 8 and time = 5 days", "May miss the time budget"),
    ("plan where params = 7B and hardware = h100 and gpus = 8 and time = 1 week", "Misses the time budget"),
])
def test_the_budget_line_says_may_miss_where_the_mfu_range_straddles_it(client, kb, q, head):
    """The page's budget line agrees with the answer: 'may miss' with the MFU that meets it
    when the published MFUs' range straddles the budget, 'misses' when every MFU misses it."""
    (line,) = tree(page(client, q)).find("p", "budget-missed")
    assert line["text"].startswith(head + ":") and line["text"].count("may miss") == ("May" in head)
    assert ("mfu_for_time" in answer(kb, q)["feasibility"]) == ("May" in head)


def test_an_inference_plan_says_how_fast_it_decodes_not_how_long_training_takes(client, kb):
    q = "plan where params = 70B and method = inference and hardware = h100 and precision = int4"
    verdict = tree(page(client, q)).find("div", "plan-verdict")[0]["text"]
    decode = quantity(answer(kb, q), "decode_tokens_per_second")
    assert "How fast" in verdict and "How long" not in verdict and "GPU-hours" not in verdict
    assert numbers(verdict[verdict.index("How fast"):])[0] == pytest.approx(decode["value"], rel=5e-3)


def test_what_to_change_links_plans_that_fit(client, kb):
    """Verdict, bar and remedies agree (issue 22): every remedy said to be enough links a plan
    that fits, the more-GPUs one on the GPUs the verdict names, the cheap knobs before it."""
    q = PLANS[1]
    a = answer(kb, q)
    assert a["fit"]["fits"] is False and a["fit"]["gpus_needed"]
    saves = tree(page(client, q)).find("li", "saving")
    assert [s["attrs"]["data-id"] for s in saves] == [r["id"] for r in a["recommendations"]]
    for s, r in zip(saves, a["recommendations"]):
        link = next((e for e in Tree.walk(s) if e["tag"] == "a"), None)
        if not (r["enough"] and link is not None):
            continue
        asked = unquote_plus(urlsplit(link["attrs"]["href"]).query.removeprefix("q="))
        other = answer(kb, asked)
        assert other["fit"]["fits"] is True, (r["id"], asked)
        if r["id"] == "more-gpus":
            assert other["fit"]["gpus"] == a["fit"]["gpus_needed"]
        assert float(s["attrs"]["data-bytes"]) <= a["fit"]["memory_per_gpu"]["low"]   # its leanest layout fits
    ids = [r["id"] for r in a["recommendations"]]
    assert ids.index("more-gpus") > max((ids.index(k) for k in ("seq-length", "micro-batch", "lora-rank")
                                         if k in ids), default=-1)


@pytest.mark.parametrize("q", PLANS)
def test_the_bar_segments_add_up_to_the_memory_per_gpu(client, kb, q):
    a = answer(kb, q)
    need, cap = quantity(a, "memory_per_gpu")["value"], a["fit"]["memory_per_gpu"]["low"]
    t = tree(page(client, q))
    segments = t.find("rect", "seg")
    parts = quantity(a, "memory_per_gpu")["per_gpu_parts"]
    assert [s["class"][1] for s in segments] == [f"seg-{p['name']}" for p in parts]
    assert [p["name"] for p in parts][:5] == ["weights", "gradients", "master_weights", "optimizer_states",
                                              "activations"] and parts[-1]["name"] == "headroom"
    assert sum(float(s["attrs"]["data-bytes"]) for s in segments) == pytest.approx(need, rel=1e-9)
    widths = [float(s["attrs"]["width"]) for s in segments]
    assert sum(widths) == pytest.approx(1000 * need / max(need, cap), abs=0.05)
    xs = [float(s["attrs"]["x"]) for s in segments]
    assert all(abs(x - (prev_x + prev_w)) < 0.02 for x, prev_x, prev_w in zip(xs[1:], xs, widths))  # stacked
    line = t.find("line", "capacity")[0]
    assert float(line["attrs"]["x1"]) == pytest.approx(1000 * cap / max(need, cap), abs=0.01)
    total = t.find("tr", "total")[0]
    assert float(total["attrs"]["data-bytes"]) == pytest.approx(need)


@pytest.mark.parametrize("q", PLANS)
def test_the_parts_per_gpu_follow_the_layouts_zero_stage(kb, q):
    """The model states' parts add up to the model states per GPU of the ZeRO formula used."""
    a = answer(kb, q)
    parts = {p["name"]: p["value"] for p in quantity(a, "memory_per_gpu")["per_gpu_parts"]}
    states = quantity(a, "model_states_per_gpu")["value"]
    beside = ("activations", "rebuilt_layer", "logits", "buffers", "headroom")  # besides the model states
    assert sum(v for k, v in parts.items() if k not in beside) == pytest.approx(states, rel=1e-9)
    if a["fit"]["bounding_stage"] == "last":    # the last stage's layers: one micro-batch of its L/p
        layout = a["fit"]["layout"] or a["fit"]["leanest_layout"]
        assert parts["activations"] == pytest.approx(quantity(a, "activations")["value"] / layout["pipeline_parallel"])
    else:
        assert parts["activations"] == pytest.approx(quantity(a, "activations")["value"], rel=1e-9)
    layout = a["fit"]["layout"] or a["fit"]["leanest_layout"]
    whole = {k: quantity(a, k)["value"] for k in ("weights", "gradients", "master_weights", "optimizer_states")}
    model = layout["tensor_parallel"] * layout["pipeline_parallel"]
    dp = layout["data_parallel"]
    sharded = {0: (), 1: ("master_weights", "optimizer_states"),
               2: ("gradients", "master_weights", "optimizer_states"),
               3: ("weights", "gradients", "master_weights", "optimizer_states")}[layout["zero"]]
    for k, v in whole.items():  # ZeRO, Section 5.1: stage n shards these states over data parallelism
        assert parts[k] == pytest.approx(v / model / (dp if k in sharded else 1), rel=1e-9), k


def test_the_bar_has_a_text_equivalent(client, kb):
    q = PLANS[0]
    t = tree(page(client, q))
    svg = t.find("figure", "memory-bar")[0]["children"][1]
    assert svg["tag"] == "svg" and svg["attrs"]["role"] == "img"
    label = svg["attrs"]["aria-label"]
    parts = quantity(answer(kb, q), "memory_per_gpu")["per_gpu_parts"]
    for p in parts:
        assert p["label"] in label
    rows = t.find("tr", "part")
    assert [r["attrs"]["data-part"] for r in rows] == [p["name"] for p in parts]
    for row, p in zip(rows, parts):     # each part links the KB formula it comes from
        assert f"/formula/{p['formula']}" in {e["attrs"].get("href") for e in Tree.walk(row)}
    assert all(re.search(r"\d", r["text"]) and "GB" in r["text"] for r in rows)


def test_the_layout_table_shows_the_layout_found(client, kb):
    q = PLANS[2]
    layout = answer(kb, q)["fit"]["layout"]
    t = tree(page(client, q))
    rows = {r["children"][0]["text"]: r["children"][1]["text"] for r in t.find("table", "layout")[0]["children"][0]["children"]}
    assert rows["ZeRO stage"] == str(layout["zero"]) == "3"
    assert rows["data parallel"] == str(layout["data_parallel"])
    assert rows["tensor parallel"] == str(layout["tensor_parallel"])
    assert rows["micro-batch"] == str(layout["micro_batch"])
    assert rows["recomputation"].startswith(layout["recompute"])


def test_a_plan_without_hardware_says_what_to_give(client):
    t = tree(page(client, "plan where params = 7B"))
    verdict = t.find("div", "plan-verdict")[0]
    assert "unknown" in verdict["class"] and "hardware" in verdict["text"]
    assert not t.find("figure", "memory-bar")


@pytest.mark.parametrize("q", ["plan where params = 7B and hardware = h100 and gpus = 8 and tensor-parallel = 3",
                               "plan where params = 7B and hardware = h100 and time = 7 days",
                               "plan where params = 7B and hardware = dgx-spark"])
def test_the_verdict_carries_the_warnings_the_budget_and_why_time_is_missing(client, kb, q):
    a = answer(kb, q)
    verdict = tree(page(client, q)).find("div", "plan-verdict")[0]["text"]
    squash = " ".join(verdict.split())
    for w in a["warnings"]:
        assert w["text"] in squash
    hours, need = quantity(a, "gpu_hours"), next((x for x in a["quantities"] if x["name"] == "gpus_needed"), None)
    if hours["value"] is None:
        assert hours["missing"][1:] in squash
    if need:
        shown = numbers(squash[squash.index("within the time given"):])
        assert shown[:2] == [pytest.approx(need["low"], rel=0.02), pytest.approx(need["high"], rel=0.02)]
    for x in a["feasibility"]["rules"]:
        assert x["text"] in squash
    assert a["warnings"] or hours["value"] is None or need


# ---------------------------------------------------------------------- human text, labels

@pytest.mark.parametrize("q", PICTURES + PLANS[:2])
def test_reasons_read_as_human_text(client, kb, q):
    t = tree(page(client, q))
    visible = "".join(t.text)
    assert "->" not in visible
    a = answer(kb, q)
    reasons = {x["id"] for r in a.get("results", []) for x in r["because"] + r["against"]}
    reasons |= {x["id"] for x in a.get("rules", [])}
    for summary in t.find("summary"):
        for rid in reasons:
            assert not re.search(rf"\b{re.escape(rid)}\b", summary["text"]), (rid, summary["text"])


@pytest.mark.parametrize("q", PICTURES)
def test_picture_labels_are_whole_and_never_read_the_same(client, kb, q):
    t = tree(page(client, q))
    a = answer(kb, q)
    rule_labels = {x["id"]: (x["label"] or x["text"]).replace(" -> ", " → ")
                   for r in a.get("results", []) for x in r["because"] + r["against"]}
    rule_labels |= {x["id"]: (x["label"] or x["text"]).replace(" -> ", " → ") for x in a.get("rules", [])}
    boxes = t.find("g", "box")
    assert boxes
    seen: dict[str, set] = {}
    for g in boxes:
        kind = g["class"][1]
        lines = [c["text"] for c in g["children"] if c["tag"] == "text" for c in c["children"] if c["tag"] == "tspan"]
        visible = " ".join(lines)
        assert "…" not in visible
        if kind == "rule":
            href = next(e for e in t.elements if g in e["children"])["attrs"]["href"]
            assert visible == rule_labels[href.rsplit("/", 1)[1]]  # the whole label, in order
        assert visible not in seen.setdefault(kind, set()), f"two {kind} boxes read {visible!r}"
        seen[kind].add(visible)


def test_labels_alike_but_for_their_end_read_differently_in_the_picture(tmp_path):
    """Two rules whose labels differ only after the first 60 characters (a cut label would
    read the same) get boxes that read differently, each with its whole label."""
    import recipekg
    from support import EXTENSION

    common = "Extension: tabular data with many categorical columns and few rows"
    one = EXTENSION.format(text="Trees win on small tables.").replace(
        "Extension: tabular data -> LightGBM", common + " -> LightGBM")
    two = one[one.index("rule:ext-tabular-choice"):].replace("ext-tabular-choice", "ext-tabular-twin").replace(
        "kb:lightgbm", "kb:xgboost").replace("-> LightGBM", "-> XGBoost")
    path = tmp_path / "twins.ttl"
    path.write_text(one + two, encoding="utf-8")
    client = create_app(recipekg.load(extensions=[path])).test_client()
    t = tree(page(client, "recommend architecture where data = tabular and rows = 30k"))
    rules = [" ".join(c["text"] for c in Tree.walk(g) if c["tag"] == "tspan") for g in t.find("g", "rule")]
    assert {common + " → LightGBM", common + " → XGBoost"} <= set(rules), rules


# ---------------------------------------------------------------------- the front page

def test_the_front_page_has_an_example_of_every_statement(client, kb, snap):
    t = tree(page(client, url="/"))
    queries = [unquote_plus(urlsplit(e["attrs"]["href"]).query.removeprefix("q="))
               for e in t.find("a") if e["attrs"].get("href", "").startswith("/?q=")]
    statements = [s for q in queries for s in parse(q)]
    assert {type(s).__name__.lower() for s in statements} == {"recommend", "explain", "plan", "recipe"}
    assert {s.kind.text for s in statements if type(s).__name__ == "Recommend"} == set(snap["kinds"])
    for q in queries:
        html = page(client, q)
        assert 'class="error"' not in html, q
    assert any(e["attrs"].get("href") == "/map" for e in t.find("a"))


# ---------------------------------------------------------------------- the decision-tree map

def test_the_map_links_resolve_and_cover_every_data_type(client, snap):
    html = page(client, url="/map")
    t = tree(html)
    hrefs = {e["attrs"]["href"] for e in t.find("a") if e["attrs"].get("href", "").startswith("/")}
    assert len(hrefs) > 50
    broken = [h for h in sorted(hrefs) if client.get(h).status_code != 200]
    assert not broken
    asks = [e["attrs"]["href"] for e in t.find("a", "ask")]
    assert len(asks) == len([b for b in t.find("section", "tree-branch") if not b["attrs"]["id"].startswith("any-")])
    for h in asks:                       # each branch's question is answered, with a pick or a question
        html = client.get(h).get_data(as_text=True)
        assert 'class="error"' not in html and 'class="result"' in html, h
    branches = {s["attrs"]["id"] for s in t.find("section", "tree-branch")}
    data_rules = {c["values"][0] for r in snap["rules"].values() for c in map(snap["conditions"].get, r["conditions"])
                  if c and c["dimension"] == "data"}
    narrow = {snap["nodes"][v]["id"] for v in data_rules if not any(
        v in snap["nodes"][o].get("ancestors", []) for o in data_rules)}
    assert {f"data-{n}" for n in narrow} <= branches
    assert {f"tier-{snap['nodes'][t]['id']}" for t in snap["tiers"]} <= branches


def test_the_map_holds_every_rule_and_its_choices(client, snap):
    t = tree(page(client, url="/map"))
    shown = {li["attrs"]["data-rule"]: li for li in t.find("li", "tree-rule")}
    assert set(shown) == {r["id"] for r in snap["rules"].values()}
    for rule in snap["rules"].values():
        links = {e["attrs"]["href"] for e in Tree.walk(shown[rule["id"]]) if e["tag"] == "a"}
        assert f"/rule/{rule['id']}" in links
        for iri in rule["recommends"]:
            node = snap["nodes"].get(iri)
            if node:
                assert node["label"] in shown[rule["id"]]["text"]


def _walk(el: dict):
    yield el
    for c in el["children"]:
        yield from _walk(c)


Tree.walk = staticmethod(_walk)


# ---------------------------------------------------------------------- a real browser

def no_console_errors(d):
    """Nothing the page did broke the Content-Security-Policy or failed (Chromium's console)."""
    severe = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe


def screenshot(d, path, name: str):
    """A screenshot of the whole page under ``path``; its file name is printed (pytest -s)."""
    d.set_window_size(1280, 800)
    height = d.execute_script("return document.documentElement.scrollHeight")
    d.set_window_size(1280, min(max(height, 800), 5000))
    out = path / f"{name}.png"
    d.save_screenshot(str(out))
    with open(out, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {out}")
    return out


@pytest.mark.browser
@pytest.mark.parametrize("q", PLANS[:2])
def test_browser_plan_page_verdict_bar_layout(chromium_driver, live_server, kb, q, tmp_path_factory):
    from selenium.webdriver.common.by import By

    d = chromium_driver
    d.get(live_server + "/?q=" + quote(q))
    verdict = d.find_element(By.CSS_SELECTOR, ".plan-verdict")
    bar = d.find_element(By.CSS_SELECTOR, "figure.memory-bar svg")
    layout = d.find_element(By.CSS_SELECTOR, "table.layout")
    table = d.find_element(By.CSS_SELECTOR, "table.quantities")
    tops = [e.rect["y"] for e in (verdict, bar, layout, table)]
    assert tops == sorted(tops)
    assert verdict.is_displayed() and verdict.rect["y"] < 600          # seen without scrolling
    a = answer(kb, q)
    need, cap = quantity(a, "memory_per_gpu")["value"], a["fit"]["memory_per_gpu"]["low"]
    segments = d.find_elements(By.CSS_SELECTOR, "figure.memory-bar rect.seg")
    drawn = sum(s.rect["width"] for s in segments)
    assert drawn == pytest.approx(bar.rect["width"] * 1000 / 1008 * need / max(need, cap), rel=0.02)
    colours = {s.value_of_css_property("fill") for s in segments}
    assert len(colours) == len(segments)                                # the stylesheet coloured each part
    no_console_errors(d)
    screenshot(d, tmp_path_factory.mktemp("screens"), "plan-" + ("fits" if a["fit"]["fits"] else "no-fit"))


@pytest.mark.browser
def test_browser_picture_text_stays_inside_its_boxes(chromium_driver, live_server, tmp_path_factory):
    from selenium.webdriver.common.by import By

    d = chromium_driver
    shots = tmp_path_factory.mktemp("screens")
    for i, q in enumerate(PICTURES):
        d.get(live_server + "/?q=" + quote(q))
        overflow = d.execute_script("""
            return Array.from(document.querySelectorAll('figure.flow g.box')).map(function (g) {
              var r = g.querySelector('rect').getBBox(), t = g.querySelector('text').getBBox();
              return [t.x >= r.x, t.x + t.width <= r.x + r.width, t.y >= r.y, t.y + t.height <= r.y + r.height,
                      g.querySelector('text').textContent];
            }).filter(function (x) { return !(x[0] && x[1] && x[2] && x[3]); });""")
        assert not overflow, (q, overflow)
        no_console_errors(d)
        if i in (0, 1, len(PICTURES) - 1):
            d.find_element(By.CSS_SELECTOR, "figure.flow")
            screenshot(d, shots, f"picture-{i}")


@pytest.mark.browser
def test_browser_map_rule_links_open_their_rule(chromium_driver, live_server, snap, tmp_path_factory):
    from selenium.webdriver.common.by import By

    d = chromium_driver
    d.get(live_server + "/map")
    no_console_errors(d)
    screenshot(d, tmp_path_factory.mktemp("screens"), "map")
    d.set_window_size(1280, 1400)
    links = d.find_elements(By.CSS_SELECTOR, "li.tree-rule .rule a")
    assert len(links) >= len(snap["rules"])
    first = links[0]
    label, href = first.text, first.get_attribute("href")
    first.click()
    assert d.current_url == href
    assert d.find_element(By.TAG_NAME, "h1").text == label


def test_the_page_shows_the_whole_situation(client, kb):
    """Not used, near a threshold (with the literature's threshold), ruled out with the
    property and its sources, a family with its members: what the JSON says, on the page."""
    q = "recommend optimizer where batch-size = 30k and precision = bf16"
    t = tree(page(client, q))
    visible = " ".join("".join(t.text).split())
    a = answer(kb, q)
    assert "Not used: precision = bf16" in visible and a["unused"][0]["why"] in visible
    near = a["near_boundary"][0]
    assert "Near a threshold:" in visible and " ".join(near["text"].split()) in visible
    assert "Elsewhere placed at 8192" in visible
    assert "Layer-wise adaptive optimizers (LAMB, LARS)" in visible
    q = "recommend architecture where data = text and task = classification and seq-length = 32k"
    visible = " ".join("".join(tree(page(client, q)).text).split())
    assert "Ruled out by their properties" in visible
    assert "BERT: seq-length = 32k contradicts its longest input: 512 tokens" in visible
    assert "devlin2018" in visible and "Appendix A.2" in visible


@pytest.mark.parametrize("q", [
    "plan where model = llama-3-8b and seq-length = 32k and gpus = 8 and hardware = h100 and pipeline-parallel = 2",
    "recommend technique where params = 70B and gpus = 1 and hardware = a100-80gb",
    "recommend optimizer where symptom = loss-spike",   # (optimizer advice reads no symptom: not used)
])
def test_a_sentence_on_the_page_ends_with_one_full_stop(client, q):
    """A warning, a verdict or an unused constraint's why that ends with a full stop of its own
    gets no second one from the page (``sentence``)."""
    html = client.get("/?q=" + quote(q)).get_data(as_text=True)
    assert "..</" not in html and "..<a" not in html and ". ." not in html
    assert re.search(r"(Warning|Not used|Memory shortfall|Memory):</strong>", html), q


def test_a_decode_rate_over_several_sequences_says_it_is_their_sum(client, kb):
    """32 sequences decoded at once: the rate shown is their sum, and each one's is said (one
    token per sequence per step: the inverse of a step's time), in the text and on the page."""
    q = "plan where model = llama-3-8b and method = inference and hardware = h100 and seq-length = 8k and batch-size = 32"
    a = answer(kb, q)
    step = quantity(a, "decode_seconds_per_token")["value"]
    assert quantity(a, "decode_tokens_per_second")["value"] == pytest.approx(32 / step, rel=1e-3)
    line = next(x for x in a["summary"] if x.startswith("serving:"))
    assert "in all" in line and "for each of 32 sequences at once" in line
    verdict = tree(page(client, q)).find("div", "plan-verdict")[0]["text"]
    assert "for each of 32 sequences at once" in verdict
    assert numbers(verdict[verdict.index("in all"):])[0] == pytest.approx(1 / step, rel=5e-3)
    single = answer(kb, "plan where model = llama-3-8b and method = inference and hardware = h100")
    assert not any("in all" in x for x in single["summary"])


def test_no_pick_says_why_as_the_text_answer_does(client):
    """Every choice decided advised against reads as the text answer reads it, not as "no rule
    decides" (a 70B full fine-tune on 8 A100s: every approach the constraints decide is advised
    against, and the memory shortfall follows)."""
    html = client.get("/", query_string={"q": "recommend approach where model = llama-3-70b and method = "
                                              "full-fine-tune and hardware = a100 and gpus = 8"}).get_data(as_text=True)
    assert "No pick: the reference advises against every choice these constraints decide." in html
    assert "No pick yet" not in html and "Memory shortfall:" in html
