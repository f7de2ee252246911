"""Follow-up work after a commit, queued on RQ by job path so `events` never imports `workers`.

Job ids are derived from the game, its version and the seat (or player), so queueing
the same follow-up twice is harmless, and every job re-checks the game when it runs,
so a stale one does nothing.
"""

from __future__ import annotations

import os

import redis
from rq import Queue, Retry
from rq.job import Job

from events.profiles import Profiles
from events.table import Status, Table

BOT_TURN = "workers.jobs.play_bot_turn"
SCORE_GAME = "workers.jobs.score_game"
NOTIFY_PLAYER = "workers.notify.notify_player"
# Seconds between a failed notification's retries (MEEPLE_NOTIFY_RETRY_INTERVALS, comma-separated;
# tests use zeros). RQ retries as many times as there are intervals.
DEFAULT_RETRY_INTERVALS = (10, 30, 60, 300, 900)


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
    for seat in table.actors():
        placed = table.seat_of(seat)
        if placed is not None and not placed.bot:
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
            placed = table.seat_of(seat)
            if placed is not None and placed.bot:
                job_id = f"ai-{table.id}-{table.version}-{seat}"
                self._enqueue(self.ai, BOT_TURN, job_id, table.id, table.version, seat)

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
        queue.enqueue(func, *args, job_id=job_id, result_ttl=60, failure_ttl=86400,
                      retry=retry)
