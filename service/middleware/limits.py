"""Rate limits, counted in Redis (MEEPLE_RATELIMIT_REDIS_URL, else the game store).

Whom a request counts against: the authenticated player once its API key has been checked,
otherwise (no key, or a key that is not one) the client's address. A made-up key per
request therefore buys nothing: it counts against the address like any anonymous call.
The address is the peer's, unless the operator says how many proxies in front of the app
may be believed about the client (MEEPLE_TRUSTED_PROXIES: that many X-Forwarded-For hops).

One limit (MEEPLE_RATE_LIMIT) counts every request of a caller, whatever the route. Some
routes have a tighter limit of their own on top: verifying and importing records, posting
table talk, and registering (per address, whatever key is sent). If the counters' Redis is
down, limits are counted in this process's memory until it is back: a request is never
refused because the counters are unreachable.

Every limited answer says where its caller stands, as the IETF draft "RateLimit header
fields for HTTP" (draft-ietf-httpapi-ratelimit-headers) has it: `RateLimit-Policy` names
each limit that applied (`"all";q=300;w=60`: 300 requests per 60 s), and `RateLimit` the
one nearest to running out (`"all";r=42;t=17`: 42 left, the window resets in 17 s).
"""

from __future__ import annotations

import math
import time

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter, RequestLimit
from flask_limiter.util import get_remote_address
from limits import parse
from werkzeug.middleware.proxy_fix import ProxyFix

from events.exceptions import Unauthorized
from service.middleware.auth import api_key_of_request, current_player

UNLIMITED_PATHS = ("/healthz", "/openapi.yaml", "/openapi.json")


def unlimited() -> bool:
    """Health, the spec, the API reference's files and CORS preflights (a browser's own
    question before a call, which is counted itself) are not counted."""
    return (request.path in UNLIMITED_PATHS or request.path.startswith("/docs")
            or request.method == "OPTIONS")


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
        # One count per caller across every route (not one per route).
        application_limits=[app.config["RATELIMIT_PER_CALLER"]],
        application_limits_exempt_when=unlimited,
        # Flask-Limiter's own headers are the X-RateLimit-* kind: ours follow the IETF draft.
        headers_enabled=False,
        # The counters' Redis down: count in memory (logged once), and should that fail
        # too, let the request through (logged) rather than answer 503 for it.
        in_memory_fallback_enabled=True,
        swallow_errors=True,
    )
    app.extensions["meeple_limiter"] = limiter
    every = parse(app.config["RATELIMIT_PER_CALLER"])
    app.config["RATELIMIT_PER_CALLER_POLICY"] = f"q={every.amount};w={every.get_expiry()}"
    app.after_request(rate_limit_headers)
    return limiter


def limit_routes(app: Flask, limiter: Limiter) -> None:
    """The routes with limits of their own, on top of the default one."""
    # Verifying or importing re-executes a whole game: a tighter limit than other calls.
    for endpoint in ("records.verify", "records.import_record"):
        _limit(app, endpoint, limiter.limit(app.config["RATELIMIT_RECORDS"]))
    # Table talk: a few messages a minute per player is plenty, and keeps floods out of logs.
    _limit(app, "messages.post_message", limiter.limit(app.config["RATELIMIT_MESSAGES"]))
    # A batch costs what its moves do: each but the last is played in 16 imagined worlds
    # first (games.information), so moves are counted one by one, however they are sent.
    moves = app.config.get("RATELIMIT_MOVES") or app.config["RATELIMIT_PER_CALLER"]
    _limit(app, "games.play_moves", limiter.limit(moves, cost=moves_in_request))
    # Accounts are free to make: per address, whatever the request says about itself.
    _limit(app, "players.register", limiter.limit(app.config["RATELIMIT_REGISTRATION"],
                                                  key_func=address_key))


POLICY_NAMES = {"records.verify": "records", "records.import_record": "records",
                "games.play_moves": "moves",
                "messages.post_message": "messages", "players.register": "registration"}


def _policy_name(limit: RequestLimit) -> str:
    return "all" if limit.shared else POLICY_NAMES.get(request.endpoint or "", "route")


def rate_limit_headers(response: Response) -> Response:
    """RateLimit-Policy and RateLimit (IETF draft) on every answer a limit was counted for.
    Reading the remaining count costs one round trip to the counters' Redis, for one limit
    only (the route's own when it has one); should it fail, the answer goes without it."""
    limiter: Limiter = current_app.extensions["meeple_limiter"]
    nearest = limiter.current_limit
    if nearest is None:
        return response
    # Flask-Limiter lists a route's own limits apart from the per-caller one: name both.
    policies = {'"all"': current_app.config["RATELIMIT_PER_CALLER_POLICY"]}
    for limit in limiter.current_limits:
        item = limit.limit
        policies[f'"{_policy_name(limit)}"'] = f"q={item.amount};w={item.get_expiry()}"
    response.headers["RateLimit-Policy"] = ", ".join(
        f"{name};{terms}" for name, terms in policies.items())
    try:
        remaining, reset = nearest.remaining, nearest.reset_at
    except Exception:  # the counters' Redis is down: no figure rather than a 500
        return response
    seconds = min(nearest.limit.get_expiry(), max(0, math.ceil(reset - time.time())))
    response.headers["RateLimit"] = f'"{_policy_name(nearest)}";r={remaining};t={seconds}'
    return response


def moves_in_request() -> int:
    """How many moves the request sends (1 if it is not a batch the route would take)."""
    body = request.get_json(silent=True)
    moves = body.get("moves") if isinstance(body, dict) else None
    return min(len(moves), 50) if isinstance(moves, list) and moves else 1


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
