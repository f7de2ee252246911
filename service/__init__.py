"""The Flask app: routing, auth, schemas and errors. It calls the use cases in `events` only."""

from __future__ import annotations

import os
from typing import Any

import redis
from flask import Flask

from events.application import Meeple
from events.dispatch import RQDispatcher


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The app factory. Config comes from MEEPLE_* environment variables, then `config`."""
    app = Flask(__name__)
    app.config.update(
        REDIS_URL=os.environ.get("MEEPLE_REDIS_URL", "redis://127.0.0.1:6379/0"),
        RATELIMIT_DEFAULT=os.environ.get("MEEPLE_RATE_LIMIT", "300 per minute"),
        DISPATCH=True,  # queue bot turns and scoring on RQ
        MAX_CONTENT_LENGTH=64 * 1024,  # the largest real request (50 moves) is a few KB
    )
    app.config.update(config or {})
    # Rate-limit counters need no durability: they may live on a Redis without
    # appendfsync always, sparing the game store an fsync per request.
    app.config.setdefault(
        "RATELIMIT_STORAGE_URI",
        os.environ.get("MEEPLE_RATELIMIT_REDIS_URL") or app.config["REDIS_URL"],
    )

    client = redis.Redis.from_url(app.config["REDIS_URL"])
    dispatcher = RQDispatcher(client) if app.config["DISPATCH"] else None
    # NEW_SEED (tests only): a callable giving each new game's secret seed, to replay a known deal.
    seeds = {"new_seed": app.config["NEW_SEED"]} if app.config.get("NEW_SEED") else {}
    app.extensions["meeple"] = Meeple(client, dispatcher, **seeds)

    from service import errors, limits, spec
    from service.api import game_types, games, players, system

    api = spec.init_app(app)
    limits.init_app(app)
    errors.init_app(app)
    for module in (system, players, game_types, games):
        api.register_blueprint(module.blp)
    return app
