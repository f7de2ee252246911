"""The deadline jobs one at a time (real RQ, real redis): what gets scheduled, stale and
early jobs, the webhook reminder, resync after lost jobs, and freeing a dead scheduler's lock."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue
from rq.registry import ScheduledJobRegistry
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, RQScheduler

from cli.commands.deadlines import reclaim_scheduler_locks, resync
from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.dispatch import RQDispatcher, deadline_jobs
from events.application.meeple import Meeple
from events.domain import table as domain_table
from events.domain.deadlines import TurnClock, parse_time
from events.domain.table import Table
from games.bots import Level, move_floor
from tests.workers.helpers import Receiver
from workers.deadlines import STAND_IN_CHECK, expire, expire_by_bot, remind

RP = "res-publica-2230ad"


@pytest.fixture()
def app(redis_url: str, redis_client: redis.Redis, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Meeple:
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)  # the jobs read it, as in production
    monkeypatch.setenv("MEEPLE_MAILDIR", str(tmp_path / "mail"))
    monkeypatch.setenv("MEEPLE_NOTIFY_RETRY_INTERVALS", "0")
    return Meeple(redis_client, RQDispatcher(redis_client), min_move_seconds=1)


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def started(app: Meeple, hours: float = 1, on_expiry: str = "bot", bot: str = "random"
            ) -> Table:
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    table = app.create_game(alice, RP, 2, deadline={"hours": hours, "on_expiry": on_expiry,
                                                    "bot": bot})
    return app.join_game(bob, table.id)


def overdue(app: Meeple, bot: str = "greedy") -> tuple[Table, int, TurnClock]:
    """A table with a second per move and a `bot` stand-in, its first turn overdue."""
    table = started(app, hours=1 / 3600, bot=bot)
    seat = table.actors()[0]
    clock = table.clock_of(seat)
    assert clock is not None
    time.sleep(max(0.0, (parse_time(clock.at) + timedelta(seconds=1)).timestamp() - time.time()))
    return table, seat, clock


def scheduled(app: Meeple) -> dict[str, float]:
    registry = ScheduledJobRegistry("notify", connection=app.redis)
    return {job_id: app.redis.zscore(registry.key, job_id) or 0.0
            for job_id in registry.get_job_ids()}


def test_a_turn_schedules_its_reminder_and_its_expiry(app: Meeple) -> None:
    table = started(app)
    seat = table.actors()[0]
    clock = table.clock_of(seat)
    assert clock is not None
    jobs = scheduled(app)
    turn = f"{table.id}-{seat}-{clock.version}"
    due = parse_time(clock.at).timestamp() + 3600
    assert set(jobs) == {f"remind-{turn}", f"expire-{turn}"}
    assert jobs[f"remind-{turn}"] == pytest.approx(due - 900, abs=1)  # a quarter before
    assert jobs[f"expire-{turn}"] == pytest.approx(due + 1, abs=1)  # never early


def test_stale_and_early_jobs_do_nothing(app: Meeple) -> None:
    table = started(app)
    seat = table.actors()[0]
    clock = table.clock_of(seat)
    assert clock is not None
    assert expire(table.id, seat, clock.version - 1) == "stale"
    assert remind(table.id, seat, clock.version - 1) == "stale"
    assert expire(table.id, seat, clock.version) == "early"  # an hour to go
    assert f"expire-{table.id}-{seat}-{clock.version}-again" in scheduled(app)
    assert app.load(table.id).version == table.version


def test_the_expiry_runs_once_its_time_has_come(app: Meeple) -> None:
    table = started(app, hours=1 / 3600)  # a second per move
    seat = table.actors()[0]
    clock = table.clock_of(seat)
    assert clock is not None
    time.sleep(max(0.0, (parse_time(clock.at) + timedelta(seconds=1)).timestamp() - time.time()))
    assert expire(table.id, seat, clock.version) == "expired"
    assert expire(table.id, seat, clock.version) == "stale"  # a duplicate job
    types = [e["type"] for e in app.events(table.id, table.version + 1)]
    assert types[0] == "TurnTimedOut" and "MovePlayed" in types


def test_a_thinking_stand_in_plays_the_timed_out_turn_on_the_ai_queue(app: Meeple) -> None:
    """Issue 17: "A deadline that gives a seat to a bot uses a table-chosen level (default
    greedy)", and "a searching bot never holds up notifications, deadlines or scoring"."""
    table = started(app, hours=1 / 3600, bot="greedy")
    assert table.deadline is not None and table.deadline["bot"] == "greedy"
    seat = table.actors()[0]
    clock = table.clock_of(seat)
    assert clock is not None
    time.sleep(max(0.0, (parse_time(clock.at) + timedelta(seconds=1)).timestamp() - time.time()))
    bot_games = Queue("ai", connection=app.redis)
    bot_games.enqueue("workers.jobs.play_bot_turn", "other-game", 9, 1)  # already waiting
    assert expire(table.id, seat, clock.version) == "to the ai queue"
    assert app.load(table.id).version == table.version  # nothing decided on `notify`
    queued = bot_games.jobs
    assert [(job.func_name, job.args) for job in queued] == [  # the timed-out turn first
        ("workers.deadlines.expire_by_bot", (table.id, seat, clock.version)),
        ("workers.jobs.play_bot_turn", ("other-game", 9, 1))]
    assert queued[0].perform() == "expired"
    types = [e["type"] for e in app.events(table.id, table.version + 1)]
    assert types[0] == "TurnTimedOut" and "MovePlayed" in types
    assert queued[0].perform() == "stale"  # a duplicate job


def test_the_webhook_reminder_says_when_the_move_is_due(app: Meeple,
                                                         receiver: Receiver) -> None:
    table = started(app)
    seat = table.actors()[0]
    placed, clock = table.seat_of(seat), table.clock_of(seat)
    assert placed is not None and clock is not None
    Profiles(app.redis).update(placed.player_id, {"webhook_url": receiver.url,
                                                  "notify": "webhook"})
    assert remind(table.id, seat, clock.version) == "sent"
    assert remind(table.id, seat, clock.version) == "already sent"
    headers, body, _ = receiver.requests[0]
    payload = json.loads(body)
    assert payload["event"] == "deadline_reminder" and payload["due_at"] == table.due_at(seat)
    assert headers["X-Meeple-Delivery"].endswith("-reminder")  # not the turn notice's id


def test_resync_schedules_lost_jobs_again_and_keeps_the_others(app: Meeple) -> None:
    table = started(app)
    jobs = scheduled(app)
    registry = ScheduledJobRegistry("notify", connection=app.redis)
    lost = sorted(jobs)[0]
    registry.remove(lost, delete_job=True)  # as if Redis came back from an older AOF
    assert lost not in scheduled(app)
    assert resync(app.connections) == (1, len(table.clocks))
    assert scheduled(app) == jobs


def test_a_dead_schedulers_lock_is_freed_a_live_ones_kept(app: Meeple) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    holders = {"ai": ("dead", dead.pid), "notify": ("alive", os.getpid())}
    for queue, (name, pid) in holders.items():
        app.redis.set(RQScheduler.get_locking_key(queue), name, ex=61)
        app.redis.hset(SCHEDULER_KEY_TEMPLATE % name, mapping={
            "hostname": socket.gethostname(), "pid": str(pid),
            "last_heartbeat": "2999-01-01T00:00:00.000000Z"})
    app.redis.set(RQScheduler.get_locking_key("scoring"), "silent", ex=61)  # no metadata
    assert reclaim_scheduler_locks(app.redis, ["ai", "scoring", "notify"]) == ["ai", "scoring"]
    assert app.redis.get(RQScheduler.get_locking_key("notify")) == b"alive"


def test_a_lost_stand_in_job_is_queued_again_by_the_expirys_check(app: Meeple) -> None:
    """A thinking stand-in's job on `ai` dies with its worker (kill -9 in a search) long
    after the turn's commit was settled: the expiry that handed the turn over looks again
    (outside audit: the turn stayed overdue for good, through restarts and a resync)."""
    table, seat, clock = overdue(app)
    assert expire(table.id, seat, clock.version) == "to the ai queue"
    ai = Queue("ai", connection=app.redis)
    [lost] = ai.jobs
    ai.remove(lost)  # its worker died with it: in no queue, never to finish
    checks = [job_id for job_id in scheduled(app) if "-check-" in job_id]
    assert len(checks) == 1
    at = scheduled(app)[checks[0]]
    assert at - time.time() == pytest.approx(STAND_IN_CHECK.total_seconds(), abs=5)
    # The check's time comes (RQ's scheduler runs it on `notify`): the turn is queued again.
    assert expire(table.id, seat, clock.version) == "to the ai queue"
    [again] = ai.jobs
    assert again.perform() == "expired"
    assert app.events(table.id, table.version + 1)[0]["type"] == "TurnTimedOut"
    assert expire(table.id, seat, clock.version) == "stale"  # every later check ends there


def test_a_stand_in_on_its_way_is_not_queued_twice(app: Meeple) -> None:
    table, seat, clock = overdue(app)
    assert expire(table.id, seat, clock.version) == "to the ai queue"
    assert expire(table.id, seat, clock.version) == "on the ai queue"  # still waiting there
    assert len(Queue("ai", connection=app.redis).jobs) == 1


def test_each_seat_of_a_hot_seat_player_gets_its_reminder(app: Meeple,
                                                          receiver: Receiver) -> None:
    """README: "if you hold several seats, each seat that comes to act gets its own turn
    email"; `deadline_reminder` is "as `your_turn`", about the seat that must act (outside
    audit: the second seat's reminder was taken as sent, and the first seat's described)."""
    carol = Player("p_carol", "carol")
    table = app.create_game(carol, "trappist-one", 2,
                            deadline={"hours": 1, "on_expiry": "bot", "bot": "random"})
    table = app.join_game(carol, table.id)
    assert sorted(table.actors()) == [0, 1]  # both choose in secret at once
    Profiles(app.redis).update(carol.id, {"webhook_url": receiver.url, "notify": "webhook"})
    for seat in (0, 1):
        clock = table.clock_of(seat)
        assert clock is not None
        assert remind(table.id, seat, clock.version) == "sent"
    sent = sorted((json.loads(body)["seat"], headers["X-Meeple-Delivery"])
                  for headers, body, _ in receiver.requests)
    assert [seat for seat, _ in sent] == [0, 1]
    assert [delivery.endswith(f"-seat{seat}-reminder") for seat, delivery in sent] == [True] * 2
    # The ids the dispatcher schedules and reconciles with are the same.
    jobs = {job.delivery for clock in table.clocks
            for job in deadline_jobs(table, clock) if job.delivery}
    assert jobs == {delivery for _, delivery in sent}


def test_no_reminder_once_the_turn_is_due(app: Meeple, receiver: Receiver) -> None:
    """README: "A reminder goes out a quarter of the time per move before the deadline":
    after an outage that spans the due time the reminder job runs late, and would tell the
    player of a deadline already past, just before the turn is timed out (outside audit)."""
    table = started(app, hours=1 / 3600)
    seat = table.actors()[0]
    placed, clock = table.seat_of(seat), table.clock_of(seat)
    assert placed is not None and clock is not None
    Profiles(app.redis).update(placed.player_id, {"webhook_url": receiver.url,
                                                  "notify": "webhook"})
    time.sleep(max(0.0, (parse_time(clock.at) + timedelta(seconds=1)).timestamp() - time.time()))
    assert remind(table.id, seat, clock.version) == "late"
    assert receiver.requests == []


def test_table_talk_while_a_stand_in_thinks_does_not_undo_the_expiry(
        app: Meeple, monkeypatch: pytest.MonkeyPatch) -> None:
    """Talk during a thinking stand-in's search made the whole expiry fail and search again,
    for as long as people chatted (outside audit): the decision stands over talk."""
    table, seat, clock = overdue(app)
    other = table.seat_of(1 - seat)
    assert other is not None
    real, searches = domain_table.bot_move, []

    def chatted_meanwhile(*args: Any, **kwargs: Any) -> Any:
        searches.append(1)
        app.post_message(Player(other.player_id, other.name), table.id, "hurry up!")
        return real(*args, **kwargs)

    monkeypatch.setattr(domain_table, "bot_move", chatted_meanwhile)
    assert expire(table.id, seat, clock.version) == "to the ai queue"
    [job] = Queue("ai", connection=app.redis).jobs
    assert job.perform() == "expired"
    types = [e["type"] for e in app.events(table.id, table.version + 1)]
    talk = len(searches)
    assert types[:talk + 1] == ["MessagePosted"] * talk + ["TurnTimedOut"]
    assert types[talk + 1:] == ["MovePlayed"] * talk  # each stand-in move searched once


def test_a_stand_ins_moves_wait_out_their_floor(app: Meeple) -> None:
    """A timed-out turn played by a greedy stand-in: its moves come no sooner than their
    floor (games.bots.move_floor), so when they come does not tell the other seats how few
    choices the absent player's hand left it (outside rules audit, session 38)."""
    table, seat, clock = overdue(app, bot="greedy")
    assert expire(table.id, seat, clock.version) == "to the ai queue"
    began = time.monotonic()
    assert expire_by_bot(table.id, seat, clock.version) == "expired"  # the `ai` queue's job
    took = time.monotonic() - began
    played = [e for e in app.events(table.id, table.version + 1) if e["type"] == "MovePlayed"]
    assert played and all(e["by"] == "system" for e in played)
    assert took >= len(played) * move_floor(Level.parse("greedy")), (took, len(played))
