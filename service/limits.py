"""Rate limits, counted in Redis (MEEPLE_RATELIMIT_REDIS_URL, else the game store).

Whom a request counts against: the authenticated player once its API key has been checked,
otherwise (no key, or a key that is not one) the client's address. A made-up key per
request therefore buys nothing: it counts against the address like any anonymous call.
The address is the peer's, unless the operator says how many proxies in front of the app
may be believed about the client (MEEPLE_TRUSTED_PROXIES: that many X-Forwarded-For hops).

Registering has a limit of its own per address, whatever key is sent. If the counters'
Redis is down, limits are counted in this process's memory until it is back: a request is
never refused because the counters are unreachable.
"""

from __future__ import annotations

import math
import time

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from werkzeug.middleware.proxy_fix import ProxyFix

from events.exceptions import Unauthorized
from service.auth import api_key_of_request, current_player

UNLIMITED_PATHS = ("/healthz", "/openapi.yaml")


def rate_limit_key() -> str:
    if api_key_of_request() is not None:
        try:
            return "player:" + current_player().id
        except Unauthorized:
            pass  # a wrong key: counted against the address, and refused by the route
    return "address:" + get_remote_address()


def address_key() -> str:
    return "address:" + get_remote_address()


def init_app(app: Flask) -> Limiter:
    proxies = int(app.config["TRUSTED_PROXIES"])
    if proxies > 0:
        # request.remote_addr becomes the address the last `proxies` hops vouch for.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]
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
        # The counters' Redis down: count in memory (logged once), and should that fail
        # too, let the request through (logged) rather than answer 503 for it.
        in_memory_fallback_enabled=True,
        swallow_errors=True,
    )
    app.extensions["meeple_limiter"] = limiter
    return limiter


def limit_routes(app: Flask, limiter: Limiter) -> None:
    """The routes with limits of their own, on top of the default one."""
    # Verifying or importing re-executes a whole game: a tighter limit than other calls.
    for endpoint in ("records.verify", "records.import_record"):
        _limit(app, endpoint, limiter.limit(app.config["RATELIMIT_RECORDS"]))
    # Table talk: a few messages a minute per player is plenty, and keeps floods out of logs.
    _limit(app, "messages.post_message", limiter.limit(app.config["RATELIMIT_MESSAGES"]))
    # Accounts are free to make: per address, whatever the request says about itself.
    _limit(app, "players.register", limiter.limit(app.config["RATELIMIT_REGISTRATION"],
                                                  key_func=address_key))


def _limit(app: Flask, endpoint: str, decorator: object) -> None:
    view = app.view_functions[endpoint]
    app.view_functions[endpoint] = decorator(view)  # type: ignore[operator]


def seconds_until_reset() -> int:
    """For a 429: when the caller's exceeded window resets (at least 1 s)."""
    limiter: Limiter = current_app.extensions["meeple_limiter"]
    limit = limiter.current_limit
    if limit is None:
        return 60
    return max(1, math.ceil(limit.reset_at - time.time()))
