"""`meeple stats`: Redis memory by kind of key."""

from __future__ import annotations

import redis
from click.testing import CliRunner
from redis.cluster import RedisCluster

from cli.main import main
from events.accounts.players import Player
from events.application.meeple import Meeple
from events.store.clients import EventsClient
from tests.conftest import ON_BOTH_BACKENDS


@ON_BOTH_BACKENDS
def test_stats_counts_each_kind_of_key(redis_url: str, redis_client: redis.Redis,
                                       events_url: str, events_redis: EventsClient,
                                       monkeypatch) -> None:
    app = Meeple(redis_client, events=events_redis)
    for _ in range(3):
        app.create_game(Player("p_alice", "alice"), "res-publica-2230ad", 2)
    app.players.register("bob")
    redis_client.set("something:else", "x")
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)
    monkeypatch.setenv("MEEPLE_EVENTS_URL", events_url)
    result = CliRunner().invoke(main, ["stats"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = {line[:22].strip(): line[22:].split() for line in result.output.splitlines()[1:]}
    assert rows["game streams"][0] == "3" and int(rows["game streams"][1]) > 0
    assert rows["game seeds"][0] == "3"
    assert rows["players and API keys"][0] == "2"
    assert rows["other"][0] == "1"
    keys = redis_client.dbsize()
    if isinstance(events_redis, RedisCluster):  # the games on a cluster: its primaries' keys
        keys += sum(events_redis.get_redis_connection(node).dbsize()
                    for node in events_redis.get_primaries())
    assert int(rows["all keys"][0]) == keys
    assert "used_memory" in result.output
