"""Tables that never start do not wait for ever: after `MEEPLE_OPEN_TABLE_DAYS` (30) days
without a new player, an open table is discarded.

An open table holds no move (the game starts when its last seat is taken), so nothing is
lost for an auditor: its stream, seed and snapshot are deleted (`EventStore.discard`, only if
nobody joined since it was read), it leaves the lobby and its players' lists and quotas,
and for 30 days a reader is told why it is gone. Passes run hourly on RQ's scheduler
(workers.housekeeping), each looking at a bounded number of the oldest open tables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta

import structlog

from events.application.meeple import Meeple
from events.domain.deadlines import parse_time
from events.domain.table import Status
from events.exceptions import GameNotFound

OPEN_TABLE_DAYS = 30
TABLES_PER_PASS = 200

log = structlog.get_logger()


def open_table_days() -> float:
    return float(os.environ.get("MEEPLE_OPEN_TABLE_DAYS") or OPEN_TABLE_DAYS)


@dataclass
class Expired:
    """What one pass did."""

    looked_at: int = 0
    expired: int = 0
    forgotten: int = 0  # lobby entries of games that were gone already


def expire_open_tables(app: Meeple, now: datetime, max_age: timedelta | None = None,
                       limit: int = TABLES_PER_PASS) -> Expired:
    """Discard the open tables unchanged for `max_age` (default MEEPLE_OPEN_TABLE_DAYS)."""
    age = max_age if max_age is not None else timedelta(days=open_table_days())
    cutoff = now - age
    done = Expired()
    # Created before the cutoff is necessary (a last change is never before creation), not
    # enough: the last change is checked on the table itself.
    for game_id in app.lobby.open_since_before(cutoff.timestamp(), limit):
        done.looked_at += 1
        try:
            table = app.load(game_id)
        except GameNotFound:
            app.lobby.forget(game_id)  # gone already (a lobby write that came late)
            done.forgotten += 1
            continue
        if table.status is not Status.OPEN or parse_time(table.updated_at) > cutoff:
            continue
        note = (f"table {game_id} expired on {now.date().isoformat()}: nobody joined it for "
                f"{age.days} days and it never started")
        if app.store.discard(game_id, table.version, note):
            app.lobby.forget(game_id)
            app.redis.hdel(f"{app.prefix}:reconciled", game_id)
            done.expired += 1
            log.info("open table expired", game_id=game_id, version=table.version)
    return done
