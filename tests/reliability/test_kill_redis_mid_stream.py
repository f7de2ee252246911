"""kill -9 of redis-server (appendfsync always) in the middle of a stream of moves over HTTP:
after a restart, every move that got a 2xx is there, and the chain is intact."""

from __future__ import annotations

import os
import random
import signal
import subprocess
from pathlib import Path
from typing import Any

import redis

from events.domain.envelope import canonical_json, chain_breaks
from events.store.event_store import EventStore
from tests.conftest import free_port, start_redis
from tests.e2e.conftest import BIN, ROOT, Http, wait_for

DURABLE = ("--appendonly", "yes", "--appendfsync", "always")


def content(envelope: dict[str, Any]) -> tuple[Any, ...]:
    return envelope["type"], envelope["at"], envelope["by"], canonical_json(envelope["data"])


def post_random_move(http: Http, game_id: str, rng: random.Random) -> tuple[int, dict]:
    status, listed, _ = http.call("GET", f"/v1/games/{game_id}/moves")
    if status != 200 or not listed["moves"]:
        return status, {}
    move = rng.choice(listed["moves"])
    status, body, _ = http.call("POST", f"/v1/games/{game_id}/moves",
                                {"expected_version": listed["version"],
                                 "moves": [{"id": move["id"]}]})
    return status, body


def test_every_acknowledged_move_survives_kill_9(tmp_path: Path) -> None:
    port, web = free_port(), free_port()
    data = tmp_path / "redis"
    server = start_redis(data, port, *DURABLE)
    url = f"redis://127.0.0.1:{port}/0"
    env = {**os.environ, "MEEPLE_REDIS_URL": url, "MEEPLE_BIND": f"127.0.0.1:{web}",
           "MEEPLE_RATE_LIMIT": "100000 per minute",
           "MEEPLE_REGISTRATION_RATE_LIMIT": "100000 per minute"}
    api = subprocess.Popen([str(BIN / "gunicorn"), "-c", str(ROOT / "deploy/gunicorn.conf.py"),
                            "service.wsgi:app"], cwd=ROOT, env=env)
    try:
        base = f"http://127.0.0.1:{web}"
        wait_for(base + "/healthz", api)
        status, player, _ = Http(base).call("POST", "/v1/players", {"name": "alice"})
        http = Http(base, player["api_key"])
        status, game, _ = http.call("POST", "/v1/games",
                                    {"type": "res-publica-2230ad", "seats": 2})
        http.call("POST", f"/v1/games/{game['id']}/join", {})

        rng = random.Random(3)
        # version -> what a 2xx answer showed of it (hashes are only shown once a game ends)
        acknowledged: dict[int, tuple[Any, ...]] = {}
        refused = 0
        for step in range(400):
            if step == 150:
                server.send_signal(signal.SIGKILL)  # mid-stream, no warning
                server.wait()
            if step == 200:
                server = start_redis(data, port, *DURABLE)  # same dir: replays the AOF
            status, body = post_random_move(http, game["id"], rng)
            if status == 201:
                acknowledged.update({e["v"]: content(e) for e in body["events"]})
            elif status >= 500:
                assert status == 503 and body.get("code") in (None, "store_unavailable")
                refused += 1
        assert refused > 0, "the outage was never seen: the test proves nothing"

        stored = EventStore(redis.Redis.from_url(url)).read(game["id"])
        assert chain_breaks(stored) == []
        by_version = {e["v"]: content(e) for e in stored}
        missing = {v: h for v, h in acknowledged.items() if by_version.get(v) != h}
        assert not missing, f"acknowledged but lost: {sorted(missing)}"
        assert len(acknowledged) > 150
    finally:
        api.terminate()
        api.wait(20)
        server.terminate()
        server.wait(10)
