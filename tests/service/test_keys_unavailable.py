"""A server whose signing keys directory cannot be written (a deployment that made the file
system read-only, a file in the way) says so: /healthz answers `degraded` with `keys: false`,
and the routes that need a key answer 503 keys_unavailable, never a 500, without the server's
paths. Tests run as root, for whom permissions do not refuse: a file where the directory
should be stands in for a read-only one."""

from __future__ import annotations

from pathlib import Path

import redis
from flask import Flask

from service import create_app
from tests.responses import body_of


def app_with_keys_at(redis_url: str, tmp_path: Path, keys: Path) -> Flask:
    return create_app({"REDIS_URL": redis_url, "DISPATCH": False, "KEYS_DIR": str(keys),
                       "ARCHIVE_URL": str(tmp_path / "archive")})


def test_a_keys_directory_that_cannot_be_made_is_degraded_health_and_503(
        redis_url: str, redis_client: redis.Redis, tmp_path: Path) -> None:
    (tmp_path / "in-the-way").write_text("a file, not a directory")
    client = app_with_keys_at(redis_url, tmp_path, tmp_path / "in-the-way" / "keys").test_client()
    health = client.get("/healthz")
    assert health.status_code == 200
    assert body_of(health) == {"status": "degraded", "redis": True, "keys": False}
    keys = client.get("/v1/keys")
    assert keys.status_code == 503, keys.data
    assert keys.mimetype == "application/problem+json"
    assert body_of(keys)["code"] == "keys_unavailable"
    assert "in-the-way" not in keys.get_data(as_text=True)  # no server path in the answer
    assert not (tmp_path / "in-the-way").is_dir()


def test_a_fresh_keys_directory_is_healthy_and_made_on_first_use(
        redis_url: str, redis_client: redis.Redis, tmp_path: Path) -> None:
    client = app_with_keys_at(redis_url, tmp_path, tmp_path / "new" / "keys").test_client()
    assert body_of(client.get("/healthz")) == {"status": "ok", "redis": True, "keys": True}
    assert not (tmp_path / "new").exists()  # health makes nothing
    assert client.get("/v1/keys").status_code == 200
    assert len(list((tmp_path / "new" / "keys").glob("*.pem"))) == 1
