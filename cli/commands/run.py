"""`meeple run`: the whole service on one machine: the API under gunicorn, an RQ worker for
bot turns, one for notifications, scoring and the scheduler, the SMTP listener for email
replies and, unless MEEPLE_REDIS_URL names one, a private Redis (plus a memory-only one for
rate-limit counters). With --cluster, the event store is a private Redis Cluster of 3 masters
and 3 replicas (cli.local_cluster), for trying the service on a cluster."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import structlog

from cli.commands.worker import check_settings
from cli.embedded_redis import EmbeddedRedis, free_port
from cli.local_cluster import LocalCluster
from cli.supervisor import Supervisor
from events.store.clients import masked

PORT = click.IntRange(1, 65535)  # refused here, not by gunicorn's restarts forever

REPO_ROOT = Path(__file__).resolve().parents[2]
GUNICORN_CONF = REPO_ROOT / "deploy" / "gunicorn.conf.py"

log = structlog.get_logger("meeple")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=PORT)
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Gunicorn worker processes (default: see deploy/gunicorn.conf.py).")
@click.option("--smtpd-port", default=2525, show_default=True, type=PORT,
              envvar="MEEPLE_SMTPD_PORT",
              help="Where `meeple smtpd` receives replies to turn emails (on --host).")
@click.option("--bot-workers", type=click.IntRange(min=1, max=64), default=1,
              show_default=True, envvar="MEEPLE_BOT_WORKERS",
              help="RQ workers for bot turns (the ai queue): each plays one bot move at a "
                   "time, searching for up to its level's budget.")
@click.option("--cluster", is_flag=True,
              help="Keep the games on a private Redis Cluster (3 masters, 3 replicas, data in "
                   "var/cluster) rather than the private Redis; the rest stays there.")
def run(host: str, port: int, workers: int | None, smtpd_port: int, bot_workers: int,
        cluster: bool) -> None:
    """Run the API, RQ workers for bots, one for notifications, deadlines and scoring
    (with the scheduler), the SMTP listener for replies to turn emails, and (if needed) a
    private Redis."""
    check_settings()
    if cluster and os.environ.get("MEEPLE_EVENTS_URL"):
        raise click.UsageError("--cluster starts its own event store: unset MEEPLE_EVENTS_URL")
    local_cluster: LocalCluster | None = None
    # Signal handlers first: a Ctrl-C from here on is an orderly stop.
    supervisor = Supervisor()
    embedded: list[EmbeddedRedis] = []  # started in this order, stopped in reverse
    code = 1
    try:
        redis_url, counters_url = redis_servers(supervisor, embedded)
        env = {**os.environ, "MEEPLE_REDIS_URL": redis_url, "MEEPLE_BIND": f"{host}:{port}"}
        if cluster:
            local_cluster = LocalCluster(Path("var") / "cluster")
            env["MEEPLE_EVENTS_URL"] = start_cluster(supervisor, local_cluster)
        if counters_url:
            env["MEEPLE_RATELIMIT_REDIS_URL"] = counters_url
        if host in ("127.0.0.1", "localhost", "::1"):
            # Only this machine can reach the API: webhooks to a local receiver are fine.
            env.setdefault("MEEPLE_WEBHOOK_ALLOW_PRIVATE", "1")
        supervisor.spawn("api", gunicorn_command(host, port, workers), env)
        spawn_workers(supervisor, env, bot_workers)
        supervisor.spawn("smtpd", meeple_command("smtpd", "--host", host,
                                                 "--port", str(smtpd_port)), env)
        events_url = env.get("MEEPLE_EVENTS_URL")
        stores = (f"games on {masked(events_url)}, the rest on {masked(redis_url)}"
                  if events_url else f"redis {masked(redis_url)}")
        click.echo(f"meeple listening on http://{host}:{port} ({stores}); Ctrl-C to stop",
                   err=True)
        code = supervisor.wait()
    finally:
        supervisor.stop_all()
        if local_cluster is not None:
            local_cluster.stop()
        for server in reversed(embedded):
            server.stop()  # last: everything that writes to it has exited
            log.info("embedded redis stopped", dir=str(server.workdir))
    sys.exit(code)


def redis_servers(supervisor: Supervisor, embedded: list[EmbeddedRedis]
                  ) -> tuple[str, str | None]:
    """The Redis for everything (MEEPLE_REDIS_URL, else MEEPLE_CONTROL_URL, else a private
    one started here; the games may be elsewhere: MEEPLE_EVENTS_URL) and the
    one for rate-limit counters (MEEPLE_RATELIMIT_REDIS_URL, else with a private Redis a
    second, memory-only one: the counters need no fsync, and stay off the game store's
    appendfsync-always path; else None, the first one)."""
    # The role settings of a split deployment (deploy/cluster/README.md) name the stores
    # too: the control store is then the one for everything but the games.
    redis_url = os.environ.get("MEEPLE_REDIS_URL") or os.environ.get("MEEPLE_CONTROL_URL")
    counters_url = os.environ.get("MEEPLE_RATELIMIT_REDIS_URL")
    if redis_url:
        return redis_url, counters_url
    redis_url = start_embedded(supervisor, embedded, "redis", EmbeddedRedis(Path("var") / "redis"))
    if not counters_url:
        counters = EmbeddedRedis(Path("var") / "redis-counters", free_port(), durable=False)
        counters_url = start_embedded(supervisor, embedded, "redis-counters", counters)
    return redis_url, counters_url


def spawn_workers(supervisor: Supervisor, env: dict[str, str], bot_workers: int) -> None:
    """The RQ workers. Notices and deadlines have a worker of their own, so that a turn email
    never waits behind bot turns (a bot game queues one job per move). RQ's scheduler queues
    the due jobs of its worker's queues only: deadlines are on notify, the periodic passes
    (reconciler, housekeeping) on scoring, so that worker takes both; and only it, so that a
    killed bot worker never breaks the passes' chain (each schedules the next, and the
    scheduler's worker starts the chain again when it starts)."""
    for number in range(1, bot_workers + 1):
        name = "worker" if number == 1 else f"worker-{number}"
        supervisor.spawn(name, meeple_command("worker", "ai"), env)
    supervisor.spawn("notify", meeple_command("worker", "--with-scheduler", "notify",
                                              "scoring"), env)
    # Webhooks on their own: a slow receiver never holds a deadline or an email. Its
    # scheduler brings back the failed attempts' retries.
    supervisor.spawn("webhooks", meeple_command("worker", "--with-scheduler", "webhooks"), env)


def start_embedded(supervisor: Supervisor, started: list[EmbeddedRedis], name: str,
                   server: EmbeddedRedis) -> str:
    """Start `server` and have `supervisor` start it again, on the same port and data,
    whenever it dies."""
    try:
        url = server.start()
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from None
    started.append(server)
    log.info("embedded redis started", url=url, dir=str(server.workdir), pid=server.pid)

    def restart() -> subprocess.Popen[bytes]:
        server.start()
        log.info("embedded redis started again", url=url, pid=server.pid)
        return server.process

    supervisor.adopt(name, restart, store=True, started=server.process)
    return url


def start_cluster(supervisor: Supervisor, cluster: LocalCluster) -> str:
    """Start the local cluster (created on first use, kept in its workdir) and have
    `supervisor` start any node of it again whenever it dies, as systemd would."""
    try:
        url = cluster.start(timeout=60)
    except (RuntimeError, TimeoutError, ValueError) as exc:
        raise click.ClickException(f"the local cluster did not start: {exc}") from None
    log.info("local redis cluster started", url=url, dir=str(cluster.workdir))
    for number, node in enumerate(cluster.nodes):
        def restart(node: EmbeddedRedis = node) -> subprocess.Popen[bytes]:
            node.start()
            return node.process

        supervisor.adopt(f"cluster-node-{number}", restart, store=True, started=node.process)
    return url


def gunicorn_command(host: str, port: int, workers: int | None) -> list[str]:
    """gunicorn with deploy/gunicorn.conf.py when it is there (a source checkout)."""
    command = [sys.executable, "-m", "gunicorn"]
    if GUNICORN_CONF.exists():
        command += ["-c", str(GUNICORN_CONF)]
    # Command-line values override the config file's.
    command += ["--bind", f"{host}:{port}"]
    if workers:
        command += ["--workers", str(workers)]
    return [*command, "service.wsgi:app"]


def meeple_command(*args: str) -> list[str]:
    """This CLI again, in a child process, with the same interpreter."""
    return [sys.executable, "-m", "cli", *args]
