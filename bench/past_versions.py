"""What a read of a past version costs (`GET /v1/games/{id}/state?version=N`, replays):
`Meeple.table_at` on a private redis-server, for finished games of each type.

    .venv/bin/python -m bench.past_versions [--reads 300] [--json FILE]

Per game type: one finished game of the most seats, imported as a record is (so it has no
checkpoint yet). Printed: the first read of its next-to-last version (it folds from the
start and saves the checkpoints it passes), then `--reads` reads of random versions from a
fresh process cache: latency percentiles and the most events one read folded; and the
memory of the checkpoints against that of the stream. Issue 11: the cost of a read is
bounded by CHECKPOINT_EVERY events, whatever the game's length.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from bench.harness import format_latency, latency_summary, machine, print_machine, private_redis
from events.application.meeple import CHECKPOINT_EVERY, Meeple
from events.application.offline import play_offline
from events.store.event_store import EventStore
from games.registry import GAMES
from games.rng import Rng

SEED = bytes(range(32))


def measure(client: redis.Redis, game_type: str, reads: int) -> dict[str, Any]:
    seats = GAMES[game_type].max_players
    game_id = f"past-{game_type}"
    _, envelopes = play_offline(game_type, seats, SEED, Rng(game_type.encode(), 0),
                                game_id=game_id)
    Meeple(client).import_game(game_id, envelopes, SEED)
    folded: list[int] = []
    original = EventStore.read

    def counted(self: EventStore, game_id: str, start: int = 1, end: int | None = None
                ) -> list[dict[str, Any]]:
        found = original(self, game_id, start, end)
        folded.append(len(found))
        return found

    EventStore.read = counted  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        Meeple(client).table_at(game_id, len(envelopes) - 1)
        first = time.perf_counter() - started
        first_folded = folded[-1]
        folded.clear()
        app, rng, latencies = Meeple(client), random.Random(1), []
        for _ in range(reads):
            version = rng.randint(1, len(envelopes))
            started = time.perf_counter()
            app.table_at(game_id, version)
            latencies.append(time.perf_counter() - started)
    finally:
        EventStore.read = original  # type: ignore[method-assign]
    usage = {suffix: int(client.memory_usage(f"meeple:g:{{{game_id}}}:{suffix}") or 0)
             for suffix in ("events", "checkpoints")}
    return {"game": game_type, "seats": seats, "events": len(envelopes),
            "first_read_ms": first * 1000, "first_read_folded": first_folded,
            "reads": latency_summary(latencies), "most_folded": max(folded),
            "stream_kb": usage["events"] / 1024, "checkpoints_kb": usage["checkpoints"] / 1024,
            "checkpoints": int(client.hlen(f"meeple:g:{{{game_id}}}:checkpoints"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    info = machine()
    with tempfile.TemporaryDirectory() as workdir, private_redis(Path(workdir)) as server:
        client = redis.Redis.from_url(server.url)
        results = [measure(client, game_type, args.reads) for game_type in sorted(GAMES)]
    print_machine(info)
    print(f"checkpoint every {CHECKPOINT_EVERY} versions; {args.reads} random reads a game")
    for row in results:
        print(f"{row['game']} ({row['seats']} seats, {row['events']} events): first read "
              f"{row['first_read_ms']:.1f} ms folding {row['first_read_folded']}; then "
              f"{format_latency(row['reads'])}; at most {row['most_folded']} events folded; "
              f"stream {row['stream_kb']:.0f} KB, {row['checkpoints']} checkpoints "
              f"{row['checkpoints_kb']:.0f} KB")
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "results": results}, indent=2))


if __name__ == "__main__":
    main()
