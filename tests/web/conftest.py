"""A real browser on the pages: headless Chromium (Debian's `chromium` and
`chromium-driver`, which tests/install-system-packages.sh installs) driven by Selenium,
against a real gunicorn and worker (tests/e2e/conftest.py). Each test may write screenshots
to SCREENSHOTS for a person to look at."""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

from tests.conftest import free_port
from tests.e2e.conftest import (  # noqa: F401  (live_server: a fixture, used by the tests here)
    live_server,
    server_env,
    serving,
)

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "var" / "screenshots"


def chromium_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (Path(browser).exists() and Path(driver).exists()):
        pytest.fail("Chromium is missing: install Debian's chromium and chromium-driver "
                    "(tests/install-system-packages.sh does, as root)")
    return browser, driver


@pytest.fixture()
def default_limits_server(redis_url: str, redis_client: Any, events_url: str,
                          tmp_path: Path) -> Iterator[str]:
    """As live_server, but with the API's DEFAULT rate limits (300 requests a minute per
    caller: what `make run` and a deployment have), not the 100,000 that server_env sets."""
    port = free_port()
    env = server_env(redis_url, events_url, tmp_path / "keys", port)
    del env["MEEPLE_RATE_LIMIT"]
    with serving(env, port) as base:
        yield base


@pytest.fixture(scope="session")
def chromium() -> Iterator[webdriver.Chrome]:
    browser, driver = chromium_paths()
    options = Options()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--disable-gpu"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    session.set_page_load_timeout(30)
    # Every page load fetches its assets again: the sizes measured are what a first visit
    # costs, and no answer stored for one key is shown to another.
    session.execute_cdp_cmd("Network.enable", {})
    session.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    yield session
    session.quit()


@pytest.fixture()
def browser(chromium: webdriver.Chrome) -> Iterator[webdriver.Chrome]:
    """The session's browser, with nothing kept from the test before."""
    chromium.get_log("performance")  # drained: a test reads only its own network events
    yield chromium
    chromium.delete_all_cookies()
    if chromium.current_url.startswith("http"):
        chromium.execute_script("window.localStorage.clear(); window.sessionStorage.clear();")


def api_bodies(browser: webdriver.Chrome) -> dict[str, str]:
    """Every API answer the page received since the last call (URL -> body), read through
    the DevTools protocol. A stream still open has no body yet and is left out: its events
    are the ones GET …/events answers (the page fetches those too)."""
    bodies: dict[str, str] = {}
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] != "Network.responseReceived":
            continue
        url = message["params"]["response"]["url"]
        if "/v1/" not in url or "/stream" in url:
            continue
        try:
            body = browser.execute_cdp_cmd("Network.getResponseBody",
                                           {"requestId": message["params"]["requestId"]})
        except WebDriverException:
            continue  # evicted from the browser's buffer, or no body (a 204)
        bodies[url] = body["body"]
    return bodies


def screenshot(browser: webdriver.Chrome, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    browser.save_screenshot(str(path))
    return path


@contextlib.contextmanager
def proxy(upstream: str, path_to: Callable[[str], str] = lambda path: path,
          body_of: Callable[[str, int, bytes], bytes] = lambda path, status, body: body
          ) -> Iterator[str]:
    """A test server in front of `upstream`, until the block ends (its URL): each request
    goes on with its headers, to `path_to(path)`; each answer comes back with
    `body_of(path, status, body)`. What the tests of a page's distrust stand behind."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        path = environ["PATH_INFO"] + ("?" + environ["QUERY_STRING"]
                                       if environ.get("QUERY_STRING") else "")
        request = urllib.request.Request(upstream + path_to(path), headers={
            name[5:].replace("_", "-"): value for name, value in environ.items()
            if name.startswith("HTTP_") and name != "HTTP_HOST"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, headers, body = answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as error:
            status, headers, body = error.code, error.headers, error.read()
        body = body_of(path, status, body)
        start_response(f"{status} X", [("Content-Type", headers["Content-Type"]),
                                       ("Content-Length", str(len(body)))])
        return [body]

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = make_server("127.0.0.1", free_port(), app, handler_class=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
