"""A real browser on the pages: headless Chromium (Debian's `chromium` and
`chromium-driver`, which tests/install-system-packages.sh installs) driven by Selenium,
against a real gunicorn and worker (tests/e2e/conftest.py). Each test may write screenshots
to SCREENSHOTS for a person to look at."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

from tests.e2e.conftest import live_server  # noqa: F401  (a fixture, used by the tests here)

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "var" / "screenshots"


def chromium_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (Path(browser).exists() and Path(driver).exists()):
        pytest.fail("Chromium is missing: install Debian's chromium and chromium-driver "
                    "(tests/install-system-packages.sh does, as root)")
    return browser, driver


@pytest.fixture(scope="session")
def chromium() -> Iterator[webdriver.Chrome]:
    browser, driver = chromium_paths()
    options = Options()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--disable-gpu"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    session.set_page_load_timeout(30)
    yield session
    session.quit()


@pytest.fixture()
def browser(chromium: webdriver.Chrome) -> Iterator[webdriver.Chrome]:
    """The session's browser, with nothing kept from the test before."""
    yield chromium
    chromium.delete_all_cookies()
    if chromium.current_url.startswith("http"):
        chromium.execute_script("window.localStorage.clear(); window.sessionStorage.clear();")


def screenshot(browser: webdriver.Chrome, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    browser.save_screenshot(str(path))
    return path
