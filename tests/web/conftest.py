"""Browser fixtures for the web tests outside test_web.py: a headless Debian chromium
(``chromium_driver``) and the app served on a free loopback port (``live_server``)."""

from __future__ import annotations

import shutil
import threading

import pytest

from web.browser import start_chromium


@pytest.fixture(scope="module")
def chromium_driver():
    driver, profile = start_chromium()
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def live_server(kb):
    from werkzeug.serving import make_server

    from recipekg.web.app import create_app

    server = make_server("127.0.0.1", 0, create_app(kb), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
