"""A real gunicorn and a real RQ worker process on the test redis."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


class Http:
    """A tiny JSON client over urllib: what a third-party client would do."""

    def __init__(self, base: str, api_key: str | None = None) -> None:
        self.base = base
        self.api_key = api_key

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, dict[str, str]]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.api_key:
            request.add_header("Authorization", f"Bearer {self.api_key}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
                status, headers = response.status, dict(response.headers)
        except urllib.error.HTTPError as error:
            raw, status, headers = error.read(), error.code, dict(error.headers)
        ctype = headers.get("Content-Type", "")
        parsed = json.loads(raw) if "json" in ctype and raw else raw.decode()
        return status, parsed, headers


def register(base: str, name: str) -> Http:
    """A new player, and a client that speaks with its API key."""
    status, player, _ = Http(base).call("POST", "/v1/players", {"name": name})
    assert status == 201, player
    return Http(base, player["api_key"])


def download(client: Http, path: str) -> bytes:
    """The bytes of a 200 answer, exactly as served (a record is verified as downloaded)."""
    request = urllib.request.Request(client.base + path)
    request.add_header("Authorization", f"Bearer {client.api_key}")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return bytes(response.read())


def game_log(client: Http, game_id: str) -> list[dict[str, Any]]:
    """Every event of the game the client may read, page after page."""
    items: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        status, page, _ = client.call("GET", f"/v1/games/{game_id}/events?after={after}"
                                      "&limit=500")
        assert status == 200, page
        items += page["items"]
        after = page["next_after"]
    return items


def leaderboard_when(client: Http, game_type: str, rows: int) -> list[dict[str, Any]]:
    """The leaderboard once the scoring worker has rated `rows` entries (30 s at most)."""
    listed: list[dict[str, Any]] = []
    for _ in range(300):
        status, board, _ = client.call("GET", f"/v1/game-types/{game_type}/leaderboard")
        assert status == 200, board
        listed = board["rows"]
        if len(listed) == rows:
            break
        time.sleep(0.1)
    return listed


def meeple_verify(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`meeple verify` run as an auditor runs it: the installed command, in a subprocess."""
    return subprocess.run([str(BIN / "meeple"), "verify", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def wait_for(url: str, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:  # refused, reset or timed out while the server boots
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer in {seconds}s")


def server_env(redis_url: str, events_url: str, keys: Path, port: int) -> dict[str, str]:
    """The environment of an API host or a worker on the test stores."""
    return {**os.environ, "MEEPLE_REDIS_URL": redis_url, "MEEPLE_EVENTS_URL": events_url,
            "MEEPLE_BIND": f"127.0.0.1:{port}",
            "MEEPLE_RATE_LIMIT": "100000 per minute",
            "MEEPLE_REGISTRATION_RATE_LIMIT": "100000 per minute", "MEEPLE_WEB_WORKERS": "2",
            "MEEPLE_KEYS_DIR": str(keys), "MEEPLE_ARCHIVE_URL": str(keys.parent / "archive"),
            # A stream still open at the stop waits for its next keepalive: don't wait 20 s.
            "MEEPLE_WEB_GRACEFUL_TIMEOUT": "2"}


def start_api(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(BIN / "gunicorn"), "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),
         "service.wsgi:app"], cwd=ROOT, env=env)


def start_worker(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([str(BIN / "meeple"), "worker", *args], cwd=ROOT, env=env)


def stop_all(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture()
def live_server(redis_url: str, redis_client: Any, events_url: str,
                tmp_path: Path) -> Iterator[str]:
    """gunicorn (deploy/gunicorn.conf.py) and `meeple worker`, both on the test redis (the
    games on the session's cluster where a test says so: `events_backend`)."""
    port = free_port()
    with serving(server_env(redis_url, events_url, tmp_path / "keys", port), port) as base:
        yield base


@contextlib.contextmanager
def serving(env: dict[str, str], port: int) -> Iterator[str]:
    """gunicorn and a worker with its scheduler on `env`, until the block ends: its URL."""
    api = start_api(env)
    worker = start_worker(env, "--with-scheduler")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base + "/healthz", api)
        yield base
    finally:
        stop_all([api, worker])
