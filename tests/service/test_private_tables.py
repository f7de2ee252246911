"""A private table is, to anyone without a seat at it, no game: every route answers as for an
id that names none (404 game_not_found), writes too, before any error that would tell the
table's state. Only joining an open private table works for a stranger: its id is the
invitation. And that id cannot be computed by others, even for a table made with an
Idempotency-Key (the id is keyed with a server secret)."""

from __future__ import annotations

import hashlib
from typing import Any

import redis
from flask import Flask

from events.application.meeple import Meeple
from tests.service.conftest import RP, Caller

MADE_UP = "0123456789abcdef"
WRITES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("moves", {"moves": [{"id": "x"}]}),
    ("moves", {"expected_version": 1, "moves": [{"id": "x"}]}),
    ("messages", {"text": "hi"}),
    ("resign", {}),
    ("resign", {"seat": 0}),
)
READS = ("", "/moves", "/events", "/state", "/table", "/messages", "/record")


def assert_no_game(answer: Any, game_id: str, made_up: Any) -> None:
    """`answer` is exactly what a made-up id got, but for the id in the detail."""
    assert answer.status_code == made_up.status_code == 404, answer.json
    assert answer.json == {**made_up.json,
                           "detail": made_up.json["detail"].replace(MADE_UP, game_id)}


def private_tables(alice: Caller, bob: Caller) -> dict[str, str]:
    waiting = alice.create(seats=2, public=False)["id"]
    playing = alice.create(seats=2, public=False)["id"]
    assert bob.post(f"/v1/games/{playing}/join", {}).json["status"] == "active"
    return {"open": waiting, "active": playing}


def test_every_route_of_a_private_table_is_no_game_to_a_stranger(alice: Caller, bob: Caller,
                                                                 carol: Caller) -> None:
    for state, game_id in private_tables(alice, bob).items():
        for path, body in WRITES:
            hidden = carol.post(f"/v1/games/{game_id}/{path}", body)
            made_up = carol.post(f"/v1/games/{MADE_UP}/{path}", body)
            assert_no_game(hidden, game_id, made_up)
        for route in READS:
            assert_no_game(carol.get(f"/v1/games/{game_id}{route}"), game_id,
                           carol.get(f"/v1/games/{MADE_UP}{route}"))
        assert alice.get(f"/v1/games/{game_id}").json["status"] == state  # nothing changed


def test_a_stranger_joins_an_open_private_table_and_no_other(alice: Caller, bob: Caller,
                                                             carol: Caller) -> None:
    tables = private_tables(alice, bob)
    assert_no_game(carol.post(f"/v1/games/{tables['active']}/join", {}), tables["active"],
                   carol.post(f"/v1/games/{MADE_UP}/join", {}))
    joined = carol.post(f"/v1/games/{tables['open']}/join", {})  # the id is the invitation
    assert joined.status_code == 200 and joined.json["your_seats"] == [1]
    assert carol.get(f"/v1/games/{tables['open']}").status_code == 200


def test_a_seated_player_still_gets_the_tables_own_errors(alice: Caller, bob: Caller) -> None:
    tables = private_tables(alice, bob)
    early = alice.post(f"/v1/games/{tables['open']}/moves", {"moves": [{"id": "x"}]})
    assert early.status_code == 409 and early.json["code"] == "game_not_started"
    said = alice.post(f"/v1/games/{tables['active']}/messages", {"text": "gl hf"})
    assert said.status_code == 201


def test_a_keyed_tables_id_cannot_be_computed_from_the_player_and_the_key(
        app: Flask, alice: Caller, carol: Caller, redis_client: redis.Redis) -> None:
    body = {"type": RP, "seats": 2, "public": False}
    made = alice.post("/v1/games", body, headers={"Idempotency-Key": "create-game-7"})
    assert made.status_code == 201
    game_id = made.json["id"]
    guess = hashlib.sha256(f"{alice.id}/create-game-7".encode()).hexdigest()[:16]
    assert game_id != guess
    assert carol.post(f"/v1/games/{guess}/join", {}).status_code == 404
    # A retry finds the same game, on any process of the service (the secret is shared).
    again = alice.post("/v1/games", body, headers={"Idempotency-Key": "create-game-7"})
    assert again.status_code == 201 and again.json["id"] == game_id
    other_process = Meeple(redis_client)
    assert other_process.keyed_game_id(alice.id, "create-game-7") == game_id
    assert other_process.keyed_game_id(carol.id, "create-game-7") != game_id

