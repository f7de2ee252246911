"""`meeple worker`: one RQ worker, optionally with RQ's scheduler (deadlines, digests)."""

from __future__ import annotations

import time

import click
import redis
import structlog
from rq import SimpleWorker, Worker
from rq.worker.base import BaseWorker

from cli.commands.deadlines import prepare_scheduler
from cli.connections import connections
from workers.jobs import thinking_limit

DEFAULT_QUEUES = ("ai", "scoring", "notify", "webhooks")
BACKOFF_START_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 30.0
# How often a worker with the scheduler looks that its scheduler still runs. RQ's scheduler
# is a process of its own that a Redis restart kills; RQ starts it again only at the
# worker's maintenance (every 10 minutes, and only between two waits for jobs), and until
# then no deadline fires and no periodic pass runs.
SCHEDULER_CHECK_SECONDS = 10

log = structlog.get_logger("meeple")


def check_settings() -> None:
    """Refuse to start on a setting the jobs would fail on, saying which and why."""
    try:
        thinking_limit()
    except ValueError as err:
        raise click.UsageError(str(err)) from None


def keeping_its_scheduler(worker_class: type[BaseWorker]) -> type[BaseWorker]:
    """`worker_class`, whose maintenance (every SCHEDULER_CHECK_SECONDS) starts a scheduler
    that died again at once: stale locks freed, deadlines re-scheduled, passes begun."""

    class KeepsItsScheduler(worker_class):  # type: ignore[valid-type,misc]
        def run_maintenance_tasks(self) -> None:
            scheduler = self.scheduler
            process = getattr(scheduler, "_process", None)
            if scheduler is not None and self.last_cleaned_at and not (
                    process and process.is_alive()):
                log.warning("the scheduler stopped; starting it again")
                prepare_scheduler(connections(check=False), self.queue_names())
            super().run_maintenance_tasks()

    return KeepsItsScheduler


@click.command()
@click.option("--with-scheduler", is_flag=True, help="Also run RQ's scheduler (delayed jobs).")
@click.option("--burst", is_flag=True, help="Exit once the queues are empty.")
@click.option("--fork", is_flag=True, help="Run each job in a forked child (RQ's default).")
@click.argument("queues", nargs=-1)
def worker(with_scheduler: bool, burst: bool, fork: bool, queues: tuple[str, ...]) -> None:
    """Run one RQ worker on the control store (MEEPLE_CONTROL_URL, else MEEPLE_REDIS_URL;
    default queues: ai scoring notify webhooks)."""
    # A burst refuses a Redis that does not answer; a long-running worker waits for it.
    stores = connections(check=burst)
    check_settings()
    names = list(queues or DEFAULT_QUEUES)
    connection = stores.control
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
                prepare_scheduler(stores, names)
            # rq installs its own SIGINT/SIGTERM handlers: the first signal is a warm
            # shutdown (the running job finishes), a second one a cold shutdown.
            if with_scheduler:
                # The wait for a job ends every SCHEDULER_CHECK_SECONDS (worker_ttl - 15),
                # so the maintenance that checks the scheduler runs as often, idle or not.
                keeping_its_scheduler(worker_class)(
                    names, connection=connection, worker_ttl=SCHEDULER_CHECK_SECONDS + 15,
                    maintenance_interval=SCHEDULER_CHECK_SECONDS,
                ).work(with_scheduler=True, burst=burst, logging_level="INFO")
            else:
                worker_class(names, connection=connection).work(
                    burst=burst, logging_level="INFO")
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
