"""Asking for Trobils at its largest table, end to end: seven seats, four of them bots played by a
real `meeple worker`, three humans over HTTP through gunicorn, to the end.

"Once a Trobil Card is flipped over, only the owner may look at the card. It is secret from
other Players." Before the end, every answer a human gets is checked against the true table
(read from the event stream): no other seat's flipped Trobil is named in it.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import redis

from events.domain.table import Table, evolve
from events.store.event_store import EventStore
from tests.e2e.conftest import game_log, register

TROBILS = "asking-for-trobils"
BOTS = [1, 2, 4, 6]
TIME_LIMIT = 600  # seconds; random play makes long 7-player games (about 1,400 moves)


class Truth:
    """The true table at any version the API answered with, folded from the event stream."""

    def __init__(self, client: redis.Redis, game_id: str) -> None:
        self.store = EventStore(client)
        self.game_id = game_id
        self.seed = self.store.get_seed(game_id)
        self.table = Table.empty(game_id)

    def flipped_by_others(self, version: int, mine: list[int]) -> set[str]:
        if version < self.table.version:  # answers come in order per human, not across them
            self.table = Table.empty(self.game_id)
        for envelope in self.store.read(self.game_id, self.table.version + 1, version):
            self.table = evolve(self.table, envelope, self.seed)
        state = self.table.state or {}
        return {card for seat, area in enumerate(state.get("seats", [])) if seat not in mine
                for card in area["flipped"]}


def assert_hidden(answer: Any, secret: set[str], what: str) -> None:
    text = json.dumps(answer)
    shown = sorted(card for card in secret if f'"{card}"' in text)
    assert not shown, f"{what} shows another seat's flipped Trobils {shown}"


def test_seven_seats_four_bots_three_humans_play_to_the_end(live_server: str,
                                                            redis_client: redis.Redis) -> None:
    humans = [register(live_server, name) for name in ("ann", "ben", "cat")]
    status, game, _ = humans[0].call("POST", "/v1/games",
                                     {"type": TROBILS, "seats": 7, "bots": BOTS})
    assert status == 201, game
    game_id = game["id"]
    truth = Truth(redis_client, game_id)  # reads the stream only, to know what must stay hidden
    for human in humans[1:]:
        status, game, _ = human.call("POST", f"/v1/games/{game_id}/join", {})
        assert status == 200, game
    assert game["status"] == "active"
    seats = {id(h): h.call("GET", f"/v1/games/{game_id}")[1]["your_seats"] for h in humans}
    assert sorted(s for mine in seats.values() for s in mine) == [0, 3, 5]

    rng = random.Random(7)
    deadline = time.monotonic() + TIME_LIMIT
    checked = human_moves = 0
    while game["status"] != "ended":
        assert time.monotonic() < deadline, f"not over in time, at version {game['version']}"
        acted = False
        for human in humans:
            mine = seats[id(human)]
            status, game, _ = human.call("GET", f"/v1/games/{game_id}")
            if game["status"] == "ended":
                break
            secret = truth.flipped_by_others(game["version"], mine)
            assert_hidden(game, secret, "GET /games/{id}")
            for entry in game["view"]["players"]:
                assert ("flipped" in entry) == (entry["seat"] in mine), entry
            checked += 1
            status, listed, _ = human.call("GET", f"/v1/games/{game_id}/moves")
            assert_hidden(listed, truth.flipped_by_others(listed["version"], mine),
                          "GET /games/{id}/moves")
            while listed["moves"]:  # a turn may take several moves (a location's choices)
                move = rng.choice(listed["moves"])
                status, played, _ = human.call(
                    "POST", f"/v1/games/{game_id}/moves",
                    {"expected_version": listed["version"], "seat": listed["seat"],
                     "moves": [{"id": move["id"]}]})
                assert status == 201, played
                human_moves += 1
                acted = True
                game = played["game"]
                if game["status"] == "ended":
                    break
                assert_hidden(played, truth.flipped_by_others(game["version"], mine),
                              "POST moves")
                listed = played["your_moves"]
            if human_moves and human_moves % 100 == 0:
                status, state, _ = human.call("GET", f"/v1/games/{game_id}/state")
                assert status == 200, state
                # The bots may have played the last move since: an ended game shows everything.
                assert (state["full_state"] is None) == (state["status"] != "ended"), state
                if state["status"] != "ended":
                    assert_hidden(state, truth.flipped_by_others(state["version"], mine),
                                  "GET state")
        if not acted and game["status"] != "ended":
            time.sleep(0.02)  # bots' turns: the worker plays them

    status, final, _ = humans[0].call("GET", f"/v1/games/{game_id}")
    assert final["status"] == "ended" and checked > 0 and human_moves > 0
    assert sorted(row["seat"] for row in final["result"]["seats"]) == list(range(7))
    assert all("flipped" in entry for entry in final["view"]["players"])  # all shown at the end
    log = game_log(humans[0], game_id)
    bot_moves = [e for e in log if e["type"] == "MovePlayed" and e["data"]["seat"] in BOTS]
    assert bot_moves and all(e["by"].startswith("bot:") for e in bot_moves)
    types = [e["type"] for e in log]
    assert types.index("GameEnded") + 1 == types.index("SeedRevealed")
