"""Throughput and latency of POST /v1/games/{id}/moves through a real gunicorn on loopback.

    .venv/bin/python -m bench.moves [--clients 16] [--moves 200] [--seconds 60] [--url URL]

Without --url it starts a private redis-server (production AOF settings:
appendfsync always) in a temp dir and gunicorn with deploy/gunicorn.conf.py.
Each client thread owns one keep-alive connection, registers a player, opens
a 2-seat Res Publica game, takes both seats (hot seat), then loops: GET the
legal moves (not timed), POST one random move (timed), starting a new game
when one ends. Two ceilings are measured in the same run, with the same
number of threads:
  (a) EventStore.append of one small event per call, straight to the same redis;
  (b) GET /healthz on the same gunicorn.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench.harness import (
    HOST,
    HttpError,
    JsonClient,
    filesystem_of,
    format_latency,
    latency_summary,
    machine,
    print_machine,
    private_gunicorn,
    private_redis,
    progress,
    url_host_port,
)
from events.domain.envelope import NewEvent
from events.exceptions import MeepleError
from events.store.clients import events_client
from events.store.event_store import EventStore

GAME_TYPE = "res-publica-2230ad"
MAX_ERRORS_PER_THREAD = 50  # a broken server must not keep the benchmark busy


@dataclass
class Tally:
    """What one thread measured. Each thread has its own: no locks on the hot path."""

    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    games: int = 0

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


@dataclass
class PhaseResult:
    name: str
    threads: int
    count: int
    seconds: float
    latency: dict[str, float]
    errors: dict[str, int]
    games: int = 0

    @property
    def rate(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0


Setup = Callable[[int], Any]
Loop = Callable[[int, Any, Tally, float], None]


def run_phase(name: str, threads: int, setup: Setup, loop: Loop, seconds: float) -> PhaseResult:
    """Run `setup` in every thread (not timed), then `loop` from a common start, and add up."""
    tallies = [Tally() for _ in range(threads)]
    barrier = threading.Barrier(threads + 1)
    failures: list[BaseException] = []

    def body(index: int) -> None:
        try:
            state = setup(index)
        except BaseException as exc:  # report it, and release everyone waiting
            failures.append(exc)
            barrier.abort()
            return
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return
        loop(index, state, tallies[index], time.monotonic() + seconds)

    workers = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    try:
        barrier.wait(timeout=120)
    except threading.BrokenBarrierError:
        raise RuntimeError(f"{name}: setup failed: {failures[:1]}") from None
    started = time.monotonic()
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started

    latencies = [value for tally in tallies for value in tally.latencies]
    errors: Counter[str] = Counter()
    for tally in tallies:
        errors.update(tally.errors)
    return PhaseResult(name, threads, len(latencies), elapsed, latency_summary(latencies),
                       dict(errors), sum(tally.games for tally in tallies))


# --------------------------------------------------------------------------- moves


def new_game(client: JsonClient) -> str:
    """A 2-seat game with both seats ours, started."""
    game = client.json("POST", "/v1/games",
                       {"type": GAME_TYPE, "seats": 2, "options": {}, "bots": []}, ok=201)
    joined = client.json("POST", f"/v1/games/{game['id']}/join", {}, ok=200)
    if joined["status"] != "active":
        raise RuntimeError(f"game {game['id']} did not start: {joined['status']}")
    return str(game["id"])


def moves_phase(host: str, port: int, threads: int, moves: int, seconds: float) -> PhaseResult:
    clients: dict[int, JsonClient] = {}

    def setup(index: int) -> tuple[JsonClient, list[str]]:
        client = JsonClient(host, port)
        clients[index] = client
        player = client.json("POST", "/v1/players", {"name": f"bench-{index}"}, ok=201)
        client.api_key = player["api_key"]
        return client, [new_game(client)]

    def loop(index: int, state: tuple[JsonClient, list[str]], tally: Tally, deadline: float
             ) -> None:
        client, game = state
        rng = random.Random(index)  # bench code, not game code: Python's random is fine
        tally.games = 1
        legal: dict[str, Any] | None = None
        while (len(tally.latencies) < moves and time.monotonic() < deadline
               and tally.error_count < MAX_ERRORS_PER_THREAD):
            try:
                legal = play_one(client, game[0], rng, tally, legal)
                if legal is None:
                    game[0] = new_game(client)
                    tally.games += 1
            except (HttpError, OSError) as exc:
                legal = None  # ask again
                tally.errors[getattr(exc, "code", type(exc).__name__)] += 1

    try:
        return run_phase("moves", threads, setup, loop, seconds)
    finally:
        for client in clients.values():
            client.close()


def play_one(client: JsonClient, game_id: str, rng: random.Random, tally: Tally,
             legal: dict[str, Any] | None) -> dict[str, Any] | None:
    """POST one random legal move (timed); the answer's `your_moves` are the next legal
    moves, so a client needs one request per move, as a bot would. None once it is over."""
    if legal is None:
        legal = client.json("GET", f"/v1/games/{game_id}/moves")
    if not legal["moves"]:
        return None
    body = {
        "expected_version": legal["version"],
        "seat": legal["seat"],
        "moves": [{"id": rng.choice(legal["moves"])["id"]}],
    }
    status, reply = client.call("POST", f"/v1/games/{game_id}/moves", body)
    if status != 201:
        raise HttpError(status, reply)
    tally.latencies.append(client.last_round_trip)
    if reply["game"]["status"] == "ended":
        return None
    next_moves: dict[str, Any] = reply["your_moves"]
    return next_moves


# --------------------------------------------------------------------------- ceilings


def healthz_phase(host: str, port: int, threads: int, requests: int, seconds: float
                  ) -> PhaseResult:
    clients: dict[int, JsonClient] = {}

    def setup(index: int) -> JsonClient:
        clients[index] = JsonClient(host, port)
        return clients[index]

    def loop(index: int, client: JsonClient, tally: Tally, deadline: float) -> None:
        while (len(tally.latencies) < requests and time.monotonic() < deadline
               and tally.error_count < MAX_ERRORS_PER_THREAD):
            try:
                status, _ = client.call("GET", "/healthz")
            except OSError as exc:
                tally.errors[type(exc).__name__] += 1
                continue
            if status == 200:
                tally.latencies.append(client.last_round_trip)
            else:
                tally.errors[f"http_{status}"] += 1

    try:
        return run_phase("healthz", threads, setup, loop, seconds)
    finally:
        for client in clients.values():
            client.close()


def append_phase(redis_url: str, threads: int, appends: int, seconds: float) -> PhaseResult:
    """EventStore.append, one small event per call, each thread on its own game (on a
    cluster, `redis+cluster://`, the games spread over the masters)."""
    connection = events_client(redis_url, max_connections=threads + 4)
    prefix = f"bench-{secrets.token_hex(4)}"  # apart from the service's own keys
    store = EventStore(connection, prefix=prefix)

    def setup(index: int) -> str:
        return f"append-{index}"

    def loop(index: int, game_id: str, tally: Tally, deadline: float) -> None:
        version = 0
        while (len(tally.latencies) < appends and time.monotonic() < deadline
               and tally.error_count < MAX_ERRORS_PER_THREAD):
            event = NewEvent("BenchTicked", {"n": version + 1}, "bench")
            started = time.perf_counter()
            try:
                store.append(game_id, version, [event])
            except (redis.RedisError, MeepleError) as exc:
                tally.errors[type(exc).__name__] += 1
                continue
            tally.latencies.append(time.perf_counter() - started)
            version += 1

    try:
        return run_phase("lua append", threads, setup, loop, seconds)
    finally:
        for key in connection.scan_iter(match=f"{prefix}:*", count=1000):
            connection.delete(key)
        connection.close()


# --------------------------------------------------------------------------- report


def print_phase(result: PhaseResult, unit: str) -> None:
    errors = ", ".join(f"{code} x{n}" for code, n in sorted(result.errors.items())) or "none"
    games = f", {result.games} games" if result.games else ""
    print(f"{result.name:<11} {result.threads} threads: {result.count} {unit} in "
          f"{result.seconds:.1f} s = {result.rate:,.1f} {unit}/s{games}; errors: {errors}")
    print(f"{'':<11} {format_latency(result.latency)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--moves", type=int, default=200, help="moves per client (bound)")
    parser.add_argument("--seconds", type=float, default=60.0, help="time bound per phase")
    parser.add_argument("--ceiling-requests", type=int, default=500,
                        help="healthz requests and appends per thread (bound)")
    parser.add_argument("--url", help="an already running API (loopback); no servers started")
    parser.add_argument("--redis-url", help="with --url: its redis, for the append ceiling")
    parser.add_argument("--workers", type=int, help="gunicorn workers (MEEPLE_WEB_WORKERS)")
    parser.add_argument("--threads", type=int, help="gunicorn threads (MEEPLE_WEB_THREADS)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    info = machine()

    if args.url:
        host, port = url_host_port(args.url)
        if host not in (HOST, "localhost", "::1"):
            parser.error("--url must be on loopback")
        results = measure(args, host, port, args.redis_url)
        report(args, info, results, peak_rss=None)
        return

    with tempfile.TemporaryDirectory(prefix="meeple-bench-") as tmp:
        # As `meeple run` does: the games on a durable server, the rate-limit counters apart.
        with private_redis(Path(tmp) / "redis") as server, private_redis(
            Path(tmp) / "counters", durable=False
        ) as counters, private_gunicorn(
            server.url, Path(tmp) / "gunicorn.log", args.workers, args.threads, counters.url
        ) as gunicorn:
            results = measure(args, HOST, gunicorn.port, server.url)
            peak_rss = gunicorn.peak_rss_mib()
        info["redis fs"] = filesystem_of(Path(tmp))
        report(args, info, results, peak_rss)


def measure(args: argparse.Namespace, host: str, port: int, redis_url: str | None
            ) -> dict[str, PhaseResult]:
    progress(f"GET /healthz from {args.clients} threads ...")
    results = {"healthz": healthz_phase(host, port, args.clients, args.ceiling_requests,
                                        args.seconds)}
    progress(f"POST moves from {args.clients} clients ...")
    results["moves"] = moves_phase(host, port, args.clients, args.moves, args.seconds)
    if redis_url:
        progress(f"EventStore.append from {args.clients} threads ...")
        results["append"] = append_phase(redis_url, args.clients, args.ceiling_requests,
                                         args.seconds)
    return results


def report(args: argparse.Namespace, info: dict[str, str], results: dict[str, PhaseResult],
           peak_rss: dict[int, float] | None) -> None:
    print_machine(info)
    print()
    print_phase(results["moves"], "moves")
    print_phase(results["healthz"], "requests")
    if "append" in results:
        print_phase(results["append"], "appends")
    moves, healthz = results["moves"].rate, results["healthz"].rate
    print()
    print(f"move_rps / healthz_rps = {moves / healthz if healthz else 0:.3f}")
    if "append" in results and results["append"].rate:
        print(f"move_rps / append_rps  = {moves / results['append'].rate:.3f}")
    if peak_rss:
        sizes = ", ".join(f"{mib:.0f}" for mib in sorted(peak_rss.values()))
        print(f"gunicorn workers peak RSS (VmHWM): {sizes} MiB")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "machine": info,
            "args": {k: str(v) for k, v in vars(args).items()},
            "results": {k: {**vars(v), "rate": v.rate} for k, v in results.items()},
            "peak_rss_mib": peak_rss,
        }, indent=2))


if __name__ == "__main__":
    main()
