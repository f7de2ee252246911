"""Seat seeds over the API (issue 12, "Nobody chooses the deal"): a client sends its seat's
contribution when it creates or joins a table, or the server makes one; both are in the log.
The derivation and the verifier: tests/records/test_seat_seeds.py."""

from __future__ import annotations

import re
from typing import Any

from games.rng import SEAT_SEED
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
