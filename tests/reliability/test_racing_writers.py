"""Issue 11, point 11: racing writers and idempotent races, over real HTTP through gunicorn
(two worker processes) on a real redis-server. Whatever the interleaving: writers racing
for one version have exactly one effect, retries of one request with one Idempotency-Key
write it once and all get its answer, and a game's stream stays one unbroken chain."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

import redis

from events.domain.envelope import chain_breaks
from events.store.event_store import EventStore

RP = "res-publica-2230ad"
RACERS = 12


def call(base: str, method: str, path: str, body: Any = None, key: str | None = None,
         idempotency_key: str | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    if idempotency_key:
        request.add_header("Idempotency-Key", idempotency_key)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def race(count: int, attempt: Any) -> list[tuple[int, Any]]:
    """Run `attempt(i)` in `count` threads released together; their answers in order."""
    barrier = threading.Barrier(count)
    answers: list[tuple[int, Any] | None] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        answers[index] = attempt(index)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(answer is not None for answer in answers)
    return answers  # type: ignore[return-value]


def player(base: str, name: str) -> str:
    status, made = call(base, "POST", "/v1/players", {"name": name})
    assert status == 201, made
    return str(made["api_key"])


def hot_seat_game(base: str) -> tuple[str, str]:
    """A started 2-seat game whose both seats are alice's: (api key, game id)."""
    key = player(base, "alice")
    status, game = call(base, "POST", "/v1/games", {"type": RP, "seats": 2}, key)
    assert status == 201, game
    assert call(base, "POST", f"/v1/games/{game['id']}/join", {}, key)[0] == 200
    return key, str(game["id"])


def assert_one_chain(redis_client: redis.Redis, game_id: str) -> list[dict[str, Any]]:
    envelopes = EventStore(redis_client).read(game_id)
    assert [e["v"] for e in envelopes] == list(range(1, len(envelopes) + 1))
    assert chain_breaks(envelopes) == []
    return envelopes


def test_writers_racing_for_one_version_have_exactly_one_effect(
        live_server: str, redis_client: redis.Redis) -> None:
    key, game_id = hot_seat_game(live_server)
    for _ in range(5):
        status, listed = call(live_server, "GET", f"/v1/games/{game_id}/moves", key=key)
        assert status == 200 and listed["moves"]
        version, seat = listed["version"], listed["seat"]
        moves = listed["moves"]
        answers = race(RACERS, lambda i, v=version, s=seat, m=moves: call(
            live_server, "POST", f"/v1/games/{game_id}/moves",
            {"expected_version": v, "seat": s, "moves": [{"id": m[i % len(m)]["id"]}]}, key))
        statuses = Counter(status for status, _ in answers)
        assert statuses[201] == 1, answers
        assert statuses[409] == RACERS - 1, statuses
        assert {body["code"] for status, body in answers if status == 409} == {
            "version_conflict"}
        winner = next(body for status, body in answers if status == 201)
        envelopes = assert_one_chain(redis_client, game_id)
        assert envelopes[-1]["v"] == winner["game"]["version"]
        assert len(envelopes) - version == len(winner["events"])  # one batch, once


def test_retries_racing_with_one_key_write_once_and_all_get_its_answer(
        live_server: str, redis_client: redis.Redis) -> None:
    key, game_id = hot_seat_game(live_server)
    for round_ in range(3):
        status, listed = call(live_server, "GET", f"/v1/games/{game_id}/moves", key=key)
        body = {"expected_version": listed["version"], "seat": listed["seat"],
                "moves": [{"id": listed["moves"][0]["id"]}]}
        before = len(assert_one_chain(redis_client, game_id))
        answers = race(RACERS, lambda _i, b=body, r=round_: call(
            live_server, "POST", f"/v1/games/{game_id}/moves", b, key,
            idempotency_key=f"move-{r}"))
        assert {status for status, _ in answers} == {201}, answers
        assert len({json.dumps(body["events"], sort_keys=True) for _, body in answers}) == 1
        after = assert_one_chain(redis_client, game_id)
        assert len(after) == before + len(answers[0][1]["events"])
    # The same key with another request is refused, not replayed.
    status, listed = call(live_server, "GET", f"/v1/games/{game_id}/moves", key=key)
    reused = call(live_server, "POST", f"/v1/games/{game_id}/moves",
                  {"expected_version": listed["version"], "seat": listed["seat"],
                   "moves": [{"id": listed["moves"][-1]["id"]}]}, key, idempotency_key="move-0")
    assert reused[0] == 422 and reused[1]["code"] == "idempotency_key_reused"


def test_creations_racing_with_one_key_make_one_game(
        live_server: str, redis_client: redis.Redis) -> None:
    key = player(live_server, "alice")
    answers = race(RACERS, lambda _i: call(live_server, "POST", "/v1/games",
                                           {"type": RP, "seats": 3}, key,
                                           idempotency_key="one-table"))
    assert {status for status, _ in answers} == {201}, answers
    assert len({body["id"] for _, body in answers}) == 1
    game_id = answers[0][1]["id"]
    envelopes = assert_one_chain(redis_client, game_id)
    assert [e["type"] for e in envelopes] == ["GameCreated", "SeatTaken"]
    status, mine = call(live_server, "GET", "/v1/games?status=open", key=key)
    assert [game["id"] for game in mine["items"]] == [game_id]


def test_joins_racing_for_the_last_seat_seat_exactly_one(
        live_server: str, redis_client: redis.Redis) -> None:
    host = player(live_server, "host")
    status, game = call(live_server, "POST", "/v1/games", {"type": RP, "seats": 3}, host)
    game_id = game["id"]
    assert call(live_server, "POST", f"/v1/games/{game_id}/join", {},
                player(live_server, "second"))[0] == 200
    keys = [player(live_server, f"racer{i}") for i in range(RACERS)]
    answers = race(RACERS, lambda i: call(live_server, "POST", f"/v1/games/{game_id}/join",
                                          {}, keys[i]))
    statuses = Counter(status for status, _ in answers)
    assert statuses[200] == 1 and statuses[409] == RACERS - 1, answers
    assert {body["code"] for status, body in answers if status == 409} <= {"game_full",
                                                                          "seat_taken"}
    envelopes = assert_one_chain(redis_client, game_id)
    assert [e["type"] for e in envelopes].count("SeatTaken") == 3
    assert [e["type"] for e in envelopes].count("GameStarted") == 1
