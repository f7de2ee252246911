"""The local Redis Cluster (3 masters + 3 replicas): healthy, fails over, starts again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.cluster import ClusterNode, RedisCluster

from cli.embedded_redis import HOST, EmbeddedRedis
from cli.local_cluster import LocalCluster


@pytest.fixture()
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    with LocalCluster(tmp_path / "cluster") as started:
        yield started


def cluster_client(cluster: LocalCluster) -> RedisCluster:
    """A cluster client that knows only the live nodes, so it maps the slots as they are now."""
    nodes = [ClusterNode(HOST, node.port) for node in cluster.live_nodes()]
    return RedisCluster(startup_nodes=nodes, decode_responses=True)


def one_key_per_master(client: RedisCluster) -> dict[int, str]:
    """For each master's port, a key in one of its slots."""
    keys: dict[int, str] = {}
    for n in range(1000):
        key = f"game-{n}"
        owner = client.nodes_manager.get_node_from_slot(client.keyslot(key))
        keys.setdefault(owner.port, key)
    return keys


def port_of(node: EmbeddedRedis) -> int:
    assert node.port is not None, "not started"
    return node.port


def master_port_of(replica: EmbeddedRedis) -> int:
    """The port of the master `replica` follows (ROLE)."""
    with redis.Redis(host=HOST, port=port_of(replica), decode_responses=True) as client:
        role = client.role()
    assert role[0] == "slave"
    return int(role[2])


def test_a_started_cluster_serves_every_masters_slots(cluster: LocalCluster) -> None:
    masters, replicas = cluster.masters(), cluster.replicas()
    assert len(masters) == 3 and len(replicas) == 3
    assert sorted(master_port_of(r) for r in replicas) == sorted(port_of(m) for m in masters)
    assert cluster.url == "redis+cluster://" + ",".join(f"{HOST}:{p}" for p in cluster.ports)

    client = cluster_client(cluster)
    keys = one_key_per_master(client)
    assert set(keys) == {master.port for master in masters}
    for key in keys.values():
        client.set(key, f"value of {key}")
    assert [client.get(key) for key in keys.values()] == [f"value of {k}" for k in keys.values()]
    client.close()


def test_a_replica_takes_over_a_killed_master_which_rejoins_as_replica(
        cluster: LocalCluster) -> None:
    client = cluster_client(cluster)
    victim = cluster.masters()[0]
    assert victim.port is not None
    key = one_key_per_master(client)[victim.port]
    client.set(key, "before")
    with redis.Redis(host=HOST, port=victim.port) as direct:
        assert direct.wait(1, 5000) == 1, "the replica must have the write before the crash"
    heir = next(r for r in cluster.replicas() if master_port_of(r) == victim.port)
    client.close()

    cluster.kill(victim)
    killed = time.monotonic()
    cluster.wait_failover(victim.port, timeout=15)
    print(f"failover took {time.monotonic() - killed:.1f}s")
    assert heir in cluster.masters()

    client = cluster_client(cluster)
    assert client.get(key) == "before"
    client.set(key, "after")
    assert client.get(key) == "after"
    client.close()

    cluster.restart(victim)
    cluster.wait_healthy(timeout=20)
    assert victim in cluster.replicas()
    assert master_port_of(victim) == heir.port
    assert len(cluster.masters()) == 3


def test_a_stopped_cluster_starts_again_from_its_workdir(tmp_path: Path) -> None:
    first = LocalCluster(tmp_path, durable=True)
    first.start()
    client = cluster_client(first)
    client.set("meeple:g:{x}:events", "kept")
    client.close()
    first.stop()
    assert first.live_nodes() == []
    first.stop()  # idempotent
    created = (tmp_path / "created").stat().st_mtime_ns

    with LocalCluster(tmp_path) as again:
        assert again.ports == first.ports, "nodes.conf names the peers by port"
        assert (tmp_path / "created").stat().st_mtime_ns == created, "not created again"
        assert len(again.masters()) == 3 and len(again.replicas()) == 3
        client = cluster_client(again)
        assert client.get("meeple:g:{x}:events") == "kept"
        client.close()
