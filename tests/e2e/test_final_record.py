"""Issue 12's acceptance: "Fetching the record of a finished game twice, a minute apart, with
the scoring worker running, gives the same bytes." Real gunicorn, the real `meeple worker`
(which appends GameScored meanwhile), real redis."""

from __future__ import annotations

import hashlib
import time
import urllib.request
from typing import Any

from tests.e2e.conftest import Http

RP = "res-publica-2230ad"
APART = 60  # seconds between the two fetches


def player(base: str, name: str) -> Http:
    status, made, _ = Http(base).call("POST", "/v1/players", {"name": name})
    assert status == 201, made
    return Http(base, made["api_key"])


def raw_record(client: Http, game_id: str) -> bytes:
    request = urllib.request.Request(f"{client.base}/v1/games/{game_id}/record")
    request.add_header("Authorization", f"Bearer {client.api_key}")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return bytes(response.read())


def play_to_the_end(players: list[Http], game_id: str) -> None:
    for _ in range(5000):
        status, game, _ = players[0].call("GET", f"/v1/games/{game_id}")
        if game["status"] == "ended":
            return
        seat = game["actors"][0]
        status, listed, _ = players[seat].call("GET", f"/v1/games/{game_id}/moves?seat={seat}")
        status, played, _ = players[seat].call(
            "POST", f"/v1/games/{game_id}/moves",
            {"expected_version": listed["version"], "seat": seat,
             "moves": [{"id": listed["moves"][0]["id"]}]})
        assert status == 201, played
    raise AssertionError("the game did not end")


def events_of(client: Http, game_id: str) -> list[dict[str, Any]]:
    status, page, _ = client.call("GET", f"/v1/games/{game_id}/events?after=0&limit=500")
    items: list[dict[str, Any]] = page["items"]
    while page["items"] and len(page["items"]) == 500:
        status, page, _ = client.call(
            "GET", f"/v1/games/{game_id}/events?after={items[-1]['v']}&limit=500")
        items += page["items"]
    return items


def test_a_finished_games_record_is_the_same_bytes_a_minute_later(live_server: str) -> None:
    alice, bob = player(live_server, "alice"), player(live_server, "bob")
    status, game, _ = alice.call("POST", "/v1/games", {"type": RP, "seats": 2})
    assert status == 201, game
    assert bob.call("POST", f"/v1/games/{game['id']}/join", {})[0] == 200
    play_to_the_end([alice, bob], game["id"])
    first = raw_record(alice, game["id"])
    fetched = time.monotonic()
    # Meanwhile the scoring worker rates the game (GameScored joins the stream) and the
    # players talk: neither is part of the record, which was sealed at the end.
    assert alice.call("POST", f"/v1/games/{game['id']}/messages", {"text": "gg"})[0] == 201
    while not any(e["type"] == "GameScored" for e in events_of(bob, game["id"])):
        assert time.monotonic() - fetched < APART, "the scoring worker did not score the game"
        time.sleep(0.5)
    time.sleep(max(0.0, APART - (time.monotonic() - fetched)))
    second = raw_record(bob, game["id"])
    assert hashlib.sha256(second).hexdigest() == hashlib.sha256(first).hexdigest()
    assert second == first
