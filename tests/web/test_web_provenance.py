"""The web page shows what each source does for a claim, and the claim's caveat: on claim
pages, in the reasons of an answer and on a paper's page."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from recipekg.web.app import create_app
from support import REPO


@pytest.fixture(scope="module")
def client(kb):
    return create_app(kb).test_client()


def test_a_claim_page_shows_roles_and_the_caveat(client):
    page = client.get("/rule/dgx-spark-params-gt-70b-not-recommended").get_data(as_text=True)
    assert 'class="role role-supports"' in page and "the reference&#39;s judgement" in page
    assert 'class="caveat"' in page and "65B model on a single 48 GB GPU" in page


def test_a_states_citation_shows_where(client):
    page = client.get("/constant/chinchilla-tokens-per-param").get_data(as_text=True)
    assert "states: Table 3" in page


def test_an_answers_reasons_show_roles_and_caveats(client):
    q = quote("recommend approach where hardware = dgx-spark and params = 80B")
    page = client.get(f"/?q={q}").get_data(as_text=True)
    assert 'class="role role-reference"' in page and 'class="caveat"' in page


def test_a_paper_page_says_what_it_does_for_each_claim(client):
    page = client.get("/paper/kaplan2020").get_data(as_text=True)
    rows = (REPO / "kb" / "citations.tsv").read_text(encoding="utf-8").splitlines()
    claims = {r.split("\t")[0] for r in rows if not r.startswith("#") and "\tpaper:kaplan2020\t" in r}
    assert f"Cited by {len(claims)} claims" in page and len(claims) >= 10
    assert "states: Section 2.1, Table 1" in page and 'class="role role-supports"' in page


def test_an_entity_page_shows_its_sources_roles_and_caveat(client):
    page = client.get("/entity/h100").get_data(as_text=True)
    assert "states: specifications (H100 SXM)" in page and 'class="caveat"' in page


def test_the_papers_page_counts_citations_by_role(client):
    page = client.get("/papers").get_data(as_text=True)
    assert "<th>as</th>" in page and re.search(r"\d+ reference", page) and re.search(r"\d+ states", page)
