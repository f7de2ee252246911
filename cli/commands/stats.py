"""`meeple stats`: what the Redis holds, by kind of key: keys and bytes (MEMORY USAGE).

It reads every key once (SCAN, then MEMORY USAGE in pipelined batches), so on a large store
it takes a while; it writes nothing.
"""

from __future__ import annotations

import re
from typing import Any

import click
import redis
from redis.cluster import RedisCluster

from cli.connections import connections
from events.store.clients import EventsClient

BATCH = 500
# (kind, pattern) in order: the first that matches names a key's kind.
KINDS = (
    ("game streams", r"meeple:g:\{[^}]*\}:events"),
    ("game metadata", r"meeple:g:\{[^}]*\}:meta"),
    ("game seeds", r"meeple:g:\{[^}]*\}:seed"),
    ("game snapshots", r"meeple:g:\{[^}]*\}:snap"),
    ("game checkpoints", r"meeple:g:\{[^}]*\}:checkpoints"),
    ("expired tables (notes)", r"meeple:g:\{[^}]*\}:gone"),
    ("idempotency keys", r"meeple:g:\{[^}]*\}:idem:.*"),
    ("lobby", r"meeple:\{lobby\}:.*"),
    ("ratings", r"meeple:\{ratings\}.*"),
    ("players and API keys", r"meeple:(player|apikey):.*"),
    ("profiles", r"meeple:profile(-email)?(:.*)?"),
    ("email codes sent", r"meeple:email-codes:.*"),
    ("quotas", r"meeple:(hosting|imports):.*"),
    ("sent notices", r"meeple:notified:.*"),
    ("digests", r"meeple:digest:.*"),
    ("email replies", r"meeple:reply-(used|refused):.*"),
    ("reconciler", r"meeple:reconcile.*"),
    ("bot counters, thinking", r"meeple:ai:.*"),
    ("rate limits", r"(LIMITS:)?(LIMITER|meeple:ratelimit).*"),
    ("RQ", r"rq:.*"),
)
_COMPILED = [(kind, re.compile(pattern)) for kind, pattern in KINDS]


def kind_of(key: str) -> str:
    return next((kind for kind, pattern in _COMPILED if pattern.fullmatch(key)), "other")


def used_memory(client: EventsClient) -> int:
    """The server's used_memory: the sum over a cluster's primaries."""
    if isinstance(client, RedisCluster):
        infos = client.info("memory", target_nodes=RedisCluster.PRIMARIES)
        return sum(int(info["used_memory"]) for info in infos.values())
    return int(client.info("memory")["used_memory"])


def tally(client: EventsClient) -> dict[str, tuple[int, int]]:
    """kind -> (keys, bytes)."""
    found: dict[str, tuple[int, int]] = {}
    batch: list[bytes] = []

    def flush() -> None:
        pipe = client.pipeline(transaction=False)
        for key in batch:
            pipe.memory_usage(key, samples=0)
        for key, size in zip(batch, pipe.execute(), strict=True):
            kind = kind_of(key.decode(errors="replace"))
            keys, total = found.get(kind, (0, 0))
            found[kind] = (keys + 1, total + int(size or 0))
        batch.clear()

    for key in client.scan_iter(count=1000):
        batch.append(key)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    return found


@click.command("stats")
def stats() -> None:
    """Redis memory by kind of key (game streams, snapshots, lobby, RQ, ...)."""
    stores = connections()
    client = stores.control
    found = tally(client)
    used = used_memory(client)
    if stores.events is not client:  # the event store apart (a cluster: every primary)
        for kind, (keys, size) in tally(stores.events).items():
            before = found.get(kind, (0, 0))
            found[kind] = (before[0] + keys, before[1] + size)
        used += used_memory(stores.events)
    total = sum(size for _, size in found.values()) or 1
    click.echo(f"{'kind':<22}{'keys':>10}{'bytes':>14}{'share':>8}")
    for kind, (keys, size) in sorted(found.items(), key=lambda item: -item[1][1]):
        click.echo(f"{kind:<22}{keys:>10}{size:>14}{size / total:>8.1%}")
    click.echo(f"{'all keys':<22}{sum(k for k, _ in found.values()):>10}{total:>14}")
    click.echo(f"redis used_memory {used} bytes (keys plus the server's own overhead)")
    _echo_bot_moves(client)


def _echo_bot_moves(client: redis.Redis) -> None:
    """The bots' moves by level, those over their time budget, and those played at greedy
    because their game's thinking time was spent (workers.jobs)."""
    moves = _counts(client.hgetall("meeple:ai:moves"))
    over = _counts(client.hgetall("meeple:ai:over_budget"))
    spent = _counts(client.hgetall("meeple:ai:thinking_spent"))
    for level, count in sorted(moves.items()):
        click.echo(f"bot {level}: {count} moves, {over.get(level, 0)} over budget by > 20 %, "
                   f"{spent.get(level, 0)} at greedy (the game's thinking time spent)")


def _counts(raw: Any) -> dict[str, int]:
    return {key.decode(): int(value) for key, value in raw.items()}
