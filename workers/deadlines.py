"""Deadline jobs on the `notify` queue, run at their time by RQ's scheduler
(events.application.dispatch schedules them), and a thinking stand-in bot's turn on `ai`.
All re-read the game: a turn that is over makes them do nothing."""

from __future__ import annotations

import time
from datetime import timedelta

import structlog
from rq import Queue, get_current_job
from rq.job import Job

from events.accounts.profiles import Profiles
from events.application.dispatch import (
    HANDED_OVER,
    REMIND,
    STALE_JOB_SECONDS,
    WEBHOOKS_QUEUE,
    RQDispatcher,
    notice_seat,
)
from events.application.meeple import Meeple
from events.domain.deadlines import due
from events.domain.table import Table
from events.exceptions import DeadlineNotDue, StaleDeadline, VersionConflict
from workers.jobs import _app
from workers.notify import delivery_id, handed_over, notify_player

log = structlog.get_logger()

EXPIRE = "workers.deadlines.expire"
EXPIRE_BY_BOT = "workers.deadlines.expire_by_bot"
# A job that ran early (two hosts' clocks disagree) looks again this much after the due time.
EARLY_RETRY = timedelta(seconds=2)
# A thinking stand-in's job on `ai` dies with its worker (RQ then keeps it "started" for
# ever) long after the commit that started the turn was settled: the expiry looks again
# this long after handing the turn over, until the turn is over.
STAND_IN_CHECK = timedelta(seconds=STALE_JOB_SECONDS + 30)


def remind(game_id: str, seat: int, started: int) -> str:
    """Remind the seat's player that the turn started at version `started` is due soon."""
    app = _app()
    table = app.load(game_id)
    clock = table.clock_of(seat)
    placed = table.seat_of(seat)
    if clock is None or clock.version != started or placed is None:
        return "stale"  # moved, resigned, or the game ended: no reminder
    assert table.deadline is not None
    if app.clock() >= due(clock, table.deadline):
        return "late"  # the service was down at its time: the expiry is what comes now
    hot = notice_seat(table, placed.player_id, seat)
    if Profiles(app.redis).notify_setting(placed.player_id) == "webhook" and handed_over(
            REMIND, (game_id, seat, started),
            delivery_id(game_id, started, placed.player_id, "deadline_reminder", hot),
            WEBHOOKS_QUEUE):
        return HANDED_OVER  # there this job runs again, checks first
    return notify_player(game_id, started, placed.player_id, "deadline_reminder", hot)


def expire(game_id: str, seat: int, started: int) -> str:
    """Time out the turn started at version `started` if it is still running and due. A
    stand-in bot that thinks (greedy, ismcts) plays the turn on the `ai` queue, so that the
    notices behind this job never wait for its search; it goes first there."""
    app = _app()
    table = app.load(game_id)
    clock = table.clock_of(seat)
    if clock is None or clock.version != started or table.deadline is None:
        return "stale"
    if app.clock() < due(clock, table.deadline):
        return _again_at_its_time(app, table, seat, started)
    if table.deadline["on_expiry"] == "bot" and table.stand_in_level().kind != "random":
        return _to_the_stand_in(app, game_id, seat, started)
    return expire_by_bot(game_id, seat, started)


def _to_the_stand_in(app: Meeple, game_id: str, seat: int, started: int) -> str:
    """Queue the timed-out turn for the thinking stand-in on `ai`, at the front (it waits
    for the bot moves being played, not for the whole queue of bot games), unless its job is
    already on its way; and look again at STAND_IN_CHECK, in case that job is lost."""
    job_id = f"expire-{game_id}-{seat}-{started}-ai"
    job = Job.fetch_many([job_id], connection=app.redis)[0]
    on_its_way = RQDispatcher(app.redis).job_status(job) == "live"
    if not on_its_way:
        if job is not None:
            job.delete()  # lost with its worker, or done without ending the turn
        Queue("ai", connection=app.redis).enqueue(
            EXPIRE_BY_BOT, game_id, seat, started, job_id=job_id, result_ttl=3600,
            failure_ttl=86400, at_front=True)
    check = f"expire-{game_id}-{seat}-{started}-check-{time.time_ns()}"
    Queue("notify", connection=app.redis).enqueue_at(
        app.clock() + STAND_IN_CHECK, EXPIRE, game_id, seat, started, job_id=check,
        result_ttl=3600, failure_ttl=86400)
    return "on the ai queue" if on_its_way else "to the ai queue"


def expire_by_bot(game_id: str, seat: int, started: int) -> str:
    """`expire`'s work: TurnTimedOut and the stand-in's moves, or the resignation. A lost
    race with a move raises (VersionConflict): RQ retries the job on `notify`, which then
    finds out; on `ai` (no retries there) `expire` is queued again."""
    app = _app()
    try:
        app.expire_turn(game_id, seat, started)
    except StaleDeadline:
        return "stale"
    except DeadlineNotDue:
        return _again_at_its_time(app, app.load(game_id), seat, started)
    except VersionConflict:
        job = get_current_job()
        if job is None or job.origin != "ai":
            raise
        Queue("notify", connection=app.redis).enqueue(
            EXPIRE, game_id, seat, started, job_id=f"expire-{game_id}-{seat}-{started}-retry",
            result_ttl=3600, failure_ttl=86400)
        return "again"
    log.info("turn timed out", game_id=game_id, seat=seat, started=started)
    return "expired"


def _again_at_its_time(app: Meeple, table: Table, seat: int, started: int) -> str:
    """A job that ran early (another host's clock) is scheduled again for the due time."""
    clock = table.clock_of(seat)
    assert clock is not None and table.deadline is not None
    when = due(clock, table.deadline) + EARLY_RETRY
    Queue("notify", connection=app.redis).enqueue_at(
        when, EXPIRE, table.id, seat, started, job_id=f"expire-{table.id}-{seat}-{started}-again",
        result_ttl=3600, failure_ttl=86400)
    return "early"
