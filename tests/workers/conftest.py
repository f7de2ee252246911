"""The notification fixtures (a Flask app with dispatch on, a maildir, a webhook receiver, the
players' mail provider and `meeple smtpd` on real sockets) for every test of this directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from flask import Flask

from cli.commands.smtpd import make_controller
from events.application.meeple import Meeple
from events.mail.email_replies import EmailReplies, RQMailer
from events.mail.reply_tokens import secret_in
from service import create_app
from tests.conftest import free_port
from tests.workers.by_post import Provider
from tests.workers.helpers import Receiver

# What POST /v1/inbound/email wants as its Bearer token in these tests.
INBOUND_SECRET = "inbound-test-secret"


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


@pytest.fixture()
def maildir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "mail"
    monkeypatch.setenv("MEEPLE_MAILDIR", str(path))
    monkeypatch.delenv("MEEPLE_SMTP_URL", raising=False)
    return path


@pytest.fixture()
def flask_app(redis_url: str, redis_client: Any, tmp_path: Path, maildir: Path,
              monkeypatch: pytest.MonkeyPatch) -> Flask:
    keys = str(tmp_path / "keys")
    # The jobs read these, as in production (the keys sign records and reply tokens).
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)
    monkeypatch.setenv("MEEPLE_KEYS_DIR", keys)
    monkeypatch.setenv("MEEPLE_NOTIFY_RETRY_INTERVALS", "0,0,0,0,0")  # retry at once
    return create_app({"REDIS_URL": redis_url, "DISPATCH": True, "KEYS_DIR": keys,
                       "RATELIMIT_PER_CALLER": "100000 per minute",
         "RATELIMIT_REGISTRATION": "100000 per minute",
                       "INBOUND_SECRET": INBOUND_SECRET})


@pytest.fixture()
def meeple(flask_app: Flask) -> Meeple:
    app: Meeple = flask_app.extensions["meeple"]
    return app


@pytest.fixture()
def provider(flask_app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[Provider]:
    """Every email the workers send goes to this SMTP server (MEEPLE_SMTP_URL)."""
    made, port = Provider(), free_port()
    controller = Controller(made, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("MEEPLE_SMTP_URL", f"smtp://127.0.0.1:{port}")
    yield made
    controller.stop()


@pytest.fixture()
def smtpd(meeple: Meeple, tmp_path: Path) -> Iterator[int]:
    """`meeple smtpd`'s handler on a real socket: where players' replies are sent."""
    port = free_port()
    replies = EmailReplies(meeple, secret_in(tmp_path / "keys"), RQMailer(meeple.redis))
    controller = make_controller("127.0.0.1", port, replies)
    controller.start()
    yield port
    controller.stop()
