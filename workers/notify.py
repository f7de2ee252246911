"""The `notify` queue: tell a player that a game awaits them, or has ended.

One job per (game, version, player), its id the delivery id: a duplicate job sends
nothing (the delivery is remembered once sent), and a failed delivery raises so that
RQ retries it with backoff (the intervals are set by the dispatcher).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import mailbox
import os
import smtplib
import urllib.error
import urllib.request
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any
from urllib.parse import urlsplit

import structlog

from events.profiles import Profile, Profiles
from events.table import Status, Table
from events.visibility import table_view
from workers.jobs import _app

log = structlog.get_logger()

WEBHOOK_TIMEOUT_SECONDS = 5
SUBJECT_PROMPT_LENGTH = 80


class DeliveryFailed(RuntimeError):
    """A notification could not be delivered; RQ retries the job."""


def delivery_id(game_id: str, version: int, player_id: str) -> str:
    return f"notify-{game_id}-{version}-{player_id}"


def notify_player(game_id: str, version: int, player_id: str, event: str) -> str:
    """Send `event` ("your_turn" or "game_ended") of `game_id` at `version` to `player_id`
    by the channel of their profile."""
    app = _app()
    profiles = Profiles(app.redis)
    delivery = delivery_id(game_id, version, player_id)
    if profiles.already_sent(delivery):
        return "already sent"
    profile = profiles.get(player_id)
    if profile.notify == "none":
        return "off"
    table = app.load(game_id)
    message = _message(table, player_id, event)
    if message is None:
        return "stale"  # the player no longer has to act: nothing to say
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
            "title": table.game.title, "result": table.result}


# --- email --------------------------------------------------------------------------------


def email_for(to: str, message: dict[str, Any], delivery: str) -> EmailMessage:
    title, game_id = message["title"], message["game_id"]
    prompt = message["prompt"] or ""
    email = EmailMessage()
    if message["event"] == "game_ended":
        email["Subject"] = f"{title} (game {game_id}) has ended"
    else:
        short = prompt if len(prompt) <= SUBJECT_PROMPT_LENGTH else prompt[:77] + "..."
        email["Subject"] = f"Your turn in {title} (game {game_id}): {short}".rstrip(": ")
    email["From"] = os.environ.get("MEEPLE_MAIL_FROM") or "meeple@localhost"
    email["To"] = to
    email["Date"] = formatdate(usegmt=True)
    email["Message-ID"] = f"<{delivery}@meeple>"  # the same on a retry: one message
    email["X-Meeple-Delivery"] = delivery
    lines = [f"{title}, game {game_id}, version {message['version']}, "
             f"you are seat {message['seat']}.", "", prompt, ""]
    if message["moves"]:
        lines.append("Your moves:")
        lines += [f"  {move['code']}. {move.get('label') or move.get('id')}"
                  for move in message["moves"]]
        lines += ["", "Reply with the codes of your moves."]
    elif message["result"]:
        ranks = [f"  seat {row['seat']}: rank {row['rank']}"
                 for row in message["result"].get("seats", []) if "rank" in row]
        lines += ["Final ranks:", *ranks]
    email.set_content("\n".join(lines) + "\n", cte="quoted-printable")
    return email


def send_email(to: str, message: dict[str, Any], delivery: str) -> None:
    """Over SMTP when MEEPLE_SMTP_URL (smtp://host:port) is set, else into a local maildir
    (MEEPLE_MAILDIR, default var/mail)."""
    email = email_for(to, message, delivery)
    smtp_url = os.environ.get("MEEPLE_SMTP_URL")
    if smtp_url:
        parts = urlsplit(smtp_url)
        try:
            with smtplib.SMTP(parts.hostname or "127.0.0.1", parts.port or 25,
                              timeout=10) as smtp:
                smtp.send_message(email)
        except (OSError, smtplib.SMTPException) as err:
            raise DeliveryFailed(f"smtp: {err}") from err
        return
    maildir = mailbox.Maildir(os.environ.get("MEEPLE_MAILDIR") or "var/mail", create=True)
    maildir.add(email)


# --- webhooks -----------------------------------------------------------------------------


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is a failed delivery: it would turn the POST into a GET without the body."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects())


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def post_webhook(profiles: Profiles, profile: Profile, message: dict[str, Any],
                 delivery: str) -> None:
    """POST the payload, signed; a failure is counted (five in a row disable the webhook)
    and raised, so that RQ retries."""
    assert profile.webhook_url and profile.webhook_secret
    payload = {key: message[key]
               for key in ("event", "game_id", "version", "seat", "prompt", "moves")}
    body = json.dumps(payload, separators=(",", ":")).encode()
    request = urllib.request.Request(profile.webhook_url, data=body, method="POST", headers={
        "Content-Type": "application/json",
        "User-Agent": "Meeple-Webhook/1",
        "X-Meeple-Signature": signature(profile.webhook_secret, body),
        "X-Meeple-Delivery": delivery,
    })
    reason: str | None = None
    try:
        with _OPENER.open(request, timeout=WEBHOOK_TIMEOUT_SECONDS) as response:
            if not 200 <= response.status < 300:
                reason = f"HTTP {response.status}"
    except urllib.error.HTTPError as err:
        reason = f"HTTP {err.code}"
    except (OSError, ValueError) as err:  # URLError, timeouts, refused connections
        reason = f"connection error: {getattr(err, 'reason', err)}"
    if reason is not None:
        after = profiles.webhook_failed(profile.player_id, reason)
        log.warning("webhook failed", delivery=delivery, reason=reason,
                    disabled=after.webhook_disabled_reason is not None)
        raise DeliveryFailed(f"webhook {delivery}: {reason}")
    profiles.webhook_succeeded(profile.player_id)
