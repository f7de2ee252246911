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

# Worker model: gthread, i.e. processes x threads.
# - A request is mostly Python CPU work (replaying the game fold, rules,
#   JSON, hashing) plus a few Redis round trips, one of which waits for Redis to
#   fsync the AOF (appendfsync always). Processes are what buy CPU parallelism
#   under the GIL, so one process per core; threads let a process use the CPU
#   while one of its requests waits on Redis, and keep idle keep-alive
#   connections from pinning a whole process as the sync worker would.
# - The usual "2 x cores + 1" rule is for sync workers, which need extra
#   processes to hide waits; here threads do that at a fraction of the memory,
#   and the RQ worker and Redis need some of the same two cores.
worker_class = "gthread"
workers = _env_int("MEEPLE_WEB_WORKERS", max(2, _cores))
threads = _env_int("MEEPLE_WEB_THREADS", 4)

# A move request is short; anything taking 30 s is stuck. The graceful timeout
# bounds a stop (SIGTERM): in-flight requests finish, then workers are killed.
timeout = 30
graceful_timeout = 20
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
logger_class = "service.gunicorn_logger.GunicornLogger"

# Gunicorn >= 25 opens a control socket at ~/.gunicorn/gunicorn.ctl by default.
# Several instances on one host (api, bench, tests) would share that one path,
# and nothing here uses it: systemd and `meeple run` drive gunicorn by signals.
control_socket_disable = True

# The heartbeat file is fchmod-ed constantly; keep it off disk (see gunicorn docs).
worker_tmp_dir = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None

proc_name = "meeple-api"


def post_fork(server: object, worker: object) -> None:
    """Each worker hands the GIL over every millisecond instead of every 5 (Python's default):
    a thread whose answer is ready waits less behind one that is busy, which shortens the
    latency tail (measured in bench/README.md)."""
    sys.setswitchinterval(float(os.environ.get("MEEPLE_SWITCH_INTERVAL") or 0.001))
