"""Redis URLs to clients (events.store.clients): every scheme on a real server of its kind."""

from __future__ import annotations

import runpy
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import gevent.monkey
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


def test_a_pool_size_in_the_url_holds_for_every_kind(redis_cluster_url: str) -> None:
    """deploy/gunicorn.conf.py sizes the pools with `?max_connections=` under gevent:
    redis-py reads it from a single node's URL only (outside audit: a cluster's nodes kept
    100 each)."""
    assert RedisURL.parse("redis+cluster://a:7000?max_connections=1000").max_connections \
        == 1000
    assert RedisURL.parse("redis+sentinel://s1/primary?max_connections=7").max_connections \
        == 7
    assert RedisURL.parse("redis+cluster://a:7000").max_connections is None
    with pytest.raises(BadRedisSetting, match="max_connections"):
        RedisURL.parse("redis+cluster://a:7000?max_connections=lots")
    cluster = events_client(redis_cluster_url + "?max_connections=1000")
    assert isinstance(cluster, RedisCluster)
    node = cluster.get_default_node()
    assert cluster.get_redis_connection(node).connection_pool.max_connections == 1000


def test_gunicorn_sizes_the_pools_of_the_role_settings_too(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MEEPLE_REDIS_URL", "MEEPLE_RATELIMIT_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEEPLE_EVENTS_URL", "redis+cluster://10.0.0.1:7000,10.0.0.2:7000")
    monkeypatch.setenv("MEEPLE_CONTROL_URL", "redis://10.0.0.1:6379/0")
    monkeypatch.setenv("MEEPLE_WEB_WORKER_CLASS", "gevent")
    monkeypatch.setattr(gevent.monkey, "patch_all", lambda *args, **kwargs: None)
    conf = runpy.run_path(str(Path(__file__).parents[2] / "deploy" / "gunicorn.conf.py"))
    assert sorted(conf["raw_env"]) == [
        "MEEPLE_CONTROL_URL=redis://10.0.0.1:6379/0?max_connections=1000",
        "MEEPLE_EVENTS_URL=redis+cluster://10.0.0.1:7000,10.0.0.2:7000?max_connections=1000"]


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


