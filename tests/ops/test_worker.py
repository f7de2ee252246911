"""`meeple worker` runs real RQ jobs against the test redis."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner
from rq import Queue

from cli.main import main

REPO_ROOT = Path(__file__).resolve().parents[2]
MEEPLE = Path(sys.executable).parent / "meeple"


def double(value: int) -> int:
    """The job the worker runs: imported by its dotted path in the worker's work horse."""
    return 2 * value


def nap(seconds: float) -> float:
    """A job that keeps the worker busy, so that its redis dies in the middle of work."""
    import time

    time.sleep(seconds)
    return seconds


def test_worker_burst_runs_an_enqueued_job(redis_url: str, redis_client: redis.Redis) -> None:
    queue = Queue("ops-test", connection=redis_client)
    job = queue.enqueue("tests.ops.test_worker.double", 21)

    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [str(MEEPLE), "worker", "--burst", "ops-test"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60,
    )

    assert done.returncode == 0, done.stderr
    job.refresh()
    assert job.get_status() == "finished", done.stderr
    assert job.return_value() == 42
    assert queue.count == 0


def test_worker_without_redis_url_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["worker", "--burst"], env={"MEEPLE_REDIS_URL": None})

    assert result.exit_code == 2
    assert "MEEPLE_REDIS_URL" in result.output


@pytest.mark.parametrize("command", [["worker", "--burst"], ["run"]])
@pytest.mark.parametrize("seconds", ["abc", "-1", "nan", "inf"])
def test_a_bad_thinking_budget_stops_the_start_with_a_usage_error(
        command: list[str], seconds: str, redis_url: str) -> None:
    """A malformed MEEPLE_BOT_THINKING_SECONDS would fail every searching bot's move; the
    worker and `meeple run` refuse to start instead, naming the setting (before `run` starts
    anything)."""
    result = CliRunner().invoke(main, command, env={"MEEPLE_REDIS_URL": redis_url,
                                                   "MEEPLE_BOT_THINKING_SECONDS": seconds})

    assert result.exit_code == 2, result.output
    assert "MEEPLE_BOT_THINKING_SECONDS" in result.output
    assert repr(seconds) in result.output


def test_a_worker_outlives_its_redis_and_goes_on_when_it_is_back(tmp_path: Path) -> None:
    """Issue 11, point 5: "workers reconnect with backoff instead of exiting". The finding:
    Redis killed while bots play, the worker exited (and `meeple run` stopped everything)."""
    import signal
    import time

    from tests.conftest import free_port, start_redis

    port = free_port()
    server = start_redis(tmp_path / "redis", port)
    env = {**os.environ, "MEEPLE_REDIS_URL": f"redis://127.0.0.1:{port}/0",
           "PYTHONPATH": str(REPO_ROOT)}
    worker = subprocess.Popen([str(MEEPLE), "worker", "ops-test"], cwd=REPO_ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        busy = Queue("ops-test", connection=redis.Redis(port=port))
        for _ in range(40):
            busy.enqueue("tests.ops.test_worker.nap", 0.1)
        time.sleep(2)  # at work
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        time.sleep(3)  # the worker has lost its connection and is waiting
        assert worker.poll() is None, "the worker exited when its redis went away"
        server = start_redis(tmp_path / "redis", port)
        client = redis.Redis(port=port)
        job = Queue("ops-test", connection=client).enqueue("tests.ops.test_worker.double", 4)
        deadline = time.monotonic() + 60
        while job.get_status(refresh=True) != "finished" and time.monotonic() < deadline:
            assert worker.poll() is None, "the worker exited"
            time.sleep(0.2)
        assert job.return_value() == 8
    finally:
        worker.terminate()
        worker.wait(30)
        server.kill()
