"""A process killed between a new game's two writes (its secret seed, then its first events)
leaves nothing anyone can see, and the retry with the same Idempotency-Key completes that
creation with that seed (issue 18, point 2: two writes that cannot share one command are
ordered so that a crash between them is invisible). The kill is real: a child process stores
the seed and dies (os._exit) where it would append GameCreated."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import redis

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.exceptions import GameNotFound
from events.store.clients import events_client

RP = "res-publica-2230ad"
ALICE = Player("p_alice", "alice")

CHILD = """
import os, sys
from events.accounts.players import Player
from events.application.meeple import Meeple
from events.store.clients import connect_urls
from events.store.event_store import EventStore

def die(self, *args, **kwargs):
    os._exit(9)

EventStore.append = die
app = Meeple.connect(connect_urls(sys.argv[1], sys.argv[2]))
app.create_game(Player("p_alice", "alice"), "res-publica-2230ad", 2, idempotency_key="k1")
"""


def test_a_creation_killed_between_its_writes_is_invisible_and_its_retry_completes_it(
        redis_url: str, redis_client: redis.Redis, redis_cluster_url: str) -> None:
    events = events_client(redis_cluster_url)
    child = subprocess.run([sys.executable, "-c", CHILD, redis_cluster_url, redis_url],
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == 9, child.stderr  # died at the crash point
    app = Meeple(redis_client, events=events)
    game_id = app.keyed_game_id(ALICE.id, "k1")  # the secret is in Redis: the child's id
    orphan = app.store.get_seed(game_id)
    assert orphan is not None  # the first write happened ...
    assert not app.store.exists(game_id) and game_id not in set(app.store.game_ids())
    try:
        app.load(game_id)
        raise AssertionError("a game with no events was shown")
    except GameNotFound:
        pass
    assert app.lobby.get(game_id) is None and app.lobby.open_tables(ALICE.id) == 0

    table = app.create_game(ALICE, RP, 2, idempotency_key="k1")  # the client's retry
    assert table.id == game_id and table.status.value == "open"
    assert table.seed_commitment == hashlib.sha256(orphan).hexdigest()  # that seed, taken up
    assert (app.lobby.get(game_id) or {}).get("status") == "open"
    events.close()
