"""The test runner's SIGINT and SIGTERM handlers, kept from one test to the next.

Tests run real RQ workers in the pytest process (`SimpleWorker(...).work(burst=True)`,
`meeple worker --burst` through click's runner), and an RQ worker installs its own
SIGINT/SIGTERM handlers and never puts the old ones back. Left in place, they catch signals
meant for the test runner: pytest-xdist's transport (execnet) sends its worker a SIGINT to
stop a run that outlives its shutdown, and Ctrl-C sends one to every worker; RQ's handler
turns either into a `StopRequested` raised wherever the next test happens to be.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def kept_signal_handlers() -> Iterator[None]:
    """Put back, on the way out, the SIGINT and SIGTERM handlers found on the way in."""
    saved = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
