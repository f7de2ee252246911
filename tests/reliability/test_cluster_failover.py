"""A Redis Cluster master killed under load (issue 18): with the replica wait, no move that got a
2xx is lost; without it, a replication cut before the kill loses acknowledged moves.

Each test starts its own 3 + 3 cluster (cli.local_cluster; node timeout 2 s). Several API
clients (Flask test clients, one thread each) play moves in their own games, each POST with an
Idempotency-Key, the same one again after a 503. Then the replica of one master is cut off
(SIGSTOP, and the master drops its link: what the master takes then reaches no replica), the
master is killed (SIGKILL), the replica let go (SIGCONT) and promoted, and the killed node
started again (it rejoins as a replica, as a supervisor would restart it). Afterwards every
acknowledged move must be in its game's log, at its version, with no version repeated or
skipped and the hash chain intact.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from redis.cluster import RedisCluster

from cli.local_cluster import LocalCluster, admin_client
from events.domain.envelope import chain_breaks
from events.store.clients import events_client
from events.store.event_store import EventStore
from service import create_app
from tests.service.conftest import Caller

CLIENTS = 6
CUT_SECONDS = 1.5  # moves acknowledged by the master alone, while its replica takes nothing


@dataclass
class Tally:
    """What the clients saw: statuses, and every acknowledged event as (game, version, time)."""

    statuses: Counter[int] = field(default_factory=Counter)
    acked: list[tuple[str, int, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture()
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    with LocalCluster(tmp_path / "cluster", durable=False) as started:
        yield started


def make_app(cluster: LocalCluster, redis_url: str, tmp_path: Path) -> Flask:
    return create_app({"REDIS_URL": redis_url, "EVENTS_URL": cluster.url, "DISPATCH": False,
                       "RATELIMIT_PER_CALLER": "1000000 per minute",
                       "RATELIMIT_REGISTRATION": "1000000 per minute",
                       "KEYS_DIR": str(tmp_path / "keys")})


def hot_seat(caller: Caller) -> str:
    """A 2-player table whose both seats are the caller's."""
    game = caller.create(seats=2)
    assert caller.post(f"/v1/games/{game['id']}/join", {}).status_code == 200
    return str(game["id"])


def play(caller: Caller, game_id: str, stop: threading.Event, tally: Tally) -> None:
    """Moves until `stop`; a 503 is retried with the same Idempotency-Key."""
    while not stop.is_set():
        listed = caller.get(f"/v1/games/{game_id}/moves")
        tally_status(tally, listed.status_code)
        if listed.status_code != 200:
            time.sleep(0.05)
            continue
        if not listed.json["moves"]:
            return  # the game ended
        body = {"expected_version": listed.json["version"], "seat": listed.json["seat"],
                "moves": [{"id": listed.json["moves"][0]["id"]}]}
        key = uuid.uuid4().hex
        while True:
            answer = caller.post(f"/v1/games/{game_id}/moves", body,
                                 headers={"Idempotency-Key": key})
            tally_status(tally, answer.status_code)
            if answer.status_code != 503:
                break
            assert answer.headers.get("Retry-After"), answer.json
            time.sleep(0.1)
        if answer.status_code == 201:
            with tally.lock:  # a lost move replayed later gets the same id but not the same time
                tally.acked += [(game_id, event["v"], event["at"])
                                for event in answer.json["events"]]


def tally_status(tally: Tally, status: int) -> None:
    with tally.lock:
        tally.statuses[status] += 1


def lost_moves(cluster: LocalCluster, tally: Tally) -> list[tuple[str, int, str]]:
    """The acknowledged moves that are not in their game's log as acknowledged; and checks
    every game's versions and chain."""
    client = events_client(cluster.url)
    store = EventStore(client, replica_acks=0)
    lost = []
    logs: dict[str, list[dict[str, Any]]] = {}
    for game_id, version, at in tally.acked:
        if game_id not in logs:
            logs[game_id] = list(store.read(game_id))
            log = logs[game_id]
            assert [e["v"] for e in log] == list(range(1, len(log) + 1)), game_id
            assert chain_breaks(log) == [], game_id  # type: ignore[arg-type]
        log = logs[game_id]
        found = log[version - 1] if version <= len(log) else None
        if found is None or found["at"] != at:
            lost.append((game_id, version, at))
    client.close()
    return lost


def cut_and_kill(cluster: LocalCluster, app: Flask, *, clients: int = CLIENTS) -> Tally:
    """Load from `clients` players; cut one master's replica off, kill the master, let the
    replica be promoted, start the killed node again; the clients' tally."""
    callers = [Caller(app.test_client(), f"player{i}") for i in range(clients)]
    games = [hot_seat(caller) for caller in callers]
    probe = events_client(cluster.url)
    assert isinstance(probe, RedisCluster)
    victim_port = probe.get_node_from_key(f"meeple:g:{{{games[0]}}}:events").port
    probe.close()
    victim = cluster.node_for_port(victim_port)
    replica = next(node for node in cluster.replicas()
                   if _master_port_of(cluster, node) == victim_port)
    tally, stop = Tally(), threading.Event()
    threads = [threading.Thread(target=play, args=(caller, game, stop, tally))
               for caller, game in zip(callers, games, strict=True)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(1.0)  # steady load
        # The replication cut: the replica stops (so it cannot connect again) and the master
        # drops its link (what was sent before is in the replica's socket and survives).
        os.kill(replica.process.pid, signal.SIGSTOP)
        with admin_client(victim) as admin:
            admin.client_kill_filter(_type="replica")
        time.sleep(CUT_SECONDS)
        cluster.kill(victim)
        os.kill(replica.process.pid, signal.SIGCONT)
        cluster.wait_failover(victim_port, timeout=30)
        cluster.restart(victim)
        cluster.wait_healthy(timeout=30)
        time.sleep(1.5)  # the load goes on after the failover
    finally:
        os.kill(replica.process.pid, signal.SIGCONT)
        stop.set()
        for thread in threads:
            thread.join(30)
    assert not any(thread.is_alive() for thread in threads)
    return tally


def _master_port_of(cluster: LocalCluster, replica: Any) -> int:
    with admin_client(replica) as client:
        return int(client.info("replication")["master_port"])


def test_with_the_replica_wait_no_acknowledged_move_is_lost(
        cluster: LocalCluster, redis_url: str, redis_client: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEEPLE_MIN_REPLICA_ACKS", raising=False)  # the default: 1 on a cluster
    app = make_app(cluster, redis_url, tmp_path)
    assert app.extensions["meeple"].store.replica_acks == 1
    tally = cut_and_kill(cluster, app)
    assert tally.statuses[500] == 0, tally.statuses
    assert set(tally.statuses) <= {200, 201, 503}, tally.statuses
    assert tally.statuses[503] > 0  # the cut and the failover were felt
    assert len(tally.acked) > 50, tally.statuses
    assert lost_moves(cluster, tally) == []


def test_without_the_wait_a_replication_cut_loses_acknowledged_moves(
        cluster: LocalCluster, redis_url: str, redis_client: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_MIN_REPLICA_ACKS", "0")
    app = make_app(cluster, redis_url, tmp_path)
    assert app.extensions["meeple"].store.replica_acks == 0
    tally = cut_and_kill(cluster, app)
    assert tally.statuses[500] == 0, tally.statuses
    lost = lost_moves(cluster, tally)
    assert lost, "the cut should have cost acknowledged moves"
    print(f"acknowledged {len(tally.acked)}, lost {len(lost)}; statuses {dict(tally.statuses)}")
