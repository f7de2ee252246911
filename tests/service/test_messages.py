"""Table talk: seated players post, anyone who may read the game reads; messages are events
(in the log and the record, they advance the version) that change nothing the rules see."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask

from service import create_app
from service.api import messages as messages_api
from tests.service.conftest import Caller
from tests.service.test_records_api import finish


@pytest.fixture()
def app(redis_url: str, redis_client: redis.Redis, tmp_path: Path) -> Iterator[Flask]:
    # The messages limit is tested on its own below; here it must not get in the way.
    yield create_app(
        {"REDIS_URL": redis_url, "DISPATCH": False, "RATELIMIT_PER_CALLER": "100000 per minute",
         "RATELIMIT_REGISTRATION": "100000 per minute",
         "RATELIMIT_MESSAGES": "100000 per minute", "KEYS_DIR": str(tmp_path / "keys")}
    )


def started(alice: Caller, bob: Caller) -> str:
    game = alice.create(seats=2)
    joined = bob.post(f"/v1/games/{game['id']}/join", {})
    assert joined.status_code == 200 and joined.json["status"] == "active"
    return str(game["id"])


def say(caller: Caller, game_id: str, text: str, **kwargs: Any) -> Any:
    return caller.post(f"/v1/games/{game_id}/messages", {"text": text}, **kwargs)


def test_seated_players_post_and_everyone_reads(alice, bob):
    game_id = started(alice, bob)
    version = alice.get(f"/v1/games/{game_id}").json["version"]
    posted = say(alice, game_id, "  good luck!  ")
    assert posted.status_code == 201, posted.json
    assert posted.json["version"] == version + 1 and posted.json["replayed"] is False
    assert posted.headers["ETag"] == f'"{version + 1}"'
    message = posted.json["message"]
    assert message["text"] == "good luck!" and message["seat"] == 0
    assert message["name"] == "alice" and message["v"] == version + 1 and message["at"]
    assert say(bob, game_id, "you too").status_code == 201

    page = bob.get(f"/v1/games/{game_id}/messages")
    assert page.status_code == 200, page.json
    assert [(m["seat"], m["name"], m["text"]) for m in page.json["items"]] == [
        (0, "alice", "good luck!"), (1, "bob", "you too")]
    assert set(page.json["items"][0]) == {"v", "at", "seat", "name", "text"}
    assert page.json["version"] == version + 2 and page.json["next_after"] is None


def test_an_idempotency_key_posts_once(alice, bob):
    game_id = started(alice, bob)
    first = say(alice, game_id, "hi", headers={"Idempotency-Key": "m1"})
    again = say(alice, game_id, "hi", headers={"Idempotency-Key": "m1"})
    assert first.status_code == again.status_code == 201
    assert again.json["replayed"] is True and again.json["message"] == first.json["message"]
    assert len(alice.get(f"/v1/games/{game_id}/messages").json["items"]) == 1
    other = say(alice, game_id, "something else", headers={"Idempotency-Key": "m1"})
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"


def test_messages_are_paginated_oldest_first(alice, bob):
    game_id = started(alice, bob)
    for i in range(5):
        assert say(alice if i % 2 else bob, game_id, f"message {i}").status_code == 201
        if i == 2:  # moves in between are skipped over
            actor = alice.get(f"/v1/games/{game_id}").json["actors"][0]
            assert (alice if actor == 0 else bob).play_first_move(game_id).status_code == 201
    texts, after, pages = [], 0, 0
    while after is not None:
        page = read_page(alice, game_id, after, 2)
        assert len(page["items"]) <= 2
        texts += [m["text"] for m in page["items"]]
        versions = [m["v"] for m in page["items"]]
        assert versions == sorted(versions) and all(v > after for v in versions)
        after, pages = page["next_after"], pages + 1
    assert texts == [f"message {i}" for i in range(5)] and pages == 3
    last = alice.get(f"/v1/games/{game_id}/messages?after=0&limit=5").json
    assert len(last["items"]) == 5 and last["next_after"] is None
    assert alice.get(f"/v1/games/{game_id}/messages?limit=0").status_code == 422


def test_a_page_reads_a_bounded_slice_of_a_long_log(alice: Caller, bob: Caller,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`messages?after=0&limit=1` on a game of 23,906 events read the whole log for one
    message (an outside audit: a second a request, one address slowing every route): a page
    reads at most SCAN_LIMIT events, and says where to go on."""
    monkeypatch.setattr(messages_api, "SCAN_LIMIT", 4)
    game_id = started(alice, bob)
    first = alice.get(f"/v1/games/{game_id}").json["version"]
    for _ in range(6):  # moves: events that are no messages
        actor = alice.get(f"/v1/games/{game_id}").json["actors"][0]
        assert (alice if actor == 0 else bob).play_first_move(game_id).status_code == 201
    assert say(bob, game_id, "at last").status_code == 201
    read: list[int] = []  # the events each read of the log asked for
    real = messages_api.Meeple.events

    def counted(self: Any, game: str, start: int = 1, end: int | None = None) -> Any:
        read.append((end or 0) - start + 1)
        return real(self, game, start, end)

    monkeypatch.setattr(messages_api.Meeple, "events", counted)
    texts, after, pages = [], first, 0
    while after is not None:
        page = read_page(alice, game_id, after, 1)
        texts += [m["text"] for m in page["items"]]
        after, pages = page["next_after"], pages + 1
    assert texts == ["at last"] and pages >= 2 and max(read) <= 4


def read_page(caller: Caller, game_id: str, after: int, limit: int) -> dict[str, Any]:
    response = caller.get(f"/v1/games/{game_id}/messages?after={after}&limit={limit}")
    assert response.status_code == 200, response.json
    return dict(response.json)


@pytest.mark.parametrize("text", ["", "   \n\t ", "x" * 501, " " + "é" * 501 + " "])
def test_empty_or_too_long_messages_are_refused(alice, bob, text):
    game_id = started(alice, bob)
    refused = say(alice, game_id, text)
    assert refused.status_code == 422
    assert refused.content_type == "application/problem+json"
    assert refused.json["code"] == "invalid_request"
    assert "text" in refused.json["errors"]["json"]
    assert "1 to 500 characters" in str(refused.json["errors"])
    assert alice.get(f"/v1/games/{game_id}/messages").json["items"] == []


def test_the_limits_are_counted_after_stripping(alice, bob):
    game_id = started(alice, bob)
    assert say(alice, game_id, "x" * 500).status_code == 201
    padded = say(alice, game_id, "   " + "y" * 500 + "\n")
    assert padded.status_code == 201 and padded.json["message"]["text"] == "y" * 500
    assert say(alice, game_id, "z").status_code == 201
    assert alice.post(f"/v1/games/{game_id}/messages", {}).status_code == 422
    assert alice.post(f"/v1/games/{game_id}/messages",
                      {"text": "hi", "seat": 1}).status_code == 422  # unknown field


def test_only_seated_players_post_but_spectators_read(alice, bob, carol):
    game_id = started(alice, bob)
    assert say(alice, game_id, "hello").status_code == 201
    refused = say(carol, game_id, "may I?")
    assert refused.status_code == 403 and refused.json["code"] == "not_seated"
    read = carol.get(f"/v1/games/{game_id}/messages")
    assert read.status_code == 200 and [m["text"] for m in read.json["items"]] == ["hello"]
    assert say(alice, "nosuchgame", "hi").status_code == 404
    assert carol.get("/v1/games/nosuchgame/messages").status_code == 404
    # A public table's talk is for anyone to read, without an account too (issue 15).
    assert alice.client.get(f"/v1/games/{game_id}/messages").status_code == 200


def test_an_open_table_may_talk_before_the_start(alice):
    game = alice.create(seats=2)
    assert say(alice, game["id"], "anyone?").status_code == 201
    assert alice.get(f"/v1/games/{game['id']}").json["status"] == "open"


def test_messages_change_neither_the_turn_nor_the_view(alice, bob):
    game_id = started(alice, bob)
    for caller in (alice, bob):
        before = caller.get(f"/v1/games/{game_id}").json
        moves_before = caller.get(f"/v1/games/{game_id}/moves").json
        assert say(caller, game_id, "hmm").status_code == 201
        after = caller.get(f"/v1/games/{game_id}").json
        moves_after = caller.get(f"/v1/games/{game_id}/moves").json
        assert after["version"] == before["version"] + 1
        for field in ("status", "actors", "seats", "view", "seat", "result"):
            assert after[field] == before[field], field
        assert moves_after["moves"] == moves_before["moves"]
        assert moves_after["prompt"] == moves_before["prompt"]


def test_a_move_guarded_by_the_version_before_a_message_conflicts(alice, bob):
    game_id = started(alice, bob)
    actor = alice.get(f"/v1/games/{game_id}").json["actors"][0]
    mover, other = (alice, bob) if actor == 0 else (bob, alice)
    listed = mover.get(f"/v1/games/{game_id}/moves").json
    assert say(other, game_id, "quick, before you move").status_code == 201
    stale = mover.post(f"/v1/games/{game_id}/moves",
                       {"expected_version": listed["version"],
                        "moves": [{"id": listed["moves"][0]["id"]}]})
    assert stale.status_code == 409 and stale.json["code"] == "version_conflict"
    assert stale.json["current_version"] == listed["version"] + 1
    fresh = mover.post(f"/v1/games/{game_id}/moves",
                       {"expected_version": listed["version"] + 1,
                        "moves": [{"id": listed["moves"][0]["id"]}]})
    assert fresh.status_code == 201, fresh.json


def test_messages_are_in_the_log_and_in_a_record_that_verifies(alice, bob, client):
    game_id = started(alice, bob)
    assert say(alice, game_id, "gl hf").status_code == 201
    log = bob.get(f"/v1/games/{game_id}/events?after=0&limit=500").json["items"]
    talk = [e for e in log if e["type"] == "MessagePosted"]
    assert [(e["by"], e["data"]) for e in talk] == [(alice.id, {"seat": 0, "text": "gl hf"})]
    finish(alice, bob, game_id)
    assert say(bob, game_id, "gg").status_code == 201  # also after the end
    record = alice.get(f"/v1/games/{game_id}/record").json
    kinds = [e["type"] for e in record["events"]]
    # The record is the game to its end (SeedRevealed): talk after the end is not in it.
    assert kinds.count("MessagePosted") == 1 and kinds[-1] == "SeedRevealed"
    report = client.post("/v1/records/verify", json=record)
    assert report.status_code == 200 and report.json["ok"] is True, report.json
    texts = [m["text"] for m in alice.get(f"/v1/games/{game_id}/messages").json["items"]]
    assert texts == ["gl hf", "gg"]


def test_posting_is_rate_limited_per_api_key(redis_url, redis_client, tmp_path):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False, "KEYS_DIR": str(tmp_path),
                      "RATELIMIT_PER_CALLER": "1000 per minute",
                      "RATELIMIT_MESSAGES": "3 per minute"})
    client = app.test_client()
    alice, bob = Caller(client, "alice"), Caller(client, "bob")
    game_id = started(alice, bob)
    assert [say(alice, game_id, f"{i}").status_code for i in range(3)] == [201] * 3
    limited = say(alice, game_id, "one too many")
    assert limited.status_code == 429 and limited.json["code"] == "rate_limited"
    assert limited.content_type == "application/problem+json"
    assert int(limited.headers["Retry-After"]) > 0
    assert say(bob, game_id, "my own budget").status_code == 201  # per API key
    assert alice.get(f"/v1/games/{game_id}/messages").status_code == 200  # reading is not
    assert alice.get(f"/v1/games/{game_id}").status_code == 200


def test_the_default_messages_limit_is_ten_a_minute(redis_url, redis_client, tmp_path):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False, "KEYS_DIR": str(tmp_path)})
    assert app.config["RATELIMIT_MESSAGES"] == "10 per minute"
    alice, bob = Caller(app.test_client(), "alice"), Caller(app.test_client(), "bob")
    game_id = started(alice, bob)
    assert [say(alice, game_id, f"{i}").status_code for i in range(11)] == [201] * 10 + [429]
