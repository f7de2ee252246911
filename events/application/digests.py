"""What waits for a player's daily digest: one Redis list per player of the notices held
back (`{prefix}:digest:{player_id}`, JSON items, oldest first).

Items are removed only after the digest that carries them was delivered, so a failed
delivery (retried by RQ) loses nothing.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from rq import Queue
from rq.job import Job

from events.application.dispatch import notice_retry

SEND_DIGEST = "workers.digest.send_digest"
# The notices a digest carries in place of a message each (never deadline reminders).
HELD_EVENTS = ("your_turn", "message", "game_ended")
DEFAULT_DIGEST_HOUR = 7
# A held notice is kept this long at most, whatever happens to the digest job.
HELD_TTL_SECONDS = 14 * 86400


def next_digest_at(now: datetime, hour: int) -> datetime:
    """The first `hour`:00 UTC strictly after `now`."""
    at = now.astimezone(UTC).replace(hour=hour, minute=0, second=0, microsecond=0)
    return at if at > now else at + timedelta(days=1)


# The most notices held for one player's digest: the latest are kept, the rest counted.
MAX_HELD = 200


class Digests:
    def __init__(self, client: redis.Redis, prefix: str = "meeple") -> None:
        self._redis = client
        self._prefix = prefix

    def _key(self, player_id: str) -> str:
        return f"{self._prefix}:digest:{player_id}"

    def _dropped_key(self, player_id: str) -> str:
        return f"{self._prefix}:digest-dropped:{player_id}"

    def hold(self, player_id: str, item: dict[str, Any]) -> None:
        """Keep `item`; only the latest MAX_HELD are kept (busy tables' talk would otherwise
        make one digest of any size), the older ones counted."""
        key, dropped = self._key(player_id), self._dropped_key(player_id)
        pipe = self._redis.pipeline()
        pipe.rpush(key, json.dumps(item, separators=(",", ":")))
        pipe.ltrim(key, -MAX_HELD, -1)
        pipe.expire(key, HELD_TTL_SECONDS)
        length = int(pipe.execute()[0])
        if length > MAX_HELD:
            pipe.incrby(dropped, length - MAX_HELD)
            pipe.expire(dropped, HELD_TTL_SECONDS)
            pipe.execute()

    def held(self, player_id: str) -> list[dict[str, Any]]:
        return [json.loads(raw) for raw in self._redis.lrange(self._key(player_id), 0, -1)]

    def dropped(self, player_id: str) -> int:
        """How many held items were let go since the last digest (past MAX_HELD)."""
        return int(self._redis.get(self._dropped_key(player_id)) or 0)

    def release(self, player_id: str, carried: list[dict[str, Any]]) -> None:
        """Drop the items a delivered digest carried, each by its value: items held while
        it was sent stay (on a full list they pushed carried ones out, so a count of the
        oldest would drop them unsent)."""
        key = self._key(player_id)
        pipe = self._redis.pipeline()
        for item in carried:
            pipe.lrem(key, 1, json.dumps(item, separators=(",", ":")))
        pipe.delete(self._dropped_key(player_id))
        pipe.execute()


def digest_hour() -> int:
    """MEEPLE_DIGEST_HOUR (0-23, UTC), else 7."""
    raw = os.environ.get("MEEPLE_DIGEST_HOUR", "").strip()
    hour = int(raw) if raw.isdigit() else DEFAULT_DIGEST_HOUR
    return hour if 0 <= hour <= 23 else DEFAULT_DIGEST_HOUR


def hold_for_digest(client: redis.Redis, player_id: str, message: dict[str, Any]) -> str:
    """Keep `message` for the player's next digest, and make sure that digest is scheduled."""
    kept = ("event", "game_id", "version", "seat", "title", "prompt", "result",
            "from_seat", "from_name", "text")
    Digests(client).hold(player_id, {key: message[key] for key in kept if key in message})
    when = next_digest_at(datetime.now(UTC), digest_hour())
    day = when.date().isoformat()
    job_id = f"digest-{player_id}-{day}"
    if not Job.exists(job_id, connection=client):
        Queue("notify", connection=client).enqueue_at(
            when, SEND_DIGEST, player_id, day, job_id=job_id, result_ttl=60,
            failure_ttl=86400, retry=notice_retry())
    return f"held for the digest of {day}"
