"""Live streams through a real gunicorn (deploy/gunicorn.conf.py: gevent workers) and a real
RQ worker: a subscriber sees a bot game's moves as they are appended, and many open streams
do not keep a move from being answered (under gthread each stream would hold a thread).
Every read has a deadline."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from tests.e2e.conftest import register

RP = "res-publica-2230ad"
GAME_SECONDS = 240  # a 2-seat bot game through the worker takes well under this
SUBSCRIBERS = 50


@pytest.fixture()
def fast_keepalive(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keepalives every second (gunicorn inherits it): a stream a client left is noticed
    and ended within a second, so the server stops promptly at teardown."""
    monkeypatch.setenv("MEEPLE_STREAM_KEEPALIVE_SECONDS", "1")


class Sse:
    """One SSE stream over http.client, its frames parsed as they arrive."""

    def __init__(self, base: str, path: str, api_key: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {api_key}",
                                                "Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        assert self.response.status == 200, self.response.read()
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")
        self._buffer = b""

    def frames(self, deadline: float) -> Iterator[tuple[float, dict[str, str]]]:
        """(receipt time, fields) of each frame, keepalives too, until the stream ends."""
        while True:
            while b"\n\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                assert remaining > 0, "timed out waiting for the stream"
                assert self.conn.sock is not None
                self.conn.sock.settimeout(remaining)
                chunk = self.response.read1(65536)
                if not chunk:
                    return
                self._buffer += chunk
            frame, self._buffer = self._buffer.split(b"\n\n", 1)
            fields = {}
            for line in frame.decode().split("\n"):
                name, _, value = line.partition(":")
                fields[name or "comment"] = value.strip()
            yield time.time(), fields

    def envelopes_until(self, version: int, deadline: float) -> list[dict[str, Any]]:
        got = []
        for _, fields in self.frames(deadline):
            if "data" in fields:
                got.append(json.loads(fields["data"]))
                if got[-1]["v"] >= version:
                    return got
        raise AssertionError(f"the stream ended before version {version}")

    def close(self) -> None:
        self.conn.close()


def epoch(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def test_a_subscriber_sees_a_bot_game_live_to_its_end(fast_keepalive, live_server) -> None:
    watcher = register(live_server, "watcher")
    status, game, _ = watcher.call("POST", "/v1/games", {"type": RP, "seats": 2,
                                                          "bots": [0, 1], "join": False})
    assert status == 201 and game["status"] == "active"
    stream = Sse(live_server, f"/v1/games/{game['id']}/stream?after=0", watcher.api_key or "")
    try:
        received = [(at, json.loads(fields["data"])) for at, fields in
                    stream.frames(time.monotonic() + GAME_SECONDS) if "data" in fields]
    finally:
        stream.close()
    envelopes = [envelope for _, envelope in received]
    assert envelopes[-1]["type"] == "SeedRevealed"  # then the server closed the stream
    assert [e["v"] for e in envelopes] == list(range(1, len(envelopes) + 1))
    status, log, _ = watcher.call("GET", f"/v1/games/{game['id']}/events?after=0&limit=500")
    # The stream ends at SeedRevealed; the scoring worker may have appended GameScored since.
    logged = [(e["v"], e["type"]) for e in log["items"]]
    assert logged[:len(envelopes)] == [(e["v"], e["type"]) for e in envelopes]
    assert [t for _, t in logged[len(envelopes):]] in ([], ["GameScored"])
    moves = [(receipt, e) for receipt, e in received if e["type"] == "MovePlayed"]
    assert len(moves) > 50
    # Live: the moves came while the bots made them, each soon after it was appended
    # (`at` is sealed just before the append, on this machine's clock).
    delays = sorted(receipt - epoch(e["at"]) for receipt, e in moves)
    assert delays[len(delays) // 2] < 0.5, f"median delay {delays[len(delays) // 2]:.3f} s"
    assert moves[-1][0] - moves[0][0] > 1.0  # spread over the game, not sent at the end
    redacted = [e for _, e in moves if e.get("redacted")]
    assert redacted and all(e["hash"] is None for e in redacted)  # a spectator's view


def test_many_open_streams_do_not_hold_up_a_move(fast_keepalive, live_server) -> None:
    alice = register(live_server, "alice")
    status, game, _ = alice.call("POST", "/v1/games", {"type": RP, "seats": 2, "bots": []})
    assert status == 201
    status, game, _ = alice.call("POST", f"/v1/games/{game['id']}/join", {})
    assert status == 200 and game["status"] == "active"
    watchers = [register(live_server, f"watcher-{i}") for i in range(5)]
    streams = []
    try:
        for index in range(SUBSCRIBERS):  # more than gthread's 2 workers x 4 threads
            streams.append(Sse(live_server, f"/v1/games/{game['id']}/stream",
                               watchers[index % len(watchers)].api_key or ""))
        for stream in streams:  # each is open: its first keepalive came
            assert next(stream.frames(time.monotonic() + 10))[1] == {"comment": "keepalive"}
        status, listed, _ = alice.call("GET", f"/v1/games/{game['id']}/moves")
        started = time.monotonic()
        status, played, _ = alice.call("POST", f"/v1/games/{game['id']}/moves", {
            "expected_version": listed["version"], "seat": listed["seat"],
            "moves": [{"id": listed["moves"][0]["id"]}]})
        answered = time.monotonic() - started
        assert status == 201, played
        assert answered < 2.0, f"the move took {answered:.2f} s with {SUBSCRIBERS} streams open"
        deadline = time.monotonic() + 15
        for stream in streams:
            got = stream.envelopes_until(played["version"], deadline)
            assert got[-1]["v"] == played["version"] and got[-1]["type"] == "MovePlayed"
    finally:
        for stream in streams:
            stream.close()
