"""Redis URLs to clients (events.store.clients): every scheme on a real server of its kind."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator

import pytest
import redis
from redis.cluster import RedisCluster

from events.store.clients import (
    BadRedisSetting,
    RedisURL,
    connect,
    connect_urls,
    control_client,
    events_client,
)
from tests.conftest import REDIS_SERVER, free_port, start_redis


@pytest.mark.parametrize(("url", "kind", "hosts", "service", "db"), [
    ("redis://127.0.0.1:6390/2", "node", (("127.0.0.1", 6390),), None, 2),
    ("redis+cluster://a:7000,b:7001", "cluster", (("a", 7000), ("b", 7001)), None, 0),
    ("redis+sentinel://s1,s2:5000/primary/3", "sentinel", (("s1", 26379), ("s2", 5000)),
     "primary", 3),
    ("rediss+cluster://:pw@[::1]:7000", "cluster", (("::1", 7000),), None, 0),
])
def test_each_scheme_is_read(url: str, kind: str, hosts: tuple[tuple[str, int], ...],
                             service: str | None, db: int) -> None:
    parsed = RedisURL.parse(url)
    assert (parsed.kind, parsed.hosts, parsed.service, parsed.db) == (kind, hosts, service, db)
    assert parsed.tls == url.startswith("rediss")


@pytest.mark.parametrize(("url", "says"), [
    ("http://a:1", "the scheme must be one of"),
    ("redis://a:1,b:2", "one host for a single node"),
    ("redis+sentinel://a:1", "names its service"),
    ("redis+cluster://a:1/2", "database 0 only"),
    ("redis://a:port", "is not host:port"),
    ("redis://a:1/x", "the path is the database number"),
])
def test_a_bad_url_says_what_was_expected(url: str, says: str) -> None:
    with pytest.raises(BadRedisSetting, match=says):
        RedisURL.parse(url)


def test_an_error_never_shows_the_password() -> None:
    with pytest.raises(BadRedisSetting) as caught:
        RedisURL.parse("redis://:hunter2@a:1,b:2")
    assert "hunter2" not in str(caught.value)


def test_the_control_store_cannot_be_a_cluster(redis_cluster_url: str) -> None:
    with pytest.raises(BadRedisSetting, match="RQ"):
        control_client(redis_cluster_url)
    with pytest.raises(BadRedisSetting, match="RQ"):
        connect({"MEEPLE_REDIS_URL": redis_cluster_url})


def test_the_event_store_may_be_a_cluster(redis_cluster_url: str, redis_url: str) -> None:
    stores = connect({"MEEPLE_EVENTS_URL": redis_cluster_url, "MEEPLE_CONTROL_URL": redis_url})
    assert isinstance(stores.events, RedisCluster)
    assert stores.events.set("meeple:g:{clients-test}:x", 1)
    assert isinstance(stores.control, redis.Redis) and stores.control.ping()


def test_one_url_serves_both_roles_with_one_client(redis_url: str) -> None:
    stores = connect({"MEEPLE_REDIS_URL": redis_url})
    assert stores.events is stores.control
    assert connect_urls(redis_url, redis_url).events.ping()


def test_without_any_url_connect_says_what_to_set() -> None:
    with pytest.raises(BadRedisSetting, match="MEEPLE_REDIS_URL"):
        connect({})


@pytest.fixture(scope="module")
def sentinel_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server and one Sentinel watching it as `primary`."""
    workdir = tmp_path_factory.mktemp("sentinel")
    port, sentinel_port = free_port(), free_port()
    node = start_redis(workdir / "node", port)
    conf = workdir / "sentinel.conf"
    conf.write_text(f"port {sentinel_port}\nbind 127.0.0.1\ndir {workdir}\n"
                    f"sentinel monitor primary 127.0.0.1 {port} 1\n")
    sentinel = subprocess.Popen([REDIS_SERVER, str(conf), "--sentinel"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    watcher = redis.Redis(port=sentinel_port)
    for _ in range(200):
        try:
            if watcher.sentinel_master("primary"):
                break
        except redis.RedisError:
            time.sleep(0.05)
    yield f"redis+sentinel://127.0.0.1:{sentinel_port}/primary"
    for proc in (sentinel, node):
        proc.terminate()
        proc.wait(10)


def test_a_sentinel_url_reaches_the_primary(sentinel_url: str) -> None:
    for client in (control_client(sentinel_url), events_client(sentinel_url)):
        assert client.set("meeple:sentinel-test", "yes")
        assert client.get("meeple:sentinel-test") == b"yes"
        assert client.info("replication")["role"] == "master"


