"""The private redis-server of `meeple run`: durable, and stopped cleanly."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import redis

from cli import embedded_redis
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


@pytest.mark.xdist_group("embedded-redis-default-port")  # as tests/ops/test_run.py
def test_picks_another_port_when_asked_for_none(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)
    server.start()
    try:
        assert server.port is not None
        assert (tmp_path / "port").read_text().strip() == str(server.port)
        assert redis.Redis.from_url(server.url).ping()
    finally:
        server.stop()


def test_a_port_taken_between_the_check_and_the_start_is_given_up_for_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two `meeple run` starting at once both found the default port free; one got it, and
    the other's redis-server could not listen there (CI: "redis-server exited with 1")."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        checks: list[int] = []

        def free_when_first_checked(asked: int, host: str = "127.0.0.1") -> bool:
            checks.append(asked)
            return len(checks) == 1 or port_is_free(asked, host)  # the other won the race

        monkeypatch.setattr(embedded_redis, "DEFAULT_PORT", port)
        monkeypatch.setattr(embedded_redis, "port_is_free", free_when_first_checked)
        server = EmbeddedRedis(tmp_path)
        try:
            server.start()
            assert server.port not in (None, port) and checks == [port, port]
            assert redis.Redis.from_url(server.url).ping()
            assert (tmp_path / "port").read_text().strip() == str(server.port)
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
