"""Debian's chromium under selenium for the browser tests: found or the test fails under
``CI=true`` (skipped otherwise), started headless with a throwaway profile."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest


def browser_or_fail() -> tuple[str, str]:
    """The chromium and chromedriver binaries, or a failure (CI) / skip saying what is missing."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    missing = [p for p in (chromium, chromedriver) if not os.path.exists(p)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if missing:
        message = (f"browser tests need Debian's chromium and chromium-driver and selenium; missing: {', '.join(missing)} "
                   "(tools/test.sh installs them: apt-get install chromium chromium-driver)")
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return chromium, chromedriver


def start_chromium(window: str = "1280,1400"):
    """A headless chromium driver and its profile folder (remove it after ``driver.quit()``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, chromedriver = browser_or_fail()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="recipekg-chromium-")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", f"--user-data-dir={profile}", f"--window-size={window}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_page_load_timeout(60)
    return driver, profile


def page_ready(driver, timeout: float = 20) -> None:
    """Wait until the page has loaded and, on a page with the query box, its word list
    (``/api/vocab``, fetched by the box's completion) has come and, on an answer page, the side
    panel's list (``/vocab/panel``) is in place: nothing the page fetches changes it after
    that, so an interaction meets the page as a user would see it."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    # a script run while the page navigates is "aborted by navigation": asked again, not failed
    WebDriverWait(driver, timeout, ignored_exceptions=(WebDriverException,)).until(lambda d: d.execute_script(
        "return document.readyState === 'complete' && (!document.getElementById('q-complete')"
        " || performance.getEntriesByType('resource').some(e => e.name.endsWith('/api/vocab') && e.responseEnd > 0))"
        " && !document.querySelector('aside.vocab[data-panel]')"))


def click(driver, element, timeout: float = 20) -> None:
    """Click ``element`` once selenium finds it clickable (displayed and enabled)."""
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(EC.element_to_be_clickable(element))
    element.click()


def follow(driver, link, timeout: float = 20) -> None:
    """Click ``link`` and wait until the page it was on has gone (the click navigated)."""
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from selenium.common.exceptions import WebDriverException

    click(driver, link, timeout)
    WebDriverWait(driver, timeout, ignored_exceptions=(WebDriverException,)).until(EC.staleness_of(link))
    page_ready(driver, timeout)


def submit(driver, box, timeout: float = 20) -> None:
    """Press Enter in the query ``box`` and wait until its page has gone and the answer's page
    is ready (a look at the page while it navigates is aborted, so it is asked again)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    box.send_keys(Keys.ENTER)
    WebDriverWait(driver, timeout, ignored_exceptions=(WebDriverException,)).until(EC.staleness_of(box))
    page_ready(driver, timeout)
