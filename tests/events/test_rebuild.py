"""The stream is the truth: a table rebuilt from events alone equals the live one."""

from __future__ import annotations

import pytest
import redis

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.exceptions import VersionConflict
from events.store.clients import EventsClient
from games.bots import random_move
from games.rng import Rng
from tests.conftest import ON_BOTH_BACKENDS

pytestmark = ON_BOTH_BACKENDS


RP = "res-publica-2230ad"


def test_a_table_rebuilt_without_cache_or_snapshot_equals_the_live_one(
    redis_client: redis.Redis, events_redis: EventsClient,
) -> None:
    app = Meeple(redis_client, events=events_redis)
    alice = Player("p_alice", "alice")
    table = app.create_game(alice, RP, 3, bots=[1, 2], join=True)
    rng = Rng(b"rebuild", 0)
    for _ in range(120):
        seat = table.actors()[0]
        move = random_move(table.game, table.state or {}, seat, rng)
        who = alice if seat == 0 else Player("bot:random", "bot")
        table = app.play_moves(who, table.id, [{"id": move["id"]}], table.version, seat).table
    live = table.to_json()

    events_redis.delete(f"meeple:g:{{{table.id}}}:snap")  # snapshots are only a cache
    rebuilt = Meeple(redis_client, events=events_redis).load(table.id)  # a new process: no cache
    assert rebuilt.to_json() == live
    again = Meeple(redis_client, events=events_redis)
    assert again.table_at(table.id, table.version).to_json() == live


def test_a_stale_cache_is_caught_up_from_the_stream(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    # two gunicorn processes
    first = Meeple(redis_client, events=events_redis)
    second = Meeple(redis_client, events=events_redis)
    alice = Player("p_alice", "alice")
    table = first.create_game(alice, RP, 2)
    first.join_game(alice, table.id)
    cached = first.load(table.id)
    move = cached.game.legal_moves(cached.state or {}, 0)[0]
    second.play_moves(alice, table.id, [{"id": move["id"]}], cached.version, 0)
    assert first.load(table.id).version == cached.version + 1
    assert first.load(table.id).to_json() == second.load(table.id).to_json()


def test_a_move_decided_on_a_stale_cache_never_lands(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    """A process decides on its cached table when the client names that version; the append
    script's own check must then refuse, and the process must catch up from the stream."""
    # two gunicorn processes
    first = Meeple(redis_client, events=events_redis)
    second = Meeple(redis_client, events=events_redis)
    alice = Player("p_alice", "alice")
    table = first.create_game(alice, RP, 2)
    first.join_game(alice, table.id)
    cached = first.load(table.id)
    move = cached.game.legal_moves(cached.state or {}, 0)[0]
    after = second.play_moves(alice, table.id, [{"id": move["id"]}], cached.version, 0).table

    with pytest.raises(VersionConflict) as conflict:  # first still caches `cached.version`
        first.play_moves(alice, table.id, [{"id": move["id"]}], cached.version, 0)
    assert conflict.value.current == after.version
    assert first.store.version(table.id) == after.version  # nothing written

    # Without an expected version the stale process retries on the stream's table.
    seat = after.actors()[0]
    again = after.game.legal_moves(after.state or {}, seat)[0]
    played = first.play_moves(alice, table.id, [{"id": again["id"]}], None, seat).table
    assert played.version == after.version + 1
    assert played.to_json() == Meeple(redis_client, events=events_redis).load(table.id).to_json()
