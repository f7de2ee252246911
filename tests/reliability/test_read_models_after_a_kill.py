"""A process killed between a game's append (on the cluster) and its read-model write (on the
control store) leaves the lobby stale until the reconciler's next pass, not forever (issue 18,
point 4). The kill is real: a child process appends the join that starts a game, then dies
(os._exit, no cleanup) where it would have written the lobby."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import redis
from redis.cluster import RedisCluster

from events.accounts.players import Player
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.application.reconciler import Reconciler
from events.store.clients import events_client

RP = "res-publica-2230ad"

# The child: the join that starts the game is appended, then the process dies at once,
# where `_committed` would write the lobby and queue the follow-ups.
CHILD = """
import os, sys
from events.accounts.players import Player
from events.application.meeple import Meeple
from events.readmodels.lobby import Lobby
from events.store.clients import connect_urls

def die(self, entry):
    os._exit(9)

Lobby.record = die
app = Meeple.connect(connect_urls(sys.argv[1], sys.argv[2]))
app.join_game(Player("p_bob", "bob"), sys.argv[3])
"""


def test_a_join_whose_process_died_after_the_append_is_in_the_lobby_after_a_pass(
        redis_url: str, redis_client: redis.Redis, redis_cluster_url: str) -> None:
    events = events_client(redis_cluster_url)
    events.flushall(target_nodes=RedisCluster.PRIMARIES)  # type: ignore[call-arg]
    app = Meeple(redis_client, RQDispatcher(redis_client), events=events)
    table = app.create_game(Player("p_alice", "alice"), RP, 2)
    assert (app.lobby.get(table.id) or {}).get("status") == "open"

    child = subprocess.run([sys.executable, "-c", CHILD, redis_cluster_url, redis_url, table.id],
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == 9, child.stderr  # died at the crash point
    assert Meeple(redis_client, events=events).load(table.id).status.value == "active"
    # stale: the write never happened
    assert (app.lobby.get(table.id) or {}).get("status") == "open"

    later = datetime.now(UTC) + timedelta(minutes=5)  # past the reconciler's grace period
    done = Reconciler(app, RQDispatcher(redis_client)).run_once(later)
    assert done.lobby_mended == 1
    assert (app.lobby.get(table.id) or {}).get("status") == "active"
    events.close()
