"""The pages against a server with the API's DEFAULT rate limit (300 requests a minute per
caller, every route counted), as `make run` and a deployment have it, not the 100,000 the
other browser tests run with. A spectator follows a whole bot game live and then steps
through its replay as fast as a held key repeats: the page paces its requests, and never
shows a heading over another version's table. (Issue 19's audit: a spectator froze after
15 s, "300 per 1 minute (rate_limited)"; 160 presses of → left "version 161" over the table
of version 146.)"""

from __future__ import annotations

import json
import time

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.web.test_pages import dataset, register, use_key, wait


def requests_sent(browser: webdriver.Chrome, path_part: str) -> int:
    """The API requests whose URL holds `path_part` since the performance log was read."""
    count = 0
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if (message["method"] == "Network.requestWillBeSent"
                and path_part in message["params"]["request"]["url"]):
            count += 1
    return count


def test_a_spectator_follows_a_bot_game_and_its_replay_under_the_default_limit(
        default_limits_server: str, browser: webdriver.Chrome) -> None:
    base = default_limits_server
    host = register(base, "host")
    status, body, _ = host.call("POST", "/v1/games", {
        "type": "asking-for-trobils", "seats": 2, "options": {"short_game": True},
        "bots": [{"seat": 0, "level": "random"}, {"seat": 1, "level": "random"}],
        "join": False})
    assert status == 201, body
    game_id = body["id"]
    use_key(browser, base, None)
    browser.get(f"{base}/games/{game_id}")
    errors: set[str] = set()
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        state, error = browser.execute_script(
            "return [document.getElementById('game').dataset.status,"
            " document.getElementById('game-error').textContent]")
        if error:
            errors.add(error)
        if state == "ended":
            break
        time.sleep(0.25)
    game = host.call("GET", f"/v1/games/{game_id}")[1]
    shown = dataset(browser, "game", "version")
    assert not errors, f"{errors}; the page at version {shown}, the game at {game['version']}"
    assert game["status"] == "ended" and state == "ended", (shown, game["version"])
    assert game["version"] >= 150, game["version"]  # a game long enough to have hit the limit
    wait(browser, lambda b: dataset(b, "game", "version") == str(game["version"]))
    log = browser.find_elements(By.CSS_SELECTOR, "#log li")  # from the stream's lines
    assert int(log[-1].get_attribute("data-v") or 0) >= game["version"] - 3

    # The replay, stepped as fast as keys go: 160 presses of →, as everyone (a table per seat
    # a version), then back 40.
    browser.get(f"{base}/games/{game_id}/replay")
    wait(browser, lambda b: dataset(b, "replay", "shown") == "1")
    wait(browser, lambda b: dataset(b, "replay", "verified") is not None, seconds=60)
    assert dataset(browser, "replay", "verified") == "ok", browser.find_element(
        By.ID, "verify-status").text
    browser.get_log("performance")
    body_element = browser.find_element(By.TAG_NAME, "body")
    body_element.send_keys(Keys.ARROW_RIGHT * 160)
    wait(browser, lambda b: dataset(b, "replay", "shown") == "161", seconds=20)
    body_element.send_keys(Keys.ARROW_LEFT * 40)
    wait(browser, lambda b: dataset(b, "replay", "shown") == "121", seconds=20)
    time.sleep(1)  # nothing late arrives to take the page elsewhere
    heading = browser.find_element(By.ID, "at-heading").text
    assert heading == "The table at version 121", heading
    assert dataset(browser, "replay", "version") == "121"
    assert browser.find_element(By.ID, "replay-error").text == ""
    tables = requests_sent(browser, "/table?")
    assert tables <= 60, f"{tables} table requests for 200 key presses"
