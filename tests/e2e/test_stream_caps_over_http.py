"""The caps on live streams through a real gunicorn (gevent workers, deploy/gunicorn.conf.py):
a caller's cap holds across the worker processes, a stream whose client went away gives its
slot back, and a process's cap leaves connections for plain requests
(service.middleware.stream_slots).
Every read has a deadline."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import Http, register

PER_CALLER, PER_PROCESS, WORKERS = 3, 4, 2
WAIT = 15.0


@pytest.fixture()
def capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small caps (gunicorn inherits them), and keepalives every second, so that a client
    that went away is noticed within a second or two."""
    monkeypatch.setenv("MEEPLE_STREAMS_PER_CALLER", str(PER_CALLER))
    monkeypatch.setenv("MEEPLE_STREAMS_PER_PROCESS", str(PER_PROCESS))
    monkeypatch.setenv("MEEPLE_STREAM_KEEPALIVE_SECONDS", "1")


class Opened:
    """One stream request over its own connection, kept open while it streams."""

    def __init__(self, base: str, path: str, api_key: str | None) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=WAIT)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.body: Any = None
        if self.status != 200:
            self.body = json.loads(self.response.read())

    def close(self) -> None:
        self.conn.close()


@pytest.fixture()
def streams() -> Iterator[list[Opened]]:
    opened: list[Opened] = []
    yield opened
    for stream in opened:
        stream.close()


def a_game(client: Http) -> str:
    status, game, _ = client.call("POST", "/v1/games", {"type": "trajan", "seats": 2})
    assert status == 201, game
    return str(game["id"])


def test_a_callers_streams_are_capped_and_a_gone_client_frees_its_slot(
        capped: None, live_server: str, streams: list[Opened]) -> None:
    alice = register(live_server, "alice")
    game = a_game(alice)
    path = f"/v1/games/{game}/stream"
    for _ in range(PER_CALLER):  # spread over both workers by the kernel: one count
        streams.append(Opened(live_server, path, alice.api_key))
        assert streams[-1].status == 200
    refused = Opened(live_server, path, alice.api_key)
    assert refused.status == 429 and refused.body["code"] == "too_many_streams"
    assert int(refused.response.getheader("Retry-After") or 0) >= 1
    refused.close()
    assert Opened(live_server, "/v1/players/me/stream", alice.api_key).status == 429
    streams.pop(0).close()  # the client goes away without a word
    deadline = time.monotonic() + WAIT
    while True:
        again = Opened(live_server, path, alice.api_key)
        if again.status == 200:
            streams.append(again)
            break
        again.close()
        assert time.monotonic() < deadline, "the gone client's slot was never given back"
        time.sleep(0.5)


def test_a_process_keeps_connections_for_plain_requests(
        capped: None, live_server: str, streams: list[Opened]) -> None:
    players = [register(live_server, f"p{i}") for i in range(2 * WORKERS * PER_PROCESS
                                                              // PER_CALLER + 1)]
    game = a_game(players[0])
    statuses = []
    for player in players:
        for _ in range(PER_CALLER):
            opened = Opened(live_server, f"/v1/games/{game}/stream", player.api_key)
            statuses.append(opened.status)
            if opened.status == 200:
                streams.append(opened)
            else:
                assert opened.status == 503 and opened.body["code"] == "streams_full"
                assert int(opened.response.getheader("Retry-After") or 0) >= 1
                opened.close()
    assert len(streams) <= WORKERS * PER_PROCESS
    assert 503 in statuses
    started = time.monotonic()
    status, _, _ = players[0].call("GET", f"/v1/games/{game}")
    assert status == 200 and time.monotonic() - started < 5
