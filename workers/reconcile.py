"""The reconciler (events.application.reconciler) on RQ: each pass is a job on the `scoring`
queue that schedules the next one `INTERVAL_SECONDS` later (workers.periodic)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import redis
import structlog

from events.application.reconciler import INTERVAL_SECONDS, Reconciler
from workers.jobs import _app
from workers.periodic import schedule_run

RECONCILE = "workers.reconcile.reconcile"

log = structlog.get_logger()


def reconcile() -> dict[str, Any]:
    """One pass: queue again what any game's last commit lacks."""
    app = _app()
    try:
        done = Reconciler(app, app.dispatcher).run_once()
    finally:
        schedule_pass(app.redis, INTERVAL_SECONDS)
    if done.requeued or done.lobby_mended or done.unreadable:
        log.info("reconciled", **asdict(done))
    return asdict(done)


def schedule_pass(client: redis.Redis, delay: float) -> str:
    """Make sure a pass is scheduled about `delay` seconds from now; its job id."""
    return schedule_run(client, RECONCILE, "reconcile", INTERVAL_SECONDS, delay)
