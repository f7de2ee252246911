"""Child processes that live and die together (`meeple run`)."""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Sequence
from types import FrameType

import structlog

from cli.embedded_redis import die_with_parent

# Long enough for an in-flight request or job to finish; short enough that
# an operator's Ctrl-C feels answered. Gunicorn's own graceful_timeout is lower.
CHILD_GRACE_SECONDS = 25.0

log = structlog.get_logger("meeple")


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
