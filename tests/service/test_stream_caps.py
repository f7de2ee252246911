"""Live streams are capped per caller (over every process: Redis) and per process, so that a
client holding many streams cannot take every connection of the server
(service.middleware.stream_slots).
A stream's slot is given back when its answer is closed (its end, or its client gone)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import create_app
from tests.service.conftest import Caller

CAP = 3
WAIT = 15.0


@pytest.fixture()
def app(redis_url: str, redis_client: redis.Redis, events_url: str,
        tmp_path: Path) -> Iterator[Flask]:
    yield create_app(
        {"REDIS_URL": redis_url, "EVENTS_URL": events_url, "DISPATCH": False,
         "RATELIMIT_PER_CALLER": "100000 per minute",
         "RATELIMIT_REGISTRATION": "100000 per minute", "KEYS_DIR": str(tmp_path / "keys"),
         "STREAMS_PER_CALLER": CAP, "STREAMS_PER_PROCESS": 2 * CAP,
         "STREAM_KEEPALIVE_SECONDS": 0.2})


class Held:
    """A stream's answer, not read, in a thread of its own (a streamed answer keeps its
    request context pushed in the thread that made it): its slot is held until `close`."""

    def __init__(self, client: FlaskClient, path: str, headers: dict[str, str],
                 address: str) -> None:
        self.status_code = 0
        self.headers: dict[str, str] = {}
        self.body: Any = None
        self._answered, self._stop = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._run, args=(client, path, headers, address),
                                        daemon=True)
        self._thread.start()
        assert self._answered.wait(WAIT), "no answer"

    def _run(self, client: FlaskClient, path: str, headers: dict[str, str],
             address: str) -> None:
        response = client.get(path, headers=headers, buffered=False,
                              environ_base={"REMOTE_ADDR": address})
        self.status_code, self.headers = response.status_code, dict(response.headers)
        if response.status_code != 200:
            self.body = json.loads(response.get_data())
        self._answered.set()
        self._stop.wait(WAIT)
        response.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(WAIT)
        assert not self._thread.is_alive()


def open_stream(client: FlaskClient, path: str, headers: dict[str, str], stack: ExitStack,
                address: str = "10.0.0.1") -> Held:
    held = Held(client, path, headers, address)
    stack.callback(held.close)
    return held


def test_a_caller_holds_at_most_the_cap_of_streams(client: FlaskClient, alice: Caller) -> None:
    game = alice.create(seats=2)["id"]
    with ExitStack() as stack:
        held = [open_stream(client, f"/v1/games/{game}/stream", alice.headers, stack)
                for _ in range(CAP - 1)]
        held.append(open_stream(client, "/v1/players/me/stream", alice.headers, stack))
        assert [r.status_code for r in held] == [200] * CAP
        refused = open_stream(client, f"/v1/games/{game}/stream", alice.headers, stack)
        assert refused.status_code == 429
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert refused.body["code"] == "too_many_streams"
        assert int(refused.headers["Retry-After"]) >= 1
        refused = open_stream(client, "/v1/players/me/stream", alice.headers, stack)
        assert refused.status_code == 429
        # Another caller is not held up by alice's streams.
        bob = Caller(client, "bob")
        assert open_stream(client, f"/v1/games/{game}/stream", bob.headers,
                           stack).status_code == 200
        held[0].close()  # a stream ends (or its client goes): its slot is free again
        assert open_stream(client, f"/v1/games/{game}/stream", alice.headers,
                           stack).status_code == 200


def test_anonymous_streams_count_per_address(client: FlaskClient, alice: Caller) -> None:
    game = alice.create(seats=2)["id"]
    with ExitStack() as stack:
        for _ in range(CAP):
            assert open_stream(client, f"/v1/games/{game}/stream", {}, stack).status_code == 200
        assert open_stream(client, f"/v1/games/{game}/stream", {}, stack).status_code == 429
        other = open_stream(client, f"/v1/games/{game}/stream", {}, stack, address="10.0.0.2")
        assert other.status_code == 200


def test_a_process_holds_at_most_its_cap_of_streams(client: FlaskClient,
                                                    alice: Caller) -> None:
    game = alice.create(seats=2)["id"]
    with ExitStack() as stack:
        for index in range(2 * CAP):  # each caller within its own cap
            answer = open_stream(client, f"/v1/games/{game}/stream", {}, stack,
                                 address=f"10.0.1.{index}")
            assert answer.status_code == 200
        refused = open_stream(client, f"/v1/games/{game}/stream", {}, stack,
                              address="10.0.2.1")
        assert refused.status_code == 503
        assert refused.body["code"] == "streams_full"
        assert int(refused.headers["Retry-After"]) >= 1
        # Plain requests are still answered.
        assert alice.get(f"/v1/games/{game}").status_code == 200


def test_a_refused_stream_leaves_no_slot_behind(client: FlaskClient, alice: Caller,
                                                redis_client: redis.Redis) -> None:
    game = alice.create(seats=2)["id"]
    with ExitStack() as stack:
        for _ in range(CAP + 2):
            open_stream(client, f"/v1/games/{game}/stream", alice.headers, stack)
        [key] = redis_client.keys("meeple:streams:*")
        assert redis_client.zcard(key) == CAP
        assert 0 < redis_client.ttl(key) <= 60
    assert redis_client.zcard(key) == 0  # every answer closed: every slot given back
