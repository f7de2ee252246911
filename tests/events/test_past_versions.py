"""Issue 11, point 1: "Reads whose cost grows with history (`state?version=N`, ...) use
snapshots or indexes so that their cost is bounded". A past version is rebuilt from the
checkpoint before it: once a game has its checkpoints, no read of any version folds more
than CHECKPOINT_EVERY events, and every version is the same table as a fold from the start.
Figures: bench/past_versions.py."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis

from events.application.meeple import CHECKPOINT_EVERY, Meeple
from events.application.offline import play_offline
from events.domain.table import Table, evolve
from events.store.clients import EventsClient
from events.store.event_store import EventStore
from games.rng import Rng
from tests.conftest import ON_BOTH_BACKENDS

pytestmark = ON_BOTH_BACKENDS


SEED = bytes(range(32))


@pytest.fixture()
def finished(
        redis_client: redis.Redis, events_redis: EventsClient) -> tuple[Meeple, str, list[Any]]:
    """A whole 3-player Res Publica, imported as a record is (no checkpoint yet)."""
    _, envelopes = play_offline("res-publica-2230ad", 3, SEED, Rng(b"past", 0),
                                game_id="pastgame")
    app = Meeple(redis_client, events=events_redis)
    app.import_game("pastgame", envelopes, SEED)
    assert len(envelopes) > 3 * CHECKPOINT_EVERY
    return app, "pastgame", envelopes


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of events each EventStore.read returns, from now on."""
    counts: list[int] = []
    original = EventStore.read

    def counted(self: EventStore, game_id: str, start: int = 1, end: int | None = None
                ) -> list[Any]:
        found = original(self, game_id, start, end)
        counts.append(len(found))
        return found

    monkeypatch.setattr(EventStore, "read", counted)
    return counts


def test_every_past_version_is_the_fold_from_the_start(
        finished: tuple[Meeple, str, list[Any]]) -> None:
    app, game_id, envelopes = finished
    folded, tables = Table.empty(game_id), {}
    for envelope in envelopes:
        folded = evolve(folded, envelope, SEED)
        tables[folded.version] = folded.to_json()
    versions = list(range(1, len(envelopes) + 1))
    random.Random(7).shuffle(versions)  # in any order: checkpoints appear along the way
    for version in versions:
        assert app.table_at(game_id, version).to_json() == tables[version], version


def test_once_checkpointed_no_read_folds_more_than_a_span(
        finished: tuple[Meeple, str, list[Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    app, game_id, envelopes = finished
    last = len(envelopes)
    app.table_at(game_id, last - 1)  # the first read of a game made before checkpoints
    counts = count_reads(monkeypatch)
    for version in random.Random(3).sample(range(1, last + 1), 200):
        app.table_at(game_id, version)
    assert max(counts) < CHECKPOINT_EVERY
    stored = app.connections.events.hlen(f"meeple:g:{{{game_id}}}:checkpoints")
    assert stored == (last - 1) // CHECKPOINT_EVERY


def test_games_played_here_get_checkpoints_as_they_go(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    from events.accounts.players import Player
    from games.bots import random_move

    app = Meeple(redis_client, events=events_redis)
    alice, bob = Player("p_a", "alice"), Player("p_b", "bob")
    table = app.create_game(alice, "res-publica-2230ad", 2)
    table = app.join_game(bob, table.id)
    rng, players = Rng(b"moves", 0), {0: alice, 1: bob}
    seat_of = {s.seat: players[s.seat] for s in table.seats}
    while table.version < 2 * CHECKPOINT_EVERY + 5 and table.state is not None:
        seat = table.actors()[0]
        move = random_move(table.game, table.state, seat, rng)
        table = app.play_moves(seat_of[seat], table.id, [move], table.version, seat).table
    found = app.store.checkpoint(table.id, table.version)
    assert found is not None and found[0] >= 2 * CHECKPOINT_EVERY
    assert app.store.checkpoint(table.id, CHECKPOINT_EVERY - 1) is None
