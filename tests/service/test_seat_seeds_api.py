"""Seat seeds over the API (issue 12, "Nobody chooses the deal"): a client sends its seat's
contribution when it creates or joins a table, or the server makes one; both are in the log.
The derivation and the verifier: tests/records/test_seat_seeds.py."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask

from games.rng import SEAT_SEED, server_made_seat_seed
from tests.service.conftest import RP, Caller


def test_the_api_takes_a_seat_seed_or_makes_one(alice: Caller, bob: Caller) -> None:
    made = alice.post("/v1/games", {"type": RP, "seats": 2, "seed": "alice-chose-this"})
    assert made.status_code == 201, made.json
    game_id = made.json["id"]
    joined = bob.post(f"/v1/games/{game_id}/join", {})
    assert joined.status_code == 200, joined.json
    events = alice.get(f"/v1/games/{game_id}/events?after=0&limit=10").json["items"]
    seeds = [e["data"]["seed"] for e in events if e["type"] == "SeatTaken"]
    assert seeds[0] == "alice-chose-this"
    assert re.fullmatch(SEAT_SEED, seeds[1]) and seeds[1] != seeds[0]
    assert events[0]["data"]["dealing"] == "seats"


def test_a_bad_seat_seed_is_refused_with_a_reason(alice: Caller, bob: Caller) -> None:
    game_id = alice.create(seats=3)["id"]
    for bad in ("", "x" * 65, "has space", "é", "line\nbreak", 12):
        answer: Any = bob.post(f"/v1/games/{game_id}/join", {"seed": bad})
        assert answer.status_code == 422, (bad, answer.json)
        assert "seed" in str(answer.json), answer.json
    assert bob.post(f"/v1/games/{game_id}/join", {"seed": "ok-" + "x" * 61}).status_code == 200


def test_a_seed_the_server_makes_follows_from_its_committed_seed(
        app: Flask, alice: Caller, bob: Caller, carol: Caller) -> None:
    """A bot's seed, and a player's who sent none, follow from the server's seed, to which
    GameCreated committed before anyone joined: the server cannot pick them after seeing the
    seeds the others brought (alice's, here, sent first), so it cannot try deals until one
    favours a seat. Once the seed is revealed anyone can check (tests/records)."""
    made = alice.post("/v1/games", {"type": RP, "seats": 4, "seed": "alice-chose-this",
                                    "bots": [3]})
    assert made.status_code == 201, made.json
    game_id = made.json["id"]
    assert bob.post(f"/v1/games/{game_id}/join", {}).status_code == 200
    assert carol.post(f"/v1/games/{game_id}/join", {"seed": "carol-too"}).status_code == 200
    events = alice.get(f"/v1/games/{game_id}/events?after=0&limit=10").json["items"]
    seeds = {e["data"]["seat"]: e["data"]["seed"] for e in events if e["type"] == "SeatTaken"}
    server_seed = app.extensions["meeple"].store.get_seed(game_id)
    assert seeds[3] == server_made_seat_seed(server_seed, 3)  # the bot's
    assert seeds[1] == server_made_seat_seed(server_seed, 1)  # bob sent none
    assert seeds[0] == "alice-chose-this" and seeds[2] == "carol-too"
    assert len(set(seeds.values())) == 4 and all(re.fullmatch(SEAT_SEED, s) for s in seeds.values())


def test_a_creator_can_bring_her_seed_after_the_commitment(alice: Caller) -> None:
    """docs/records.md, section 5: "A creator who wants to need no trust at all creates the
    table with "join": false and then joins it with her seed"."""
    made = alice.post("/v1/games", {"type": RP, "seats": 2, "join": False, "bots": [1]})
    assert made.status_code == 201, made.json
    game_id = made.json["id"]
    joined = alice.post(f"/v1/games/{game_id}/join", {"seed": "after-the-commitment"})
    assert joined.status_code == 200, joined.json
    events = alice.get(f"/v1/games/{game_id}/events?after=0&limit=10").json["items"]
    assert [e["type"] for e in events] == ["GameCreated", "SeatTaken", "SeatTaken",
                                           "GameStarted"]
    assert events[2]["data"]["seed"] == "after-the-commitment"
