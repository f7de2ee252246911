"""The lobby is a read model: it can be thrown away and rebuilt from the streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import redis

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.store.clients import EventsClient
from tests.conftest import ON_BOTH_BACKENDS

pytestmark = ON_BOTH_BACKENDS


RP = "res-publica-2230ad"


def test_the_lobby_is_rebuilt_from_the_streams(
        redis_client: redis.Redis, events_redis: EventsClient, redis_url: str,
        events_url: str) -> None:
    app = Meeple(redis_client, events=events_redis)
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    opened = app.create_game(alice, RP, 3)
    started = app.create_game(alice, RP, 2)
    app.join_game(bob, started.id)
    before = app.lobby.page(limit=10)
    for key in redis_client.scan_iter("meeple:{lobby}:*"):
        redis_client.delete(key)
    assert app.lobby.page().total == 0

    done = subprocess.run([str(Path(sys.executable).parent / "meeple"), "rebuild-lobby"],
                          env={**os.environ, "MEEPLE_REDIS_URL": redis_url,
                               "MEEPLE_EVENTS_URL": events_url, "MEEPLE_ARCHIVE_URL": "none"},
                          capture_output=True, text=True, timeout=60, check=True)
    assert "2 games" in done.stdout
    after = app.lobby.page(limit=10)
    assert after.items == before.items and after.total == 2
    assert app.lobby.page(status="open").items[0]["id"] == opened.id
    assert app.lobby.page(player_id="p_bob").items[0]["id"] == started.id


def test_a_players_games_are_paged_from_indexes_by_type_and_status(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    """GET /v1/games?player=X reads one page of an index, not all of the player's games."""
    app = Meeple(redis_client, events=events_redis)
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    open_ids = [app.create_game(alice, RP, 3).id for _ in range(7)]
    started = []
    for _ in range(4):
        game = app.create_game(alice, RP, 2)
        app.join_game(bob, game.id)
        started.append(game.id)
    trobils = app.create_game(alice, "asking-for-trobils", 3).id
    page = app.lobby.page(player_id=alice.id, limit=3)
    assert page.total == 12 and len(page.items) == 3
    assert page.items[0]["id"] == trobils  # newest first
    opened = app.lobby.page(player_id=alice.id, status="open", limit=100)
    assert {g["id"] for g in opened.items} == {*open_ids, trobils} and opened.total == 8
    active = app.lobby.page(player_id=alice.id, status="active", game_type=RP, offset=1, limit=2)
    assert active.total == 4 and [g["id"] for g in active.items] == started[::-1][1:3]
    assert app.lobby.page(player_id=bob.id, status="open").total == 0  # moved when they started
    assert app.lobby.page(player_id=alice.id, game_type="asking-for-trobils").total == 1
    # Each page is one ZREVRANGE of an index of its own, at most `limit` ids long.
    assert redis_client.zcard(f"meeple:{{lobby}}:idx:player:{alice.id}:type:{RP}:status:open") \
        == 7
