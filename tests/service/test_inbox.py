"""GET /v1/players/me/games: the caller's games, newest change first, with the ones waiting
for them; served from the lobby read model, so it follows the turns and survives a rebuild."""

from __future__ import annotations

import time
from typing import Any

import redis
from flask import Flask

from tests.service.conftest import Caller
from tests.service.test_records_api import finish

INBOX = "/v1/players/me/games"


def inbox(caller: Caller, query: str = "") -> dict[str, Any]:
    response = caller.get(f"{INBOX}{query}")
    assert response.status_code == 200, response.json
    return dict(response.json)


def ids(page: dict[str, Any]) -> list[str]:
    return [game["id"] for game in page["items"]]


def tick() -> None:
    time.sleep(0.005)  # `updated_at` has millisecond precision: keep changes apart


def active_game(alice: Caller, bob: Caller) -> str:
    game = alice.create(seats=2)
    tick()
    assert bob.post(f"/v1/games/{game['id']}/join", {}).status_code == 200
    tick()
    return str(game["id"])


def test_the_newest_change_comes_first(alice, bob):
    first = alice.create(seats=2)["id"]
    tick()
    second = alice.create(seats=2)["id"]
    tick()
    third = alice.create(seats=3)["id"]
    tick()
    assert ids(inbox(alice)) == [third, second, first]
    assert bob.post(f"/v1/games/{first}/join", {}).status_code == 200  # a change to `first`
    page = inbox(alice)
    assert ids(page) == [first, third, second]
    assert page["total"] == 3 and page["offset"] == 0 and page["limit"] == 20
    item = page["items"][0]
    game = alice.get(f"/v1/games/{first}").json
    assert {k: item[k] for k in item if k != "awaiting_me"} == {
        k: game[k] for k in ("id", "type", "status", "version", "seat_count", "seats",
                             "actors", "public", "created_at", "updated_at")}
    assert ids(inbox(bob)) == [first]


def test_awaiting_me_follows_the_turns(alice, bob):
    game_id = active_game(alice, bob)
    for _ in range(4):
        actors = alice.get(f"/v1/games/{game_id}").json["actors"]
        assert len(actors) == 1
        mover, waiting = (alice, bob) if actors == [0] else (bob, alice)
        assert ids(inbox(mover, "?awaiting=me")) == [game_id]
        assert inbox(mover)["items"][0]["awaiting_me"] is True
        assert inbox(waiting, "?awaiting=me") == {"items": [], "total": 0, "offset": 0,
                                                  "limit": 20}
        assert inbox(waiting)["items"][0]["awaiting_me"] is False
        assert mover.play_first_move(game_id).status_code == 201
    # A message is not a change of turn: the inbox stays as it was, but for the version it
    # shows, which is the game's own (what a move must send).
    before = inbox(alice)
    assert alice.post(f"/v1/games/{game_id}/messages", {"text": "hi"}).status_code == 201
    after = inbox(alice)
    assert after["items"][0].pop("version") == before["items"][0].pop("version") + 1
    assert after == before


def test_an_open_or_ended_game_awaits_no_one(alice, bob):
    open_game = alice.create(seats=2)["id"]
    assert inbox(alice, "?awaiting=me")["total"] == 0
    item = inbox(alice)["items"][0]
    assert item["id"] == open_game and item["awaiting_me"] is False and item["actors"] == []
    game_id = active_game(alice, bob)
    finish(alice, bob, game_id)
    assert game_id not in ids(inbox(alice, "?awaiting=me"))
    assert game_id not in ids(inbox(bob, "?awaiting=me"))
    assert ids(inbox(alice))[0] == game_id and inbox(alice)["items"][0]["status"] == "ended"


def test_only_the_callers_games(alice, bob, carol):
    mine = active_game(alice, bob)
    theirs = carol.create(seats=2)["id"]
    assert ids(inbox(alice)) == [mine] and ids(inbox(bob)) == [mine]
    assert ids(inbox(carol)) == [theirs]
    assert carol.post(f"/v1/games/{mine}/messages", {"text": "hi"}).status_code == 403
    assert alice.client.get(INBOX).status_code == 401


def test_the_inbox_is_paginated(alice):
    made = []
    for _ in range(5):
        made.append(alice.create(seats=2)["id"])
        tick()
    pages = [inbox(alice, f"?limit=2&offset={offset}") for offset in (0, 2, 4)]
    assert [p["total"] for p in pages] == [5, 5, 5]
    assert [len(p["items"]) for p in pages] == [2, 2, 1]
    assert [i for p in pages for i in ids(p)] == made[::-1]
    assert inbox(alice, "?offset=10")["items"] == []
    for bad in ("?limit=0", "?limit=101", "?offset=-1", "?awaiting=bob", "?status=open"):
        refused = alice.get(f"{INBOX}{bad}")
        assert refused.status_code == 422, bad


def test_the_inbox_is_rebuilt_from_the_streams(app: Flask, alice, bob, carol,
                                               redis_client: redis.Redis):
    active = active_game(alice, bob)
    opened = carol.create(seats=2)["id"]
    tick()
    assert carol.post(f"/v1/games/{opened}/join", {}).status_code == 200  # hot seat: both hers
    before = {c.id: (inbox(c), inbox(c, "?awaiting=me")) for c in (alice, bob, carol)}
    # Indexes that did not exist when the summaries were written are filled by a rebuild...
    for key in redis_client.scan_iter("meeple:{lobby}:idx:inbox:*"):
        redis_client.delete(key)
    for key in redis_client.scan_iter("meeple:{lobby}:idx:awaiting:*"):
        redis_client.delete(key)
    assert inbox(alice)["total"] == 0
    assert app.extensions["meeple"].rebuild_lobby() == 2
    assert {c.id: (inbox(c), inbox(c, "?awaiting=me")) for c in (alice, bob, carol)} == before
    # ... and so is a lobby thrown away entirely.
    for key in redis_client.scan_iter("meeple:{lobby}:*"):
        redis_client.delete(key)
    assert app.extensions["meeple"].rebuild_lobby() == 2
    assert {c.id: (inbox(c), inbox(c, "?awaiting=me")) for c in (alice, bob, carol)} == before
    assert ids(before[alice.id][0]) == [active]
    assert ids(before[carol.id][1]) == [opened]  # one of her two seats always acts
