"""The reconciler (events.application.reconciler) on RQ: each pass is a job on the `scoring`
queue that, whatever happens to it, schedules the next one `INTERVAL_SECONDS` later. Job ids
name the time slot, so the chains that several worker starts begin merge into one."""

from __future__ import annotations

import time
from dataclasses import asdict
from datetime import timedelta
from typing import Any

import redis
import structlog
from rq import Queue
from rq.job import Job

from events.application.reconciler import INTERVAL_SECONDS, Reconciler
from workers.jobs import _app

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
    slot = int((time.time() + delay) // INTERVAL_SECONDS)
    job_id = f"reconcile-{slot}"
    if not Job.exists(job_id, connection=client):
        Queue("scoring", connection=client).enqueue_in(
            timedelta(seconds=delay), RECONCILE, job_id=job_id, result_ttl=60,
            failure_ttl=3600, description=f"{RECONCILE} {job_id}")
    return job_id
