"""Jobs that run every so often on RQ's scheduler: each run, whatever happens to it,
schedules the next. Job ids name the time slot, so the chains that several worker starts
begin merge into one."""

from __future__ import annotations

import time
from datetime import timedelta

import redis
from rq import Queue
from rq.job import Job, JobStatus

# A run in one of these states is still to come or under way: the chain goes on from it.
WAITING = (JobStatus.SCHEDULED, JobStatus.QUEUED, JobStatus.STARTED, JobStatus.DEFERRED)


def schedule_run(client: redis.Redis, func: str, name: str, interval: float,
                 delay: float) -> str:
    """Make sure `func` is scheduled on the `scoring` queue about `delay` seconds from now,
    in a slot of `interval` seconds named `name`; its job id."""
    slot = int((time.time() + delay) // interval)
    job_id = f"{name}-{slot}"
    existing = Job.fetch_many([job_id], connection=client)[0]
    if existing is not None and existing.get_status(refresh=False) not in WAITING:
        # This slot's run is over (its result kept a minute): if it died before it scheduled
        # the next (a Redis restart, a killed worker), the chain ended there. Run it again.
        existing.delete()
        existing = None
    if existing is None:
        Queue("scoring", connection=client).enqueue_in(
            timedelta(seconds=delay), func, job_id=job_id, result_ttl=60,
            failure_ttl=3600, description=f"{func} {job_id}")
    return job_id
