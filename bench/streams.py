"""Live streams under load: SSE subscribers on a set of games while moves are played as fast
as the drivers can, through a real gunicorn (deploy/gunicorn.conf.py) on loopback.

    .venv/bin/python -m bench.streams [--subscribers 500] [--games 100] [--drivers 1]
                                      [--seconds 20] [--json FILE]

It starts a private redis-server (production AOF settings), a memory-only one for the
rate-limit counters and gunicorn, as bench.moves does. Setup: each driver thread registers
a player, and --spectators players are registered to watch. Then three phases of --seconds
each; before each, the drivers open new games (2-seat Res Publica, both seats their own:
a move costs more as a game goes on, so each phase starts them afresh) and then play them
round robin, one `POST …/moves` per move (the next legal moves taken from the answer's
`your_moves`):
  1. no subscribers;
  2. N subscribers: a child process (asyncio, raw sockets: no threads) holds N
     `GET /v1/games/{id}/stream` (SSE, new events only), subscriber i on game i % games
     with spectator key i % spectators, all connected before the drivers start; for each
     event it notes the receipt time against the envelope's `at` (sealed just before the
     append, on the same clock);
  3. no subscribers again (drift on a shared box).
Printed: the machine, moves/s and POST latency per phase, the cost of the subscribers
(phase 2 against the mean of 1 and 3), delivery delay p50/p95/p99/max, events received
against those expected, and the gunicorn workers' memory (VmRSS, VmHWM) after each phase.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.harness import (
    HOST,
    Gunicorn,
    HttpError,
    JsonClient,
    filesystem_of,
    format_latency,
    latency_summary,
    machine,
    percentile,
    print_machine,
    private_gunicorn,
    private_redis,
    progress,
)
from bench.moves import GAME_TYPE, MAX_ERRORS_PER_THREAD, PhaseResult, Tally, play_one, run_phase

CONNECT_SECONDS = 60.0  # the subscribers must all be connected by then
DRAIN_SECONDS = 3.0  # after the drivers stop, time for the last deliveries


# --------------------------------------------------------------------------- drivers


@dataclass
class Driver:
    client: JsonClient
    games: list[str]
    legal: dict[str, dict[str, Any] | None]


def new_driver(host: str, port: int, index: int) -> Driver:
    client = JsonClient(host, port)
    player = client.json("POST", "/v1/players", {"name": f"driver-{index}"}, ok=201)
    client.api_key = player["api_key"]
    return Driver(client, [], {})


def open_games(drivers: list[Driver], total: int) -> list[str]:
    """New started 2-seat games, both seats the driver's (hot seat), `total` shared out.
    Every phase plays new games: a move costs more as a game goes on, so phases that went
    on with the same games would not compare."""
    for index, driver in enumerate(drivers):
        count = total // len(drivers) + (index < total % len(drivers))
        driver.games = []
        for _ in range(count):
            game = driver.client.json("POST", "/v1/games", {
                "type": GAME_TYPE, "seats": 2, "options": {}, "bots": []}, ok=201)
            driver.client.json("POST", f"/v1/games/{game['id']}/join", {}, ok=200)
            driver.games.append(str(game["id"]))
        driver.legal = dict.fromkeys(driver.games)
    return [game_id for driver in drivers for game_id in driver.games]


def drive(name: str, drivers: list[Driver], seconds: float) -> PhaseResult:
    """Every driver plays round robin over its games for `seconds`; a game that ends
    leaves the rotation (its subscribers' streams close after SeedRevealed)."""

    def loop(index: int, driver: Driver, tally: Tally, deadline: float) -> None:
        rng = random.Random(index)  # bench code, not game code: Python's random is fine
        turn = 0
        while (driver.games and time.monotonic() < deadline
               and tally.error_count < MAX_ERRORS_PER_THREAD):
            game_id = driver.games[turn % len(driver.games)]
            turn += 1
            try:
                driver.legal[game_id] = play_one(driver.client, game_id, rng, tally,
                                                 driver.legal[game_id])
                if driver.legal[game_id] is None:
                    driver.games.remove(game_id)
                    tally.games += 1
            except (HttpError, OSError) as exc:
                driver.legal[game_id] = None  # ask again
                tally.errors[getattr(exc, "code", type(exc).__name__)] += 1

    return run_phase(name, len(drivers), lambda index: drivers[index], loop, seconds)


def versions(client: JsonClient, games: list[str]) -> dict[str, int]:
    return {game_id: int(client.json("GET", f"/v1/games/{game_id}")["version"])
            for game_id in games}


# --------------------------------------------------------------------------- subscribers


def subscriber_process(host: str, port: int, plan: list[tuple[str, str]], pipe: Connection
                       ) -> None:
    """The child: hold one SSE stream per (game_id, api_key) in `plan`; say "ready" once
    every stream is open, and answer "stop" with what was received."""
    asyncio.run(_subscribers(host, port, plan, pipe))


async def _subscribers(host: str, port: int, plan: list[tuple[str, str]], pipe: Connection
                       ) -> None:
    received: list[list[tuple[int, float, float]]] = [[] for _ in plan]  # (v, at, receipt)
    opened = [asyncio.Event() for _ in plan]
    errors: list[str] = []
    tasks = [asyncio.create_task(_subscribe(host, port, game_id, key, received[i], opened[i],
                                            errors))
             for i, (game_id, key) in enumerate(plan)]
    try:
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in opened)),
                               CONNECT_SECONDS)
        pipe.send(("ready", len(plan)))
    except TimeoutError:
        pipe.send(("failed", f"{sum(e.is_set() for e in opened)} of {len(plan)} connected; "
                             f"errors: {errors[:3]}"))
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, pipe.recv)  # "stop"
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    pipe.send(("done", received, errors))


async def _subscribe(host: str, port: int, game_id: str, key: str,
                     received: list[tuple[int, float, float]], opened: asyncio.Event,
                     errors: list[str]) -> None:
    """One stream over HTTP/1.1 (chunked), frames parsed as they arrive."""
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError as exc:
        errors.append(repr(exc))
        return
    writer.write((f"GET /v1/games/{game_id}/stream HTTP/1.1\r\nHost: {host}:{port}\r\n"
                  f"Authorization: Bearer {key}\r\nAccept: text/event-stream\r\n\r\n").encode())
    try:
        status = await reader.readline()
        if b" 200 " not in status:
            errors.append(status.decode(errors="replace").strip())
            return
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # the headers
        buffer = b""
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            if size == 0:
                return  # the stream ended (the game did)
            buffer += (await reader.readexactly(size + 2))[:-2]
            opened.set()  # the first chunk is the keepalive sent at once
            frames = buffer.split(b"\n\n")
            buffer = frames.pop()
            now = time.time()
            for frame in frames:
                _note(frame, now, received)
    except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
        errors.append(repr(exc))
    finally:
        writer.close()


def _note(frame: bytes, now: float, received: list[tuple[int, float, float]]) -> None:
    for line in frame.split(b"\n"):
        if line.startswith(b"data: "):
            envelope = json.loads(line[6:])
            at = datetime.fromisoformat(envelope["at"].replace("Z", "+00:00")).timestamp()
            received.append((envelope["v"], at, now))


@dataclass
class Deliveries:
    delays: list[float]
    received: int
    expected: int
    errors: list[str]


@dataclass
class Phase:
    result: PhaseResult
    memory: list[tuple[float, float]]  # each worker's (VmRSS, VmHWM) in MiB, at its end
    cpu: dict[str, float]  # CPU seconds by part: workers, redis, drivers, subscribers


def without_subscribers(name: str, pids: dict[str, list[int]], gunicorn: Gunicorn,
                        drivers: list[Driver], seconds: float) -> Phase:
    with Meter(pids) as meter:
        result = drive(name, drivers, seconds)
    return Phase(result, memory_mib(gunicorn), meter.used)


def with_subscribers(pids: dict[str, list[int]], gunicorn: Gunicorn,
                     plan: list[tuple[str, str]], drivers: list[Driver], seconds: float
                     ) -> tuple[Phase, Deliveries]:
    """Phase 2: the child connects every subscriber, then the drivers play; the workers'
    memory is read while the streams are still open."""
    parent, child = multiprocessing.get_context("spawn").Pipe()
    proc = multiprocessing.get_context("spawn").Process(
        target=subscriber_process, args=(HOST, gunicorn.port, plan, child), daemon=True)
    proc.start()
    try:
        if not parent.poll(CONNECT_SECONDS + 30):
            raise RuntimeError("the subscribers did not connect in time")
        state, detail = parent.recv()
        if state != "ready":
            raise RuntimeError(f"subscribers: {detail}")
        progress(f"{len(plan)} subscribers connected; POST moves ...")
        games = sorted({game_id for game_id, _ in plan})
        before = versions(drivers[0].client, games)
        with Meter({**pids, "subscribers": [proc.pid or 0]}) as meter:
            result = drive(f"{len(plan)} subs", drivers, seconds)
            time.sleep(DRAIN_SECONDS)  # the last deliveries
        after = versions(drivers[0].client, games)
        expected = sum(after[game_id] - before[game_id] for game_id, _ in plan)
        memory = memory_mib(gunicorn)
        parent.send("stop")
        if not parent.poll(60):
            raise RuntimeError("the subscribers did not report")
        _, received, errors = parent.recv()
    finally:
        proc.join(30)
        if proc.is_alive():
            proc.kill()
    delays = [receipt - at for stream in received for _, at, receipt in stream]
    return Phase(result, memory, meter.used), Deliveries(delays, len(delays), expected, errors)


# --------------------------------------------------------------------------- CPU and memory


def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far (threads included)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Meter:
    """CPU seconds used during a phase by each part of the run (all on the same box)."""

    pids: dict[str, list[int]]
    start: dict[str, float] = field(default_factory=dict)
    used: dict[str, float] = field(default_factory=dict)

    def __enter__(self) -> Meter:
        self.start = {name: sum(map(cpu_seconds, pids)) for name, pids in self.pids.items()}
        return self

    def __exit__(self, *exc: object) -> None:
        self.used = {name: sum(map(cpu_seconds, pids)) - self.start[name]
                     for name, pids in self.pids.items()}



def memory_mib(gunicorn: Gunicorn) -> list[tuple[float, float]]:
    """(VmRSS now, VmHWM peak) of each gunicorn worker, in MiB."""
    sizes = []
    for pid in sorted(gunicorn.worker_pids()):
        fields: dict[str, float] = {}
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                name, _, value = line.partition(":")
                if name in ("VmRSS", "VmHWM"):
                    fields[name] = int(value.split()[0]) / 1024
        except OSError:
            continue
        sizes.append((fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)))
    return sizes


# --------------------------------------------------------------------------- report


def print_phase(phase: Phase) -> None:
    result = phase.result
    errors = ", ".join(f"{code} x{n}" for code, n in sorted(result.errors.items())) or "none"
    workers = ", ".join(f"{rss:.0f}/{peak:.0f}" for rss, peak in phase.memory)
    print(f"{result.name:<10} {result.count} moves in {result.seconds:.1f} s = "
          f"{result.rate:,.1f} moves/s; errors: {errors}; workers RSS/peak MiB: {workers}")
    print(f"{'':<10} POST {format_latency(result.latency)}")
    cpu = ", ".join(f"{name} {seconds:.1f}" for name, seconds in phase.cpu.items())
    per_move = phase.cpu.get("workers", 0) / result.count * 1000 if result.count else 0
    print(f"{'':<10} CPU s: {cpu}; workers {per_move:.2f} ms a move")


def print_deliveries(deliveries: Deliveries) -> None:
    ordered = sorted(deliveries.delays)
    ms = 1000.0
    print(f"delivery   append (`at`) to receipt, {deliveries.received} events received of "
          f"{deliveries.expected} expected; subscriber errors: {len(deliveries.errors)}"
          + (f" (first: {deliveries.errors[0]})" if deliveries.errors else ""))
    print(f"{'':<10} p50 {percentile(ordered, 0.50) * ms:7.1f} ms  p95 "
          f"{percentile(ordered, 0.95) * ms:7.1f} ms  p99 {percentile(ordered, 0.99) * ms:7.1f} "
          f"ms  max {(ordered[-1] if ordered else 0) * ms:7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscribers", type=int, default=500)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--drivers", type=int, default=1, help="threads playing moves "
                        "(1: one client playing as fast as it can; more saturate the box)")
    parser.add_argument("--spectators", type=int, default=10, help="API keys the "
                        "subscribers share (none is seated: they see what a spectator does)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--workers", type=int, help="gunicorn workers (MEEPLE_WEB_WORKERS)")
    parser.add_argument("--stream-workers", type=int, default=0, help="serve the streams from "
                        "a gunicorn of their own with this many workers (deploy/: the stream "
                        "pool); 0: the same gunicorn as the moves")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    if args.games < args.drivers:
        parser.error("--games must be at least --drivers")
    info = machine()
    with tempfile.TemporaryDirectory(prefix="meeple-bench-") as tmp:
        with private_redis(Path(tmp) / "redis") as server, private_redis(
            Path(tmp) / "counters", durable=False
        ) as counters, private_gunicorn(
            server.url, Path(tmp) / "gunicorn.log", args.workers, None, counters.url
        ) as gunicorn, stream_pool(
            args.stream_workers, server.url, Path(tmp) / "streams.log", counters.url
        ) as streams:
            results = measure(args, gunicorn, streams or gunicorn, server.pid or 0)
        info["redis fs"] = filesystem_of(Path(tmp))
    report(args, info, results)


@contextmanager
def stream_pool(workers: int, redis_url: str, log_path: Path, counters_url: str
                ) -> Iterator[Gunicorn | None]:
    """The stream pool of deploy/ (a gunicorn that the proxy sends only streams to), or
    None: the streams share the moves' gunicorn."""
    if not workers:
        yield None
        return
    with private_gunicorn(redis_url, log_path, workers, None, counters_url) as pool:
        yield pool


def measure(args: argparse.Namespace, gunicorn: Gunicorn, streams: Gunicorn, redis_pid: int
            ) -> dict[str, Any]:
    drivers = [new_driver(HOST, gunicorn.port, i) for i in range(args.drivers)]
    keys = []
    for index in range(args.spectators):
        client = JsonClient(HOST, gunicorn.port)
        keys.append(client.json("POST", "/v1/players", {"name": f"watcher-{index}"},
                                ok=201)["api_key"])
        client.close()
    pids = {"workers": gunicorn.worker_pids(), "redis": [redis_pid], "drivers": [os.getpid()]}
    if streams is not gunicorn:
        pids["stream pool"] = streams.worker_pids()
    try:
        open_games(drivers, args.games)
        progress("POST moves, no subscribers ...")
        phases = [without_subscribers("0 subs", pids, gunicorn, drivers, args.seconds)]
        games = open_games(drivers, args.games)
        plan = [(games[i % len(games)], keys[i % len(keys)]) for i in range(args.subscribers)]
        progress(f"connecting {args.subscribers} subscribers ...")
        loaded, deliveries = with_subscribers(pids, streams, plan, drivers, args.seconds)
        phases.append(loaded)
        open_games(drivers, args.games)
        progress("POST moves, no subscribers again ...")
        phases.append(without_subscribers("0 subs", pids, gunicorn, drivers, args.seconds))
    finally:
        for driver in drivers:
            driver.client.close()
    return {"phases": phases, "deliveries": deliveries}


def report(args: argparse.Namespace, info: dict[str, str], results: dict[str, Any]) -> None:
    phases: list[Phase] = results["phases"]
    deliveries: Deliveries = results["deliveries"]
    print_machine(info)
    print(f"  {'shape':<12} {args.games} games, {args.drivers} drivers, {args.subscribers} "
          f"subscribers on {args.spectators} keys, {args.seconds:.0f} s a phase")
    print()
    for phase in phases:
        print_phase(phase)
    idle = (phases[0].result.rate + phases[2].result.rate) / 2
    loaded = phases[1].result.rate
    print()
    print(f"with {args.subscribers} subscribers: {loaded:,.1f} moves/s against {idle:,.1f} "
          f"without (mean of phases 1 and 3): {100 * (loaded / idle - 1) if idle else 0:+.1f} %")
    print_deliveries(deliveries)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "machine": info, "args": {k: str(v) for k, v in vars(args).items()},
            "phases": [{**vars(phase.result), "rate": phase.result.rate,
                        "memory_mib": phase.memory, "cpu_seconds": phase.cpu}
                       for phase in phases],
            "deliveries": {**latency_summary(deliveries.delays),
                           "p95_ms": percentile(sorted(deliveries.delays), 0.95) * 1000,
                           "received": deliveries.received, "expected": deliveries.expected,
                           "errors": deliveries.errors[:20]},
        }, indent=2))


if __name__ == "__main__":
    main()
