"""The lobby is a read model: it can be thrown away and rebuilt from the streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import redis

from events.accounts.players import Player
from events.application.meeple import Meeple

RP = "res-publica-2230ad"


def test_the_lobby_is_rebuilt_from_the_streams(redis_client: redis.Redis, redis_url: str) -> None:
    app = Meeple(redis_client)
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    opened = app.create_game(alice, RP, 3)
    started = app.create_game(alice, RP, 2)
    app.join_game(bob, started.id)
    before = app.lobby.page(limit=10)
    for key in redis_client.scan_iter("meeple:{lobby}:*"):
        redis_client.delete(key)
    assert app.lobby.page().total == 0

    done = subprocess.run([str(Path(sys.executable).parent / "meeple"), "rebuild-lobby"],
                          env={**os.environ, "MEEPLE_REDIS_URL": redis_url},
                          capture_output=True, text=True, timeout=60, check=True)
    assert "2 games" in done.stdout
    after = app.lobby.page(limit=10)
    assert after.items == before.items and after.total == 2
    assert app.lobby.page(status="open").items[0]["id"] == opened.id
    assert app.lobby.page(player_id="p_bob").items[0]["id"] == started.id
