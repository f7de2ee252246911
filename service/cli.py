"""The `meeple` command line (DESIGN §6).

Subcommands here: `run` (the whole service on one machine) and `worker` (one
RQ worker). Other modules add theirs: any module `service/cli_<name>.py` is
imported the first time click looks for a command this file does not define,
and registers itself with `main.add_command(...)` or `@main.command()`. The
import is lazy so that `meeple run` never depends on those modules loading.
"""

from __future__ import annotations

import importlib
import logging
import os
import pkgutil
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

import click
import redis
import structlog
from rq import SimpleWorker, Worker

from service.embedded_redis import EmbeddedRedis, die_with_parent, free_port

REPO_ROOT = Path(__file__).resolve().parent.parent
GUNICORN_CONF = REPO_ROOT / "deploy" / "gunicorn.conf.py"
DEFAULT_QUEUES = ("ai", "scoring", "notify")
# Long enough for an in-flight request or job to finish; short enough that
# an operator's Ctrl-C feels answered. Gunicorn's own graceful_timeout is lower.
CHILD_GRACE_SECONDS = 25.0

log = structlog.get_logger("meeple")


def configure_logging(level: str = "INFO") -> None:
    """structlog to stderr: readable in a terminal, one JSON object a line under systemd."""
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer(colors=False)
        if sys.stderr.isatty()
        else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level)),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


class MeepleGroup(click.Group):
    """A click group that also finds the commands of `service/cli_*.py` modules, lazily."""

    _extensions_loaded = False

    def _load_extensions(self) -> None:
        if self._extensions_loaded:
            return
        self._extensions_loaded = True
        package = importlib.import_module("service")
        for module in pkgutil.iter_modules(package.__path__):
            if module.name.startswith("cli_"):
                importlib.import_module(f"service.{module.name}")

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            self._load_extensions()
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_extensions()
        return super().list_commands(ctx)


@click.group(cls=MeepleGroup)
@click.option("--log-level", default="INFO", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False))
def main(log_level: str) -> None:
    """Meeple: an event-sourced board-game server."""
    configure_logging(log_level.upper())


# --------------------------------------------------------------------------- worker


@main.command()
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
    if with_scheduler:
        # Deadlines: take over a dead scheduler's lock at once, and re-schedule any lost job.
        from service.cli_deadlines import prepare_scheduler

        prepare_scheduler(connection, names)
    # rq installs its own SIGINT/SIGTERM handlers: the first signal is a warm
    # shutdown (the running job finishes), a second one a cold shutdown.
    worker_class(names, connection=connection).work(
        with_scheduler=with_scheduler, burst=burst, logging_level="INFO"
    )
    log.info("worker stopped")


# --------------------------------------------------------------------------- run


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Gunicorn worker processes (default: see deploy/gunicorn.conf.py).")
@click.option("--smtpd-port", default=2525, show_default=True, type=int,
              envvar="MEEPLE_SMTPD_PORT",
              help="Where `meeple smtpd` receives replies to turn emails (on --host).")
def run(host: str, port: int, workers: int | None, smtpd_port: int) -> None:
    """Run the API, one RQ worker with the scheduler, the SMTP listener for replies to turn
    emails, and (if needed) a private Redis."""
    # Signal handlers first: a Ctrl-C from here on is an orderly stop.
    supervisor = Supervisor()
    embedded: list[EmbeddedRedis] = []  # started in this order, stopped in reverse
    code = 1
    try:
        redis_url = os.environ.get("MEEPLE_REDIS_URL")
        counters_url = os.environ.get("MEEPLE_RATELIMIT_REDIS_URL")
        if not redis_url:
            redis_url = start_embedded(embedded, EmbeddedRedis(Path("var") / "redis"))
            if not counters_url:
                # Rate-limit counters need no fsync: a second, memory-only server keeps
                # them off the game store's appendfsync-always path.
                counters = EmbeddedRedis(Path("var") / "redis-counters", free_port(),
                                         durable=False)
                counters_url = start_embedded(embedded, counters)
        env = {**os.environ, "MEEPLE_REDIS_URL": redis_url, "MEEPLE_BIND": f"{host}:{port}"}
        if counters_url:
            env["MEEPLE_RATELIMIT_REDIS_URL"] = counters_url
        if host in ("127.0.0.1", "localhost", "::1"):
            # Only this machine can reach the API: webhooks to a local receiver are fine.
            env.setdefault("MEEPLE_WEBHOOK_ALLOW_PRIVATE", "1")
        supervisor.spawn("api", gunicorn_command(host, port, workers), env)
        supervisor.spawn("worker", meeple_command("worker", "--with-scheduler"), env)
        supervisor.spawn("smtpd", meeple_command("smtpd", "--host", host,
                                                 "--port", str(smtpd_port)), env)
        click.echo(f"meeple listening on http://{host}:{port} (redis {redis_url}); "
                   "Ctrl-C to stop", err=True)
        code = supervisor.wait()
    finally:
        supervisor.stop_all()
        for server in reversed(embedded):
            server.stop()  # last: everything that writes to it has exited
            log.info("embedded redis stopped", dir=str(server.workdir))
    sys.exit(code)


def start_embedded(started: list[EmbeddedRedis], server: EmbeddedRedis) -> str:
    try:
        url = server.start()
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from None
    started.append(server)
    log.info("embedded redis started", url=url, dir=str(server.workdir), pid=server.pid)
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
    return [sys.executable, "-m", "service.cli", *args]


class Supervisor:
    """Child processes that live and die together.

    Each child gets its own process group, so a Ctrl-C in the terminal reaches
    only this process; it then stops the children in order (SIGTERM: gunicorn
    and rq both finish what they are doing) before Redis is shut down.
    """

    def __init__(self) -> None:
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self._stop = threading.Event()
        self._stop_signal: int | None = None
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stop_signal = signum
        self._stop.set()

    def spawn(self, name: str, command: Sequence[str], env: dict[str, str]) -> None:
        self.children[name] = subprocess.Popen(
            list(command), env=env, process_group=0, preexec_fn=die_with_parent
        )
        log.info("started", child=name, pid=self.children[name].pid)

    def wait(self) -> int:
        """Block until a signal (exit 0) or until any child exits by itself (exit 1)."""
        while not self._stop.wait(0.5):
            for name, proc in self.children.items():
                if proc.poll() is not None:
                    log.error("child exited; stopping everything", child=name,
                              code=proc.returncode)
                    return 1
        log.info("stopping", signal=signal.Signals(self._stop_signal or signal.SIGTERM).name)
        return 0

    def stop_all(self) -> None:
        """SIGTERM every live child, wait for all, SIGKILL whoever outlives the grace period."""
        for proc in self.children.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for name, proc in self.children.items():
            try:
                proc.wait(CHILD_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                log.warning("child did not stop in time; killing it", child=name)
                proc.kill()
                proc.wait()
        self.children.clear()


if __name__ == "__main__":
    # Run as `python -m service.cli`: use the imported module's group, the one
    # that the cli_* extension modules register with, not this __main__ copy.
    from service.cli import main as _main

    _main(prog_name="meeple")
