"""Player accounts and API keys. A key is shown once and stored only as its SHA-256."""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

import redis

from events.domain.envelope import now_iso
from events.exceptions import NotFound, Unauthorized

BOT_PREFIX = "bot:"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    created_at: str = ""

    @property
    def is_bot(self) -> bool:
        return self.id.startswith(BOT_PREFIX)


def bot_player(seat: int, policy: str = "random") -> Player:
    return Player(id=f"{BOT_PREFIX}{policy}", name=f"Bot {seat} ({policy})")


def _key_digest(api_key: str) -> str:
    # API keys are 256-bit random strings, so one SHA-256 is enough (no slow KDF needed).
    return hashlib.sha256(api_key.encode()).hexdigest()


# An authenticated key is remembered this long per process, saving two round trips per
# request. Keys cannot be revoked yet; when they can, revoking must outlast this.
AUTH_CACHE_SECONDS = 60.0


class Players:
    def __init__(self, client: redis.Redis, prefix: str = "meeple") -> None:
        self._redis = client
        self._prefix = prefix
        self._known: dict[str, tuple[Player, float]] = {}  # key digest -> (player, expiry)

    def _player_key(self, player_id: str) -> str:
        return f"{self._prefix}:player:{player_id}"

    def _apikey_key(self, digest: str) -> str:
        return f"{self._prefix}:apikey:{digest}"

    def register(self, name: str) -> tuple[Player, str]:
        """A new player and their API key (returned only here)."""
        player = Player(id="p_" + secrets.token_hex(8), name=name, created_at=now_iso())
        api_key = "mk_" + secrets.token_urlsafe(32)
        pipe = self._redis.pipeline()
        pipe.hset(self._player_key(player.id), mapping={
            "name": player.name, "created_at": player.created_at,
            "key_digest": _key_digest(api_key),
        })
        pipe.set(self._apikey_key(_key_digest(api_key)), player.id)
        pipe.execute()
        return player, api_key

    def get(self, player_id: str) -> Player:
        data = self._redis.hgetall(self._player_key(player_id))
        if not data:
            raise NotFound(f"no player {player_id}")
        return Player(player_id, _text(data[b"name"]), _text(data[b"created_at"]))

    def authenticate(self, api_key: str) -> Player:
        digest = _key_digest(api_key)
        known = self._known.get(digest)
        if known is not None and known[1] > time.monotonic():
            return known[0]
        player_id = self._redis.get(self._apikey_key(digest))
        if player_id is None:
            raise Unauthorized("unknown API key")
        player = self.get(_text(player_id))
        if len(self._known) > 10_000:
            self._known.clear()  # crude bound; entries are cheap to re-read
        self._known[digest] = (player, time.monotonic() + AUTH_CACHE_SECONDS)
        return player
