"""`meeple worker`: one RQ worker, optionally with RQ's scheduler (deadlines, digests)."""

from __future__ import annotations

import os
import time

import click
import redis
import structlog
from rq import SimpleWorker, Worker

from cli.deadlines import prepare_scheduler

DEFAULT_QUEUES = ("ai", "scoring", "notify")
BACKOFF_START_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 30.0

log = structlog.get_logger("meeple")


@click.command()
@click.option("--with-scheduler", is_flag=True, help="Also run RQ's scheduler (delayed jobs).")
@click.option("--burst", is_flag=True, help="Exit once the queues are empty.")
@click.option("--fork", is_flag=True, help="Run each job in a forked child (RQ's default).")
@click.argument("queues", nargs=-1)
def worker(with_scheduler: bool, burst: bool, fork: bool, queues: tuple[str, ...]) -> None:
    """Run one RQ worker on MEEPLE_REDIS_URL (default queues: ai scoring notify)."""
    url = os.environ.get("MEEPLE_REDIS_URL")
    if not url:
        raise click.UsageError(
            "MEEPLE_REDIS_URL is not set; point it at the Redis that RQ uses, "
            "e.g. redis://127.0.0.1:6379/0 (or use `meeple run`, which starts one)"
        )
    names = list(queues or DEFAULT_QUEUES)
    connection = redis.Redis.from_url(url)
    log.info("worker starting", queues=names, scheduler=with_scheduler, burst=burst, fork=fork)
    # Our jobs are short and our own code, so by default they run in the worker process:
    # forking for each one costs more than a bot move (~50 ms against ~2 ms). --fork
    # isolates each job in a child, as RQ does by default.
    worker_class = Worker if fork else SimpleWorker
    backoff = BACKOFF_START_SECONDS
    while True:
        try:
            if with_scheduler:
                # Deadlines and the reconciler: take over a dead scheduler's lock at once,
                # re-schedule any lost job, start the passes.
                prepare_scheduler(connection, names)
            # rq installs its own SIGINT/SIGTERM handlers: the first signal is a warm
            # shutdown (the running job finishes), a second one a cold shutdown.
            worker_class(names, connection=connection).work(
                with_scheduler=with_scheduler, burst=burst, logging_level="INFO"
            )
            break
        except redis.ConnectionError as err:
            if burst:
                raise
            # Redis restarting (or the network): wait and start again, rather than exit.
            log.warning("redis unreachable; the worker starts again", error=repr(err),
                        retry_in_seconds=backoff)
            time.sleep(backoff)
            backoff = min(BACKOFF_MAX_SECONDS, backoff * 2)
    log.info("worker stopped")
