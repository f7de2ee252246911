"""Finished games leave Redis for the archive and are read back from it as they were
(issue 18, point 8): the document, the stores it goes to, the store's reads, the archiver."""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.exceptions
import pytest
import redis

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.application.offline import play_offline
from events.domain.envelope import NewEvent
from events.domain.table import Status
from events.exceptions import ArchiveUnavailable, GameArchived
from events.records.archiving import archive_finished_games, archive_game
from events.records.finished import finished_record
from events.records.keys import Keyring
from events.records.record import build_record, sign_record
from events.records.verify import verify_record
from events.store.archive_document import DamagedArchive, pack_game, unpack_game
from events.store.archive_stores import (
    BadArchiveSetting,
    DirectoryArchive,
    S3Archive,
    open_archive,
)
from games.bots import random_move
from games.registry import GAMES
from games.rng import Rng
from tests.conftest import ON_BOTH_BACKENDS, free_port

SEED = bytes(range(32))
RP = "res-publica-2230ad"
ALICE, BOB = Player("p_alice", "alice"), Player("p_bob", "bob")


def signed_record(game_type: str, players: int, keyring: Keyring) -> tuple[bytes, list]:
    table, envelopes = play_offline(game_type, players, SEED, Rng(game_type.encode(), 0),
                                    game_id="g1")
    key_id, private = keyring.current()
    record = sign_record(build_record(table, envelopes, SEED, []), key_id, private)
    return json.dumps(record, ensure_ascii=False).encode(), envelopes


# -- the document --------------------------------------------------------------------------


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_a_document_unpacks_to_the_same_record_bytes_and_envelopes(game_type, tmp_path):
    record, envelopes = signed_record(game_type, GAMES[game_type].max_players,
                                      Keyring(tmp_path))
    document = pack_game("g1", record, envelopes, None, [(1, 3)])
    game = unpack_game(document)
    assert game.record == record and game.envelopes == envelopes
    assert game.seed == SEED and game.batches == [(1, 3)] and game.version == len(envelopes)
    assert verify_record(json.loads(game.record)).ok


def test_a_five_player_game_takes_under_20_kb(tmp_path):
    record, envelopes = signed_record(RP, 5, Keyring(tmp_path))
    document = pack_game("g1", record, envelopes)
    assert len(record) > 300_000 and len(document) < 20_000, len(document)


def test_a_record_that_would_not_come_back_byte_for_byte_is_kept_as_text(tmp_path):
    record, envelopes = signed_record("trappist-one", 2, Keyring(tmp_path))
    reordered = json.dumps(dict(reversed(json.loads(record).items())),
                           ensure_ascii=False).encode()  # an import with its own key order
    assert unpack_game(pack_game("g1", reordered, envelopes)).record == reordered


def test_a_damaged_document_is_refused_never_served(tmp_path):
    record, envelopes = signed_record("trappist-one", 2, Keyring(tmp_path))
    document = json.loads(lzma.decompress(pack_game("g1", record, envelopes)))
    document["events"][5][2] = "p_mallory"  # one event's author changed
    with pytest.raises(DamagedArchive, match="not the one kept"):
        unpack_game(lzma.compress(json.dumps(document).encode()))
    with pytest.raises(DamagedArchive):
        unpack_game(b"not xz")
    with pytest.raises(DamagedArchive, match="truncated or too large"):
        unpack_game(lzma.compress(b" " * (65 * 1024 * 1024)))  # a bomb stops at its limit


def test_a_record_of_other_events_is_not_packed(tmp_path):
    record, envelopes = signed_record("trappist-one", 2, Keyring(tmp_path))
    with pytest.raises(ValueError, match="not the stream's"):
        pack_game("g1", record, envelopes[1:])


# -- where documents are kept ---------------------------------------------------------------


def test_the_archive_url_chooses_the_store(tmp_path, monkeypatch):
    assert isinstance(open_archive(f"file:{tmp_path}"), DirectoryArchive)
    assert open_archive(str(tmp_path)).root == tmp_path  # type: ignore[union-attr]
    assert open_archive("none") is None
    s3 = open_archive("s3://games/meeple")
    assert isinstance(s3, S3Archive) and s3.key("g1") == "meeple/g1.meeple.xz"
    monkeypatch.delenv("MEEPLE_ARCHIVE_URL", raising=False)
    assert open_archive().root == Path("var/archive")  # type: ignore[union-attr]
    with pytest.raises(BadArchiveSetting, match="expected file:"):
        open_archive("ftp://host/x")


def test_a_directory_archive_writes_whole_documents_or_none(tmp_path):
    archive = DirectoryArchive(tmp_path)
    assert archive.get("g1") is None
    archive.put("g1", b"document")
    assert archive.get("g1") == b"document"
    assert archive.path("g1").parent.parent == tmp_path
    assert not [p for p in archive.path("g1").parent.iterdir() if p.name.startswith(".")]
    (tmp_path / "blocked").write_text("a file where a folder should be")
    with pytest.raises(ArchiveUnavailable, match="cannot write"):
        DirectoryArchive(tmp_path / "blocked").put("g1", b"x")


# -- the store's reads and the archiver ---------------------------------------------------


def played_game(app: Meeple) -> str:
    """A 2-player Res Publica game played to the end through the use cases, with table talk
    after the end (an event after the record's last)."""
    table = app.create_game(ALICE, RP, 2)
    app.join_game(BOB, table.id)
    rng = Rng(b"archive", 0)
    players = {0: ALICE, 1: BOB}
    for _ in range(3000):
        table = app.load(table.id)
        if table.status is Status.ENDED:
            break
        seat = table.actors()[0]
        assert table.state is not None
        move = random_move(table.game, table.state, seat, rng)
        app.play_moves(players[seat], table.id, [move], table.version, seat)
    assert table.status is Status.ENDED
    app.post_message(ALICE, table.id, "good game")
    return table.id


@pytest.fixture()
def archived_app(events_redis, redis_client: redis.Redis, tmp_path) -> Meeple:
    return Meeple(redis_client, events=events_redis,
                  archive=DirectoryArchive(tmp_path / "archive"))


@ON_BOTH_BACKENDS
def test_an_archived_game_reads_as_it_did_and_leaves_nothing_in_redis(
        archived_app, events_redis, tmp_path):
    app, keyring = archived_app, Keyring(tmp_path / "keys")
    game_id = played_game(app)
    store = app.store
    before = (store.read(game_id), store.head(game_id), store.get_seed(game_id),
              finished_record(app, game_id, keyring), store.origin(game_id),
              store.batch_start(game_id, 2), store.batch_end(game_id, 1),
              store.versions([game_id]), app.table_at(game_id, 40).to_json())
    moved = archive_game(app, game_id, keyring)
    assert moved is not None and moved.document_bytes < moved.redis_bytes / 5
    assert not list(events_redis.scan_iter(match=f"*{{{game_id}}}*"))
    fresh = Meeple(app.redis, events=events_redis, archive=store.archive)  # no cache
    after = (fresh.store.read(game_id), fresh.store.head(game_id), fresh.store.get_seed(game_id),
             finished_record(fresh, game_id, keyring), fresh.store.origin(game_id),
             fresh.store.batch_start(game_id, 2), fresh.store.batch_end(game_id, 1),
             fresh.store.versions([game_id]), fresh.table_at(game_id, 40).to_json())
    assert after == before
    assert fresh.load(game_id).to_json() == app.load(game_id).to_json()
    assert not list(events_redis.scan_iter(match=f"*{{{game_id}}}*")), "no cache written back"


@ON_BOTH_BACKENDS
def test_an_archived_game_takes_no_more_events(archived_app, tmp_path):
    app = archived_app
    game_id = played_game(app)
    table = app.load(game_id)
    archive_game(app, game_id, Keyring(tmp_path / "keys"))
    with pytest.raises(GameArchived):
        app.post_message(BOB, game_id, "late")
    with pytest.raises(GameArchived):
        app.append_system_events(game_id, [NewEvent("GameScored", {}, "system")], table.version)


def test_a_game_not_ended_or_too_recent_stays(archived_app, tmp_path):
    app, keyring = archived_app, Keyring(tmp_path / "keys")
    ended = played_game(app)
    open_table = app.create_game(ALICE, RP, 2).id
    now = app.clock()
    from datetime import timedelta
    done = archive_finished_games(app, keyring, now, timedelta(days=7))
    assert not done.moved and done.too_recent == 2
    done = archive_finished_games(app, keyring, now + timedelta(days=8), timedelta(days=7))
    assert [m.game_id for m in done.moved] == [ended] and done.not_ended == 1
    assert app.store.in_redis(open_table) and not app.store.in_redis(ended)
    again = archive_finished_games(app, keyring, now + timedelta(days=8), timedelta(days=7))
    assert not again.moved and app.store.archived(ended) is not None  # never undone


def test_a_game_whose_record_is_not_its_stream_stays_and_the_pass_goes_on(
        archived_app, tmp_path):
    app, keyring = archived_app, Keyring(tmp_path / "keys")
    damaged, sound = played_game(app), played_game(app)
    app.store.put_record(damaged, finished_record(app, sound, keyring))  # another game's
    from datetime import timedelta
    done = archive_finished_games(app, keyring, app.clock() + timedelta(days=8),
                                  timedelta(days=7))
    assert [m.game_id for m in done.moved] == [sound]
    assert len(done.failed) == 1 and done.failed[0].startswith(f"{damaged}: ")
    assert app.store.in_redis(damaged) and app.store.archived(damaged) is None


def test_a_message_between_the_read_and_the_delete_keeps_the_game_in_redis(
        archived_app, tmp_path, monkeypatch):
    app = archived_app
    game_id = played_game(app)
    table = app.load(game_id)
    put = app.store.archive.put  # type: ignore[union-attr]

    def put_then_a_message_comes(gid: str, document: bytes) -> None:
        put(gid, document)
        app.post_message(BOB, gid, "wait")

    monkeypatch.setattr(app.store.archive, "put", put_then_a_message_comes)
    assert archive_game(app, game_id, Keyring(tmp_path / "keys")) is None
    assert app.store.in_redis(game_id) and app.store.version(game_id) == table.version + 1
    assert app.store.archive.get(game_id) is None  # type: ignore[union-attr]


def test_a_damaged_archive_is_503_not_a_missing_game(archived_app, tmp_path):
    app = archived_app
    game_id = played_game(app)
    archive_game(app, game_id, Keyring(tmp_path / "keys"))
    path = app.store.archive.path(game_id)  # type: ignore[union-attr]
    path.write_bytes(path.read_bytes()[:-10])
    fresh = Meeple(app.redis, archive=app.store.archive)
    with pytest.raises(ArchiveUnavailable, match="damaged"):
        fresh.store.read(game_id)


# -- S3: a real S3-compatible server (moto's, over HTTP) --------------------------------------


@pytest.fixture()
def s3_url(monkeypatch, tmp_path) -> Iterator[str]:
    """An S3 endpoint on loopback with a bucket `games`; boto3 finds it as any deployment's
    would, through the AWS_* environment."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                               "-p", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    for name, value in (("AWS_ENDPOINT_URL", endpoint), ("AWS_ACCESS_KEY_ID", "test"),
                        ("AWS_SECRET_ACCESS_KEY", "test"), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    try:
        client = boto3.client("s3")
        for _ in range(200):
            try:
                client.create_bucket(Bucket="games")
                break
            except botocore.exceptions.EndpointConnectionError:
                time.sleep(0.05)
        yield "s3://games/meeple/"
    finally:
        server.terminate()
        server.wait(10)


def test_an_s3_archive_keeps_documents_by_game_id(s3_url):
    archive = open_archive(s3_url)
    assert archive is not None and archive.get("g1") is None
    archive.put("g1", b"document")
    assert archive.get("g1") == b"document"
    keys = [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket="games")["Contents"]]
    assert keys == ["meeple/g1.meeple.xz"]
    archive.delete("g1")
    assert archive.get("g1") is None


def test_a_game_archived_to_s3_reads_the_same(s3_url, redis_client, tmp_path):
    app = Meeple(redis_client, archive=open_archive(s3_url))
    game_id = played_game(app)
    keyring = Keyring(tmp_path / "keys")
    before = (app.store.read(game_id), finished_record(app, game_id, keyring))
    assert archive_game(app, game_id, keyring) is not None
    fresh = Meeple(redis_client, archive=open_archive(s3_url))
    assert (fresh.store.read(game_id), finished_record(fresh, game_id, keyring)) == before
    assert not fresh.store.in_redis(game_id)


def test_an_unreachable_s3_archive_is_unavailable_not_empty(monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    archive = open_archive("s3://games")
    with pytest.raises(ArchiveUnavailable, match="cannot reach"):
        archive.get("g1")  # type: ignore[union-attr]
    with pytest.raises(ArchiveUnavailable, match="cannot write"):
        archive.put("g1", b"x")  # type: ignore[union-attr]


def test_lists_read_an_archived_games_version_once_and_the_reconciler_never(
        archived_app: Meeple, redis_client: redis.Redis, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime, timedelta

    from events.application.dispatch import RQDispatcher
    from events.application.reconciler import Reconciler

    app = archived_app
    game_id = played_game(app)
    version = app.store.version(game_id)
    archive_game(app, game_id, Keyring(tmp_path / "keys"))
    fresh = Meeple(redis_client, archive=app.store.archive)
    reads: list[str] = []
    archive = fresh.store.archive
    assert archive is not None
    get = archive.get

    def counted_get(game_id: str) -> Any:
        reads.append(game_id)
        return get(game_id)

    monkeypatch.setattr(archive, "get", counted_get)
    assert fresh.store.versions([game_id]) == [version] == fresh.store.versions([game_id])
    assert reads == [game_id]  # once: a version never changes once archived
    assert fresh.store.versions([game_id], archived=False) == [0]
    # listed, so a reconciler candidate
    assert (fresh.lobby.get(game_id) or {}).get("status") == "ended"
    reads.clear()
    Reconciler(fresh, RQDispatcher(redis_client)).run_once(datetime.now(UTC) + timedelta(1))
    assert reads == []  # a game not in Redis has nothing to reconcile


def test_rebuilding_the_lobby_lists_the_archived_games_again(archived_app, redis_client,
                                                              tmp_path):
    app = archived_app
    archived, in_redis = played_game(app), app.create_game(ALICE, RP, 2).id
    archive_game(app, archived, Keyring(tmp_path / "keys"))
    for key in redis_client.scan_iter(match="meeple:{lobby}*"):
        redis_client.delete(key)  # the control store's lobby lost
    assert app.lobby.get(archived) is None
    assert app.rebuild_lobby() == 2
    assert app.lobby.get(archived)["status"] == "ended"
    assert app.lobby.get(in_redis)["status"] == "open"


def test_an_s3_archive_lists_its_games(s3_url):
    archive = open_archive(s3_url)
    assert archive is not None
    for game_id in ("a1", "b2", "c3"):
        archive.put(game_id, b"document")
    assert sorted(archive.game_ids()) == ["a1", "b2", "c3"]
    assert sorted(DirectoryArchive(Path("/nonexistent")).game_ids()) == []
