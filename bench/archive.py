"""Finished games leaving Redis: archive size and time per game, Redis memory freed, and
the first read of an archived game (issue 18, point 8).

    .venv/bin/python -m bench.archive [--games 20] [--players 5]

Each game is a Res Publica game of `--players` seats played to the end by random legal
moves, with a clock that moves on by 1 s to 6 h a move (log-uniform: a mix of quick and
play-by-post turns, whose timestamps compress less than a bot game's), imported into a
private redis-server with the production settings, then archived to a directory by the
same code as `meeple archive` (sign the record, pack, write, read back, compare, delete).
"""

from __future__ import annotations

import argparse
import math
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis

from bench.harness import (
    format_latency,
    latency_summary,
    machine,
    print_machine,
    private_redis,
    progress,
)
from events.application.meeple import Meeple
from events.application.offline import Clock, play_offline
from events.records.archiving import archive_game
from events.records.keys import Keyring
from events.store.archive_stores import DirectoryArchive
from games.rng import Rng

GAME_TYPE = "res-publica-2230ad"


def spread_clock(seed: int) -> Clock:
    """Timestamps 1 s to 6 h apart, log-uniform."""
    rng = random.Random(seed)
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    times: dict[int, str] = {}

    def at(v: int) -> str:
        nonlocal moment
        if v not in times:
            moment += timedelta(seconds=math.exp(rng.uniform(0, math.log(6 * 3600))))
            times[v] = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return times[v]

    return at


def measure(client: redis.Redis, workdir: Path, games: int, players: int) -> dict[str, Any]:
    archive = DirectoryArchive(workdir / "archive")
    app, keyring = Meeple(client, archive=archive), Keyring(workdir / "keys")
    rows: list[dict[str, Any]] = []
    for n in range(games):
        progress(f"game {n + 1}/{games}: playing, importing, archiving ...")
        seed = bytes([n]) * 32
        _, envelopes = play_offline(GAME_TYPE, players, seed, Rng(seed, 0),
                                    game_id=f"bench-{n}", clock=spread_clock(n))
        app.import_game(f"bench-{n}", envelopes, seed)
        app.load(f"bench-{n}")  # its snapshot, as a played game has one
        started = time.perf_counter()
        moved = archive_game(app, f"bench-{n}", keyring)
        seconds = time.perf_counter() - started
        assert moved is not None and not app.store.in_redis(f"bench-{n}")
        fresh = Meeple(client, archive=archive)  # another process: nothing cached
        started = time.perf_counter()
        fresh.store.read(f"bench-{n}")
        first_read = time.perf_counter() - started
        rows.append({"events": moved.events, "document": moved.document_bytes,
                     "redis": moved.redis_bytes, "seconds": seconds, "first_read": first_read})
    left = sum(1 for _ in client.scan_iter(match="meeple:g:*", count=1000))
    return {"rows": rows, "keys_left": left}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    info = machine()
    with tempfile.TemporaryDirectory(prefix="meeple-archive-bench-") as tmp, \
            private_redis(Path(tmp) / "redis") as server:
        result = measure(redis.Redis.from_url(server.url), Path(tmp), args.games, args.players)
    print_machine(info)
    print_archive(result, args.players)


def print_archive(result: dict[str, Any], players: int) -> None:
    rows = result["rows"]
    docs = sorted(r["document"] for r in rows)
    print(f"\n== archive: {len(rows)} finished {players}-player {GAME_TYPE} games")
    print(f"events a game: {min(r['events'] for r in rows)} to {max(r['events'] for r in rows)}")
    print(f"Redis before: {sum(r['redis'] for r in rows) / len(rows) / 1024:.1f} KiB a game; "
          f"after: {result['keys_left']} keys of these games left")
    print(f"archive: {sum(docs) / len(docs) / 1024:.1f} KiB a game (min {docs[0] / 1024:.1f}, "
          f"max {docs[-1] / 1024:.1f}); "
          f"{sum(r['redis'] for r in rows) / sum(docs):.1f}x smaller than in Redis")
    print("time to archive one game (sign, pack, write, read back, compare, delete): "
          + format_latency(latency_summary([r["seconds"] for r in rows])))
    print("first read of an archived game (fetch, unpack, re-hash): "
          + format_latency(latency_summary([r["first_read"] for r in rows])))


if __name__ == "__main__":
    main()
