"""Follow-up work after a commit, queued on RQ by job path so `events` never imports `workers`.

`follow_ups` says, from the tables alone, which jobs a commit calls for: a notice to each
person who must now act, a bot's turn, scoring, a turn's reminder and expiry. Job ids are
derived from the game, its version and the seat (or player), so queueing the same follow-up
twice is harmless, and every job re-checks the game when it runs, so a stale one does
nothing. Because the list is derived from the streams, a follow-up lost to a crash can be
derived again and queued again (`RQDispatcher.reconcile`, events.application.reconciler).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import redis
from rq import Queue, Retry
from rq.job import Job, JobStatus

from events.accounts.profiles import Profiles
from events.application.rq_processes import WORKER_KEY, is_gone
from events.domain.deadlines import TurnClock, due, reminder_time
from events.domain.envelope import Envelope
from events.domain.table import Status, Table
from events.store.clients import EventsClient
from events.store.event_store import EventStore

BOT_TURN = "workers.jobs.play_bot_turn"
SCORE_GAME = "workers.jobs.score_game"
NOTIFY_PLAYER = "workers.notify.notify_player"
REMIND = "workers.deadlines.remind"
EXPIRE = "workers.deadlines.expire"
SEND_EMAIL_CODE = "workers.notify.send_email_code"
# Webhook attempts have a queue (and worker) of their own: a slow receiver, bounded as each
# attempt is, would otherwise hold the deadlines and emails of `notify` behind it.
WEBHOOKS_QUEUE = "webhooks"
# What a notice job answers when it handed its delivery to the queue of the player's channel
# (workers.notify.handed_over), as job `handed-{delivery}`.
HANDED_OVER = "handed to its channel's queue"
# Seconds between a failed notification's retries (MEEPLE_NOTIFY_RETRY_INTERVALS, comma-separated;
# tests use zeros). RQ retries as many times as there are intervals.
DEFAULT_RETRY_INTERVALS = (10, 30, 60, 300, 900)
# RQ's time limit of a job that sends a notice (an email, a webhook: one attempt of at most
# a lookup of 3 s and 5 s on the wire, workers.notify), instead of RQ's 180 s: the `notify`
# worker also runs the turns' deadlines, and a job cut short is retried like any failure.
NOTICE_JOB_TIMEOUT = 60
NOTICE_FUNCS = (NOTIFY_PLAYER, REMIND, SEND_EMAIL_CODE)


# A started job whose worker has not beaten its heart for this long is taken as dead.
STALE_JOB_SECONDS = 120
# A follow-up is queued again at most this many times a day by the reconciler: a job that
# fails for a reason of its own (a bug) is left in RQ's failed registry for a person.
MAX_REQUEUES = 5


class Dispatcher(Protocol):
    def after_commit(self, table: Table, before: Table | None = None,
                     by: str | None = None) -> None: ...

    def after_message(self, table: Table, envelope: Envelope) -> None: ...

    def reconcile(self, table: Table, before: Table | None, head: Envelope) -> Settled: ...

    def send_email_code(self, player_id: str, address: str, code: str) -> None: ...


@dataclass(frozen=True)
class Settled:
    """What the reconciler found for one commit: whether every follow-up is done for good
    (nothing can be lost any more), and how many it queued again."""

    done: bool
    requeued: int = 0


class NoDispatch:
    """For in-process runs (simulations, tests of the core): nothing is queued."""

    def after_commit(self, table: Table, before: Table | None = None,
                     by: str | None = None) -> None:
        return None

    def after_message(self, table: Table, envelope: Envelope) -> None:
        return None

    def reconcile(self, table: Table, before: Table | None, head: Envelope) -> Settled:
        return Settled(True)

    def send_email_code(self, player_id: str, address: str, code: str) -> None:
        return None


@dataclass(frozen=True)
class FollowUp:
    """One job that a commit calls for."""

    queue: str  # "ai", "scoring" or "notify"
    func: str  # the job's import path (events never imports workers)
    job_id: str
    args: tuple[Any, ...]
    at: datetime | None = None  # a deadline's time (RQ's scheduler), else at once
    delivery: str | None = None  # a notice: done for good once this delivery is marked sent
    player_id: str | None = None  # a notice's recipient


@dataclass(frozen=True)
class Notice:
    """One person to tell of a commit; `seat` only for a player at several seats."""

    player_id: str
    event: str
    seat: int | None = None


def notice_id(game_id: str, version: int, player_id: str, seat: int | None = None) -> str:
    """The job and delivery id of a notice. A player at one seat is told once per version
    (the id names no seat, as it always did); a player at several seats ("hot seat") once per
    seat, each seat being a turn of its own."""
    suffix = f"-seat{seat}" if seat is not None else ""
    return f"notify-{game_id}-{version}-{player_id}{suffix}"


def notice_seat(table: Table, player_id: str, seat: int) -> int | None:
    """The seat a notice to `player_id` names: None unless they hold several seats."""
    seats = {s.seat for s in table.seats if s.player_id == player_id and not s.bot}
    return seat if len(seats) > 1 else None


def notice_job(table: Table, version: int, notice: Notice) -> FollowUp:
    job_id = notice_id(table.id, version, notice.player_id, notice.seat)
    # The seat is an argument only where it is named, so a one-seat notice is the same job
    # as before seats were named (a reconciler re-deriving it finds it done).
    seat = () if notice.seat is None else (notice.seat,)
    return FollowUp("notify", NOTIFY_PLAYER, job_id,
                    (table.id, version, notice.player_id, notice.event, *seat),
                    delivery=job_id, player_id=notice.player_id)


def follow_ups(table: Table, before: Table | None, by: str | None) -> list[FollowUp]:
    """Every job the commit that turned `before` into `table` (by `by`) calls for."""
    found = [notice_job(table, table.version, notice)
             for notice in to_notify(table, before, by)]
    if table.status is Status.ENDED:
        if table.ratings is None:
            found.append(FollowUp("scoring", SCORE_GAME, f"score-{table.id}", (table.id,)))
        return found
    for seat in table.actors():
        if table.bot_played(seat):
            found.append(FollowUp("ai", BOT_TURN, f"ai-{table.id}-{table.version}-{seat}",
                                  (table.id, table.version, seat)))
    since = before.version if before is not None else 0
    if table.deadline is not None and table.status is Status.ACTIVE:
        found += [job for clock in table.clocks if clock.version > since
                  for job in deadline_jobs(table, clock)]
    return found


def message_follow_ups(table: Table, envelope: Envelope) -> list[FollowUp]:
    """Table talk at `envelope`: a notice to every other person at the table, and the turn of
    each bot that must act, at this new version (a bot's job queued at the version before
    would find the game moved on, and do nothing)."""
    version = envelope["v"]
    found = [FollowUp("notify", NOTIFY_PLAYER, f"notify-{table.id}-{version}-{player}",
                      (table.id, version, player, "message"),
                      delivery=f"notify-{table.id}-{version}-{player}", player_id=player)
             for player in message_recipients(table, envelope["by"])]
    found += [FollowUp("ai", BOT_TURN, f"ai-{table.id}-{version}-{seat}",
                       (table.id, version, seat))
              for seat in table.actors() if table.bot_played(seat)]
    return found


def deadline_jobs(table: Table, clock: TurnClock) -> list[FollowUp]:
    """A turn's reminder and its expiry, on the `notify` queue at their times."""
    assert table.deadline is not None
    turn = f"{table.id}-{clock.seat}-{clock.version}"
    args = (table.id, clock.seat, clock.version)
    placed = table.seat_of(clock.seat)
    player = placed.player_id if placed is not None else None
    # A player at several seats gets a reminder per seat (as a notice per seat).
    seat = notice_seat(table, player, clock.seat) if player is not None else None
    reminder = notice_id(table.id, clock.version, str(player), seat) + "-reminder"
    # RQ keeps whole seconds (rounded down): one more, so the expiry never runs early.
    return [
        FollowUp("notify", REMIND, f"remind-{turn}", args,
                 at=reminder_time(clock, table.deadline), delivery=reminder, player_id=player),
        FollowUp("notify", EXPIRE, f"expire-{turn}", args,
                 at=due(clock, table.deadline) + timedelta(seconds=1)),
    ]


def retry_intervals() -> list[int]:
    raw = os.environ.get("MEEPLE_NOTIFY_RETRY_INTERVALS", "")
    if not raw.strip():
        return list(DEFAULT_RETRY_INTERVALS)
    return [int(part) for part in raw.split(",") if part.strip()]


def notice_retry() -> Retry | None:
    """RQ's retries of a notice that failed, with backoff (`retry_intervals`)."""
    intervals = retry_intervals()
    return Retry(max=len(intervals), interval=intervals) if intervals else None


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


def to_notify(table: Table, before: Table | None, by: str | None) -> list[Notice]:
    """Each person to tell about this commit: every person seated when the game ended
    ("game_ended"; the player whose action ended it too: the score sheet is news to them,
    and a webhook client learns the end no other way), or the seats of people that
    became actors ("your_turn"; never bots). Seats, not players: the seat that made a move
    was an actor already, so its player is not told of their own move, but a player at
    several seats is told when their move makes another of their seats act. A commit that
    started the game is no one's move: where every seat acts from the start (Asking for
    Trobils, Trappist One's secret choice), the player who took the last seat is asked too
    (by post, they would otherwise never be able to make that move)."""
    if table.status is Status.ENDED:
        if before is not None and before.status is Status.ENDED:
            return []  # e.g. GameScored: the end was announced already
        people = sorted({s.player_id for s in table.seats if not s.bot})
        return [Notice(player_id, "game_ended") for player_id in people]
    before_seats = set(before.human_actors()) if before is not None else set()
    notices = [Notice(placed.player_id, "your_turn", notice_seat(table, placed.player_id, seat))
               for seat in sorted(set(table.human_actors()) - before_seats)
               if (placed := table.seat_of(seat)) is not None]
    return sorted(notices, key=lambda notice: (notice.player_id, notice.seat or 0))


def message_recipients(table: Table, by: str) -> list[str]:
    """Everyone seated at `table` but the author of a message, never bots."""
    return sorted({s.player_id for s in table.seats if not s.bot} - {by})


class RQDispatcher:
    def __init__(self, client: redis.Redis, prefix: str = "meeple",
                 events: EventsClient | None = None) -> None:
        """`client`: the control store (RQ, profiles); `events`: the event store, if another."""
        self._redis = client
        self._prefix = prefix
        self.queues = {name: Queue(name, connection=client)
                       for name in ("ai", "scoring", "notify", WEBHOOKS_QUEUE)}
        self.notify = self.queues["notify"]
        self.profiles = Profiles(client, prefix)
        self.store = EventStore(events if events is not None else client, prefix)
        self._retry = notice_retry()

    def after_commit(self, table: Table, before: Table | None = None,
                     by: str | None = None) -> None:
        """`before`: the table the commit started from (None for a new game); `by`: the
        player whose action it was (None for the system)."""
        for follow_up in follow_ups(table, before, by):
            if (queue := self._route(follow_up)) is not None:
                self._submit(follow_up, queue)

    def schedule_deadlines(self, table: Table, since: int = 0) -> int:
        """The reminder and the expiry of each turn clock started after version `since` (0:
        every clock, as `meeple deadlines resync` does), on the `notify` queue through RQ's
        scheduler. Job ids name the turn, so scheduling one twice is harmless, and the jobs
        re-check the game when they run. Returns the number of clocks looked at."""
        if table.deadline is None or table.status is not Status.ACTIVE:
            return 0
        started = [clock for clock in table.clocks if clock.version > since]
        for clock in started:
            for job in deadline_jobs(table, clock):
                self._submit(job)
        return len(started)

    def after_message(self, table: Table, envelope: Envelope) -> None:
        """Table talk was posted: tell every other person at the table."""
        for follow_up in message_follow_ups(table, envelope):
            if (queue := self._route(follow_up)) is not None:
                self._submit(follow_up, queue)

    def reconcile(self, table: Table, before: Table | None, head: Envelope) -> Settled:
        """Queue again every follow-up of the commit `head` (which made `table` from `before`)
        that is neither done nor on its way: never queued (the process died after the
        append), or queued and lost (a job record in no queue, a job held by a dead worker,
        a failed job)."""
        done, requeued = True, 0
        jobs = (message_follow_ups(table, head) if head["type"] == "MessagePosted"
                else follow_ups(table, before, head["by"]))
        for follow_up in jobs:
            queue = self._route(follow_up)
            if queue is None or self._sent(follow_up):
                continue
            job = Job.fetch_many([follow_up.job_id], connection=self._redis)[0]
            status = self.job_status(job)
            if status == "finished" and follow_up.queue == "notify":
                status = self._handed_over_status(job, follow_up)
            if status == "scheduled" or (status == "finished" and follow_up.queue == "notify"):
                # A notice that ran to its end said what it had to; a scheduled deadline is
                # kept by RQ's scheduler (and resynced at every worker start). A bot's turn
                # or the scoring is done only when the table shows it.
                continue
            done = False
            if status == "live":
                continue
            if self._requeues(follow_up.job_id) >= MAX_REQUEUES:
                continue  # left to a person: RQ's failed registry shows why
            for lost in (job, self._handed_job(follow_up)):
                if lost is not None:
                    lost.delete()
            self._submit(follow_up, queue)
            requeued += 1
        return Settled(done, requeued)

    def send_email_code(self, player_id: str, address: str, code: str) -> None:
        """Mail the code that confirms `address` (the one message sent to an address that is
        not confirmed). The job's id names neither; its arguments are not logged."""
        job_id = "email-code-" + secrets.token_hex(12)  # random: a hash would give the code away
        self._submit(FollowUp("notify", SEND_EMAIL_CODE, job_id,
                              (player_id, address, code, job_id)))

    # -- queueing ------------------------------------------------------------------------------

    def _route(self, follow_up: FollowUp) -> str | None:
        """The queue a follow-up goes on, or None when it is not wanted: a notice to a
        player who takes none, or the scoring of an imported game (a forged record must
        not move a leaderboard). A notice to a player whose channel is a webhook goes to
        the `webhooks` queue (one that finds the channel changed when it runs is handed
        over then: `workers.notify.handed_over`). One read of the profile a notice."""
        if follow_up.func == SCORE_GAME:
            return follow_up.queue if self.store.origin(follow_up.args[0]) is None else None
        if follow_up.player_id is None or follow_up.func != NOTIFY_PLAYER:
            return follow_up.queue
        setting = self.profiles.notify_setting(follow_up.player_id)
        if setting == "none":
            return None
        return WEBHOOKS_QUEUE if setting == "webhook" else follow_up.queue

    def _sent(self, follow_up: FollowUp) -> bool:
        return follow_up.delivery is not None and self.profiles.already_sent(follow_up.delivery)

    def _submit(self, follow_up: FollowUp, queue_name: str | None = None) -> None:
        """Queue `follow_up` on `queue_name` (default: its own queue)."""
        if Job.exists(follow_up.job_id, connection=self._redis):
            return  # already queued or done: the job is idempotent anyway
        queue = self.queues[queue_name or follow_up.queue]
        # Retries with backoff for what reaches people; a bot's or the scorer's job is
        # queued again by the reconciler if it is lost.
        retry = self._retry if follow_up.queue == "notify" else None
        # The description is what RQ logs: the job's name and id, never its arguments.
        options: dict[str, Any] = {"job_id": follow_up.job_id, "failure_ttl": 86400,
                                   "retry": retry,
                                   "description": f"{follow_up.func} {follow_up.job_id}"}
        if follow_up.func in NOTICE_FUNCS:
            options["job_timeout"] = NOTICE_JOB_TIMEOUT
        if follow_up.at is not None:
            # A time already past is fine: the scheduler enqueues it on its next pass.
            queue.enqueue_at(follow_up.at, follow_up.func, *follow_up.args, result_ttl=3600,
                             **options)
        else:
            # Finished job records are kept briefly (they outweigh the game itself in Redis);
            # failed ones for a day, to be looked at.
            queue.enqueue(follow_up.func, *follow_up.args, result_ttl=60, **options)

    def _handed_job(self, follow_up: FollowUp) -> Job | None:
        if follow_up.delivery is None:
            return None
        return Job.fetch_many([f"handed-{follow_up.delivery}"], connection=self._redis)[0]

    def _handed_over_status(self, job: Job | None, follow_up: FollowUp) -> str:
        """A finished notice job that handed its delivery over is only as done as the job it
        handed it to: "finished", "live" (on its way) or "lost"."""
        handed = self._handed_job(follow_up)
        if handed is None and (job is None or job.return_value() != HANDED_OVER):
            return "finished"  # it did its work itself
        return self.job_status(handed)

    def job_status(self, job: Job | None) -> str:
        """"scheduled", "live" (queued in its queue, or running on a live worker), "finished",
        or "lost" (no record, in no queue, failed, or held by a worker that died)."""
        if job is None:
            return "lost"
        status = job.get_status(refresh=False)
        if status in (JobStatus.SCHEDULED, JobStatus.DEFERRED):
            return "scheduled"
        if status == JobStatus.QUEUED:
            queue = self.queues.get(job.origin)
            listed = queue is not None and self._redis.lpos(queue.key, job.id) is not None
            return "live" if listed else "lost"
        if status == JobStatus.STARTED:
            worker = job.worker_name
            if worker and is_gone(self._redis, WORKER_KEY.format(worker), STALE_JOB_SECONDS):
                return "lost"  # its worker was killed: the job will never end
            beat = job.last_heartbeat or job.started_at
            if beat is not None:
                age = datetime.now(UTC) - beat.replace(tzinfo=UTC)
                if age.total_seconds() < STALE_JOB_SECONDS:
                    return "live"
            return "lost"
        return "finished" if status == JobStatus.FINISHED else "lost"

    def _requeues(self, job_id: str) -> int:
        """How often this job was queued again today (counted now)."""
        key = f"{self._prefix}:reconcile:requeued:{job_id}"
        pipe = self._redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, 86400)
        count, _ = pipe.execute()
        return int(count) - 1
