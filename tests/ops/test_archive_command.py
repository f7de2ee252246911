"""`meeple archive` by hand and the hourly housekeeping's slice (issue 18, point 8)."""

from __future__ import annotations

import pytest
import redis
from click.testing import CliRunner
from rq import Queue, SimpleWorker

from cli.main import main
from events.application.meeple import Meeple
from events.records.keys import Keyring
from events.store.archive_stores import DirectoryArchive
from tests.store.test_archive import ALICE, RP, played_game


@pytest.fixture()
def environment(redis_url: str, tmp_path, monkeypatch) -> dict[str, str]:
    env = {"MEEPLE_REDIS_URL": redis_url, "MEEPLE_ARCHIVE_URL": str(tmp_path / "archive"),
           "MEEPLE_KEYS_DIR": str(tmp_path / "keys")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def test_meeple_archive_moves_the_ended_games_and_says_what_it_moved(
        environment, redis_client: redis.Redis, tmp_path):
    app = Meeple(redis_client, archive=DirectoryArchive(tmp_path / "archive"))
    ended = played_game(app)
    still_open = app.create_game(ALICE, RP, 2).id
    (tmp_path / "archive").mkdir()  # the API's archive
    Keyring(tmp_path / "keys").current()  # the API's key
    result = CliRunner().invoke(main, ["archive"], env=environment)
    assert result.exit_code == 0, result.output
    assert "archived 0" in result.output and "too recent" in result.output
    result = CliRunner().invoke(main, ["archive", "--older-than-days", "0"], env=environment)
    assert result.exit_code == 0, result.output
    assert "archived 1\n" in result.output and "KiB a game" in result.output
    assert "1 not ended" in result.output
    assert not app.store.in_redis(ended) and app.store.in_redis(still_open)
    assert app.store.archived(ended) is not None
    result = CliRunner().invoke(main, ["archive", "--older-than-days", "0", "--game", ended],
                                env=environment)
    assert "archived 0" in result.output, result.output  # once is enough


def test_meeple_archive_refuses_without_an_archive(environment):
    result = CliRunner().invoke(main, ["archive"], env={**environment,
                                                        "MEEPLE_ARCHIVE_URL": "none"})
    assert result.exit_code == 2 and "nowhere to archive" in result.output


def test_meeple_archive_refuses_a_directory_that_does_not_exist(environment):
    """A relative default (var/archive) taken from another working directory would archive
    games where the API never looks: they would vanish from it (an outside audit)."""
    result = CliRunner().invoke(main, ["archive", "--older-than-days", "0"], env=environment)
    assert result.exit_code == 2 and "does not exist" in result.output, result.output


def test_meeple_archive_makes_its_default_directory_where_the_api_runs(
        environment, redis_client: redis.Redis, tmp_path, monkeypatch):
    """The default, var/archive, is made by the API at its first archived game: before that
    `meeple archive` refused to run (an outside audit); in a Meeple working directory (its
    var/ holds `meeple run`'s Redis and keys) it makes it, as the API would."""
    monkeypatch.delenv("MEEPLE_ARCHIVE_URL")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "var").mkdir()
    app = Meeple(redis_client, archive=DirectoryArchive(tmp_path / "var" / "archive"))
    ended = played_game(app)
    Keyring(tmp_path / "keys").current()  # the API's key
    unset = {**environment, "MEEPLE_ARCHIVE_URL": None}
    result = CliRunner().invoke(main, ["archive", "--older-than-days", "0"], env=unset)
    assert result.exit_code == 0, result.output
    assert "made the archive directory" in result.output and "archived 1\n" in result.output
    assert (tmp_path / "var" / "archive").is_dir() and app.store.archived(ended) is not None


def test_meeple_archive_makes_no_default_directory_outside_a_meeple_directory(
        environment, tmp_path, monkeypatch):
    monkeypatch.delenv("MEEPLE_ARCHIVE_URL")
    monkeypatch.chdir(tmp_path)  # no var/: not where the API runs
    unset = {**environment, "MEEPLE_ARCHIVE_URL": None}
    result = CliRunner().invoke(main, ["archive", "--older-than-days", "0"], env=unset)
    assert result.exit_code == 2 and "does not exist" in result.output, result.output
    assert not (tmp_path / "var").exists()


def test_meeple_archive_without_the_api_keys_makes_no_key_and_signs_nothing(
        environment, redis_client: redis.Redis, tmp_path):
    """Without a key in MEEPLE_KEYS_DIR it archives only games whose record is already
    signed: a key made here would sign records GET /v1/keys never lists."""
    app = Meeple(redis_client, archive=DirectoryArchive(tmp_path / "archive"))
    game_id = played_game(app)  # ended; nobody fetched its record yet
    (tmp_path / "archive").mkdir()
    result = CliRunner().invoke(main, ["archive", "--older-than-days", "0"], env=environment)
    assert result.exit_code == 1, result.output  # a game it could not archive
    assert "no signing key" in result.output and "not signed yet" in result.output
    assert not (tmp_path / "keys").exists()
    assert app.store.in_redis(game_id)


def test_the_housekeeping_job_archives_with_the_api_keys_and_never_makes_one(
        environment, redis_client: redis.Redis, tmp_path, monkeypatch):
    monkeypatch.setenv("MEEPLE_ARCHIVE_AFTER_DAYS", "0")
    app = Meeple(redis_client, archive=DirectoryArchive(tmp_path / "archive"))
    game_id = played_game(app)
    queue = Queue("scoring", connection=redis_client)

    def housekeeping() -> None:
        queue.enqueue("workers.housekeeping.housekeeping")
        SimpleWorker([queue], connection=redis_client).work(burst=True)

    housekeeping()  # no signing key here: the unsigned record is not signed by a new key
    assert app.store.in_redis(game_id) and not (tmp_path / "keys").exists()
    Keyring(tmp_path / "keys").current()  # the API's key, shared with the worker
    housekeeping()
    assert not app.store.in_redis(game_id) and app.store.archived(game_id) is not None
