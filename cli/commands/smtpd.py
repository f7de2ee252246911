"""`meeple smtpd`: an SMTP listener (aiosmtpd) for replies to turn emails.

It accepts mail only for reply addresses (`play+<token>@...`; any other recipient is refused
with 550, so it relays nothing) and hands each message to the same code as
`POST /v1/inbound/email`. Every reply it can act on is accepted with 250, whatever the
outcome: one that plays nothing is answered by email; only an unavailable game store is a
temporary failure (451), so that the sending server tries again later.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Any

import click
import redis
import structlog
from aiosmtpd.controller import Controller

from cli.connections import connections
from events.application.meeple import Meeple
from events.mail.email_replies import MAX_EMAIL_BYTES, EmailReplies, RQMailer
from events.mail.reply_tokens import LOCAL_PREFIXES, default_secret

log = structlog.get_logger("meeple")
DEFAULT_PORT = 2525


class ReplyHandler:
    """aiosmtpd's handler hooks (see aiosmtpd's docs: handle_RCPT, handle_DATA)."""

    def __init__(self, replies: EmailReplies) -> None:
        self.replies = replies

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,  # noqa: N802
                          rcpt_options: list[str]) -> str:
        if not address.lower().startswith(LOCAL_PREFIXES):
            return "550 5.1.1 Not a reply address of this server"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        raw: bytes = envelope.original_content or envelope.content
        loop = asyncio.get_running_loop()
        try:
            # Redis calls block: off the event loop, so other sessions go on meanwhile.
            # MAIL FROM goes along: a message whose From it does not match is not believed.
            result = await loop.run_in_executor(
                None, self.replies.handle, raw, list(envelope.rcpt_tos), envelope.mail_from)
        except redis.RedisError as err:
            log.warning("smtpd: game store unavailable", error=repr(err))
            return "451 4.3.0 The game store is unavailable; try again later"
        except Exception:  # a bug of ours: keep the mail with its sender, who retries
            log.exception("smtpd: reply not handled")
            return "451 4.3.0 Temporary failure; try again later"
        return f"250 OK {result.outcome}"


def make_controller(host: str, port: int, replies: EmailReplies) -> Controller:
    return Controller(ReplyHandler(replies), hostname=host, port=port,
                      data_size_limit=MAX_EMAIL_BYTES)


@click.command("smtpd")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(1, 65535),
              envvar="MEEPLE_SMTPD_PORT", help="Also from MEEPLE_SMTPD_PORT.")
def smtpd(host: str, port: int) -> None:
    """Receive replies to turn emails by SMTP and play their codes (MEEPLE_REDIS_URL)."""
    stores = connections(check=False)  # a Redis down is answered 451: the sender retries
    replies = EmailReplies(Meeple.connect(stores), default_secret(), RQMailer(stores.control))
    controller = make_controller(host, port, replies)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        controller.start()
    except OSError as err:  # the port taken, or not ours to bind
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    log.info("smtpd listening", host=host, port=port)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        controller.stop()
        log.info("smtpd stopped")
