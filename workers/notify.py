"""The `notify` queue: tell a player that a game awaits them, or has ended.

One job per (game, version, player), its id the delivery id: a duplicate job sends
nothing (the delivery is remembered once sent), and a failed delivery raises so that
RQ retries it with backoff (the intervals are set by the dispatcher).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import io
import json
import mailbox
import os
import smtplib
import socket
import ssl
import time
from email.message import EmailMessage
from typing import Any
from urllib.parse import SplitResult, quote, unquote, urlsplit

import structlog
from rq import Queue, get_current_job
from rq.job import Job
from rq.timeouts import BaseTimeoutException

from events.accounts.profiles import Profile, Profiles
from events.accounts.webhook_urls import ascii_host, checked_address
from events.application.digests import HELD_EVENTS, hold_for_digest
from events.application.dispatch import (
    HANDED_OVER,
    NOTICE_JOB_TIMEOUT,
    NOTIFY_PLAYER,
    WEBHOOKS_QUEUE,
    notice_id,
    notice_retry,
)
from events.application.meeple import Meeple
from events.domain.log_text import last_news, since_last_turn, since_lines
from events.domain.table import Status, Table
from events.domain.visibility import redact_log, table_view
from workers import letters
from workers.jobs import _app

log = structlog.get_logger()

NOTIFY_QUEUE = "notify"

# One attempt of a webhook delivery, from the connection to the answer's last header.
WEBHOOK_TIMEOUT_SECONDS = 5
SMTP_TIMEOUT_SECONDS = 10
# What a notice tells of "since your last turn" is read from the log's last this many events
# at most: a game's log may grow long (a trade asked and cancelled again and again), a
# notice's cost may not.
NOTICE_LOG_WINDOW = 1000


class DeliveryFailed(RuntimeError):
    """A notification could not be delivered; RQ retries the job."""


def delivery_id(game_id: str, version: int, player_id: str, event: str = "",
                seat: int | None = None) -> str:
    # A deadline reminder is a second message about the turn that began at `version`.
    suffix = "-reminder" if event == "deadline_reminder" else ""
    return notice_id(game_id, version, player_id, seat) + suffix


def notify_player(game_id: str, version: int, player_id: str, event: str,
                  seat: int | None = None) -> str:
    """Send `event` ("your_turn" or "game_ended"; "deadline_reminder" for the turn that began
    at `version`, from workers.deadlines) of `game_id` at `version` to `player_id` by the
    channel of their profile; about `seat` when given (a player at several seats), else
    about their first seat that the event concerns."""
    app = _app()
    profiles = Profiles(app.redis)
    delivery = delivery_id(game_id, version, player_id, event, seat)
    if profiles.already_sent(delivery):
        return "already sent"
    profile = profiles.get(player_id)
    if profile.notify == "none":
        return "off"
    table = app.load(game_id)
    if event == "message":
        message = _table_talk(table, app.events(game_id, version, version)[0], player_id)
    else:
        message = _message(table, player_id, event, app, seat)
    if message is None:
        return "stale"  # the player no longer has to act: nothing to say
    if profile.digest == "daily" and event in HELD_EVENTS \
            and not follows_own_move(app, game_id, version, player_id):
        outcome = hold_for_digest(app.redis, player_id, message)
        profiles.mark_sent(delivery)
        return outcome
    args = (game_id, version, player_id, event, seat)
    if profile.notify == "email":
        if not profile.email:
            return "no email address"
        if handed_over(NOTIFY_PLAYER, args, delivery, NOTIFY_QUEUE):
            return HANDED_OVER
        send_email(profile.email, message, delivery, player_id)
    elif profile.notify == "webhook":
        if not profile.webhook_url or not profile.webhook_secret:
            return "no webhook"
        if profile.webhook_disabled_reason:
            return "webhook disabled"
        if handed_over(NOTIFY_PLAYER, args, delivery, WEBHOOKS_QUEUE):
            return HANDED_OVER
        post_webhook(profiles, profile, message, delivery)
    profiles.mark_sent(delivery)
    log.info("notified", delivery=delivery, channel=profile.notify)
    return "sent"


def handed_over(func: str, args: tuple[Any, ...], delivery: str, queue: str) -> bool:
    """Whether this job, about to deliver by a channel whose queue is `queue` (`webhooks`
    for a webhook, `notify` for an email), handed itself to that queue instead: a deadline's
    reminder or a digest (scheduled on `notify`) for a webhook, or a notice queued before
    its player changed channel. So a slow receiver holds up only the webhooks worker, never
    the deadlines and emails on `notify`. False outside RQ (a test, a script), on that
    queue, or for a job handed over already: the delivery is made here."""
    job = get_current_job()
    job_id = f"handed-{delivery}"
    if job is None or job.origin == queue or job.id == job_id:
        return False
    if not Job.exists(job_id, connection=job.connection):  # handed over once is enough
        Queue(queue, connection=job.connection).enqueue(
            func, *args, job_id=job_id, retry=notice_retry(), job_timeout=NOTICE_JOB_TIMEOUT,
            result_ttl=60, failure_ttl=86400, description=f"{func} {job_id}")
    return True


def follows_own_move(app: Meeple, game_id: str, version: int, player_id: str) -> bool:
    """Whether the commit at `version` was the player's own move: a notice about it is the
    next step of their own turn (after an emailed reply, the only way to go on by email, or
    a move that hands the turn to their other seat), which a digest would hold up a day."""
    at = app.events(game_id, version, version)
    return bool(at) and at[-1]["by"] == player_id


def _message(table: Table, player_id: str, event: str, app: Meeple | None = None,
             seat: int | None = None) -> dict[str, Any] | None:
    """What the player is told (about `seat`, if given): the webhook payload, also the
    email's content. With `app`, also what happened since the seat's last turn (the log as
    the seat may read it)."""
    mine = [s.seat for s in table.seats if s.player_id == player_id and not s.bot
            and seat in (None, s.seat)]
    if event == "your_turn":
        mine = [seat for seat in mine if seat in table.actors()]
    elif event == "deadline_reminder":
        mine = [seat for seat in mine if table.due_at(seat) is not None]
    if not mine:
        return None
    seat = mine[0]
    view = table_view(table, seat) or {}
    names = table.names()
    moves: list[dict[str, Any]] = []
    if table.status is Status.ACTIVE and table.state is not None:
        moves = [{"code": code, **move} for code, move in
                 enumerate(table.game.legal_moves(table.state, seat), start=1)]
    message = {"event": event, "game_id": table.id, "version": table.version, "seat": seat,
               "prompt": view.get("prompt"), "moves": moves,
               "title": table.game.title, "result": table.result,
               # For the emails only (the webhook payload and digests pick their keys).
               "names": names, "due_at": table.due_at(seat),
               "on_expiry": table.deadline["on_expiry"] if table.deadline else None,
               "table": [part.as_json() for part in table.game.describe(view, seat, names)]
               if view else []}
    if app is not None:
        start = max(1, table.version - NOTICE_LOG_WINDOW + 1)
        log_seen = redact_log(app.events(table.id, start, table.version), [seat],
                              table.status is Status.ENDED)
        message["since"] = since_lines(log_seen, seat, names)
        message["news"] = last_news(since_last_turn(log_seen, seat), seat, names)
    return message


def _table_talk(table: Table, posted: dict[str, Any], player_id: str) -> dict[str, Any] | None:
    """What a person at the table is told of a MessagePosted: who wrote what."""
    mine = [s.seat for s in table.seats if s.player_id == player_id and not s.bot]
    if posted["type"] != "MessagePosted" or not mine:
        return None
    author = table.seat_of(posted["data"]["seat"])
    return {"event": "message", "game_id": table.id, "version": posted["v"], "seat": mine[0],
            "prompt": None, "moves": [], "title": table.game.title, "result": None,
            "names": table.names(),
            "from_seat": posted["data"]["seat"], "from_name": author.name if author else "",
            "text": posted["data"]["text"]}


# --- email --------------------------------------------------------------------------------


def email_for(to: str, message: dict[str, Any], delivery: str, player_id: str = ""
              ) -> EmailMessage:
    """The email of one notice: its letter (workers.letters), in the game's thread, with
    a reply address where a reply can act (moves, or table talk) and List-Unsubscribe."""
    event = message["event"]
    if event == "game_ended" or (not message["moves"] and message["result"]):
        letter = letters.ended_letter(message)
    elif event == "message":
        letter = letters.talk_letter(message)
    else:
        letter = letters.turn_letter(message)
    kind = "talk" if event == "message" else "play" if message["moves"] else None
    return letters.email_message(
        letter, to, delivery,
        reply_address=letters.reply_to(message, kind) if kind else None,
        thread=letters.thread_of(message["game_id"], player_id) if player_id else None,
        unsubscribe=letters.reply_to(message, "stop"), game_id=message["game_id"],
        event=event)


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
    letter = letters.Letter(f"Your Meeple confirmation code: {code}")
    letter.add("", [
        "Someone asked Meeple to send game notices for their account to this address.",
        f"If it was you, confirm the address with this code: {code}",
        "POST /v1/players/me/email/confirm  {\"code\": \"" + code + "\"}",
        "The code is good for a day. If it was not you, ignore this email: nothing else "
        "will be sent to this address."])
    return letters.email_message(letter, to, delivery)


def send_email(to: str, message: dict[str, Any], delivery: str, player_id: str = "") -> None:
    """Over SMTP when MEEPLE_SMTP_URL is set (see `smtp_connection`), else into a local maildir
    (MEEPLE_MAILDIR, default var/mail)."""
    deliver_email(email_for(to, message, delivery, player_id))


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
    """X-Meeple-Signature: hex HMAC-SHA256 of the body, keyed with the whole secret
    (`whsec_…`, as UTF-8)."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def timed_signature(secret: str, delivery: str, timestamp: int, body: bytes) -> str:
    """X-Meeple-Signature-V2: the same HMAC over `{delivery}.{timestamp}.{body}`, so that a
    receiver can refuse a stale or replayed request (README, "Webhooks")."""
    return signature(secret, f"{delivery}.{timestamp}.".encode() + body)


class _Deadline:
    """The socket of one attempt as http.client uses it (sendall, makefile, close), every
    send and read given only what is left of the attempt's time: a receiver answering a
    byte at a time cannot stretch it (a socket's own timeout bounds each read only)."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def left(self) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no answer within {WEBHOOK_TIMEOUT_SECONDS} s")
        self._sock.settimeout(left)
        return left

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            self.left()
            view = view[self._sock.send(view):]

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self))

    def recv_into(self, buffer: Any) -> int:
        self.left()
        return self._sock.recv_into(buffer)  # TLS too: one read is bounded as a whole

    def close(self) -> None:
        self._sock.close()


class _DeadlineReader(io.RawIOBase):
    def __init__(self, sock: _Deadline) -> None:
        super().__init__()
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._sock.recv_into(buffer)


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP to the address that was checked (never the name again: DNS rebinding), the
    whole attempt, from the connection to the answer's last header, before `deadline`."""

    def __init__(self, host: str, address: str, port: int, deadline: float) -> None:
        # An explicit port: http.client would read an IPv6 address's last group as one.
        super().__init__(host, port, timeout=WEBHOOK_TIMEOUT_SECONDS)
        self._address = address
        self._deadline = deadline

    def _open(self) -> socket.socket:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no answer within {WEBHOOK_TIMEOUT_SECONDS} s")
        return socket.create_connection((self._address, self.port), left)

    def connect(self) -> None:
        self.sock = _Deadline(self._open(), self._deadline)


class _PinnedHTTPSConnection(_PinnedHTTPConnection, http.client.HTTPSConnection):
    """HTTPS to the address that was checked, still verifying the certificate for the name."""

    def __init__(self, host: str, address: str, port: int, deadline: float) -> None:
        http.client.HTTPSConnection.__init__(self, host, port, timeout=WEBHOOK_TIMEOUT_SECONDS,
                                             context=ssl.create_default_context())
        self._address = address
        self._deadline = deadline

    def connect(self) -> None:
        sock = self._open()
        try:
            timed = _Deadline(sock, self._deadline)
            timed.left()  # the handshake as a whole within what is left
            context: ssl.SSLContext = self._context  # type: ignore[attr-defined]
            sock = context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        self.sock = _Deadline(sock, self._deadline)


_PRINTABLE = "".join(map(chr, range(0x21, 0x7F)))


def host_header(parts: SplitResult, host: str) -> str:
    """The Host header of a webhook URL: its host (IDNA-encoded, an IPv6 address in
    brackets) and port, never the user name or password the URL may carry."""
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{parts.port}" if parts.port is not None else shown


def _post(url: str, address: str, body: bytes, headers: dict[str, str]) -> str | None:
    """POST `body` to `url`, connecting to `address`; None when answered 2xx, else why not.
    The attempt (connection, TLS, request, the status and headers of the answer; the
    body is not read) ends after WEBHOOK_TIMEOUT_SECONDS whatever the receiver does.
    A redirect is a failure too: following it would turn the POST into a GET."""
    parts = urlsplit(url)
    host = ascii_host(parts)
    deadline = time.monotonic() + WEBHOOK_TIMEOUT_SECONDS
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = _PinnedHTTPSConnection(host, address, parts.port or 443, deadline)
    else:
        connection = _PinnedHTTPConnection(host, address, parts.port or 80, deadline)
    path = quote((parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                 safe=_PRINTABLE)  # what is not ASCII, percent-encoded
    try:
        connection.request("POST", path, body, {**headers, "Host": host_header(parts, host)})
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException) as err:  # refused, timeouts, TLS, garbage
        return f"connection error: {err}"
    finally:
        connection.close()
    return None if 200 <= status < 300 else f"HTTP {status}"


def post_webhook(profiles: Profiles, profile: Profile, message: dict[str, Any],
                 delivery: str) -> None:
    """POST the payload, signed; a failure is counted (five in a row disable the webhook)
    and raised, so that RQ retries. The payload of each event is documented in the
    README ("Webhooks")."""
    payload = {key: message[key]
               for key in ("event", "game_id", "version", "seat", "prompt", "moves")}
    if message["event"] == "deadline_reminder":
        payload["due_at"] = message["due_at"]
    if message["event"] == "game_ended":
        payload["result"] = message["result"]  # the score sheet, as the player stream's
    payload.update({key: message[key] for key in ("from_seat", "from_name", "text")
                    if key in message})
    post_signed(profiles, profile, payload, delivery)


def post_signed(profiles: Profiles, profile: Profile, payload: dict[str, Any],
                delivery: str) -> None:
    """POST any payload to the player's webhook, signed (see `post_webhook`). Whatever
    ends an attempt short of a 2xx answer is a failure, counted: a refused or unreachable
    address, an error status, a timeout, an exception of ours, RQ's job timeout."""
    assert profile.webhook_url and profile.webhook_secret
    body = json.dumps(payload, separators=(",", ":")).encode()
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Meeple-Webhook/1",
        "X-Meeple-Signature": signature(profile.webhook_secret, body),
        "X-Meeple-Delivery": delivery,
        "X-Meeple-Timestamp": str(timestamp),
        "X-Meeple-Signature-V2": timed_signature(profile.webhook_secret, delivery, timestamp,
                                                 body),
    }
    try:
        address, refused = checked_address(profile.webhook_url)
        reason = (f"refused: {refused}" if address is None
                  else _post(profile.webhook_url, address, body, headers))
    except Exception as err:  # RQ's JobTimeoutException too, raised inside the job
        reason = f"error: {type(err).__name__}"
        _failed(profiles, profile, delivery, reason, error=repr(err))
        if isinstance(err, BaseTimeoutException):
            raise  # RQ's own: it records the job as timed out, then retries
        raise DeliveryFailed(f"webhook {delivery}: {reason}") from err
    if reason is not None:
        _failed(profiles, profile, delivery, reason)
        raise DeliveryFailed(f"webhook {delivery}: {reason}")
    profiles.webhook_succeeded(profile.player_id)


def _failed(profiles: Profiles, profile: Profile, delivery: str, reason: str,
            **detail: str) -> None:
    after = profiles.webhook_failed(profile.player_id, reason)
    log.warning("webhook failed", delivery=delivery, reason=reason,
                disabled=after.webhook_disabled_reason is not None, **detail)
