"""The Flask app: routing, auth, schemas and errors. It calls the use cases in `events` only."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask

from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.records.key_registry import RedisKeyRegistry
from events.records.keys import Keyring
from events.store.archive_stores import open_archive
from events.store.clients import connect_urls


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The app factory. Config comes from MEEPLE_* environment variables, then `config`."""
    app = Flask(__name__)
    configure(app, config or {})
    connect(app)
    register_routes(app)
    return app


def configure(app: Flask, config: dict[str, Any]) -> None:
    app.config.update(
        REDIS_URL=os.environ.get("MEEPLE_REDIS_URL", "redis://127.0.0.1:6379/0"),
        # The two roles of Redis (events.store.clients), each MEEPLE_REDIS_URL unless set.
        EVENTS_URL=os.environ.get("MEEPLE_EVENTS_URL") or None,
        CONTROL_URL=os.environ.get("MEEPLE_CONTROL_URL") or None,
        # Where finished games go when they leave Redis (events.store.archive_stores).
        ARCHIVE_URL=os.environ.get("MEEPLE_ARCHIVE_URL") or None,
        RATELIMIT_PER_CALLER=os.environ.get("MEEPLE_RATE_LIMIT", "300 per minute"),
        RATELIMIT_RECORDS=os.environ.get("MEEPLE_RECORDS_RATE_LIMIT", "30 per minute"),
        RATELIMIT_MESSAGES=os.environ.get("MEEPLE_MESSAGES_RATE_LIMIT", "10 per minute"),
        # Moves, counted one by one however they are batched (None: as RATELIMIT_PER_CALLER).
        RATELIMIT_MOVES=os.environ.get("MEEPLE_MOVES_RATE_LIMIT") or None,
        RATELIMIT_REGISTRATION=os.environ.get("MEEPLE_REGISTRATION_RATE_LIMIT", "30 per hour"),
        # How many proxies in front of the app may say who the client is (X-Forwarded-For).
        TRUSTED_PROXIES=int(os.environ.get("MEEPLE_TRUSTED_PROXIES", "0")),
        # Live streams open at once per caller (over every process) and per process: the
        # rest of a process's connections stay free for plain requests
        # (service.middleware.stream_slots).
        STREAMS_PER_CALLER=int(os.environ.get("MEEPLE_STREAMS_PER_CALLER") or 10),
        STREAMS_PER_PROCESS=int(os.environ.get("MEEPLE_STREAMS_PER_PROCESS") or 500),
        DISPATCH=True,  # queue bot turns and scoring on RQ
        MAX_CONTENT_LENGTH=64 * 1024,  # the largest real request (50 moves) is a few KB
    )
    app.config.update(config)
    app.config["EVENTS_URL"] = app.config["EVENTS_URL"] or app.config["REDIS_URL"]
    app.config["CONTROL_URL"] = app.config["CONTROL_URL"] or app.config["REDIS_URL"]
    # Record signing keys (private): a directory kept like a secret in production.
    app.config.setdefault("KEYS_DIR", os.environ.get("MEEPLE_KEYS_DIR") or "var/keys")
    # The shared secret of the inbound-mail provider (POST /v1/inbound/email); unset: off.
    app.config.setdefault("INBOUND_SECRET", os.environ.get("MEEPLE_INBOUND_SECRET") or None)
    # Rate-limit counters need no durability: they may live on a Redis without
    # appendfsync always, sparing the game store an fsync per request.
    app.config.setdefault(
        "RATELIMIT_STORAGE_URI",
        os.environ.get("MEEPLE_RATELIMIT_REDIS_URL") or app.config["CONTROL_URL"],
    )


def connect(app: Flask) -> None:
    """The application (events.application.Meeple) on its stores, and the signing keys."""
    stores = connect_urls(app.config["EVENTS_URL"], app.config["CONTROL_URL"])
    dispatcher = (RQDispatcher(stores.control, events=stores.events) if app.config["DISPATCH"]
                  else None)
    # NEW_SEED (tests only): a callable giving each new game's secret seed, to replay a known deal.
    seeds = {"new_seed": app.config["NEW_SEED"]} if app.config.get("NEW_SEED") else {}
    # MIN_MOVE_SECONDS: the shortest deadline a table may choose (MEEPLE_MIN_MOVE_SECONDS, else
    # an hour); tests lower it to play deadlines out in seconds.
    app.extensions["meeple"] = Meeple(stores.control, dispatcher, **seeds,
                                      min_move_seconds=app.config.get("MIN_MOVE_SECONDS"),
                                      events=stores.events,
                                      archive=open_archive(app.config["ARCHIVE_URL"]))
    app.extensions["meeple_keys"] = Keyring(Path(app.config["KEYS_DIR"]),
                                            RedisKeyRegistry(stores.control))


def register_routes(app: Flask) -> None:
    """The API's blueprints, the pages, and what wraps every request (limits, errors, caching)."""
    from service import api as api_routes
    from service import web
    from service.api import (
        game_types,
        games,
        inbound,
        inbox,
        messages,
        players,
        records,
        streams,
        system,
    )
    from service.middleware import (
        browsers,
        caching,
        errors,
        json_body,
        limits,
        request_bodies,
        stream_slots,
    )
    from service.openapi import spec

    json_body.init_app(app)
    request_bodies.init_app(app)
    api = spec.init_app(app)
    limiter = limits.init_app(app)
    stream_slots.init_app(app)
    errors.init_app(app)
    caching.init_app(app)
    for module in (system, players, game_types, games, records, messages, inbox, inbound,
                   streams):
        api.register_blueprint(module.blp)
    api_routes.init_app(app)
    system.init_app(app)
    browsers.init_app(app)
    web.init_app(app)  # the pages: /, /games/<id>, /games/<id>/replay
    limits.limit_routes(app, limiter)
