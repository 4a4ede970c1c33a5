"""The answer pages' repeated pieces built in Python (recipekg/web/fragments.py): every KB or
user text escaped as the templates' autoescaping does, and what is kept between pages (a
paper's line, a source's line) kept per script root and never for an extension's source."""

from __future__ import annotations

import pytest

from recipekg.web import fragments
from recipekg.web.app import create_app

EVIL = "<script>alert(1)</script>&\"'"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#34;&#39;"


@pytest.fixture(scope="module")
def app(kb):
    return create_app(kb)


def _reason(**changes) -> dict:
    x = {"id": "r1", "strength": "strong", "match": "full", "label": "a -> b", "text": "t",
         "section": "S", "conditions": [{"status": "not given", "condition": "c"}],
         "sources": [{"id": "hoffmann2022", "role": "states", "where": "Table 3"}]}
    return dict(x, **changes)


def test_every_text_of_a_reason_is_escaped(app):
    x = _reason(id=EVIL, strength=EVIL, match=EVIL, via={"label": EVIL}, label=EVIL, text=EVIL, section=EVIL,
                near={"dimension": EVIL, "value": 3, "threshold": 5}, caveat=EVIL,
                conditions=[{"status": EVIL, "condition": EVIL}],
                sources=[{"id": "hoffmann2022", "role": EVIL, "where": EVIL}],
                disputed_by=[{"id": EVIL, "text": EVIL, "section": EVIL}, {"id": "d", "text": EVIL, "origin": {"file": EVIL, "line": 1}}])
    with app.test_request_context("/"):
        html = str(app.jinja_env.globals["reason"](x, EVIL))
    assert "<script>" not in html and html.count(ESCAPED) >= 12
    assert 'class="status-&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#34;&#39;"' in html  # no space left to replace


def test_the_other_fragments_escape_too(app):
    g = app.jinja_env.globals
    with app.test_request_context("/"):
        pieces = [g["choice_link"]("nope", EVIL), g["claim_link"]("rule", "r", EVIL), g["caveat"](EVIL),
                  g["source_role"]({"role": EVIL}), g["origin"]({"origin": {"file": EVIL, "line": EVIL}}),
                  g["copy_box"]("b", EVIL, EVIL), g["quantity_rows"]([{"name": EVIL, "value": EVIL, "table": EVIL,
                                                                      "derivation": EVIL, "expression": EVIL,
                                                                      "section": EVIL, "sources": [EVIL]}])]
    for piece in map(str, pieces):
        assert "<script>" not in piece and ESCAPED in piece


def test_a_bundled_exclusion_an_extension_brought_says_so(app):
    """A choice ranked only for an extension's rules and ruled out by a bundled property: the
    page names the extension as what ranked it, not as the property's source (escaped too)."""
    g = app.jinja_env.globals
    with app.test_request_context("/"):
        theirs = str(g["origin"]({"origin": {"file": EVIL, "line": 3}, "ranked_for_extension": True}))
        own = str(g["origin"]({"origin": {"file": "t.ttl", "line": 3}}))
    assert "ranked here for the rules of the extension" in theirs and "not the reference" not in theirs
    assert "<script>" not in theirs and ESCAPED in theirs
    assert "not the reference" in own


def test_a_source_line_is_kept_per_script_root(app):
    with app.test_request_context("/"):
        top = str(app.jinja_env.globals["reason"](_reason(), "because"))
    with app.test_request_context("/", base_url="http://localhost/kg/"):
        under = str(app.jinja_env.globals["reason"](_reason(), "because"))
    assert 'href="/paper/hoffmann2022"' in top and 'href="/kg/paper/hoffmann2022"' in under
    assert 'href="/paper/' not in under and "states: Table 3" in under


def test_an_extension_s_source_shows_its_own_origin_every_time(app):
    shown = []
    with app.test_request_context("/"):
        for file in ("a.ttl", "b.ttl"):
            source = {"id": "hoffmann2022", "role": "states", "where": "Table 3", "origin": {"file": file, "line": 7}}
            shown.append(str(app.jinja_env.globals["reason"](_reason(sources=[source]), "because")))
            shown.append(str(app.jinja_env.globals["quantity_rows"]([{"name": "q", "value": 1, "sources": [source]}])))
    assert all("a.ttl, line 7" in s for s in shown[:2]) and all("b.ttl, line 7" in s for s in shown[2:])


def test_the_source_lines_kept_are_bounded(kb, monkeypatch):
    monkeypatch.setattr(fragments, "SOURCES_KEPT", 3)
    app = create_app(kb)
    with app.test_request_context("/"):
        rows = [{"name": "q", "value": 1, "sources": [{"id": f"p{i}", "role": "states", "where": str(i)}]} for i in range(10)]
        html = str(app.jinja_env.globals["quantity_rows"](rows))
    assert all(f'href="/paper/p{i}">p{i}</a>' in html and f"(states: {i})" in html for i in range(10))
    assert len(app.jinja_env.globals["reason"].__self__._sources) == 3
