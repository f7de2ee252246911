"""`meeple run` on a machine with nothing configured: it brings up its own redis,
gunicorn, a worker and `meeple smtpd`, serves /healthz, and a Ctrl-C stops it all cleanly."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cli.embedded_redis import free_port, port_is_free

MEEPLE = Path(sys.executable).parent / "meeple"
STARTUP_SECONDS = 60  # gunicorn imports the whole app; CI machines are small
STOP_SECONDS = 15

# Each `meeple run` here takes the embedded Redis's default port: one xdist worker runs them
# all, one after another, so that none takes the port while another's Redis is restarting.
pytestmark = pytest.mark.xdist_group("embedded-redis-default-port")


def healthz_ok(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def wait_healthy(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"meeple run exited early with {proc.returncode}"
        if healthz_ok(port):
            return
        time.sleep(0.2)
    raise AssertionError(f"GET /healthz was not 200 within {STARTUP_SECONDS}s")


def start_meeple_run(tmp_path: Path, port: int, smtpd_port: int,
                     *extra: str, stores: dict[str, str] | None = None
                     ) -> subprocess.Popen[bytes]:
    """`meeple run` in `tmp_path`, on nothing configured (or the `stores` settings), its
    output in meeple-run.log."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("MEEPLE_REDIS_URL", "MEEPLE_RATELIMIT_REDIS_URL", "MEEPLE_EVENTS_URL",
                          "MEEPLE_CONTROL_URL", "MEEPLE_MIN_REPLICA_ACKS")}
    env.update(stores or {})
    env["MEEPLE_RATE_LIMIT"] = "100000 per minute"  # the tests poll; limits are tested apart
    with (tmp_path / "meeple-run.log").open("wb") as log:
        return subprocess.Popen(
            [str(MEEPLE), "run", "--port", str(port), "--workers", "1",
             "--smtpd-port", str(smtpd_port), *extra],
            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
        )


def test_meeple_run_serves_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    port, smtpd_port = free_port(), free_port()
    log_path = tmp_path / "meeple-run.log"
    proc = start_meeple_run(tmp_path, port, smtpd_port)
    try:
        wait_healthy(proc, port)

        proc.send_signal(signal.SIGINT)
        code = proc.wait(STOP_SECONDS)
    finally:
        if proc.poll() is None:
            proc.kill()  # its children get SIGTERM from the kernel (PR_SET_PDEATHSIG)
            proc.wait()
        print(log_path.read_text())  # shown by pytest when the test fails

    assert code == 0
    # Bot turns, notices and deadlines, webhooks: each on workers of its own.
    assert {"worker", "notify", "webhooks"} <= set(child_pids(log_path))
    assert list((tmp_path / "var").rglob("appendonly*.aof")), "redis kept no AOF under var/"
    assert port_is_free(port), "gunicorn still listening"
    assert port_is_free(smtpd_port), "meeple smtpd still listening"
    # Its redis is on the shared default port, which a `meeple run` in another test may take
    # as soon as it is free: the processes say whether ours stopped, the port cannot.
    redis_pids = logged_pids(log_path, "embedded redis started")
    assert len(redis_pids) == 2, "the events redis and the counters redis"
    assert not [pid for pid in redis_pids if is_running(pid)], "redis still running"


def log_entries(log_path: Path) -> list[dict[str, Any]]:
    """`meeple run`'s JSON log lines."""
    return [json.loads(line) for line in log_path.read_text().splitlines()
            if line.startswith("{")]


def logged_pids(log_path: Path, event: str) -> list[int]:
    """The pids the log gives for this event."""
    return [entry["pid"] for entry in log_entries(log_path) if entry.get("event") == event]


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    return True


def child_pids(log_path: Path) -> dict[str, int]:
    """The latest pid of each child, from `meeple run`'s JSON log lines."""
    return {entry["child"]: entry["pid"] for entry in log_entries(log_path)
            if entry.get("event") == "started" and "child" in entry}


def call(port: int, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = conn.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw or b"null")
        except ValueError:  # not JSON: shown as it came, for the assertion's message
            return response.status, raw.decode(errors="replace")
    finally:
        conn.close()


def test_meeple_run_starts_again_whatever_dies_and_bot_games_still_finish(
        tmp_path: Path) -> None:
    port, smtpd_port = free_port(), free_port()
    log_path = tmp_path / "meeple-run.log"
    proc = start_meeple_run(tmp_path, port, smtpd_port)
    try:
        wait_healthy(proc, port)
        status, player = call(port, "POST", "/v1/players", {"name": "host"})
        assert status == 201
        key = player["api_key"]
        games = [call(port, "POST", "/v1/games", {"type": "res-publica-2230ad", "seats": 2,
                                                  "bots": [0, 1], "join": False}, key)[1]["id"]
                 for _ in range(2)]
        redis_pid = int((tmp_path / "var" / "redis" / "pid").read_text())
        os.kill(redis_pid, signal.SIGKILL)  # the game store, while the bots play
        time.sleep(1)
        os.kill(child_pids(log_path)["worker"], signal.SIGKILL)
        os.kill(int((tmp_path / "var" / "redis-counters" / "pid").read_text()), signal.SIGKILL)
        # Everything comes back, and both games go on (from where they were: the store kept
        # every acknowledged event), by a good many bot moves.
        refused: list[tuple[int, Any]] = []  # answers other than 200, for the message

        def versions() -> list[int]:
            answers = [call(port, "GET", f"/v1/games/{game}", key=key) for game in games]
            refused.extend(answer for answer in answers if answer[0] != 200)
            return [body["version"] if code == 200 else -1 for code, body in answers]

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and min(versions()) < 0:
            time.sleep(0.25)
        after_kills = versions()
        while time.monotonic() < deadline:
            assert proc.poll() is None, "meeple run stopped"
            now = versions()
            if all(version >= start + 30 for version, start in zip(now, after_kills,
                                                                   strict=True)):
                break
            time.sleep(0.25)
        final = versions()
        assert all(version >= start + 30 for version, start in zip(final, after_kills,
                                                                    strict=True)), (
            after_kills, final, refused[-3:])
        assert int((tmp_path / "var" / "redis" / "pid").read_text()) != redis_pid
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(STOP_SECONDS * 2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        print(log_path.read_text())


def test_meeple_run_cluster_keeps_the_games_on_a_local_cluster(tmp_path: Path) -> None:
    """`meeple run --cluster`: a newcomer's one-liner for the service on a 3 + 3 Redis
    Cluster; a game against a bot plays on it, and Ctrl-C stops every node."""
    port, smtpd_port = free_port(), free_port()
    log_path = tmp_path / "meeple-run.log"
    proc = start_meeple_run(tmp_path, port, smtpd_port, "--cluster")
    try:
        wait_healthy(proc, port)
        ports = [int(p) for p in (tmp_path / "var" / "cluster" / "ports").read_text().split()]
        assert len(ports) == 6
        status, player = call(port, "POST", "/v1/players", {"name": "newcomer"})
        assert status == 201, player
        status, game = call(port, "POST", "/v1/games",
                            {"type": "trappist-one", "seats": 2, "bots": [1]}, player["api_key"])
        assert status == 201, game
        stream = f"meeple:g:{{{game['id']}}}:events"
        owners = [p for p in ports if redis_has(p, stream)]
        assert owners, "the game is on no cluster node"
        assert not redis_has(int((tmp_path / "var" / "redis" / "port").read_text()), stream)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(STOP_SECONDS + 15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        print(log_path.read_text())
    assert code == 0
    assert all(port_is_free(p) for p in ports), "a cluster node is still running"


def redis_has(port: int, key: str) -> bool:
    """Whether the node on `port` holds `key` itself (no redirection)."""
    import redis

    client = redis.Redis(port=port, socket_timeout=2)
    try:
        return bool(client.exists(key))
    except redis.ResponseError:  # MOVED: another master owns the slot
        return False
    finally:
        client.close()


@pytest.mark.parametrize("option,value", [("--port", "99999"), ("--port", "0"),
                                          ("--smtpd-port", "65536"), ("--smtpd-port", "-1")])
def test_meeple_run_refuses_a_port_that_is_no_port_before_starting_anything(
        tmp_path: Path, option: str, value: str) -> None:
    """`--port 99999` said "meeple listening on http://127.0.0.1:99999", then gunicorn died
    on it and was started again forever (an outside audit)."""
    ports = {"--port": str(free_port()), "--smtpd-port": str(free_port()), option: value}
    done = subprocess.run(
        [str(MEEPLE), "run", "--port", ports["--port"], "--smtpd-port", ports["--smtpd-port"]],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"Invalid value for '{option}'" in done.stderr and "1<=x<=65535" in done.stderr
    assert "listening" not in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # no var/: no Redis was started


def test_meeple_run_on_the_role_settings_starts_no_redis_of_its_own(tmp_path: Path,
                                                                     redis_url: str) -> None:
    """deploy/cluster/README.md's settings (MEEPLE_EVENTS_URL, MEEPLE_CONTROL_URL; no
    MEEPLE_REDIS_URL) name every store: `meeple run` uses them, the rate-limit counters on
    the control store that every host shares (outside audit: it started private Redis
    servers and kept the counters, per host, on one of them)."""
    port, smtpd_port = free_port(), free_port()
    log_path = tmp_path / "meeple-run.log"
    proc = start_meeple_run(tmp_path, port, smtpd_port, stores={
        "MEEPLE_EVENTS_URL": redis_url, "MEEPLE_CONTROL_URL": redis_url})
    try:
        wait_healthy(proc, port)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(STOP_SECONDS) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log_path.read_text()
    assert logged_pids(log_path, "embedded redis started") == []
    assert not (tmp_path / "var" / "redis").exists()
    assert f"games on {redis_url}, the rest on {redis_url}" in text
