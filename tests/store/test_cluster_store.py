"""The event-store contract on a real Redis Cluster (3 masters, 3 replicas: tests/conftest.py),
plus what only a cluster can show: games spread over every master, each game on one slot."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from redis.cluster import RedisCluster

from events.store.clients import events_client
from events.store.event_store import EventStore
from tests.store.contract import EventStoreContract, MakeStore, move


def cluster_stores(url: str) -> Iterator[MakeStore]:
    clients: list[RedisCluster] = []

    def make() -> EventStore:
        client = events_client(url)
        assert isinstance(client, RedisCluster)
        clients.append(client)
        return EventStore(client)

    yield make
    for client in clients:
        client.close()


class TestClusterEventStore(EventStoreContract):
    @pytest.fixture()
    def make_store(self, redis_cluster_url: str) -> Iterator[MakeStore]:
        yield from cluster_stores(redis_cluster_url)


class TestRedis7ClusterEventStore(EventStoreContract):
    """The contract again on Redis 7.0 (Debian's): the scripts, WAIT and the stream commands
    as the 6.2 above runs them."""

    @pytest.fixture()
    def make_store(self, redis7_cluster_url: str) -> Iterator[MakeStore]:
        yield from cluster_stores(redis7_cluster_url)


def test_games_live_on_every_master_and_wait_many_spans_them(redis_cluster_url: str) -> None:
    client = events_client(redis_cluster_url)
    assert isinstance(client, RedisCluster)
    store = EventStore(client)
    games = [f"spread-{i}" for i in range(12)]
    for game in games:
        store.append(game, 0, [move(1)])
    owners = {client.get_node_from_key(f"meeple:g:{{{game}}}:events").name for game in games}
    assert len(owners) == 3  # 12 games on 3 masters: each got some (checked for these ids)
    store.append(games[-1], 1, [move(2)])
    got = store.wait_many({game: 1 for game in games}, 2000)
    assert got == {games[-1]: store.read(games[-1], 2)}
    client.close()


@pytest.mark.parametrize("version", ["6.2", "7.0"])
def test_the_scripts_are_loaded_again_where_a_node_lacks_them(
        version: str, request: pytest.FixtureRequest) -> None:
    """A promoted replica, or a restarted node, has no scripts cached (NOSCRIPT): the store
    loads them again, on the append path (script then WAIT) as on the others, on Redis 6.2
    and 7 alike."""
    url = request.getfixturevalue("redis_cluster_url" if version == "6.2"
                                  else "redis7_cluster_url")
    client = events_client(url)
    assert isinstance(client, RedisCluster)
    info = client.get_redis_connection(client.get_primaries()[0]).info("server")
    assert info["redis_version"].startswith(version)
    store = EventStore(client)
    assert store.replica_acks == 1  # a cluster's default: the append path with WAIT
    store.append("noscript", 0, [move(1)])
    for node in client.get_nodes():
        client.get_redis_connection(node).script_flush()
    store.append("noscript", 1, [move(2)])
    store.save_snapshot("noscript", 2, {"x": 1})
    assert store.checkpoint("noscript", 2) is None
    assert [e["v"] for e in store.read("noscript")] == [1, 2]
    client.close()
