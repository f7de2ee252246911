"""How `meeple run` supervises its children, without the web app."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator

import pytest

from cli.supervisor import Supervisor


@pytest.fixture()
def supervisor() -> Iterator[Supervisor]:
    """A Supervisor; it installs SIGINT/SIGTERM handlers, which are put back afterwards."""
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    sup = Supervisor()
    yield sup
    sup.stop_all()
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_child_dying_stops_the_others_and_fails(supervisor: Supervisor) -> None:
    env = dict(os.environ)
    supervisor.spawn("sleeper", python("import time; time.sleep(60)"), env)
    supervisor.spawn("crasher", python("import sys, time; time.sleep(0.3); sys.exit(3)"), env)
    sleeper = supervisor.children["sleeper"]

    assert supervisor.wait() == 1

    started = time.monotonic()
    supervisor.stop_all()
    assert sleeper.returncode == -signal.SIGTERM
    assert time.monotonic() - started < 5


def test_a_signal_is_an_orderly_stop(supervisor: Supervisor) -> None:
    supervisor.spawn("sleeper", python("import time; time.sleep(60)"), dict(os.environ))
    sleeper = supervisor.children["sleeper"]

    os.kill(os.getpid(), signal.SIGTERM)

    assert supervisor.wait() == 0
    supervisor.stop_all()
    assert sleeper.returncode == -signal.SIGTERM
