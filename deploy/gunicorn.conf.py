"""Gunicorn settings for the Meeple API (`gunicorn -c deploy/gunicorn.conf.py service.wsgi:app`).

Every value can be overridden from the environment (below) or the command
line (`meeple run --port/--workers` does that). Sized for the 2-core machines
this project runs and benchmarks on; see bench/README.md for measurements.
"""

from __future__ import annotations

import os
import sys


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


_cores = os.cpu_count() or 1

bind = os.environ.get("MEEPLE_BIND", "127.0.0.1:8000")

# Worker model: gevent (MEEPLE_WEB_WORKER_CLASS=gthread for the old one), processes x
# greenlets. Measured on the 2-core bench box (bench/README.md, "gunicorn worker model").
# - Live streams (GET …/stream) stay open for hours and mostly wait. Under gthread each one
#   pins a thread: 8 streams (2 workers x 4 threads) and the API answers nothing else
#   (tests/e2e/test_streams_over_http.py fails so under gthread). Under gevent a stream is
#   a greenlet, about 150 KB of worker RSS each (250 a worker: 65 -> ~100 MiB),
#   and a process holds up to `worker_connections` of them. A stream holds no Redis
#   connection: one reader per followed game per process does (events/application/live.py).
# - Moves do not lose by it. bench/moves.py, 16 clients, 6 runs of each taken in turn:
#   gthread 137-276 moves/s (mean 208), gevent 181-352 (mean 247), p99 alike (96-222 vs
#   88-235 ms: the box's noise), worker CPU per move 5.5 vs 5.2 ms (bench/streams.py,
#   no subscribers). A request is mostly Python CPU work (the game fold, rules, JSON,
#   hashing) plus a few Redis round trips, one waiting for the AOF fsync; one process per
#   core buys the parallelism under the GIL, and while one request waits on Redis the
#   process runs another, as threads did. A greenlet is not preempted, so gthread's GIL
#   switch-interval tuning (post_fork) does not apply. Under gevent each pooled redis-py
#   command costs ~100 us more CPU (its pool's readiness poll goes through gevent): that
#   is in the figures above, and the streams' reader avoids it (one connection each).
# - The usual "2 x cores + 1" rule is for sync workers, which need extra processes to hide
#   waits; greenlets do that at a fraction of the memory, and the RQ worker and Redis need
#   some of the same two cores.
# - gevent monkey-patches the standard library (sockets, locks, sleep, threads) in each
#   worker: redis-py (with hiredis), RQ's enqueueing, structlog and cryptography all run
#   on it (tests/e2e run through this file). It is patched here, in the master, before the
#   logger (service.server.logger) imports our packages: patched any later, a module
#   that took ssl's classes by name (redis.asyncio) keeps the unpatched ones, which
#   gevent warns of at every worker boot. The logger is unchanged: it writes JSON lines
#   to stderr, a blocking write of a few hundred bytes.
worker_class = os.environ.get("MEEPLE_WEB_WORKER_CLASS") or "gevent"
workers = _env_int("MEEPLE_WEB_WORKERS", max(2, _cores))
threads = _env_int("MEEPLE_WEB_THREADS", 4)  # gthread only
# Open connections per gevent worker, streams included (a file descriptor each; raise the
# service's LimitNOFILE above workers x this).
worker_connections = _env_int("MEEPLE_WEB_CONNECTIONS", 1000)
if worker_class == "gevent":
    from gevent import monkey

    monkey.patch_all()


def _pool_sized(url: str, size: int) -> str:
    """`url` with a connection pool of `size`, unless it names one itself."""
    if "max_connections=" in url:
        return url
    return f"{url}{'&' if '?' in url else '?'}max_connections={size}"


# redis-py's pools stop at 100 connections (then MaxConnectionsError: a 503). Threads capped
# the requests in flight at `threads`; greenlets let up to `worker_connections` of them wait
# on Redis at once, so the app's pools (the stores', each cluster node's, the rate
# limiter's) get as many. A store not set keeps the app's default URL, and redis-py's 100.
raw_env = [f"{name}={_pool_sized(os.environ[name], worker_connections)}"
           for name in ("MEEPLE_REDIS_URL", "MEEPLE_EVENTS_URL", "MEEPLE_CONTROL_URL",
                        "MEEPLE_RATELIMIT_REDIS_URL")
           if worker_class == "gevent" and os.environ.get(name)]

# A move request is short; anything taking 30 s is stuck (under gevent: a greenlet that
# keeps the CPU 30 s, since a worker's heartbeat runs between greenlets). The graceful
# timeout bounds a stop (SIGTERM): in-flight requests finish, then workers are killed;
# live streams end within a second of it (post_worker_init).
timeout = 30
graceful_timeout = _env_int("MEEPLE_WEB_GRACEFUL_TIMEOUT", 20)
keepalive = 5

# Recycle workers now and then so a slow leak cannot grow without bound;
# the jitter keeps all workers from restarting at once.
max_requests = _env_int("MEEPLE_WEB_MAX_REQUESTS", 20000)
max_requests_jitter = 2000

# Access log off by default: it costs throughput and the proxy in front keeps
# one. MEEPLE_ACCESS_LOG=- writes it to stdout.
accesslog = os.environ.get("MEEPLE_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("MEEPLE_LOG_LEVEL", "info").lower()
# gunicorn's own lines as JSON, through the same masking of secrets as the app's.
logger_class = "service.server.logger.GunicornLogger"

# What gunicorn refuses itself (a request line or headers too long, a malformed request)
# is answered as problem+json like every other error, not in gunicorn's HTML.
from service.server.refusals import install as _problem_json_refusals  # noqa: E402

_problem_json_refusals()

# Gunicorn >= 25 opens a control socket at ~/.gunicorn/gunicorn.ctl by default.
# Several instances on one host (api, bench, tests) would share that one path,
# and nothing here uses it: systemd and `meeple run` drive gunicorn by signals.
control_socket_disable = True

# The heartbeat file is fchmod-ed constantly; keep it off disk (see gunicorn docs).
worker_tmp_dir = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None

proc_name = "meeple-api"


def post_worker_init(worker: object) -> None:
    """On SIGTERM (a graceful stop: a deploy, `meeple run` stopping) the live streams end
    within a second instead of holding the worker for the whole graceful timeout; their
    clients resume (Last-Event-ID) on the next worker. The flag is all the handler sets."""
    import signal
    from types import FrameType

    from events.application.live import stop_streams

    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: FrameType | None) -> None:
        stop_streams()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, on_term)


def post_fork(server: object, worker: object) -> None:
    """Under gthread, each worker hands the GIL over every millisecond instead of every 5
    (Python's default): a thread whose answer is ready waits less behind one that is busy,
    which shortens the latency tail (measured in bench/README.md). Greenlets are not
    preempted, so under gevent the interval changes nothing and is left alone."""
    if worker_class == "gthread":
        sys.setswitchinterval(float(os.environ.get("MEEPLE_SWITCH_INTERVAL") or 0.001))
