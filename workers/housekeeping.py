"""Hourly housekeeping on RQ's scheduler (workers.periodic): open tables that never
started expire (events.application.expiry)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import redis
import structlog

from events.application.expiry import expire_open_tables
from workers.jobs import _app
from workers.periodic import schedule_run

HOUSEKEEPING = "workers.housekeeping.housekeeping"
INTERVAL_SECONDS = 3600

log = structlog.get_logger()


def housekeeping() -> dict[str, Any]:
    app = _app()
    try:
        done = expire_open_tables(app, datetime.now(UTC))
    finally:
        schedule_housekeeping(app.redis, INTERVAL_SECONDS)
    if done.expired or done.forgotten:
        log.info("housekeeping", **asdict(done))
    return asdict(done)


def schedule_housekeeping(client: redis.Redis, delay: float) -> str:
    return schedule_run(client, HOUSEKEEPING, "housekeeping", INTERVAL_SECONDS, delay)
