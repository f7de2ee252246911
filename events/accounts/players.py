"""Player accounts and API keys. A key is shown once and stored only as its SHA-256."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass

import redis
from cryptography.fernet import Fernet, InvalidToken

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


# A replaced key's new key, kept (encrypted with the old key) for a retry of the request
# that replaced it whose answer was lost: without it, that player would be locked out.
ROTATION_REPLAY_SECONDS = 600

# KEYS: the player's hash, the old key's entry, the new key's entry, the replay entry.
# ARGV: player id, new digest, encrypted new key, replay seconds.
_ROTATE = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[1], 'key_digest', ARGV[2])
if KEYS[4] then redis.call('SET', KEYS[4], ARGV[3], 'EX', ARGV[4]) end
return 1
"""


class Players:
    def __init__(self, client: redis.Redis, prefix: str = "meeple") -> None:
        self._redis = client
        self._prefix = prefix
        # Names never change: a player read once is kept. Keys are looked up every time, so
        # a replaced key stops working at once in every process.
        self._known: dict[str, Player] = {}
        self._rotate = client.register_script(_ROTATE)

    def _player_key(self, player_id: str) -> str:
        return f"{self._prefix}:player:{player_id}"

    def _apikey_key(self, digest: str) -> str:
        return f"{self._prefix}:apikey:{digest}"

    def _replay_key(self, old_key: str, idempotency_key: str) -> str:
        request = hashlib.sha256(idempotency_key.encode()).hexdigest()
        return f"{self._prefix}:apikey-replaced:{_key_digest(old_key)}:{request}"

    def register(self, name: str) -> tuple[Player, str]:
        """A new player and their API key (returned only here)."""
        player = Player(id="p_" + secrets.token_hex(8), name=name, created_at=now_iso())
        api_key = new_api_key()
        pipe = self._redis.pipeline()
        pipe.hset(self._player_key(player.id), mapping={
            "name": player.name, "created_at": player.created_at,
            "key_digest": _key_digest(api_key),
        })
        pipe.set(self._apikey_key(_key_digest(api_key)), player.id)
        pipe.execute()
        return player, api_key

    def replace_key(self, player: Player, old_key: str,
                    idempotency_key: str | None = None) -> str:
        """A new API key for `player`, whose `old_key` stops working at once. With an
        idempotency key, a retry sent with the old key gets the same new key
        (`replayed_key`) for ROTATION_REPLAY_SECONDS."""
        new_key = new_api_key()
        keys = [self._player_key(player.id), self._apikey_key(_key_digest(old_key)),
                self._apikey_key(_key_digest(new_key))]
        sealed = b""
        if idempotency_key is not None:
            keys.append(self._replay_key(old_key, idempotency_key))
            sealed = _sealer(old_key).encrypt(new_key.encode())
        done = self._rotate(keys=keys, args=[player.id, _key_digest(new_key), sealed,
                                              ROTATION_REPLAY_SECONDS])
        if not done:  # replaced meanwhile by another request
            raise Unauthorized("this API key has just been replaced")
        return new_key

    def replayed_key(self, old_key: str, idempotency_key: str) -> tuple[Player, str] | None:
        """The player and new key a request with this old key and idempotency key made, if
        one did in the last ROTATION_REPLAY_SECONDS."""
        sealed = self._redis.get(self._replay_key(old_key, idempotency_key))
        if sealed is None:
            return None
        try:
            new_key = _sealer(old_key).decrypt(sealed).decode()
        except InvalidToken:
            return None
        player_id = self._redis.get(self._apikey_key(_key_digest(new_key)))
        if player_id is None:  # replaced again since
            return None
        return self.get(_text(player_id)), new_key

    def get(self, player_id: str) -> Player:
        data = self._redis.hgetall(self._player_key(player_id))
        if not data:
            raise NotFound(f"no player {player_id}")
        return Player(player_id, _text(data[b"name"]), _text(data[b"created_at"]))

    def authenticate(self, api_key: str) -> Player:
        player_id = self._redis.get(self._apikey_key(_key_digest(api_key)))
        if player_id is None:
            raise Unauthorized("unknown API key")
        known = self._known.get(_text(player_id))
        if known is not None:
            return known
        player = self.get(_text(player_id))
        if len(self._known) > 10_000:
            self._known.clear()  # crude bound; entries are cheap to re-read
        self._known[player.id] = player
        return player


def new_api_key() -> str:
    return "mk_" + secrets.token_urlsafe(32)


def _sealer(api_key: str) -> Fernet:
    """Encryption under a key only the holder of `api_key` can give (we keep its digest)."""
    secret = hashlib.sha256(b"meeple api key replacement:" + api_key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(secret))
