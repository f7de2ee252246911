"""A server whose signing keys directory cannot be written (a deployment that made the file
system read-only, a file in the way) says so: /healthz answers `degraded` with `keys: false`,
and the routes that need a key answer 503 keys_unavailable, never a 500, without the server's
paths. Tests run as root, for whom permissions do not refuse: a file where the directory
should be stands in for a read-only one."""

from __future__ import annotations

import shutil
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


def test_a_second_host_with_keys_of_its_own_is_refused_until_it_has_the_services(
        redis_url: str, redis_client: redis.Redis, tmp_path: Path) -> None:
    """Every API host must sign with the service's keys: a host whose keys directory is empty
    makes no key of its own once another host has one (outside audit: each host made its
    own, and each answered the other's records as not trusted). With the first host's
    keys directory copied to it, it signs."""
    first = app_with_keys_at(redis_url, tmp_path, tmp_path / "host-a").test_client()
    published = body_of(first.get("/v1/keys"))["keys"]
    second = app_with_keys_at(redis_url, tmp_path, tmp_path / "host-b").test_client()
    assert body_of(second.get("/healthz")) == {"status": "degraded", "redis": True,
                                               "keys": False}
    refused = second.get("/v1/keys")
    assert refused.status_code == 503 and body_of(refused)["code"] == "keys_unavailable"
    assert "same keys directory" in body_of(refused)["detail"]
    assert not list((tmp_path / "host-b").glob("*.pem"))
    shutil.copytree(tmp_path / "host-a", tmp_path / "host-c")
    third = app_with_keys_at(redis_url, tmp_path, tmp_path / "host-c").test_client()
    assert body_of(third.get("/healthz"))["keys"] is True
    assert body_of(third.get("/v1/keys"))["keys"] == published
