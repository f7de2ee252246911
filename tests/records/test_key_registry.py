"""One service, one set of signing keys, whatever the number of hosts: the control store names
the service's first key (events/records/key_registry.py), and a keyring that does not hold it
neither makes a key of its own nor signs (outside audits: hosts made keys of their own, and
then `meeple keys rotate` did, and after the control store was wiped two hosts signed with
different keys, both healthy). A host whose keys are lost for good starts anew, said so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from cli.main import main as meeple
from events.exceptions import KeysUnavailable
from events.records.key_registry import RedisKeyRegistry
from events.records.keys import Keyring
from workers.housekeeping import signing_keys


@pytest.fixture()
def configured(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `meeple` commands reach the control store, as on a deployed host."""
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)


def host(path: Path, client: redis.Redis) -> Keyring:
    return Keyring(path, RedisKeyRegistry(client))


def test_rotate_on_a_host_without_the_services_keys_is_refused(
        tmp_path: Path, redis_client: redis.Redis, configured: None) -> None:
    first_id, _ = host(tmp_path / "a", redis_client).current()
    (tmp_path / "b").mkdir()
    with pytest.raises(KeysUnavailable):
        host(tmp_path / "b", redis_client).current()
    result = CliRunner().invoke(meeple, ["keys", "rotate", "--dir", str(tmp_path / "b")])
    assert result.exit_code != 0 and "same keys directory" in result.output
    assert not list((tmp_path / "b").glob("*.pem"))
    # Where the service's keys are, a rotation is fine: the first key stays the service's.
    shutil.copytree(tmp_path / "a", tmp_path / "c")
    result = CliRunner().invoke(meeple, ["keys", "rotate", "--dir", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert host(tmp_path / "c", redis_client).current()[0] != first_id
    assert RedisKeyRegistry(redis_client).first() == first_id


def test_a_host_that_lost_its_keys_is_told_so_and_may_start_anew(
        tmp_path: Path, redis_client: redis.Redis, configured: None) -> None:
    keys = tmp_path / "keys"
    lost_id, _ = host(keys, redis_client).current()
    shutil.rmtree(keys)
    keys.mkdir()  # a new disk; Redis kept
    listed = CliRunner().invoke(meeple, ["keys", "list", "--dir", str(keys)]).output
    assert lost_id in listed and "rotate --anew" in listed
    assert "the first record signed creates one" not in listed
    assert not host(keys, redis_client).usable()
    result = CliRunner().invoke(meeple, ["keys", "rotate", "--anew", "--dir", str(keys)])
    assert result.exit_code == 0, result.output
    new_id, _ = host(keys, redis_client).current()
    assert new_id != lost_id and RedisKeyRegistry(redis_client).first() == new_id


def test_after_the_control_store_is_wiped_two_sets_of_keys_never_both_sign(
        tmp_path: Path, redis_client: redis.Redis) -> None:
    old_id, _ = host(tmp_path / "old", redis_client).current()
    redis_client.flushdb()  # a new control store; the old host's keys kept
    new_id, _ = host(tmp_path / "new", redis_client).current()  # started first: claims
    restarted = host(tmp_path / "old", redis_client)
    with pytest.raises(KeysUnavailable):
        restarted.current()
    assert not restarted.usable()  # /healthz says "keys": false
    assert old_id != new_id


def test_a_service_whose_keys_predate_the_registry_claims_them(
        tmp_path: Path, redis_client: redis.Redis) -> None:
    old_id, _ = Keyring(tmp_path / "keys").current()  # before the registry existed
    assert host(tmp_path / "keys", redis_client).current()[0] == old_id
    assert RedisKeyRegistry(redis_client).first() == old_id


def test_the_quick_starts_keys_commands_find_meeple_runs_redis(
        tmp_path: Path, redis_client: redis.Redis, redis_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`make run` sets the Redis setting for its own children only: the operator's
    `meeple keys` finds its private Redis in var/redis (outside audit: after `rm -rf
    var/keys` the README's way back, `rotate --anew`, did not reach it, and the API went on
    refusing)."""
    monkeypatch.delenv("MEEPLE_REDIS_URL", raising=False)
    monkeypatch.delenv("MEEPLE_CONTROL_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "var" / "redis").mkdir(parents=True)
    port = redis_url.rsplit(":", 1)[1].split("/")[0]
    (tmp_path / "var" / "redis" / "port").write_text(f"{port}\n")
    keys = tmp_path / "var" / "keys"
    lost_id, _ = host(keys, redis_client).current()  # `meeple run`'s first record
    shutil.rmtree(keys)
    keys.mkdir()
    listed = CliRunner().invoke(meeple, ["keys", "list", "--dir", str(keys)])
    assert lost_id in listed.output, listed.output
    rotated = CliRunner().invoke(meeple, ["keys", "rotate", "--anew", "--dir", str(keys)])
    assert rotated.exit_code == 0, rotated.output
    assert host(keys, redis_client).usable()  # the API signs again


def test_housekeeping_never_signs_with_keys_that_are_not_the_services(
        tmp_path: Path, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    """The archive pass (and `meeple archive`) signed records with whatever key its
    directory held (outside audit): only with the service's."""
    host(tmp_path / "a", redis_client).current()
    Keyring(tmp_path / "b").current()  # a key of its own, made before it met the service
    monkeypatch.setenv("MEEPLE_KEYS_DIR", str(tmp_path / "b"))
    assert signing_keys(redis_client) is None
    monkeypatch.setenv("MEEPLE_KEYS_DIR", str(tmp_path / "a"))
    assert signing_keys(redis_client) is not None
