"""No secret in any log: a forced 500 is logged with a plain traceback (no local variables),
and secret-looking text is masked wherever it appears (events.logs)."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import structlog

from tests.conftest import free_port
from tests.e2e.conftest import ROOT, Http, wait_for
from tests.service.conftest import Caller

BIN = Path(sys.executable).parent


@contextlib.contextmanager
def logging_to(stream: io.StringIO) -> Iterator[io.StringIO]:
    """events.logs configured onto `stream`; the test process's own logging put back after."""
    saved_structlog = structlog.get_config()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    from events import logs  # here, not at the top: the gunicorn test needs none of it

    logs.configure("INFO", stream)
    try:
        yield stream
    finally:
        structlog.configure(**saved_structlog)
        root.handlers[:], root.level = saved


@pytest.fixture()
def captured() -> Iterator[io.StringIO]:
    with logging_to(io.StringIO()) as stream:
        yield stream


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_a_forced_500_logs_a_plain_traceback_without_locals(app, alice: Caller, bob: Caller,
                                                          captured, monkeypatch):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    meeple = app.extensions["meeple"]
    seed_hex = meeple.store.get_seed(game["id"]).hex()
    hand = json.dumps(meeple.load(game["id"]).state)  # the whole state, every hand in it
    api_key = alice.headers["Authorization"].removeprefix("Bearer ")

    def explode(table: Any, player: Any, wanted: Any = None) -> Any:
        secret_locals = {"api_key": api_key, "seed": seed_hex, "state": hand}  # noqa: F841
        raise RuntimeError(f"boom for {api_key} with seed {seed_hex}")

    monkeypatch.setattr("service.api.games.game_out", explode)
    response = alice.get(f"/v1/games/{game['id']}")
    assert response.status_code == 500
    assert response.json["code"] == "internal_error"
    text = captured.getvalue()
    [logged] = [line for line in lines(captured) if line["event"] == "unhandled error"]
    assert logged["level"] == "error"
    assert "Traceback" in logged["exception"] and "RuntimeError" in logged["exception"]
    assert "mk_[redacted]" in logged["exception"] and "[hex redacted]" in logged["exception"]
    assert api_key not in text and seed_hex not in text
    assert hand not in text and '"hands"' not in text and "secret_locals" not in text
    assert "in explode" in logged["exception"]


@pytest.mark.parametrize(("secret", "shown"), [
    ("mk_" + "A1b2_C3d4-E5f6G7h8I9j0KlMnOpQrStUvWxYz012345", "mk_[redacted]"),
    ("whsec_" + "x" * 43, "whsec_[redacted]"),
    ("ab" * 32, "[hex redacted]"),
    ("3f2a9c01d4e5b6a7-1-42-abcdefgh-abcdefghijklmnop", "[reply token redacted]"),
])
def test_secret_looking_text_is_masked_everywhere(captured, secret: str, shown: str):
    structlog.get_logger("meeple").info(f"saw {secret}", detail={"nested": [secret]},
                                        api_key="anything", seed=b"raw")
    logging.getLogger("rq.worker").info("job for %s", secret)
    entries = lines(captured)
    assert len(entries) == 2
    assert secret not in captured.getvalue()
    assert entries[0]["event"] == f"saw {shown}"
    assert entries[0]["detail"] == {"nested": [shown]}
    assert entries[0]["api_key"] == entries[0]["seed"] == "[redacted]"
    assert entries[1]["event"] == f"job for {shown}" and entries[1]["level"] == "info"


class WriteRecorder(io.StringIO):
    """A stream that keeps every write call apart, as the file under a process sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_each_record_is_one_whole_line_in_one_write_whatever_thread_logs_it():
    """CI caught `meeple run`'s log with two records on one line: the smtpd's own structlog
    line, and aiosmtpd's (standard library, from its thread) written between that line and
    its newline. Each record must reach the stream whole, in one write."""
    def from_structlog() -> None:
        for n in range(200):
            structlog.get_logger("meeple").info("smtpd listening", n=n)

    def from_stdlib() -> None:
        for n in range(200):
            logging.getLogger("mail.log").info("EOF received %d", n)

    stream = WriteRecorder()
    with logging_to(stream):
        threads = [threading.Thread(target=from_structlog), threading.Thread(target=from_stdlib)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(stream.writes) == 400
    assert all(text.endswith("\n") and text.count("\n") == 1 for text in stream.writes)
    events = [json.loads(text)["event"] for text in stream.writes]
    assert sum(event == "smtpd listening" for event in events) == 200
    assert sum(event.startswith("EOF received") for event in events) == 200


def test_a_500_in_a_gunicorn_worker_is_one_json_line_without_secrets(redis_url, redis_client,
                                                                    tmp_path):
    """Through gunicorn for real: the store answers with an error nobody handles (a game's
    metadata overwritten with the wrong type), so the route fails with a 500."""
    port = free_port()
    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url, "MEEPLE_BIND": f"127.0.0.1:{port}",
           "MEEPLE_WEB_WORKERS": "1", "MEEPLE_KEYS_DIR": str(tmp_path / "keys")}
    stderr = (tmp_path / "api.log").open("wb")
    api = subprocess.Popen([str(BIN / "gunicorn"), "-c", str(ROOT / "deploy" / "gunicorn.conf.py"),
                            "service.wsgi:app"], cwd=ROOT, env=env, stdout=stderr,
                           stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base + "/healthz", api)
        _, player, _ = Http(base).call("POST", "/v1/players", {"name": "alice"})
        alice = Http(base, player["api_key"])
        status, game, _ = alice.call("POST", "/v1/games", {"type": "res-publica-2230ad",
                                                           "seats": 2, "bots": [1]})
        assert status == 201
        seed_hex = redis.Redis.from_url(redis_url).get(f"meeple:g:{{{game['id']}}}:seed")
        redis_client.delete(f"meeple:g:{{{game['id']}}}:meta")
        redis_client.set(f"meeple:g:{{{game['id']}}}:meta", "not a hash")
        status, body, _ = alice.call("GET", f"/v1/games/{game['id']}")
        assert status == 500 and body["code"] == "internal_error"
    finally:
        api.terminate()
        api.wait(20)
        stderr.close()
    text = (tmp_path / "api.log").read_text()
    assert player["api_key"] not in text
    assert seed_hex is not None and seed_hex.decode() not in text
    entries = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    [failure] = [entry for entry in entries if entry.get("event") == "unhandled error"]
    assert "WRONGTYPE" in failure["exception"] and "Traceback" in failure["exception"]
    # gunicorn's own lines, the master's included, come through the same chain, as JSON.
    assert all(line.startswith("{") for line in text.splitlines() if line.strip()), text
    assert any("Booting worker" in entry.get("event", "") for entry in entries)
