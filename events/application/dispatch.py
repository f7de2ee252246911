"""Follow-up work after a commit, queued on RQ by job path so `events` never imports `workers`.

Job ids are derived from the game, its version and the seat (or player), so queueing
the same follow-up twice is harmless, and every job re-checks the game when it runs,
so a stale one does nothing.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from typing import Any, Protocol

import redis
from rq import Queue, Retry
from rq.job import Job

from events.accounts.profiles import Profiles
from events.domain.deadlines import TurnClock, due, reminder_time
from events.domain.envelope import Envelope
from events.domain.table import Status, Table

BOT_TURN = "workers.jobs.play_bot_turn"
SCORE_GAME = "workers.jobs.score_game"
NOTIFY_PLAYER = "workers.notify.notify_player"
REMIND = "workers.deadlines.remind"
EXPIRE = "workers.deadlines.expire"
# Seconds between a failed notification's retries (MEEPLE_NOTIFY_RETRY_INTERVALS, comma-separated;
# tests use zeros). RQ retries as many times as there are intervals.
DEFAULT_RETRY_INTERVALS = (10, 30, 60, 300, 900)


class Dispatcher(Protocol):
    def after_commit(self, table: Table, before: Table | None = None,
                     by: str | None = None) -> None: ...

    def after_message(self, table: Table, envelope: Envelope) -> None: ...


class NoDispatch:
    """For in-process runs (simulations, tests of the core): nothing is queued."""

    def after_commit(self, table: Table, before: Table | None = None,
                     by: str | None = None) -> None:
        return None

    def after_message(self, table: Table, envelope: Envelope) -> None:
        return None


def retry_intervals() -> list[int]:
    raw = os.environ.get("MEEPLE_NOTIFY_RETRY_INTERVALS", "")
    if not raw.strip():
        return list(DEFAULT_RETRY_INTERVALS)
    return [int(part) for part in raw.split(",") if part.strip()]


def human_actors(table: Table | None) -> set[str]:
    """The ids of the people (not bots) who must act in `table`."""
    if table is None:
        return set()
    players = set()
    for seat in table.human_actors():  # not bots, nor seats whose player resigned
        placed = table.seat_of(seat)
        if placed is not None:
            players.add(placed.player_id)
    return players


def to_notify(table: Table, before: Table | None, by: str | None) -> list[tuple[str, str]]:
    """(player id, event) for each person to tell about this commit: those who became actors
    ("your_turn"), or every person seated when the game ended ("game_ended"); never the
    player whose action made the commit, never bots."""
    if table.status is Status.ENDED:
        if before is not None and before.status is Status.ENDED:
            return []  # e.g. GameScored: the end was announced already
        people = sorted({s.player_id for s in table.seats if not s.bot} - {by})
        return [(player_id, "game_ended") for player_id in people]
    new = human_actors(table) - human_actors(before) - {by}
    return [(player_id, "your_turn") for player_id in sorted(new)]


def message_recipients(table: Table, by: str) -> list[str]:
    """Everyone seated at `table` but the author of a message, never bots."""
    return sorted({s.player_id for s in table.seats if not s.bot} - {by})


class RQDispatcher:
    def __init__(self, client: redis.Redis, prefix: str = "meeple") -> None:
        self._redis = client
        self.ai = Queue("ai", connection=client)
        self.scoring = Queue("scoring", connection=client)
        self.notify = Queue("notify", connection=client)
        self.profiles = Profiles(client, prefix)
        intervals = retry_intervals()
        self._retry = Retry(max=len(intervals), interval=intervals) if intervals else None

    def after_commit(self, table: Table, before: Table | None = None,
                     by: str | None = None) -> None:
        """`before`: the table the commit started from (None for a new game); `by`: the
        player whose action it was (None for the system)."""
        self._notify(table, before, by)
        if table.status is Status.ENDED:
            if table.ratings is None:
                self._enqueue(self.scoring, SCORE_GAME, f"score-{table.id}", table.id)
            return
        for seat in table.actors():
            if table.bot_played(seat):
                job_id = f"ai-{table.id}-{table.version}-{seat}"
                self._enqueue(self.ai, BOT_TURN, job_id, table.id, table.version, seat)
        self.schedule_deadlines(table, since=before.version if before is not None else 0)

    def schedule_deadlines(self, table: Table, since: int = 0) -> int:
        """The reminder and the expiry of each turn clock started after version `since` (0:
        every clock, as `meeple deadlines resync` does), on the `notify` queue through RQ's
        scheduler. Job ids name the turn, so scheduling one twice is harmless, and the jobs
        re-check the game when they run. Returns the number of clocks looked at."""
        if table.deadline is None or table.status is not Status.ACTIVE:
            return 0
        started = [clock for clock in table.clocks if clock.version > since]
        for clock in started:
            self._schedule_turn(table, clock)
        return len(started)

    def _schedule_turn(self, table: Table, clock: TurnClock) -> None:
        assert table.deadline is not None
        turn = f"{table.id}-{clock.seat}-{clock.version}"
        args = (table.id, clock.seat, clock.version)
        self._schedule(f"remind-{turn}", reminder_time(clock, table.deadline), REMIND, *args,
                       retry=self._retry)
        # RQ keeps whole seconds (rounded down): one more, so the job never runs early.
        self._schedule(f"expire-{turn}", due(clock, table.deadline) + timedelta(seconds=1),
                       EXPIRE, *args, retry=self._retry)

    def _schedule(self, job_id: str, when: datetime, func: str, *args: object,
                  retry: Retry | None = None) -> None:
        if Job.exists(job_id, connection=self._redis):
            return  # scheduled already (or done, and then the job finds the turn is over)
        # A time already past is fine: the scheduler enqueues it on its next pass.
        self.notify.enqueue_at(when, func, *args, job_id=job_id, result_ttl=3600,
                               failure_ttl=86400, retry=retry, description=f"{func} {job_id}")

    def after_message(self, table: Table, envelope: dict[str, Any]) -> None:
        """Table talk was posted: tell every other person at the table."""
        for player_id in message_recipients(table, envelope["by"]):
            if self.profiles.notify_setting(player_id) == "none":
                continue
            job_id = f"notify-{table.id}-{envelope['v']}-{player_id}"
            self._enqueue(self.notify, NOTIFY_PLAYER, job_id, table.id, envelope["v"],
                          player_id, "message", retry=self._retry)

    def _notify(self, table: Table, before: Table | None, by: str | None) -> None:
        for player_id, event in to_notify(table, before, by):
            if self.profiles.notify_setting(player_id) == "none":
                continue
            job_id = f"notify-{table.id}-{table.version}-{player_id}"
            self._enqueue(self.notify, NOTIFY_PLAYER, job_id, table.id, table.version,
                          player_id, event, retry=self._retry)

    def _enqueue(self, queue: Queue, func: str, job_id: str, *args: object,
                 retry: Retry | None = None) -> None:
        if Job.exists(job_id, connection=self._redis):
            return  # already queued or done: the job is idempotent anyway
        # Finished job records are kept briefly (they outweigh the game itself in Redis);
        # failed ones for a day, to be looked at.
        # The description is what RQ logs: the job's name and id, never its arguments.
        queue.enqueue(func, *args, job_id=job_id, result_ttl=60, failure_ttl=86400,
                      retry=retry, description=f"{func} {job_id}")
