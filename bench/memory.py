"""Redis memory held by one finished game: a 5-player Res Publica game, every seat a bot.

    .venv/bin/python -m bench.memory [--players 5] [--seconds 300] [--redis-url URL]

The game is played the way production plays bot seats: the use cases queue
each bot turn on RQ (`ai`), an RQ worker (in this process, SimpleWorker)
plays it through the same use case a human's move goes through, and the
`scoring` job appends GameScored at the end. Then `MEMORY USAGE` is summed
over every key of that game (`meeple:g:{<id>}:*`). Without --redis-url a
private redis-server is started in a temp dir with the production settings.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import redis
from rq import SimpleWorker

from bench.harness import machine, print_machine, private_redis, progress
from events.accounts.players import Player
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.table import Status, Table

GAME_TYPE = "res-publica-2230ad"
HOST = Player("p_bench_memory", "bench-memory")


def play_to_the_end(app: Meeple, client: redis.Redis, players: int, seconds: float) -> Table:
    """Create an all-bot game and run the ai and scoring queues until it is scored."""
    table = app.create_game(HOST, GAME_TYPE, players, bots=list(range(players)), join=False)
    worker = SimpleWorker(["ai", "scoring"], connection=client)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        worker.work(burst=True, logging_level="WARNING")
        table = app.load(table.id)
        if table.status is Status.ENDED and table.ratings is not None:
            return table
    raise SystemExit(f"game {table.id} not finished and scored within {seconds:.0f}s "
                     f"(status {table.status.value}, version {table.version})")


def keys_matching(client: redis.Redis, pattern: str) -> list[str]:
    return sorted(key.decode() for key in client.scan_iter(match=pattern, count=1000))


def memory_of(client: redis.Redis, keys: list[str]) -> dict[str, int]:
    # samples=0: measure every element of a stream or hash, not an estimate from 5.
    return {key: int(client.memory_usage(key, samples=0) or 0) for key in keys}


def report(client: redis.Redis, table: Table) -> None:
    keys = keys_matching(client, f"meeple:g:{{{table.id}}}:*")
    sizes = memory_of(client, keys)
    total = sum(sizes.values())
    print(f"game {table.id}: {table.type}, {table.seat_count} bot seats, "
          f"{table.version} events, status {table.status.value}")
    width = max(len(key) for key in keys)
    for key, size in sizes.items():
        kind = client.type(key)
        kind = kind.decode() if isinstance(kind, bytes) else str(kind)
        print(f"  {key:<{width}}  {kind:<6} {size:>10,} bytes")
    print(f"  {'total':<{width}}  {'':<6} {total:>10,} bytes = {total / 1024:,.1f} KiB "
          f"({total / max(table.version, 1):,.0f} bytes per event)")
    # Not the game's own keys: RQ's job records, which expire (result_ttl 1 h).
    jobs = memory_of(client, keys_matching(client, f"rq:job:*{table.id}*"))
    print(f"  + {len(jobs)} RQ job records for this game: {sum(jobs.values()):,} bytes "
          "(kept 60 s after each job)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=300.0, help="time bound")
    parser.add_argument("--redis-url", help="a running redis (loopback) instead of a private one")
    args = parser.parse_args()

    if args.redis_url:
        measure(args.redis_url, args.players, args.seconds)
        return
    with tempfile.TemporaryDirectory(prefix="meeple-bench-") as tmp, \
            private_redis(Path(tmp) / "redis") as server:
        measure(server.url, args.players, args.seconds)


def measure(url: str, players: int, seconds: float) -> None:
    os.environ["MEEPLE_REDIS_URL"] = url  # the RQ jobs build their own Meeple from it
    client = redis.Redis.from_url(url)
    app = Meeple(client, RQDispatcher(client))
    info = machine()
    started = time.monotonic()
    progress(f"playing one {players}-player game, every seat a bot ...")
    table = play_to_the_end(app, client, players, seconds)
    print_machine(info)
    print(f"\nplayed in {time.monotonic() - started:.1f} s")
    report(client, table)


if __name__ == "__main__":
    main()
