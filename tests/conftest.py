"""Shared fixtures: a private snapshot cache per session and the shared reference files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory):
    """Never read or write the user's real cache from tests."""
    path = tmp_path_factory.mktemp("cache")
    old = os.environ.get("RECIPEKG_CACHE_DIR")
    os.environ["RECIPEKG_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("RECIPEKG_CACHE_DIR", None)
    else:
        os.environ["RECIPEKG_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def kb():
    import recipekg

    return recipekg.load()


@pytest.fixture(scope="session")
def snap(kb):
    return kb.snap


@pytest.fixture(scope="session")
def shared():
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} is missing: the tests compare the KB with shared/reference")
    return SHARED


# A valid one-rule extension file; fill "{text}" with the rule text (str.format).
EXTENSION = """\
@prefix rkg:  <https://w3id.org/recipekg/ns#> .
@prefix kb:   <https://w3id.org/recipekg/id/> .
@prefix rule: <https://w3id.org/recipekg/rule/> .
@prefix cond: <https://w3id.org/recipekg/cond/> .
@prefix sec:  <https://w3id.org/recipekg/section/> .
@prefix paper: <https://w3id.org/recipekg/paper/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix prov: <http://www.w3.org/ns/prov#> .

rule:ext-tabular-choice a rkg:Rule ;
    rdfs:label "Extension: tabular data -> LightGBM" ;
    rkg:text "{text}" ;
    rkg:recommends kb:lightgbm ;
    rkg:condition cond:data-tabular ;
    rkg:strength rkg:strong ;
    rkg:section sec:data-scale-thresholds--tabular ;
    prov:wasDerivedFrom paper:grinsztajn2022 .
"""
