"""Honest outcomes: a 503 says "nothing was written" only when that is known; a write that
may have been applied says to retry with the same Idempotency-Key, and that retry answers
with the first result. Creating a game completes on retry whatever step the first try
reached."""

from __future__ import annotations

import hashlib

import redis

from events.application.meeple import Meeple
from events.store.event_store import EventStore
from tests.service.conftest import RP, Caller


def test_a_retry_completes_a_creation_that_died_between_its_seed_and_its_first_event(
        app, alice: Caller):
    meeple: Meeple = app.extensions["meeple"]
    game_id = meeple.keyed_game_id(alice.id, "k1")
    leftover = b"\x07" * 32
    meeple.store.put_seed(game_id, leftover)  # all the first request wrote before it died
    body = {"type": RP, "seats": 2}
    first = alice.post("/v1/games", body, headers={"Idempotency-Key": "k1"})
    assert first.status_code == 201, first.json
    assert first.json["id"] == game_id
    assert first.json["seed_commitment"] == hashlib.sha256(leftover).hexdigest()
    again = alice.post("/v1/games", body, headers={"Idempotency-Key": "k1"})
    assert again.status_code == 201 and again.json["id"] == game_id
    assert alice.get(f"/v1/games/{game_id}").json["version"] == first.json["version"]


def started(alice: Caller, bob: Caller) -> tuple[str, dict]:
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    return game["id"], alice.get(f"/v1/games/{game['id']}/moves").json


def test_a_write_cut_off_after_its_append_says_so_and_its_retry_answers(
        app, alice: Caller, bob: Caller, monkeypatch):
    game_id, listed = started(alice, bob)
    body = {"expected_version": listed["version"], "moves": [{"id": listed["moves"][0]["id"]}]}

    def connection_lost(*args: object, **kwargs: object) -> None:
        raise redis.ConnectionError("Connection reset by peer")

    with monkeypatch.context() as patched:  # the store goes away right after the append
        patched.setattr(Meeple, "_committed", connection_lost)
        cut = alice.post(f"/v1/games/{game_id}/moves", body, headers={"Idempotency-Key": "m1"})
    assert cut.status_code == 503
    assert cut.json["code"] == "store_unavailable" and cut.json["outcome"] == "unknown"
    assert "same Idempotency-Key" in cut.json["detail"]
    assert "nothing was written" not in cut.json["detail"]
    assert alice.get(f"/v1/games/{game_id}").json["version"] > listed["version"]  # it was
    retry = alice.post(f"/v1/games/{game_id}/moves", body, headers={"Idempotency-Key": "m1"})
    assert retry.status_code == 201 and retry.json["replayed"] is True
    assert retry.json["version"] == alice.get(f"/v1/games/{game_id}").json["version"]


def test_a_write_without_a_key_is_told_how_to_retry_safely(app, alice: Caller, monkeypatch):
    def down(*args: object, **kwargs: object) -> None:
        raise redis.ConnectionError("Connection refused")

    monkeypatch.setattr(EventStore, "append", down)
    response = alice.post("/v1/games", {"type": RP, "seats": 2})
    assert response.status_code == 503 and response.json["outcome"] == "unknown"
    assert "Idempotency-Key" in response.json["detail"]
    assert response.headers["Retry-After"] == "1"


def test_a_read_that_fails_says_nothing_was_written(app, alice: Caller, monkeypatch):
    game = alice.create(seats=2)

    def down(*args: object, **kwargs: object) -> None:
        raise redis.ConnectionError("Connection refused")

    monkeypatch.setattr(EventStore, "head", down)
    response = alice.get(f"/v1/games/{game['id']}")
    assert response.status_code == 503 and response.json["outcome"] == "not_applied"
    assert "nothing was written" in response.json["detail"]


def test_open_tables_per_player_are_bounded(app, alice: Caller, monkeypatch):
    """Storage bounds: tables waiting for players cost storage; a player may keep only so
    many open at once (MEEPLE_MAX_OPEN_GAMES)."""
    monkeypatch.setenv("MEEPLE_MAX_OPEN_GAMES", "3")
    for _ in range(3):
        alice.create(seats=3)
    refused = alice.post("/v1/games", {"type": RP, "seats": 3})
    assert refused.status_code == 409 and refused.json["code"] == "quota_exceeded"
    # A table that starts at once (every other seat a bot) does not wait: not counted.
    assert alice.post("/v1/games", {"type": RP, "seats": 2, "bots": [1]}).status_code == 201


def test_an_expired_table_answers_404_saying_why(app, alice: Caller, bob: Caller):
    """Storage bounds: an open table that never started expires (events.application.expiry);
    its players are told why it is gone, not just that it is."""
    from datetime import timedelta

    from events.application.expiry import expire_open_tables
    from events.domain.deadlines import parse_time

    game = alice.create(seats=3)
    meeple = app.extensions["meeple"]
    done = expire_open_tables(meeple, parse_time(game["updated_at"]) + timedelta(days=31))
    assert done.expired == 1
    for path in ("", "/events", "/state", "/record"):
        answer = alice.get(f"/v1/games/{game['id']}{path}")
        assert answer.status_code == 404, (path, answer.json)
        assert "expired" in answer.json["detail"] and "never started" in answer.json["detail"]
    joined = bob.post(f"/v1/games/{game['id']}/join", {})
    assert joined.status_code == 404 and joined.json["code"] == "game_not_found"
    assert game["id"] not in str(alice.get("/v1/games?status=open").json)
