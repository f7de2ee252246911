"""The pages in a real browser (issue 19): headless Chromium on a real gunicorn and worker.
A spectator watches a bot game move; a player plays a whole game from the buttons; a replay
steps back and forth and verifies its record, and names the first changed event of a
tampered one; a spectator's page holds no seat's secrets. Screenshots go to var/screenshots."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.e2e.conftest import Http
from tests.web.conftest import SCREENSHOTS, api_bodies, proxy, screenshot

TIMINGS = SCREENSHOTS / "timings.json"


def register(base: str, name: str) -> Http:
    status, body, _ = Http(base).call("POST", "/v1/players", {"name": name})
    assert status == 201, body
    return Http(base, body["api_key"])


def create(player: Http, game_type: str, seats: int, bots: list[dict[str, Any]],
           join: bool = True) -> str:
    status, body, _ = player.call("POST", "/v1/games", {
        "type": game_type, "seats": seats, "bots": bots, "join": join})
    assert status == 201, body
    return str(body["id"])


def finished_bot_game(base: str, game_type: str, seconds: float = 120) -> str:
    """A 2-seat game of random bots, played by the worker to its end."""
    host = register(base, "host")
    game_id = create(host, game_type, 2, [{"seat": 0, "level": "random"},
                                          {"seat": 1, "level": "random"}], join=False)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, game, _ = host.call("GET", f"/v1/games/{game_id}")
        if game["status"] == "ended":
            return game_id
        time.sleep(0.2)
    raise AssertionError(f"the bot game {game_id} did not end in {seconds:.0f}s")


def wait(browser: WebDriver, condition: Callable[[WebDriver], Any], seconds: float = 30) -> Any:
    """`condition`'s first truthy value; on a timeout, says what the page showed."""
    try:
        return WebDriverWait(browser, seconds, poll_frequency=0.05).until(condition)
    except TimeoutException:
        raise AssertionError(
            f"not so after {seconds:.0f}s; the page: {page_state(browser)}") from None


def page_state(browser: WebDriver) -> dict[str, Any]:
    """What a failed wait reports: the address, the page's data-* and its status lines."""
    return dict(browser.execute_script("""
        const text = (id) => document.getElementById(id)?.textContent ?? null;
        const data = (id) => ({...(document.getElementById(id)?.dataset ?? {})});
        return {url: location.href, game: data('game'), replay: data('replay'),
                moves: data('moves'), status: text('game-status'), error: text('game-error'),
                buttons: document.querySelectorAll('#moves button:not([disabled])').length};"""))


def dataset(browser: WebDriver, element_id: str, name: str) -> str | None:
    value = browser.execute_script(
        f"return document.getElementById('{element_id}').dataset['{name}'] || null")
    return None if value is None else str(value)


def use_key(browser: WebDriver, base: str, key: str | None) -> None:
    browser.get(base + "/")  # a page of the origin, to reach its localStorage
    if key is None:
        browser.execute_script("window.localStorage.clear()")
    else:
        browser.execute_script("window.localStorage.setItem('meeple.apiKey', arguments[0])", key)
    browser.refresh()  # the page reads it back: the origin's storage has it everywhere
    assert browser.execute_script("return window.localStorage.getItem('meeple.apiKey')") == key


def record_timing(page: str, browser: WebDriver) -> dict[str, float]:
    """The page's first render and the size of its own assets (not the API's answers)."""
    figures = browser.execute_script("""
        const nav = performance.getEntriesByType('navigation')[0];
        const mark = performance.getEntriesByName('meeple:first-render')[0];
        const assets = performance.getEntriesByType('resource')
            .filter((r) => !r.name.includes('/v1/'));
        return {dom_ms: nav.domContentLoadedEventEnd, load_ms: nav.loadEventEnd,
                first_render_ms: mark ? mark.startTime : nav.domContentLoadedEventEnd,
                asset_bytes: nav.encodedBodySize + assets.reduce(
                    (sum, r) => sum + r.encodedBodySize, 0)};""")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    known = json.loads(TIMINGS.read_text()) if TIMINGS.exists() else {}
    known[page] = figures
    TIMINGS.write_text(json.dumps(known, indent=2))
    return dict(figures)


def test_the_home_page_lists_games_and_types_and_opens_a_table(live_server, browser):
    finished = finished_bot_game(live_server, "trappist-one")
    use_key(browser, live_server, None)
    browser.get(live_server + "/")
    assert "Trappist One" in browser.find_element(By.CSS_SELECTOR, "dl.types").text
    finished_list = browser.find_element(By.CSS_SELECTOR, "ul.games[data-status=ended]")
    assert finished in finished_list.get_attribute("innerHTML")
    figures = record_timing("home", browser)
    assert figures["first_render_ms"] < 1000 and figures["asset_bytes"] < 200_000, figures
    screenshot(browser, "home")

    browser.find_element(By.ID, "player-name").send_keys("carol")
    browser.find_element(By.ID, "game-type").send_keys("Trappist One")
    browser.find_element(By.CSS_SELECTOR, "#create-form button[type=submit]").click()
    wait(browser, lambda b: "/games/" in b.current_url)
    wait(browser, lambda b: dataset(b, "game", "status") == "active")
    assert "carol" in browser.find_element(By.ID, "game-status").text


def test_a_spectator_watches_a_bot_game_advance_without_reloading(live_server, browser):
    host = register(live_server, "host")
    game_id = create(host, "asking-for-trobils", 2, [{"seat": 0, "level": "greedy"},
                                                      {"seat": 1, "level": "greedy"}],
                     join=False)
    use_key(browser, live_server, None)
    browser.get(f"{live_server}/games/{game_id}")
    first = int(wait(browser, lambda b: dataset(b, "game", "version")))
    browser.execute_script("window.sameDocument = true")
    later = wait(browser, lambda b: int(dataset(b, "game", "version") or 0) >= first + 5 and
                 int(dataset(b, "game", "version") or 0))
    assert browser.execute_script("return window.sameDocument === true")  # never reloaded
    log_lines = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(log_lines) > 5 and int(log_lines[-1].get_attribute("data-v")) >= later - 1
    assert "as a spectator" in browser.find_element(By.ID, "game-status").text
    figures = record_timing("table", browser)
    assert figures["first_render_ms"] < 1000 and figures["asset_bytes"] < 200_000, figures
    screenshot(browser, "table-spectator")
    browser.set_window_size(390, 844)  # a phone: one column, nothing wider than the screen
    try:
        assert browser.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(browser, "table-spectator-phone")
    finally:
        browser.set_window_size(1280, 900)


def test_a_player_plays_a_whole_game_from_the_buttons(live_server, browser):
    alice = register(live_server, "alice")
    game_id = create(alice, "trappist-one", 2, [{"seat": 1, "level": "random"}])
    use_key(browser, live_server, alice.api_key)
    browser.get(f"{live_server}/games/{game_id}")
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#moves button:not([disabled])"))
    # Someone moves first (a message is an event: the version goes up), and the button is
    # pressed before the page hears of it: the move is refused (409) and the page refreshes.
    browser.execute_script("""
        const done = arguments[0];
        fetch(location.pathname.replace('/games/', '/v1/games/') + '/messages', {
            method: 'POST', body: JSON.stringify({text: 'first!'}),
            headers: {'Content-Type': 'application/json',
                      Authorization: 'Bearer ' + localStorage.getItem('meeple.apiKey')}})
          .then(() => { document.querySelector('#moves button').click(); done(); });""")
    wait(browser, lambda b: "moved on before your move" in b.find_element(By.ID, "game-error").text)
    wait(browser, lambda b: any("first!" in item.text
                                for item in b.find_elements(By.CSS_SELECTOR, "#log li")))
    # Keyboard play: the first move button focused, and Enter pressed (a real key event).
    before = dataset(browser, "game", "version")
    wait(browser, _press_enter_on_a_move)
    wait(browser, lambda b, seen=before: dataset(b, "game", "version") != seen)
    clicks = 1
    for _ in range(500):
        before = dataset(browser, "game", "version")
        done = wait(browser, lambda b: _click_a_move(b), seconds=60)
        if done == "ended":
            break
        clicks += 1
        if clicks == 3:
            screenshot(browser, "table-player")
        wait(browser, lambda b, seen=before: dataset(b, "game", "version") != seen)
    else:
        raise AssertionError("the game did not end within 500 moves")
    status, game, _ = alice.call("GET", f"/v1/games/{game_id}")
    assert game["status"] == "ended"
    played = [e for e in Http(live_server).call(
        "GET", f"/v1/games/{game_id}/events?limit=500")[1]["items"]
        if e["type"] == "MovePlayed" and e["data"]["seat"] == 0]
    # Nothing but the page plays seat 0: each of its moves is a click on a button.
    assert len(played) >= 10 and clicks >= len(played)
    assert {e["by"] for e in played} == {alice_id(alice)}
    wait(browser, lambda b: not b.find_element(By.ID, "replay-link").get_attribute("hidden"))
    screenshot(browser, "table-ended")


# In the page: the answer to the player's move is handed over only once the page has shown
# the version it made (the live stream's refresh is over), and the game as that move's own
# refresh then reads it is held 2 s. `window.slowAnswer` says how far it got.
HOLD_THE_MOVES_OWN_REFRESH = r"""
    const original = window.fetch;
    const shownVersion = () => Number(document.getElementById('game').dataset.version);
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    window.slowAnswer = 'armed';
    window.fetch = async (...args) => {
        const url = String(args[0]);
        const method = (args[1] && args[1].method) || 'GET';
        if (window.slowAnswer === 'armed' && method === 'POST' && url.endsWith('/moves')) {
            const answer = await original(...args);
            const made = (await answer.clone().json()).version;
            while (shownVersion() < made) await sleep(20);
            window.slowAnswer = 'answered';
            return answer;
        }
        // The next read of the game after the answer is the move's own refresh's (the
        // stream's refresh that showed the move is over, and nothing newer came yet).
        if (window.slowAnswer === 'answered' && /\/v1\/games\/[^/?]+$/.test(url)) {
            const answer = await original(...args);
            window.slowAnswer = 'holding';
            await sleep(2000);
            setTimeout(() => { window.slowAnswer = 'delivered'; }, 500); // time to show it
            return answer;
        }
        return original(...args);
    };"""


def test_a_slow_answer_never_puts_an_older_table_over_a_newer_one(live_server, browser):
    """A move's own refresh answered slowly while the live stream brings a newer event: the
    page ends on the newest state, never on the slow answer's older one. (Seen in CI: the
    page back on an older version after a newer one, a click on its buttons refused as
    stale, and nothing left to make it look again.)"""
    alice, bob = register(live_server, "alice"), register(live_server, "bob")
    game_id = create(alice, "trappist-one", 2, [])
    assert bob.call("POST", f"/v1/games/{game_id}/join", {})[0] == 200
    while 0 not in alice.call("GET", f"/v1/games/{game_id}")[1]["actors"]:
        listed = bob.call("GET", f"/v1/games/{game_id}/moves?seat=1")[1]
        assert bob.call("POST", f"/v1/games/{game_id}/moves", {
            "expected_version": listed["version"], "seat": 1,
            "moves": [{"id": listed["moves"][0]["id"]}]})[0] == 201
    use_key(browser, live_server, alice.api_key)
    browser.get(f"{live_server}/games/{game_id}")

    def page_is_current(b: WebDriver) -> bool:
        version = alice.call("GET", f"/v1/games/{game_id}")[1]["version"]
        return dataset(b, "game", "version") == str(version)

    def slow_answer(b: WebDriver) -> str:
        return str(b.execute_script("return window.slowAnswer"))

    wait(browser, lambda b: page_is_current(b) and b.find_elements(
        By.CSS_SELECTOR, "#moves button:not([disabled])"))
    browser.execute_script(HOLD_THE_MOVES_OWN_REFRESH)
    assert _click_a_move(browser) == "clicked"
    wait(browser, lambda b: slow_answer(b) == "holding")
    # A newer event while the move's refresh holds the older game: table talk.
    assert bob.call("POST", f"/v1/games/{game_id}/messages", {"text": "newer"})[0] == 201
    wait(browser, lambda b: slow_answer(b) == "delivered")
    wait(browser, page_is_current, seconds=10)
    time.sleep(1)  # and it stays there: no late answer takes it back
    assert page_is_current(browser)
    assert any("newer" in item.text for item in browser.find_elements(By.CSS_SELECTOR, "#log li"))


# Before the page's own scripts: every live stream the page reads is also kept, as text, in
# `window.streamed` (DevTools gives no body of an answer still open).
KEEP_THE_STREAMS = r"""
    window.streamed = [];
    const original = window.fetch;
    window.fetch = async (...args) => {
        const answer = await original(...args);
        if (!String(args[0]).includes('/stream') || !answer.body) return answer;
        const [kept, given] = answer.body.tee();
        (async () => {
            const reader = kept.pipeThrough(new TextDecoderStream()).getReader();
            for (;;) {
                const { value, done } = await reader.read();
                if (done) return;
                window.streamed.push(value);
            }
        })();
        return new Response(given, { status: answer.status, statusText: answer.statusText,
                                     headers: answer.headers });
    };"""


@contextlib.contextmanager
def before_each_page(browser: WebDriver, source: str) -> Iterator[None]:
    """`source` runs in every page loaded meanwhile, before the page's own scripts."""
    added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                    {"source": source})
    try:
        yield
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                                {"identifier": added["identifier"]})


def streams_kept(browser: WebDriver) -> contextlib.AbstractContextManager[None]:
    return before_each_page(browser, KEEP_THE_STREAMS)


def alice_id(player: Http) -> str:
    return str(player.call("GET", "/v1/players/me")[1]["id"])


def _press_enter_on_a_move(browser: WebDriver) -> bool:
    try:
        button = browser.find_element(By.CSS_SELECTOR, "#moves button:not([disabled])")
        browser.execute_script("arguments[0].focus()", button)
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        return True
    except (NoSuchElementException, StaleElementReferenceException):
        return False  # between two renders of the buttons: again


def _click_a_move(browser: WebDriver) -> str | None:
    """Click the first move button, in the page itself (a refresh may replace the buttons
    between a lookup and a click from here): "ended", "clicked", or None (not yet)."""
    return browser.execute_script("""
        const root = document.getElementById('game');
        if (root.dataset.status === 'ended') return 'ended';
        if (document.getElementById('moves-area').hidden) return null;
        const button = document.querySelector('#moves button:not([disabled])');
        if (!button) return null;
        button.click();
        return 'clicked';""")


@pytest.mark.parametrize("game_type", ["res-publica-2230ad", "asking-for-trobils",
                                       "trappist-one", "trajan"])
def test_a_finished_game_replays_and_verifies_in_the_browser(live_server, browser, game_type):
    game_id = finished_bot_game(live_server, game_type)
    use_key(browser, live_server, None)
    browser.get(f"{live_server}/games/{game_id}/replay")
    wait(browser, lambda b: dataset(b, "replay", "shown") == "1")
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    wait(browser, lambda b: dataset(b, "replay", "shown") == "4")
    at_four = browser.find_element(By.ID, "sections").text
    body.send_keys(Keys.ARROW_LEFT)
    wait(browser, lambda b: dataset(b, "replay", "shown") == "3")
    body.send_keys(Keys.END)
    last = int(browser.find_element(By.ID, "last-version").text)
    wait(browser, lambda b: dataset(b, "replay", "shown") == str(last))
    assert browser.find_element(By.ID, "sections").text != at_four
    Select(browser.find_element(By.ID, "as-seat")).select_by_index(1)  # seat 0, not everyone
    wait(browser, lambda b: "sees:" not in b.find_element(By.ID, "sections").text)
    wait(browser, lambda b: dataset(b, "replay", "verified") is not None, seconds=60)
    status = browser.find_element(By.ID, "verify-status").text
    assert dataset(browser, "replay", "verified") == "ok", status
    _, record, _ = Http(live_server).call("GET", f"/v1/games/{game_id}/record")
    assert f"{len(record['events']):,} events chained" in status, status
    assert "seed matches the commitment published at creation; signed by key" in status
    if game_type == "trappist-one":
        figures = record_timing("replay", browser)
        assert figures["first_render_ms"] < 1000 and figures["asset_bytes"] < 200_000, figures
    screenshot(browser, f"replay-{game_type}")


@pytest.fixture()
def tampering_proxy(live_server: str) -> Iterator[tuple[str, dict[str, int]]]:
    """A test server in front of the real one that changes one move in every record it
    passes on (the move of the version it notes), and nothing else."""
    changed: dict[str, int] = {}

    def tampered(path: str, status: int, body: bytes) -> bytes:
        if not (path.endswith("/record") and status == 200):
            return body
        record = json.loads(body)
        move = [e for e in record["events"] if e["type"] == "MovePlayed"][10]
        move["data"]["move"]["id"] += "-changed"
        changed["v"] = move["v"]
        return json.dumps(record).encode()

    with proxy(live_server, body_of=tampered) as base:
        yield base, changed


def test_a_tampered_record_is_refused_at_the_changed_event(live_server, browser,
                                                           tampering_proxy):
    game_id = finished_bot_game(live_server, "trappist-one")
    proxy, changed = tampering_proxy
    use_key(browser, proxy, None)
    browser.get(f"{proxy}/games/{game_id}/replay")
    wait(browser, lambda b: dataset(b, "replay", "verified") is not None, seconds=60)
    status = browser.find_element(By.ID, "verify-status").text
    assert dataset(browser, "replay", "verified") == "failed", status
    assert f"event {changed['v']} " in status, status
    screenshot(browser, "replay-tampered")


def test_a_spectators_page_holds_no_seats_secrets(live_server, browser):
    alice = register(live_server, "alice")
    game_id = create(alice, "res-publica-2230ad", 2, [{"seat": 1, "level": "random"}])

    # The check can fail: alice's own page shows her hand, card by card ("Hand (5): 1
    # Terrans, ..."), where others' pages show its size only ("Hand: 5 cards").
    use_key(browser, live_server, alice.api_key)
    browser.get(f"{live_server}/games/{game_id}")
    wait(browser, lambda b: "Hand (" in b.find_element(By.ID, "sections").text)

    use_key(browser, live_server, None)
    browser.get_log("performance")
    with streams_kept(browser):
        browser.get(f"{live_server}/games/{game_id}")
        wait(browser, lambda b: dataset(b, "game", "version"))
        time.sleep(1)  # the bot moves meanwhile: the page refreshes from the stream
        streamed = str(browser.execute_script("return window.streamed.join('')"))
    page = browser.find_element(By.TAG_NAME, "body").text
    stored = browser.execute_script(
        "return JSON.stringify(Object.assign({}, window.localStorage, window.sessionStorage))"
        " + document.cookie")
    answers = api_bodies(browser)
    # The log comes from the stream (its lines are the events as this viewer may see them).
    assert any("/table" in url for url in answers) and '"GameStarted"' in streamed
    assert "Hand: " in page and "Hand (" not in page  # sizes only, for both seats
    for url, body in [*answers.items(), ("the stream", streamed)]:
        assert "Hand (" not in body and not re.search(r'"hand"\s*:', body), url
    assert "Hand (" not in stored and "mk_" not in stored
    screenshot(browser, "table-spectator-rp")
