"""Deadline jobs on the `notify` queue, run at their time by RQ's scheduler
(events.application.dispatch schedules them). Both re-read the game: a turn that is over
makes them do nothing."""

from __future__ import annotations

from datetime import timedelta

import structlog
from rq import Queue

from events.domain.deadlines import due
from events.exceptions import DeadlineNotDue, StaleDeadline
from workers.jobs import _app
from workers.notify import notify_player

log = structlog.get_logger()

EXPIRE = "workers.deadlines.expire"
# A job that ran early (two hosts' clocks disagree) looks again this much after the due time.
EARLY_RETRY = timedelta(seconds=2)


def remind(game_id: str, seat: int, started: int) -> str:
    """Remind the seat's player that the turn started at version `started` is due soon."""
    app = _app()
    table = app.load(game_id)
    clock = table.clock_of(seat)
    placed = table.seat_of(seat)
    if clock is None or clock.version != started or placed is None:
        return "stale"  # moved, resigned, or the game ended: no reminder
    return notify_player(game_id, started, placed.player_id, "deadline_reminder")


def expire(game_id: str, seat: int, started: int) -> str:
    """Time out the turn started at version `started` if it is still running and due. A lost
    race with a move raises (VersionConflict): RQ retries the job, which then finds out."""
    app = _app()
    try:
        app.expire_turn(game_id, seat, started)
    except StaleDeadline:
        return "stale"
    except DeadlineNotDue:
        table = app.load(game_id)
        clock = table.clock_of(seat)
        assert clock is not None and table.deadline is not None
        when = due(clock, table.deadline) + EARLY_RETRY
        Queue("notify", connection=app.redis).enqueue_at(
            when, EXPIRE, game_id, seat, started, job_id=f"expire-{game_id}-{seat}-{started}-again",
            result_ttl=3600, failure_ttl=86400)
        return "early"
    log.info("turn timed out", game_id=game_id, seat=seat, started=started)
    return "expired"
