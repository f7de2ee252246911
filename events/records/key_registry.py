"""The service's first signing key, named in the control store: every API host must sign
with the same keys (one keys directory, copied to each), so a host that has none refuses to
make a key of its own once another host has one (events.records.keys.KeyRegistry)."""

from __future__ import annotations

import redis


class RedisKeyRegistry:
    def __init__(self, client: redis.Redis, prefix: str = "meeple") -> None:
        self._redis = client
        self._key = f"{prefix}:keys:first"

    def first(self) -> str | None:
        found = self._redis.get(self._key)
        return found.decode() if isinstance(found, bytes) else found

    def claim(self, key_id: str) -> bool:
        self._redis.set(self._key, key_id, nx=True)
        return self.first() == key_id

    def replace(self, key_id: str) -> None:
        self._redis.set(self._key, key_id)
