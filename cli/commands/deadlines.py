"""`meeple deadlines resync`, and what a worker with the scheduler does when it starts.

Deadlines are RQ jobs scheduled in Redis (rq:scheduled:notify), so they outlive every
process. Two things can still delay or lose one, and both are mended here:

- A scheduler killed hard (SIGKILL, a crashed host) keeps RQ's scheduler lock until its TTL
  (interval + 60 s) runs out, and a new worker retries the lock only at its maintenance
  interval (10 min by default). `reclaim_scheduler_locks` frees a lock whose owner is gone:
  a process of this host that no longer exists, or a scheduler whose heartbeat (every
  second) stopped. A graceful stop (SIGTERM) releases the lock by itself.
- A scheduled job lost with Redis data (e.g. restored from an older AOF): `resync` schedules
  again the reminder and expiry of every turn on the clock; job ids name the turn, so the
  jobs that exist are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import click
import redis
import structlog
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, RQScheduler
from rq.scripts import release_lock

from cli.connections import connections
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.application.rq_processes import is_gone
from events.exceptions import MeepleError
from events.store.clients import Connections
from workers.housekeeping import schedule_housekeeping
from workers.reconcile import schedule_pass

log = structlog.get_logger("meeple")

# A live scheduler heartbeats every second; this much silence means its process is gone.
STALE_HEARTBEAT_SECONDS = 15


def resync(stores: Connections) -> tuple[int, int]:
    """(games, turns) looked at: every active game with a deadline, every clock of it."""
    app = Meeple.connect(stores)
    dispatcher = cast(RQDispatcher, app.dispatcher)
    games = turns = 0
    for table in app.tables_on_the_clock():
        games += 1
        turns += dispatcher.schedule_deadlines(table)
    return games, turns


def reclaim_scheduler_locks(client: redis.Redis, queues: Iterable[str]) -> list[str]:
    """Free the scheduler locks of `queues` held by a scheduler that is gone; their names."""
    freed = []
    for queue in queues:
        key = RQScheduler.get_locking_key(queue)
        owner = client.get(key)
        if owner is None:
            continue
        name = owner.decode() if isinstance(owner, bytes) else str(owner)
        gone = is_gone(client, SCHEDULER_KEY_TEMPLATE % name, STALE_HEARTBEAT_SECONDS)
        if gone and release_lock(client, key, name):
            log.warning("freed the scheduler lock of a stopped scheduler", queue=queue,
                        scheduler=name)
            freed.append(queue)
    return freed


# The queues whose scheduler runs the deadlines, the digests and the periodic passes.
SCHEDULED_WORK = {"notify", "scoring"}


def prepare_scheduler(stores: Connections, queues: Iterable[str]) -> None:
    """Before a worker starts its scheduler: free stale locks, re-schedule every deadline,
    start the reconciler's passes and the hourly housekeeping.
    A failure here is logged, not fatal: the worker and RQ's own scheduler still run."""
    client, queues = stores.control, list(queues)
    try:
        reclaim_scheduler_locks(client, queues)
        if not SCHEDULED_WORK & set(queues):
            return  # `webhooks`: its scheduler only brings back the retries
        games, turns = resync(stores)
        # And the reconciler's passes, which find whatever a crash left undone (at once).
        schedule_pass(client, 0)
        schedule_housekeeping(client, 60)  # expiring open tables (after the start's rush)
    except (redis.RedisError, MeepleError) as err:
        log.warning("deadlines not resynced", error=repr(err))
        return
    log.info("deadlines resynced", games=games, turns=turns)


@click.group()
def deadlines() -> None:
    """Time limits per move: reminders and expiries on RQ's scheduler."""


@deadlines.command("resync")
def resync_command() -> None:
    """Schedule again every running turn's reminder and expiry (idempotent)."""
    games, turns = resync(connections())
    click.echo(f"{games} games on the clock, {turns} turns scheduled (existing jobs kept)")
