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
