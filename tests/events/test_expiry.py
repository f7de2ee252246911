"""Issue 11, point 10: "open tables that never started expire; a quota of open games ... per
player". The finding: "Nothing bounds storage: players, open tables and imports never
expire". Real Redis; the clock is the use case's own, set forward."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
import redis
from rq import Queue, SimpleWorker

from events.accounts.players import Player
from events.application.expiry import OPEN_TABLE_DAYS, expire_open_tables
from events.application.meeple import Meeple
from events.domain.deadlines import parse_time
from events.exceptions import GameNotFound, QuotaExceeded
from events.store.clients import EventsClient
from tests.conftest import ON_BOTH_BACKENDS

pytestmark = ON_BOTH_BACKENDS


RP = "res-publica-2230ad"
ALICE, BOB, CAROL = Player("p_alice", "alice"), Player("p_bob", "bob"), Player("p_carol", "carol")


def game_keys(client: EventsClient, game_id: str) -> set[bytes]:
    """Every key of the game (SCAN: on a cluster over every primary; KEYS asks one node)."""
    return set(client.scan_iter(match=f"meeple:g:{{{game_id}}}:*"))


def later(table_time: str, days: float) -> datetime:
    return parse_time(table_time) + timedelta(days=days)


def test_an_open_table_expires_after_its_days_and_leaves_no_trace(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    app = Meeple(redis_client, events=events_redis)
    waiting = app.create_game(ALICE, RP, 3)
    app.join_game(BOB, waiting.id)
    started = app.create_game(ALICE, RP, 2)
    started = app.join_game(BOB, started.id)
    keys_before = game_keys(events_redis, waiting.id)
    assert keys_before
    # Not yet: a day short of the limit nothing happens.
    early = expire_open_tables(app, later(waiting.updated_at, OPEN_TABLE_DAYS - 1))
    assert early.expired == 0 and app.load(waiting.id).version == waiting.version + 1

    done = expire_open_tables(app, later(waiting.updated_at, OPEN_TABLE_DAYS + 1))
    assert done.expired == 1
    with pytest.raises(GameNotFound, match="expired .* never started"):
        app.load(waiting.id)
    assert game_keys(events_redis, waiting.id) == {f"meeple:g:{{{waiting.id}}}:gone".encode()}
    assert app.lobby.get(waiting.id) is None
    assert [g["id"] for g in app.lobby.page(player_id=BOB.id).items] == [started.id]
    assert app.lobby.page(status="open").total == 0
    assert app.lobby.open_tables(ALICE.id) == 0
    # The started game is untouched, however old.
    assert app.load(started.id).version == started.version


def test_a_join_resets_the_clock(redis_client: redis.Redis, events_redis: EventsClient) -> None:
    app = Meeple(redis_client, events=events_redis)
    waiting = app.create_game(ALICE, RP, 3)
    time.sleep(0.05)
    joined = app.join_game(BOB, waiting.id)
    created, changed = parse_time(waiting.updated_at), parse_time(joined.updated_at)
    assert changed > created
    # Made more than the days ago, joined less: kept.
    now = created + (changed - created) / 2 + timedelta(days=OPEN_TABLE_DAYS)
    done = expire_open_tables(app, now)
    assert done.expired == 0 and done.looked_at == 1
    assert app.load(waiting.id).version == joined.version
    assert expire_open_tables(app, changed + timedelta(days=OPEN_TABLE_DAYS, seconds=1)
                              ).expired == 1


def test_a_join_racing_the_expiry_wins_or_finds_no_table(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    app = Meeple(redis_client, events=events_redis)
    waiting = app.create_game(ALICE, RP, 3)
    read = app.load(waiting.id)
    app.join_game(BOB, waiting.id)  # lands between the expiry's read and its delete
    assert not app.store.discard(waiting.id, read.version, "expired")
    assert app.load(waiting.id).version == read.version + 1
    assert app.store.discard(waiting.id, read.version + 1, "expired")
    with pytest.raises(GameNotFound):
        app.join_game(CAROL, waiting.id)


def test_an_expired_table_frees_the_quota(redis_client: redis.Redis, events_redis: EventsClient,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_MAX_OPEN_GAMES", "2")
    app = Meeple(redis_client, events=events_redis)
    first = app.create_game(ALICE, RP, 3)
    app.create_game(ALICE, RP, 3)
    with pytest.raises(QuotaExceeded):
        app.create_game(ALICE, RP, 3)
    expire_open_tables(app, later(first.updated_at, OPEN_TABLE_DAYS + 1), limit=1)
    app.create_game(ALICE, RP, 3)


def test_tables_made_without_a_seat_count_toward_the_quota(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The finding: the open-table quota missed `join=false` tables."""
    monkeypatch.setenv("MEEPLE_MAX_OPEN_GAMES", "2")
    app = Meeple(redis_client, events=events_redis)
    hosted = app.create_game(ALICE, RP, 3, join=False)
    app.create_game(ALICE, RP, 3, join=False)
    with pytest.raises(QuotaExceeded):
        app.create_game(ALICE, RP, 3, join=False)
    with pytest.raises(QuotaExceeded):
        app.create_game(ALICE, RP, 3)
    app.create_game(ALICE, RP, 2, bots=[0, 1], join=False)  # starts at once: not counted
    # Once it starts it no longer waits: the quota is free again.
    for player in (BOB, CAROL, Player("p_dave", "dave")):
        app.join_game(player, hosted.id)
    app.create_game(ALICE, RP, 3, join=False)
    with pytest.raises(QuotaExceeded):
        app.create_game(ALICE, RP, 3, join=False)


def test_the_housekeeping_job_expires_tables_and_schedules_its_next_run(
        redis_client: redis.Redis, events_redis: EventsClient,
        redis_url: str, events_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)
    monkeypatch.setenv("MEEPLE_EVENTS_URL", events_url)
    monkeypatch.setenv("MEEPLE_OPEN_TABLE_DAYS", "0")  # every open table is past its time
    app = Meeple(redis_client, events=events_redis)
    waiting = app.create_game(ALICE, RP, 3)
    queue = Queue("scoring", connection=redis_client)
    queue.enqueue("workers.housekeeping.housekeeping", job_id="housekeeping-now")
    SimpleWorker([queue], connection=redis_client).work(burst=True)
    with pytest.raises(GameNotFound):
        app.load(waiting.id)
    scheduled = queue.scheduled_job_registry.get_job_ids()
    assert any(job_id.startswith("housekeeping-") for job_id in scheduled)
    now = datetime.now(UTC)
    assert expire_open_tables(app, now).looked_at == 0
