"""Shared fixtures: a private snapshot cache per session, the KB, the shared reference files;
every JSON answer (or error) of the web app's answer routes that a test client receives
validated against the published schema (``recipekg schema``); the integration markers (``virtuoso``, ``browser``, ``trainers``: always on under ``CI=true``,
opt-in locally with ``--integration``), the first two each kept on one pytest-xdist worker."""

from __future__ import annotations

import os

import pytest

from support import SHARED

INTEGRATION = ("virtuoso", "browser", "trainers")


def pytest_addoption(parser):
    parser.addoption("--integration", action="store_true",
                     help="also run the tests that start a Virtuoso server, drive Chromium or load "
                          "configurations with the trainers' own libraries (always on under CI=true)")


def pytest_configure(config):
    config.addinivalue_line("markers", "virtuoso: starts a private Virtuoso server (integration)")
    config.addinivalue_line("markers", "browser: drives Debian's Chromium with Selenium (integration)")
    config.addinivalue_line("markers", "trainers: reads emitted configurations with DeepSpeed, transformers and "
                                       "PEFT (torch; integration)")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:  # one Virtuoso server and one Chromium per run, on one worker each (--dist loadgroup)
        for name in ("virtuoso", "browser"):
            if item.get_closest_marker(name):
                item.add_marker(pytest.mark.xdist_group(name))
    if os.environ.get("CI") == "true" or config.getoption("--integration"):
        return
    keep, skip = [], []
    for item in items:
        (skip if any(item.get_closest_marker(m) for m in INTEGRATION) else keep).append(item)
    if skip:
        config.hook.pytest_deselected(items=skip)
        items[:] = keep


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


#: The web app's routes that answer statements (``/`` by ``Accept``).
ANSWER_ROUTES = ("/api/query", "/")


@pytest.fixture(autouse=True)
def web_answers_validate(monkeypatch):
    """Every JSON answer (or error) a Flask test client gets from an answer route validates
    against the published schema, in whichever test it is asked for."""
    from flask.testing import FlaskClient

    from support import schema_errors

    real = FlaskClient.open
    broken = []

    def open_and_validate(self, *args, **kwargs):
        response = real(self, *args, **kwargs)
        path = response.request.path if response.request is not None else ""
        if path in ANSWER_ROUTES and response.mimetype == "application/json":
            found = schema_errors(response.get_json())
            if found:
                broken.append((path, response.request.query_string, found[:3]))
        return response

    monkeypatch.setattr(FlaskClient, "open", open_and_validate)
    yield
    assert not broken, broken
