"""The private redis-server of `meeple run`: durable, and stopped cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from cli.embedded_redis import EmbeddedRedis, free_port, port_is_free


def test_writes_survive_a_stop_and_restart(tmp_path: Path) -> None:
    port = free_port()
    with EmbeddedRedis(tmp_path, port) as server:
        client = redis.Redis.from_url(server.url)
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        client.xadd("meeple:g:{x}:events", {"v": "1"}, id="1-1")
        client.close()
    assert port_is_free(port), "SHUTDOWN must end the process"
    assert list(tmp_path.glob("appendonly*"))

    with EmbeddedRedis(tmp_path, port) as server:
        client = redis.Redis.from_url(server.url)
        assert client.xlen("meeple:g:{x}:events") == 1
        client.close()


def test_picks_another_port_when_asked_for_none(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)
    server.start()
    try:
        assert server.port is not None
        assert (tmp_path / "port").read_text().strip() == str(server.port)
        assert redis.Redis.from_url(server.url).ping()
    finally:
        server.stop()


def test_two_servers_never_share_one_directory(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path, free_port()):
        second = EmbeddedRedis(tmp_path, free_port())
        with pytest.raises(RuntimeError, match="in use"):
            second.start()
    # Once the first one has stopped, the directory is free again.
    with EmbeddedRedis(tmp_path, free_port()) as again:
        assert redis.Redis.from_url(again.url).ping()
