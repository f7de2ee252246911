"""How many live streams may be open at once: per caller across the service, and per process.

A stream holds a connection for hours. Gunicorn gives each worker process a fixed number of
connections (worker_connections), streams and plain requests together, so without caps one
client holding a few thousand streams leaves nobody else a connection. Two caps, each
refusing before anything is streamed:

- per caller (the player once its key is checked, else the client's address: whom the rate
  limits count), MEEPLE_STREAMS_PER_CALLER (10), over every process and host: a slot per
  open stream in a sorted set on the rate limits' Redis, scored by when it expires. A stream
  renews its slot as it runs and gives it back when it ends or its client goes away; a
  process killed outright leaves slots that expire within SLOT_SECONDS. Past the cap: 429.
- per process, MEEPLE_STREAMS_PER_PROCESS (500, well below gunicorn's 1,000 connections), so
  plain requests always find a connection. Past it: 503, for another process may have room.

Like the rate limits, the caller's cap is never a reason to refuse a stream when its Redis is
unreachable: the stream goes on with the process's cap alone.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field

import redis
import structlog
from flask import Flask, current_app

from service.middleware.errors import Refused
from service.middleware.limits import rate_limit_key

log = structlog.get_logger()

STREAMS_PER_CALLER = 10
STREAMS_PER_PROCESS = 500
# An open stream's slot lives this long unless renewed: how long a slot outlives a process
# that died without giving it back. Renewed at each write of the stream, which writes at
# least every keepalive interval (15 s by default).
SLOT_SECONDS = 60
# What a refused client is told to wait: about a keepalive, by which a stream that went
# away (a closed tab) has been noticed and its slot given back.
RETRY_AFTER_SECONDS = 15

# KEYS[1]: the caller's slots; ARGV: the new slot, its lifetime in seconds, the cap. Expired
# slots are dropped first. Server time, so that hosts' clocks need not agree.
_TAKE = """
local now = tonumber(redis.call('TIME')[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""
_RENEW = """
local now = tonumber(redis.call('TIME')[1])
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""


@dataclass
class Slot:
    """One open stream's place under both caps, given back by `release` (at most once)."""

    caps: StreamCaps
    key: str | None  # the caller's sorted set; None when the caller's cap was not counted
    member: str
    renewed_at: float = field(default_factory=time.monotonic)
    released: bool = False

    def renew(self) -> None:
        """Called at each write of the stream: renews the caller's slot now and then."""
        if self.key is None or time.monotonic() - self.renewed_at < SLOT_SECONDS / 4:
            return
        self.renewed_at = time.monotonic()
        self.caps.call(_RENEW, self.key, self.member)

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.caps.process.release()
        if self.key is not None:
            self.caps.remove(self.key, self.member)


class StreamCaps:
    """The two caps of one app in one process."""

    def __init__(self, redis_url: str, per_caller: int, per_process: int,
                 prefix: str = "meeple") -> None:
        self.per_caller = per_caller
        self.process = threading.BoundedSemaphore(per_process)
        self._redis = redis.Redis.from_url(redis_url, socket_timeout=5,
                                           socket_connect_timeout=5)
        self._prefix = prefix

    def take(self, caller: str) -> Slot:
        """A slot for a new stream of `caller`, or Refused (503 for the process, 429 for
        the caller)."""
        if not self.process.acquire(blocking=False):
            raise Refused(503, "streams_full", "this server holds as many live streams as it "
                          "may; try again shortly", RETRY_AFTER_SECONDS)
        key, member = f"{self._prefix}:streams:{caller}", secrets.token_hex(8)
        taken = self.call(_TAKE, key, member, self.per_caller)
        if taken == 0:
            self.process.release()
            raise Refused(429, "too_many_streams", f"at most {self.per_caller} live streams "
                          "may be open at once per caller; close one first",
                          RETRY_AFTER_SECONDS)
        return Slot(self, key if taken is not None else None, member)

    def call(self, script: str, key: str, member: str, *args: int) -> int | None:
        """Run a slot script; None (and a log line) when the counters' Redis is down."""
        try:
            return int(self._redis.eval(script, 1, key, member, SLOT_SECONDS, *args))
        except redis.RedisError as error:
            log.warning("stream caps: redis unavailable", error=repr(error))
            return None

    def remove(self, key: str, member: str) -> None:
        try:
            self._redis.zrem(key, member)
        except redis.RedisError as error:  # the slot expires on its own
            log.warning("stream caps: redis unavailable", error=repr(error))


def init_app(app: Flask) -> None:
    app.extensions["meeple_stream_caps"] = StreamCaps(
        app.config["RATELIMIT_STORAGE_URI"], int(app.config["STREAMS_PER_CALLER"]),
        int(app.config["STREAMS_PER_PROCESS"]))


def take_slot() -> Slot:
    """A slot for a stream of this request's caller (rate_limit_key: player or address)."""
    caps: StreamCaps = current_app.extensions["meeple_stream_caps"]
    return caps.take(rate_limit_key())
