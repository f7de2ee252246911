"""Player profiles: how a player wants to hear that a game awaits them (email, webhook).

Pure data access on Redis, next to the players (`{prefix}:profile:{player_id}`, a hash).
The webhook secret signs deliveries, so it is stored as is; the API shows it only once.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import redis

from events.domain.envelope import now_iso

NOTIFY_CHOICES = ("email", "webhook", "none")
DIGEST_CHOICES = ("each", "daily")
# After this many consecutive failed deliveries a webhook is disabled.
WEBHOOK_MAX_FAILURES = 5
# A sent notification's delivery id is remembered this long, so a duplicate job sends nothing.
SENT_TTL_SECONDS = 30 * 86400


def _text(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class Profile:
    player_id: str
    email: str | None = None
    webhook_url: str | None = None
    webhook_secret: str | None = None
    notify: str = "none"
    digest: str = "each"
    webhook_failures: int = 0
    webhook_disabled_reason: str | None = None

    def public(self) -> dict[str, Any]:
        """What the player may see again: everything but the secret."""
        return {"email": self.email, "webhook_url": self.webhook_url, "notify": self.notify,
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

    def player_by_email(self, address: str) -> str | None:
        return _text(self._redis.hget(self._email_key(), address.strip().lower()))

    def get(self, player_id: str) -> Profile:
        data = {_text(k): _text(v) for k, v in self._redis.hgetall(self._key(player_id)).items()}
        return Profile(
            player_id=player_id,
            email=data.get("email") or None,
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
        secret, returned here only, and re-enables the webhook."""
        key = self._key(player_id)
        to_set: dict[str, str] = {}
        to_clear: list[str] = []
        secret: str | None = None
        for name in ("email", "notify", "digest"):
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
            self._reindex_email(pipe, player_id, changes["email"])
        if to_clear:
            pipe.hdel(key, *to_clear)
        if to_set:
            pipe.hset(key, mapping={name: value for name, value in to_set.items()})
        pipe.execute()
        return self.get(player_id), secret

    def _reindex_email(self, pipe: Any, player_id: str, email: str | None) -> None:
        old = _text(self._redis.hget(self._key(player_id), "email"))
        if old and self.player_by_email(old) == player_id:
            pipe.hdel(self._email_key(), old.lower())
        if email:
            pipe.hset(self._email_key(), str(email).strip().lower(), player_id)

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
