"""Child processes kept running (`meeple run`): each one that dies is started again, with a
backoff, and the others go on; only a signal to the supervisor stops them all.

Each child gets its own process group, so a Ctrl-C in the terminal reaches only this
process; it then stops the children in order: first the ones that use the stores (SIGTERM:
gunicorn and rq both finish what they are doing), then the stores themselves. A spawned
child's signals go to its whole group: what it forked (gunicorn's workers, RQ's scheduler)
stops with it, and when a child dies, whatever it left behind is stopped before it is
started again (an orphaned RQ scheduler kept its lock, and outlived `meeple run`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType

import structlog

from cli.embedded_redis import die_with_parent

# Long enough for an in-flight request or job to finish; short enough that
# an operator's Ctrl-C feels answered. Gunicorn's own graceful_timeout is lower.
CHILD_GRACE_SECONDS = 25.0
# A child that dies is started again after 0.5 s, then 1, 2, 4 ... up to this; a child that
# stayed up for STABLE_SECONDS starts from 0.5 s again.
MAX_BACKOFF_SECONDS = 30.0
STABLE_SECONDS = 60.0
POLL_SECONDS = 0.25

log = structlog.get_logger("meeple")

Start = Callable[[], "subprocess.Popen[bytes]"]


@dataclass
class Child:
    name: str
    start: Start
    store: bool  # a store the others use: stopped last
    proc: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restart_at: float | None = None
    failures: int = 0
    own_group: bool = False  # spawned in a process group of its own, whose id is its pid

    def signal_group(self, signum: int) -> None:
        """`signum` to the child and everything it forked (its process group), or to the
        child alone if it has no group of its own (a store started elsewhere)."""
        if self.proc is None:
            return
        try:
            if self.own_group:
                os.killpg(self.proc.pid, signum)
            elif self.proc.poll() is None:
                self.proc.send_signal(signum)
        except (ProcessLookupError, PermissionError):
            pass  # nothing of it left

    def launch(self) -> None:
        self.proc = self.start()
        self.started_at, self.restart_at = time.monotonic(), None
        log.info("started", child=self.name, pid=self.proc.pid)


class Supervisor:
    def __init__(self) -> None:
        self.children: dict[str, Child] = {}
        self._stop = threading.Event()
        self._stop_signal: int | None = None
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stop_signal = signum
        self._stop.set()

    def spawn(self, name: str, command: Sequence[str], env: dict[str, str]) -> None:
        """Run `command` as the child `name`, started again whenever it dies."""
        def start() -> subprocess.Popen[bytes]:
            return subprocess.Popen(list(command), env=env, process_group=0,
                                    preexec_fn=die_with_parent)
        self.adopt(name, start, store=False, started=None)
        self.children[name].own_group = True

    def adopt(self, name: str, start: Start, *, store: bool,
              started: subprocess.Popen[bytes] | None) -> None:
        """Watch a child that `start` (re)starts; `started` is its first process, if it is
        running already (an embedded redis started before the others)."""
        child = Child(name, start, store)
        if started is None:
            child.launch()
        else:
            child.proc, child.started_at = started, time.monotonic()
        self.children[name] = child

    def wait(self) -> int:
        """Keep every child running until a signal; then 0."""
        while not self._stop.wait(POLL_SECONDS):
            for child in self.children.values():
                self._look_after(child)
        log.info("stopping", signal=signal.Signals(self._stop_signal or signal.SIGTERM).name)
        return 0

    def _look_after(self, child: Child) -> None:
        now = time.monotonic()
        if child.restart_at is not None:
            if now >= child.restart_at:
                try:
                    child.launch()
                except (OSError, RuntimeError) as err:  # e.g. redis did not come up
                    self._failed(child, now, f"restart failed: {err}")
            return
        if child.proc is None or child.proc.poll() is None:
            return
        child.signal_group(signal.SIGKILL)  # what it forked dies with it
        self._failed(child, now, f"exited with {child.proc.returncode}")

    def _failed(self, child: Child, now: float, why: str) -> None:
        if now - child.started_at >= STABLE_SECONDS:
            child.failures = 0
        delay = min(MAX_BACKOFF_SECONDS, 0.5 * 2 ** child.failures)
        child.failures += 1
        child.restart_at = now + delay
        log.error("child died; starting it again", child=child.name, why=why,
                  retry_in_seconds=delay)

    def stop_all(self) -> None:
        """Stop the children that use the stores, then the stores: SIGTERM, wait, and SIGKILL
        whoever outlives the grace period."""
        for stores in (False, True):
            group = [child for child in self.children.values() if child.store is stores]
            for child in group:
                child.signal_group(signal.SIGTERM)
            for child in group:
                self._reap(child)
        self.children.clear()

    @staticmethod
    def _reap(child: Child) -> None:
        if child.proc is None:
            return
        try:
            child.proc.wait(CHILD_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            log.warning("child did not stop in time; killing it", child=child.name)
            child.signal_group(signal.SIGKILL)
            child.proc.kill()
            child.proc.wait()
