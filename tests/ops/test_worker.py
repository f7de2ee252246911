"""`meeple worker` runs real RQ jobs against the test redis."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import redis
from click.testing import CliRunner
from rq import Queue

from cli.main import main

REPO_ROOT = Path(__file__).resolve().parents[2]
MEEPLE = Path(sys.executable).parent / "meeple"


def double(value: int) -> int:
    """The job the worker runs: imported by its dotted path in the worker's work horse."""
    return 2 * value


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
