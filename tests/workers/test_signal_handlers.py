"""An RQ worker run inside the test process gives the test runner its signals back."""

from __future__ import annotations

import os
import signal
import time

import pytest
import redis
from rq import Queue, SimpleWorker
from rq.exceptions import StopRequested

from tests.signal_handlers import kept_signal_handlers


def send_ourselves_sigint() -> None:
    """SIGINT to this process, as pytest-xdist's transport sends one to a worker whose run
    outlives its shutdown; the handler runs in the main thread at its next bytecode."""
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(100):
        time.sleep(0.01)


def test_a_burst_worker_takes_sigint_and_the_kept_handlers_give_it_back(
        redis_client: redis.Redis) -> None:
    # Python's usual Ctrl-C handler (a runner started in the background has SIGINT ignored);
    # the autouse fixture of tests/conftest.py puts back whatever was there.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    runner_handler = signal.getsignal(signal.SIGINT)
    with kept_signal_handlers():
        worker = SimpleWorker([Queue("signal-test", connection=redis_client)],
                              connection=redis_client)
        worker.work(burst=True)
        # What the warning at the end of a loaded `make test` came from: RQ's handler is
        # still installed after the worker has stopped, and turns a SIGINT into StopRequested.
        assert getattr(signal.getsignal(signal.SIGINT), "__self__", None) is worker
        with pytest.raises(StopRequested):
            send_ourselves_sigint()
    assert signal.getsignal(signal.SIGINT) is runner_handler
    assert runner_handler is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        send_ourselves_sigint()
