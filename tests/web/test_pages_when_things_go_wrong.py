"""The pages when something is not as in the usual walk-through (issue 19's audit): a refresh
refused, a game that is not there, a private or imported game's record, a record of another
game, a page without its scripts, a long name on a phone, a table still waiting for people.
Headless Chromium on a real gunicorn and worker, as tests/web/test_pages.py."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import ElementNotInteractableException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.conftest import free_port
from tests.e2e.conftest import Http, download, server_env, start_api, stop_all, wait_for
from tests.web.conftest import proxy, screenshot
from tests.web.test_pages import (
    _click_a_move,
    before_each_page,
    create,
    dataset,
    finished_bot_game,
    register,
    use_key,
    wait,
)


def play_out(player: Http, game_id: str, seconds: float = 120) -> None:
    """The player's seat plays random legal moves (through the API) until the game ends."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        game = player.call("GET", f"/v1/games/{game_id}")[1]
        if game["status"] == "ended":
            return
        mine = [seat for seat in game["your_seats"] if seat in game["actors"]]
        if game["status"] == "active" and mine:
            listed = player.call("GET", f"/v1/games/{game_id}/moves?seat={mine[0]}")[1]
            player.call("POST", f"/v1/games/{game_id}/moves", {
                "expected_version": listed["version"], "seat": mine[0],
                "moves": [{"id": random.choice(listed["moves"])["id"]}]})
            continue
        time.sleep(0.05)
    raise AssertionError(f"the game {game_id} did not end in {seconds:.0f}s")


def text(browser: WebDriver, element_id: str) -> str:
    return str(browser.find_element(By.ID, element_id).text)


def verdict(browser: WebDriver) -> str:
    """The replay's verdict once it has one: ok, failed or unavailable."""
    wait(browser, lambda b: dataset(b, "replay", "verified") is not None, seconds=60)
    return str(dataset(browser, "replay", "verified"))


# A problem answer made in the page, as the API words it.
PROBLEM = r"""
    const problem = (status, code, detail) => new Response(
        JSON.stringify({ type: 'about:blank', title: code, status, code, detail }),
        { status, headers: { 'Content-Type': 'application/problem+json',
                             'Retry-After': '1' } });"""

# Every GET of the API but the stream answered 429 (Retry-After: 1) for arguments[0] ms.
REFUSE_READS = PROBLEM + r"""
    const until = Date.now() + arguments[0];
    const original = window.fetch;
    window.refused = 0;
    window.fetch = async (...args) => {
        const url = String(args[0]);
        const method = (args[1] && args[1].method) || 'GET';
        if (Date.now() < until && method === 'GET' && url.includes('/v1/') &&
                !url.includes('/stream')) {
            window.refused += 1;
            return problem(429, 'rate_limited', '300 per 1 minute');
        }
        return original(...args);
    };"""

# The game's record answered 503, as an archive that cannot be read is.
RECORD_UNAVAILABLE = PROBLEM + r"""
    const original = window.fetch;
    window.fetch = async (...args) => String(args[0]).endsWith('/record')
        ? problem(503, 'archive_unavailable', 'the archive cannot be read')
        : original(...args);"""


def enabled_buttons(browser: WebDriver) -> int:
    return int(browser.execute_script(
        "return document.querySelectorAll('#moves button:not([disabled])').length"))


# --- the table ------------------------------------------------------------------------------


def test_a_players_page_looks_again_after_refused_refreshes(live_server, browser):
    """The move is played, then every read is refused (429) for 4 s, the stream's refresh
    after the bot's answer included: the page tries again after Retry-After, and the player
    has buttons again, the error gone, without reloading."""
    alice = register(live_server, "alice")
    game_id = create(alice, "trappist-one", 2, [{"seat": 1, "level": "random"}])
    use_key(browser, live_server, alice.api_key)
    browser.get(f"{live_server}/games/{game_id}")
    wait(browser, enabled_buttons)
    before = int(dataset(browser, "game", "version") or 0)
    browser.execute_script(REFUSE_READS, 4000)
    assert _click_a_move(browser) == "clicked"
    wait(browser, lambda b: "rate_limited" in text(b, "game-error"))
    wait(browser, lambda b: dataset(b, "game", "status") == "ended" or (
        enabled_buttons(b) > 0 and int(dataset(b, "game", "version") or 0) > before
        and text(b, "game-error") == ""), seconds=30)
    assert browser.execute_script("return window.refused") >= 2


def test_a_game_that_is_not_there_says_so_and_is_not_followed(live_server, browser):
    use_key(browser, live_server, None)
    browser.get_log("performance")
    browser.get(f"{live_server}/games/0000000000000000")
    wait(browser, lambda b: dataset(b, "game", "status") == "gone")
    time.sleep(3)  # the old page asked for the stream again every 2 s
    assert "no such game" in text(browser, "game-status")
    assert "game_not_found" in text(browser, "game-error")
    streams = [entry for entry in browser.get_log("performance")
               if '"Network.requestWillBeSent"' in entry["message"]
               and "/stream" in entry["message"]]
    assert streams == []


def test_a_table_waiting_for_people_can_be_joined_from_the_page(live_server, browser):
    alice, bob = register(live_server, "alice"), register(live_server, "bob")
    game_id = create(alice, "trappist-one", 2, [])
    use_key(browser, live_server, None)  # a spectator: no key, no seat to take
    browser.get(f"{live_server}/games/{game_id}")
    wait(browser, lambda b: dataset(b, "game", "status") == "open")
    assert not browser.find_element(By.ID, "join").is_displayed()
    use_key(browser, live_server, alice.api_key)  # seated already
    browser.get(f"{live_server}/games/{game_id}")
    wait(browser, lambda b: dataset(b, "game", "status") == "open")
    assert not browser.find_element(By.ID, "join").is_displayed()

    use_key(browser, live_server, bob.api_key)
    browser.get(f"{live_server}/games/{game_id}")
    wait(browser, lambda b: b.find_element(By.ID, "join").is_displayed())
    screenshot(browser, "table-open-join")
    browser.find_element(By.ID, "join").click()
    wait(browser, lambda b: dataset(b, "game", "status") == "active")
    wait(browser, lambda b: "as bob (seat 1)" in text(b, "game-status"))
    assert not browser.find_element(By.ID, "join").is_displayed()
    game = bob.call("GET", f"/v1/games/{game_id}")[1]
    assert game["your_seats"] == [1] and game["status"] == "active"


def test_a_long_name_fits_a_phone(live_server, browser):
    """A 40-letter name without a space (the API takes it) wraps: the home page and the
    table stay as wide as a 390 px phone."""
    player = register(live_server, "W" * 40)
    game_id = create(player, "trajan", 2, [{"seat": 1, "level": "random"}])
    use_key(browser, live_server, player.api_key)
    browser.set_window_size(390, 844)
    try:
        for path, ready in (("/", None), (f"/games/{game_id}", "version")):
            browser.get(live_server + path)
            if ready:
                wait(browser, lambda b, name=ready: dataset(b, "game", name))
            widths = browser.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            assert widths[0] <= widths[1], (path, widths)
        screenshot(browser, "table-long-name-phone")
    finally:
        browser.set_window_size(1280, 900)


def test_the_key_form_never_puts_the_key_in_an_address(live_server, browser):
    """Without its script the header's key form is not shown and its field has no name: a
    key is never submitted to a page (a GET form put it in the address: history, logs)."""
    key = register(live_server, "alice").api_key
    assert key is not None
    use_key(browser, live_server, None)
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(f"{live_server}/games/0123456789abcdef")
        form = browser.find_element(By.ID, "key-form")
        field = browser.find_element(By.ID, "api-key")
        hidden, name = form.get_dom_attribute("hidden"), field.get_dom_attribute("name")
        with contextlib.suppress(ElementNotInteractableException):  # hidden: not typed into
            field.send_keys(key, Keys.ENTER)
        url = browser.current_url
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    assert hidden is not None and name is None and "mk_" not in url, (hidden, name, url)

    browser.get(f"{live_server}/games/0123456789abcdef")  # with its script: shown, and kept
    wait(browser, lambda b: b.find_element(By.ID, "key-form").is_displayed())
    browser.find_element(By.ID, "api-key").send_keys(key, Keys.ENTER)
    wait(browser, lambda b: b.execute_script(
        "return window.localStorage.getItem('meeple.apiKey')") == key)
    assert "mk_" not in browser.current_url


# --- the replay's verification --------------------------------------------------------------


def test_a_private_games_player_verifies_and_downloads_its_record(live_server, browser):
    alice = register(live_server, "alice")
    status, body, _ = alice.call("POST", "/v1/games", {
        "type": "trappist-one", "seats": 2, "bots": [{"seat": 1, "level": "random"}],
        "public": False})
    assert status == 201, body
    game_id = body["id"]
    play_out(alice, game_id)
    use_key(browser, live_server, alice.api_key)
    browser.get(f"{live_server}/games/{game_id}/replay")
    assert verdict(browser) == "ok", text(browser, "verify-status")
    assert "this game: game " in text(browser, "verify-checks")
    # The download link holds the record's very bytes, fetched with the key.
    browser.set_script_timeout(30)
    downloaded = browser.execute_async_script("""
        const done = arguments[0];
        fetch(document.getElementById('record-link').href).then((r) => r.text()).then(done);""")
    assert downloaded == download(alice, f"/v1/games/{game_id}/record").decode()

    # No record to be had (here a 503): said so, and no verdict either way.
    with before_each_page(browser, RECORD_UNAVAILABLE):
        browser.get(f"{live_server}/games/{game_id}/replay")
        assert verdict(browser) == "unavailable"
        status_text = text(browser, "verify-status")
    assert status_text.startswith("Could not fetch the record (HTTP 503, archive_unavailable)")
    assert "Verification failed" not in status_text and "Verified" not in status_text

    use_key(browser, live_server, None)  # to a stranger, a private game is no game
    browser.get(f"{live_server}/games/{game_id}/replay")
    wait(browser, lambda b: "game_not_found" in text(b, "replay-error"))


@pytest.fixture()
def swapping_proxy(live_server: str) -> Iterator[tuple[str, dict[str, str]]]:
    """A test server in front of the real one that answers GET /v1/games/A/record with game
    B's (genuine, signed) record, for each A: B in the dict it yields; all else as is."""
    swaps: dict[str, str] = {}

    def swapped(path: str) -> str:
        for replayed, other in swaps.items():
            if path == f"/v1/games/{replayed}/record":
                return f"/v1/games/{other}/record"
        return path

    with proxy(live_server, path_to=swapped) as base:
        yield base, swaps


def test_the_replay_refuses_another_games_record(live_server, browser, swapping_proxy):
    replayed = finished_bot_game(live_server, "trappist-one")
    other = finished_bot_game(live_server, "trappist-one")
    base, swaps = swapping_proxy
    swaps[replayed] = other
    use_key(browser, base, None)
    browser.get(f"{base}/games/{replayed}/replay")
    assert verdict(browser) == "failed", text(browser, "verify-status")
    assert text(browser, "verify-status") == (
        f'Verification failed at the record is of game "{other}", not of this game '
        f"({replayed})")
    screenshot(browser, "replay-another-games-record")


@pytest.fixture()
def importing_server(redis_url: str, tmp_path: Path) -> Iterator[Callable[[Path], str]]:
    """Another Meeple (its own keys, its own Redis database) trusting the keys in a file
    (MEEPLE_TRUSTED_KEYS) for imports; called with the file, it answers its address."""
    started: list[Any] = []

    def start(trusted_keys: Path) -> str:
        port = free_port()
        database = redis_url.rsplit("/", 1)[0] + "/5"
        env = server_env(database, database, tmp_path / "other" / "keys", port)
        env["MEEPLE_TRUSTED_KEYS"] = str(trusted_keys)
        started.append(start_api(env))
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/healthz", started[-1])
        return base

    yield start
    stop_all(started)


def test_an_imported_games_record_is_verified_as_signed_by_its_origin(
        live_server, browser, importing_server, tmp_path):
    """Imported from a server whose keys this one trusts: the record's signature is that
    server's key, which this one does not publish as its own; the page says whose it is,
    and that this server checked it against the keys it trusts for imports (not "not
    published by this server", as a forgery is told)."""
    game_id = finished_bot_game(live_server, "trappist-one")
    record = Http(live_server).call("GET", f"/v1/games/{game_id}/record")[1]
    trusted = tmp_path / "trusted.json"
    trusted.write_text(json.dumps(Http(live_server).call("GET", "/v1/keys")[1]))
    other = importing_server(trusted)
    status, body, _ = register(other, "archivist").call("POST", "/v1/records", record)
    assert status == 201, body
    key_id = record["signature"]["key_id"]
    own = [key["id"] for key in Http(other).call("GET", "/v1/keys")[1]["keys"]]
    assert key_id not in own
    use_key(browser, other, None)
    browser.get(f"{other}/games/{game_id}/replay")
    assert verdict(browser) == "ok", text(browser, "verify-status")
    status_text = text(browser, "verify-status")
    assert f"signed by key {key_id} of the server that hosted this game, not one of this " \
           "server's own" in status_text, status_text
    assert "having checked it against the keys its operator trusts for imports" in status_text
    assert dataset(browser, "replay", "imported") == key_id
    screenshot(browser, "replay-imported")
