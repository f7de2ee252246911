"""Player profiles: how a player wants to hear that a game awaits them (email, webhook).

Pure data access on Redis, next to the players (`{prefix}:profile:{player_id}`, a hash).
The webhook secret signs deliveries, so it is stored as is; the API shows it only once.

An email address is used only once confirmed: a new address is `email_pending` and gets
one message, a code, until the player enters it; `email` is always a confirmed address,
and no two players hold the same one (whoever confirms first).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Any

import redis

from events.domain.envelope import now_iso
from events.exceptions import EmailTaken, QuotaExceeded, WrongCode

NOTIFY_CHOICES = ("email", "webhook", "none")
DIGEST_CHOICES = ("each", "daily")
# After this many consecutive failed deliveries a webhook is disabled.
WEBHOOK_MAX_FAILURES = 5
# A sent notification's delivery id is remembered this long, so a duplicate job sends nothing.
SENT_TTL_SECONDS = 30 * 86400
# A confirmation code: 8 digits, good for a day and for 5 wrong guesses (so a guess
# succeeds once in 20 million); at most 5 codes a player and 3 an address a day, so
# nobody can make Meeple mail an address over and over.
CODE_DIGITS = 8
CODE_TTL_SECONDS = 86400
CODE_MAX_ATTEMPTS = 5
CODES_PER_PLAYER_PER_DAY = 5
CODES_PER_ADDRESS_PER_DAY = 3


PENDING_FIELDS = ("email_pending", "email_code", "email_code_expires", "email_code_attempts")


def normal_address(address: str) -> str:
    """One spelling per mailbox, for the index: the case of an address is not its owner's."""
    return address.strip().lower()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _text(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class Profile:
    player_id: str
    email: str | None = None
    email_pending: str | None = None
    webhook_url: str | None = None
    webhook_secret: str | None = None
    notify: str = "none"
    digest: str = "each"
    webhook_failures: int = 0
    webhook_disabled_reason: str | None = None

    def public(self) -> dict[str, Any]:
        """What the player may see again: everything but the secret."""
        return {"email": self.email, "email_pending": self.email_pending,
                "webhook_url": self.webhook_url, "notify": self.notify,
                "digest": self.digest, "webhook_disabled_reason": self.webhook_disabled_reason}


class Profiles:
    def __init__(self, client: redis.Redis, prefix: str = "meeple") -> None:
        self._redis = client
        self._prefix = prefix

    def _key(self, player_id: str) -> str:
        return f"{self._prefix}:profile:{player_id}"

    def _sent_key(self, delivery_id: str) -> str:
        return f"{self._prefix}:notified:{delivery_id}"

    def _email_key(self) -> str:
        # email (lower case) -> player id: whom an emailed reply without a valid token is
        # from, so that it is answered only when it comes from a player's own address.
        return f"{self._prefix}:profile-email"

    def _codes_key(self, kind: str, who: str) -> str:
        return f"{self._prefix}:email-codes:{kind}:{who}:{time.strftime('%Y%m%d', time.gmtime())}"

    def player_by_email(self, address: str) -> str | None:
        return _text(self._redis.hget(self._email_key(), normal_address(address)))

    def get(self, player_id: str) -> Profile:
        data = {_text(k): _text(v) for k, v in self._redis.hgetall(self._key(player_id)).items()}
        return Profile(
            player_id=player_id,
            email=data.get("email") or None,
            email_pending=data.get("email_pending") or None,
            webhook_url=data.get("webhook_url") or None,
            webhook_secret=data.get("webhook_secret") or None,
            notify=data.get("notify") or "none",
            digest=data.get("digest") or "each",
            webhook_failures=int(data.get("webhook_failures") or 0),
            webhook_disabled_reason=data.get("webhook_disabled_reason") or None,
        )

    def notify_setting(self, player_id: str) -> str:
        """Just the channel (one round trip, for the dispatcher on every turn change)."""
        return _text(self._redis.hget(self._key(player_id), "notify")) or "none"

    def update(self, player_id: str, changes: dict[str, Any]) -> tuple[Profile, str | None]:
        """Apply `changes` (None clears a field). Setting a webhook URL makes a new signing
        secret, returned here only, and re-enables the webhook. An address is not set here
        but asked for (`request_email`); `email: None` forgets both addresses."""
        key = self._key(player_id)
        to_set: dict[str, str] = {}
        to_clear: list[str] = []
        secret: str | None = None
        if "email" in changes and changes["email"] is not None:
            raise ValueError("an email address is set by request_email and confirm_email")
        for name in ("notify", "digest"):
            if name in changes:
                if changes[name] is None:
                    to_clear.append(name)
                else:
                    to_set[name] = str(changes[name])
        if "webhook_url" in changes:
            to_clear += ["webhook_failures", "webhook_disabled_reason"]
            if changes["webhook_url"] is None:
                to_clear += ["webhook_url", "webhook_secret"]
            else:
                secret = "whsec_" + secrets.token_urlsafe(32)
                to_set.update(webhook_url=str(changes["webhook_url"]), webhook_secret=secret)
        pipe = self._redis.pipeline()
        if "email" in changes:
            self._forget_email(pipe, player_id)
            to_clear += ["email", *PENDING_FIELDS]
        if to_clear:
            pipe.hdel(key, *to_clear)
        if to_set:
            pipe.hset(key, mapping={name: value for name, value in to_set.items()})
        pipe.execute()
        return self.get(player_id), secret

    def _forget_email(self, pipe: Any, player_id: str) -> None:
        old = _text(self._redis.hget(self._key(player_id), "email"))
        if old and self.player_by_email(old) == player_id:
            pipe.hdel(self._email_key(), normal_address(old))

    # --- confirming an address ----------------------------------------------------------------

    def request_email(self, player_id: str, address: str) -> str | None:
        """Make `address` the player's pending address and return the code to send to it
        (None if it is already their confirmed address: nothing to confirm). The confirmed
        address, if any, stays in use until the new one is confirmed."""
        address = address.strip()
        owner = self.player_by_email(address)
        if owner == player_id:
            self._redis.hdel(self._key(player_id), *PENDING_FIELDS)
            return None
        if owner is not None:
            raise EmailTaken("another player has confirmed this address")
        self._count_code("player", player_id, CODES_PER_PLAYER_PER_DAY)
        self._count_code("address", _digest(normal_address(address)), CODES_PER_ADDRESS_PER_DAY)
        code = f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"
        self._redis.hset(self._key(player_id), mapping={
            "email_pending": address, "email_code": _digest(code),
            "email_code_expires": str(int(time.time()) + CODE_TTL_SECONDS),
            "email_code_attempts": "0",
        })
        return code

    def _count_code(self, kind: str, who: str, limit: int) -> None:
        key = self._codes_key(kind, who)
        pipe = self._redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, 86400)
        count, _ = pipe.execute()
        if int(count) > limit:
            raise QuotaExceeded(f"at most {limit} confirmation codes a day "
                                f"{'for one player' if kind == 'player' else 'to one address'}")

    def confirm_email(self, player_id: str, code: str) -> Profile:
        """Confirm the pending address with the code that was sent to it."""
        key = self._key(player_id)
        fields = dict(zip(PENDING_FIELDS, (_text(value) for value in
                                           self._redis.hmget(key, *PENDING_FIELDS)),
                          strict=True))
        address, digest = fields["email_pending"], fields["email_code"]
        if not address or not digest:
            raise WrongCode("no address is waiting to be confirmed")
        if int(fields["email_code_expires"] or 0) < time.time():
            raise WrongCode("the code has expired: set the address again for a new one")
        if int(self._redis.hincrby(key, "email_code_attempts", 1)) > CODE_MAX_ATTEMPTS:
            raise WrongCode("too many wrong codes: set the address again for a new one")
        if not hmac.compare_digest(_digest(code.strip()), digest):
            raise WrongCode("that is not the code sent to the address")
        # HSETNX: of two players confirming one address at once, exactly one gets it.
        claimed = self._redis.hsetnx(self._email_key(), normal_address(address), player_id)
        if not claimed and self.player_by_email(address) != player_id:
            raise EmailTaken("another player has confirmed this address")
        pipe = self._redis.pipeline()
        self._forget_email(pipe, player_id)
        pipe.hset(self._email_key(), normal_address(address), player_id)
        pipe.hset(key, "email", address)
        pipe.hdel(key, *PENDING_FIELDS)
        pipe.execute()
        return self.get(player_id)

    def webhook_failed(self, player_id: str, reason: str) -> Profile:
        """Count a failed delivery; the fifth in a row disables the webhook with `reason`."""
        key = self._key(player_id)
        failures = int(self._redis.hincrby(key, "webhook_failures", 1))
        if failures >= WEBHOOK_MAX_FAILURES:
            self._redis.hset(key, "webhook_disabled_reason",
                             f"{reason} (at {now_iso()}, after {failures} failed deliveries)")
        return self.get(player_id)

    def webhook_succeeded(self, player_id: str) -> None:
        self._redis.hdel(self._key(player_id), "webhook_failures")

    def already_sent(self, delivery_id: str) -> bool:
        return bool(self._redis.exists(self._sent_key(delivery_id)))

    def mark_sent(self, delivery_id: str) -> None:
        self._redis.set(self._sent_key(delivery_id), 1, ex=SENT_TTL_SECONDS)
