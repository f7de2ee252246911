"""How `meeple run` supervises its children, without the web app."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from cli.supervisor import Supervisor


@pytest.fixture()
def supervisor() -> Iterator[Supervisor]:
    """A Supervisor; the SIGINT/SIGTERM handlers it installs are put back after each test
    (tests/conftest.py)."""
    sup = Supervisor()
    yield sup
    sup.stop_all()


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_child_that_dies_is_started_again_and_the_others_go_on(
        supervisor: Supervisor, tmp_path) -> None:
    env = dict(os.environ)
    count = tmp_path / "starts"
    supervisor.spawn("sleeper", python("import time; time.sleep(60)"), env)
    supervisor.spawn("crasher", python(
        f"import sys, time; open({str(count)!r}, 'a').write('x'); time.sleep(0.2); sys.exit(3)"),
        env)
    sleeper = supervisor.children["sleeper"].proc
    waiting = threading.Thread(target=supervisor.wait, daemon=True)
    waiting.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(count.read_text() if count.exists() else "") < 3:
        time.sleep(0.1)
    assert len(count.read_text()) >= 3  # started, died, started again (with a backoff) ...
    assert sleeper is not None and sleeper.poll() is None  # ... and the other one lives on
    assert supervisor.children["sleeper"].proc is sleeper
    os.kill(os.getpid(), signal.SIGTERM)
    waiting.join(5)
    supervisor.stop_all()
    assert sleeper.returncode == -signal.SIGTERM


def test_stores_are_stopped_after_the_children_that_use_them(supervisor: Supervisor,
                                                            tmp_path) -> None:
    order = tmp_path / "order"
    on_term = ("import signal, sys, time\n"
               "def bye(*_):\n"
               "    time.sleep({delay}); open({path!r}, 'a').write({name!r} + ' '); sys.exit(0)\n"
               "signal.signal(signal.SIGTERM, bye)\n"
               "time.sleep(60)\n")
    store = subprocess.Popen(python(on_term.format(delay=0, path=str(order), name="store")),
                             process_group=0)
    supervisor.adopt("store", lambda: store, store=True, started=store)
    supervisor.spawn("app", python(on_term.format(delay=0.5, path=str(order), name="app")),
                     dict(os.environ))
    time.sleep(0.5)
    supervisor.stop_all()
    assert order.read_text().split() == ["app", "store"]


def test_a_signal_is_an_orderly_stop(supervisor: Supervisor) -> None:
    supervisor.spawn("sleeper", python("import time; time.sleep(60)"), dict(os.environ))
    sleeper = supervisor.children["sleeper"].proc
    assert sleeper is not None

    os.kill(os.getpid(), signal.SIGTERM)

    assert supervisor.wait() == 0
    supervisor.stop_all()
    assert sleeper.returncode == -signal.SIGTERM


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but for its parent's wait: /proc says so.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


def spawn_a_forker(supervisor: Supervisor, tmp_path) -> int:
    """A child "forker" that starts a process of its own (as RQ's worker its scheduler); the
    pid of that grandchild."""
    grandchild = tmp_path / "grandchild"
    supervisor.spawn("forker", python(
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(grandchild)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(120)\n"), dict(os.environ))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not grandchild.exists():
        time.sleep(0.05)
    return int(grandchild.read_text())


def test_what_a_dead_child_forked_is_stopped_before_it_is_started_again(
        supervisor: Supervisor, tmp_path) -> None:
    """`kill -9` of RQ's worker left its forked scheduler running, holding the scheduler's
    lock and outliving `meeple run` (an outside audit): a child's process group goes with it."""
    forked = spawn_a_forker(supervisor, tmp_path)
    child = supervisor.children["forker"]
    assert child.proc is not None and alive(forked)
    os.kill(child.proc.pid, signal.SIGKILL)
    child.proc.wait()
    supervisor._look_after(child)  # what `wait` does every POLL_SECONDS
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and alive(forked):
        time.sleep(0.05)
    assert not alive(forked)


def test_stopping_stops_what_the_children_forked(supervisor: Supervisor, tmp_path) -> None:
    forked = spawn_a_forker(supervisor, tmp_path)
    supervisor.stop_all()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and alive(forked):
        time.sleep(0.05)
    assert not alive(forked)
