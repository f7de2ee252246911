"""Hourly housekeeping on RQ's scheduler (workers.periodic): open tables that never
started expire (events.application.expiry), and a slice of the finished games leaves Redis
for the archive (events.records.archiving; MEEPLE_ARCHIVE_AFTER_DAYS, `off` for never).

Archiving a game whose record nobody fetched yet signs it first: a worker needs the same
signing keys as the API (MEEPLE_KEYS_DIR). A worker without them archives only the games
whose record is signed already; it never makes a key of its own."""

from __future__ import annotations

import os
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis
import structlog

from events.application.expiry import expire_open_tables
from events.application.meeple import Meeple
from events.records.archiving import archive_a_slice, archive_after
from events.records.key_registry import RedisKeyRegistry
from events.records.keys import Keyring
from workers.jobs import _app
from workers.periodic import schedule_run

HOUSEKEEPING = "workers.housekeeping.housekeeping"
INTERVAL_SECONDS = 3600

log = structlog.get_logger()


def housekeeping() -> dict[str, Any]:
    app = _app()
    try:
        now = datetime.now(UTC)
        done = expire_open_tables(app, now)
        archived = archive_some(app, now)
    finally:
        schedule_housekeeping(app.redis, INTERVAL_SECONDS)
    if done.expired or done.forgotten:
        log.info("housekeeping", **asdict(done))
    return {**asdict(done), "archived": archived}


def archive_some(app: Meeple, now: datetime) -> int:
    """One slice of the archiving scan; how many games left Redis."""
    older_than = archive_after()
    if older_than is None or app.store.archive is None:
        return 0
    done = archive_a_slice(app, signing_keys(app.redis), now, older_than)
    if done.moved or done.failed:
        log.info("archived", games=len(done.moved), redis_bytes=done.redis_bytes,
                 archive_bytes=done.document_bytes, failed=done.failed[:10])
    return len(done.moved)


def signing_keys(client: redis.Redis) -> Keyring | None:
    """The API's signing keys, if this process has them and they are the service's (never
    a new key of its own, nor one GET /v1/keys would not list: the control store names the
    service's first key)."""
    keyring = Keyring(Path(os.environ.get("MEEPLE_KEYS_DIR") or "var/keys"),
                      RedisKeyRegistry(client))
    return keyring if keyring.has_current() and keyring.foreign() is None else None


def schedule_housekeeping(client: redis.Redis, delay: float) -> str:
    return schedule_run(client, HOUSEKEEPING, "housekeeping", INTERVAL_SECONDS, delay)
