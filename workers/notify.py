"""The `notify` queue: tell a player that a game awaits them, or has ended.

One job per (game, version, player), its id the delivery id: a duplicate job sends
nothing (the delivery is remembered once sent), and a failed delivery raises so that
RQ retries it with backoff (the intervals are set by the dispatcher).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import mailbox
import os
import smtplib
import socket
import ssl
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote, urlsplit

import structlog

from events.accounts.profiles import Profile, Profiles
from events.accounts.webhook_urls import checked_address
from events.application.digests import HELD_EVENTS, hold_for_digest
from events.domain.table import Status, Table
from events.domain.visibility import table_view
from workers.email_text import header_text, reply_to, turn_lines
from workers.jobs import _app

log = structlog.get_logger()

WEBHOOK_TIMEOUT_SECONDS = 5
SMTP_TIMEOUT_SECONDS = 10
SUBJECT_PROMPT_LENGTH = 80


class DeliveryFailed(RuntimeError):
    """A notification could not be delivered; RQ retries the job."""


def delivery_id(game_id: str, version: int, player_id: str, event: str = "") -> str:
    # A deadline reminder is a second message about the turn that began at `version`.
    suffix = "-reminder" if event == "deadline_reminder" else ""
    return f"notify-{game_id}-{version}-{player_id}{suffix}"


def notify_player(game_id: str, version: int, player_id: str, event: str) -> str:
    """Send `event` ("your_turn" or "game_ended"; "deadline_reminder" for the turn that began
    at `version`, from workers.deadlines) of `game_id` at `version` to `player_id` by the
    channel of their profile."""
    app = _app()
    profiles = Profiles(app.redis)
    delivery = delivery_id(game_id, version, player_id, event)
    if profiles.already_sent(delivery):
        return "already sent"
    profile = profiles.get(player_id)
    if profile.notify == "none":
        return "off"
    table = app.load(game_id)
    if event == "message":
        message = _table_talk(table, app.events(game_id, version, version)[0], player_id)
    else:
        message = _message(table, player_id, event)
    if message is None:
        return "stale"  # the player no longer has to act: nothing to say
    if profile.digest == "daily" and event in HELD_EVENTS:
        outcome = hold_for_digest(app.redis, player_id, message)
        profiles.mark_sent(delivery)
        return outcome
    if profile.notify == "email":
        if not profile.email:
            return "no email address"
        send_email(profile.email, message, delivery)
    elif profile.notify == "webhook":
        if not profile.webhook_url or not profile.webhook_secret:
            return "no webhook"
        if profile.webhook_disabled_reason:
            return "webhook disabled"
        post_webhook(profiles, profile, message, delivery)
    profiles.mark_sent(delivery)
    log.info("notified", delivery=delivery, channel=profile.notify)
    return "sent"


def _message(table: Table, player_id: str, event: str) -> dict[str, Any] | None:
    """What the player is told: the webhook payload, also the email's content."""
    mine = [s.seat for s in table.seats if s.player_id == player_id and not s.bot]
    if event == "your_turn":
        mine = [seat for seat in mine if seat in table.actors()]
    elif event == "deadline_reminder":
        mine = [seat for seat in mine if table.due_at(seat) is not None]
    if not mine:
        return None
    seat = mine[0]
    view = table_view(table, seat) or {}
    moves: list[dict[str, Any]] = []
    if table.status is Status.ACTIVE and table.state is not None:
        moves = [{"code": code, **move} for code, move in
                 enumerate(table.game.legal_moves(table.state, seat), start=1)]
    return {"event": event, "game_id": table.id, "version": table.version, "seat": seat,
            "prompt": view.get("prompt"), "moves": moves,
            "title": table.game.title, "result": table.result,
            # For the turn email only (the webhook payload and digests pick their keys).
            "view": view, "names": {s.seat: s.name for s in table.seats},
            "due_at": table.due_at(seat),
            "on_expiry": table.deadline["on_expiry"] if table.deadline else None}


def _table_talk(table: Table, posted: dict[str, Any], player_id: str) -> dict[str, Any] | None:
    """What a person at the table is told of a MessagePosted: who wrote what."""
    mine = [s.seat for s in table.seats if s.player_id == player_id and not s.bot]
    if posted["type"] != "MessagePosted" or not mine:
        return None
    author = table.seat_of(posted["data"]["seat"])
    return {"event": "message", "game_id": table.id, "version": posted["v"], "seat": mine[0],
            "prompt": None, "moves": [], "title": table.game.title, "result": None,
            "from_seat": posted["data"]["seat"], "from_name": author.name if author else "",
            "text": posted["data"]["text"]}


# --- email --------------------------------------------------------------------------------


def email_for(to: str, message: dict[str, Any], delivery: str) -> EmailMessage:
    title, game_id = message["title"], message["game_id"]
    prompt = message["prompt"] or ""
    email = EmailMessage()
    if message["event"] == "game_ended":
        subject = f"{title} (game {game_id}) has ended"
    elif message["event"] == "deadline_reminder":
        subject = (f"Reminder: your move in {title} (game {game_id}) is due at "
                   f"{message['due_at']}")
    elif message["event"] == "message":
        subject = f"{message['from_name']} wrote at the table of {title} (game {game_id})"
    else:
        short = prompt if len(prompt) <= SUBJECT_PROMPT_LENGTH else prompt[:77] + "..."
        subject = f"Your turn in {title} (game {game_id}): {short}".rstrip(": ")
    email["Subject"] = header_text(subject)
    email["From"] = os.environ.get("MEEPLE_MAIL_FROM") or "meeple@localhost"
    email["To"] = to
    email["Date"] = formatdate(usegmt=True)
    email["Message-ID"] = f"<{delivery}@meeple>"  # the same on a retry: one message
    email["X-Meeple-Delivery"] = delivery
    lines = [f"{title}, game {game_id}, version {message['version']}, "
             f"you are seat {message['seat']}.", "", prompt, ""]
    if message.get("due_at"):
        then = ("a bot plays this turn for you" if message["on_expiry"] == "bot"
                else "your seat resigns: a bot plays it on, and it ranks last")
        lines += [f"Your move is due at {message['due_at']}; after that, {then}.", ""]
    if message["moves"]:
        lines += turn_lines(message)
        address = reply_to(message)  # a fresh single-use token (events.mail.reply_tokens)
        if address:
            email["Reply-To"] = address
    elif message["result"]:
        ranks = [f"  seat {row['seat']}: rank {row['rank']}"
                 for row in message["result"].get("seats", []) if "rank" in row]
        lines += ["Final ranks:", *ranks]
    if message["event"] == "message":
        lines += [f"{message['from_name']} (seat {message['from_seat']}) wrote:", "",
                  message["text"]]
    email.set_content("\n".join(lines) + "\n", cte="quoted-printable")
    return email


def send_email_code(player_id: str, address: str, code: str, delivery: str) -> str:
    """Mail the code that confirms `address` for `player_id`: the only message an address
    gets before it is confirmed. Nothing is sent if the player has since asked for another
    address (or none)."""
    profiles = Profiles(_app().redis)
    if profiles.already_sent(delivery):
        return "already sent"
    if profiles.get(player_id).email_pending != address:
        return "stale"
    deliver_email(code_email(address, code, delivery))
    profiles.mark_sent(delivery)
    log.info("email code sent", delivery=delivery)
    return "sent"


def code_email(to: str, code: str, delivery: str) -> EmailMessage:
    email = EmailMessage()
    email["Subject"] = f"Your Meeple confirmation code: {code}"
    email["From"] = os.environ.get("MEEPLE_MAIL_FROM") or "meeple@localhost"
    email["To"] = to
    email["Date"] = formatdate(usegmt=True)
    email["Message-ID"] = f"<{delivery}@meeple>"
    email["X-Meeple-Delivery"] = delivery
    email.set_content("\n".join([
        "Someone asked Meeple to send game notices for their account to this address.",
        "", f"If it was you, confirm the address with this code: {code}", "",
        "    POST /v1/players/me/email/confirm  {\"code\": \"" + code + "\"}", "",
        "The code is good for a day. If it was not you, ignore this email: nothing else",
        "will be sent to this address.",
    ]) + "\n", cte="quoted-printable")
    return email


def send_email(to: str, message: dict[str, Any], delivery: str) -> None:
    """Over SMTP when MEEPLE_SMTP_URL is set (see `smtp_connection`), else into a local maildir
    (MEEPLE_MAILDIR, default var/mail)."""
    deliver_email(email_for(to, message, delivery))


def deliver_email(email: EmailMessage) -> None:
    """Send a finished message by the configured transport (see `send_email`)."""
    smtp_url = os.environ.get("MEEPLE_SMTP_URL")
    if smtp_url:
        try:
            with smtp_connection(smtp_url) as smtp:
                smtp.send_message(email)
        except (OSError, smtplib.SMTPException) as err:
            raise DeliveryFailed(f"smtp: {err}") from err
        return
    maildir = mailbox.Maildir(os.environ.get("MEEPLE_MAILDIR") or "var/mail", create=True)
    maildir.add(email)


def smtp_connection(url: str) -> smtplib.SMTP:
    """An open, logged-in connection for MEEPLE_SMTP_URL: `smtp://[user:password@]host[:port]`
    (STARTTLS whenever the server offers it, and always before a login) or
    `smtps://[user:password@]host[:port]` (TLS from the start, port 465 by default)."""
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps"):
        raise DeliveryFailed(f"MEEPLE_SMTP_URL must be smtp:// or smtps://, not {parts.scheme}://")
    host = parts.hostname or "127.0.0.1"
    smtp: smtplib.SMTP
    if parts.scheme == "smtps":
        smtp = smtplib.SMTP_SSL(host, parts.port or 465, timeout=SMTP_TIMEOUT_SECONDS,
                                context=ssl.create_default_context())
    else:
        smtp = smtplib.SMTP(host, parts.port or 25, timeout=SMTP_TIMEOUT_SECONDS)
        smtp.ehlo()
        if smtp.has_extn("starttls"):
            smtp.starttls(context=ssl.create_default_context())
            smtp.ehlo()
        elif parts.username:
            smtp.close()  # never send a password in the clear
            raise DeliveryFailed(f"smtp: {host} offers no STARTTLS; refusing to log in")
    if parts.username:
        try:
            smtp.login(unquote(parts.username), unquote(parts.password or ""))
        except (OSError, smtplib.SMTPException):
            smtp.close()
            raise
    return smtp


# --- webhooks -----------------------------------------------------------------------------


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to the address that was checked, still verifying the certificate for the name."""

    def __init__(self, host: str, address: str, port: int | None, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def _post(url: str, address: str, body: bytes, headers: dict[str, str]) -> str | None:
    """POST `body` to `url`, connecting to `address`; None when answered 2xx, else why not.
    A redirect is a failure too: following it would turn the POST into a GET."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = _PinnedHTTPSConnection(host, address, parts.port, WEBHOOK_TIMEOUT_SECONDS)
    else:
        connection = http.client.HTTPConnection(address, parts.port,
                                                timeout=WEBHOOK_TIMEOUT_SECONDS)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", path, body, {**headers, "Host": parts.netloc})
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException) as err:  # refused, timeouts, TLS, garbage
        return f"connection error: {err}"
    finally:
        connection.close()
    return None if 200 <= status < 300 else f"HTTP {status}"


def post_webhook(profiles: Profiles, profile: Profile, message: dict[str, Any],
                 delivery: str) -> None:
    """POST the payload, signed; a failure is counted (five in a row disable the webhook)
    and raised, so that RQ retries."""
    payload = {key: message[key]
               for key in ("event", "game_id", "version", "seat", "prompt", "moves")}
    if message["event"] == "deadline_reminder":
        payload["due_at"] = message["due_at"]
    payload.update({key: message[key] for key in ("from_seat", "from_name", "text")
                    if key in message})
    post_signed(profiles, profile, payload, delivery)


def post_signed(profiles: Profiles, profile: Profile, payload: dict[str, Any],
                delivery: str) -> None:
    """POST any payload to the player's webhook, signed (see `post_webhook`)."""
    assert profile.webhook_url and profile.webhook_secret
    body = json.dumps(payload, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Meeple-Webhook/1",
        "X-Meeple-Signature": signature(profile.webhook_secret, body),
        "X-Meeple-Delivery": delivery,
    }
    address, refused = checked_address(profile.webhook_url)
    reason = (f"refused: {refused}" if address is None
              else _post(profile.webhook_url, address, body, headers))
    if reason is not None:
        after = profiles.webhook_failed(profile.player_id, reason)
        log.warning("webhook failed", delivery=delivery, reason=reason,
                    disabled=after.webhook_disabled_reason is not None)
        raise DeliveryFailed(f"webhook {delivery}: {reason}")
    profiles.webhook_succeeded(profile.player_id)
