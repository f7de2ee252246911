"""Rate limits per API key (per address for anonymous calls), counted in Redis."""

from __future__ import annotations

import hashlib
import math
import time

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from service.auth import api_key_of_request

UNLIMITED_PATHS = ("/healthz", "/openapi.yaml")


def rate_limit_key() -> str:
    key = api_key_of_request()
    if key:
        return "key:" + hashlib.sha256(key.encode()).hexdigest()[:32]
    return "ip:" + get_remote_address()


def init_app(app: Flask) -> Limiter:
    limiter = Limiter(
        key_func=rate_limit_key,
        app=app,
        storage_uri=app.config["RATELIMIT_STORAGE_URI"],
        key_prefix="meeple:ratelimit",
        default_limits=[app.config["RATELIMIT_DEFAULT"]],
        default_limits_exempt_when=lambda: request.path in UNLIMITED_PATHS,
        # No X-RateLimit-* headers on every answer: they cost a Redis round trip each time.
        # A 429 still carries Retry-After (service.errors asks the limiter then).
        headers_enabled=False,
    )
    app.extensions["meeple_limiter"] = limiter
    return limiter


def seconds_until_reset() -> int:
    """For a 429: when the caller's exceeded window resets (at least 1 s)."""
    limiter: Limiter = current_app.extensions["meeple_limiter"]
    limit = limiter.current_limit
    if limit is None:
        return 60
    return max(1, math.ceil(limit.reset_at - time.time()))
