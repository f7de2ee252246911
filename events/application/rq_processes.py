"""Whether an RQ process (a worker or a scheduler) is gone, from what it keeps in Redis.

A process killed hard (SIGKILL, a crashed host) leaves its hash behind until a TTL runs out:
minutes during which its lock or its job would look held. It is gone when it has no hash,
when it ran on this host under a pid that no longer exists, or when its heartbeat stopped.
"""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime

import redis
from rq.utils import utcparse

WORKER_KEY = "rq:worker:{}"  # rq's Worker.key


def is_gone(client: redis.Redis, key: str, stale_seconds: float) -> bool:
    raw = client.hgetall(key)
    if not raw:
        return True  # no metadata: it never registered, or stopped heartbeating long ago
    info = {_text(field): _text(value) for field, value in raw.items()}
    pid = info.get("pid", "")
    if info.get("hostname") == socket.gethostname() and pid.isdigit() and not _alive(int(pid)):
        return True
    beat = info.get("last_heartbeat")
    if not beat:
        return False
    silence = datetime.now(UTC) - utcparse(beat).replace(tzinfo=UTC)
    return silence.total_seconds() > stale_seconds


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True
