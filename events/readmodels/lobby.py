"""The lobby: a cross-game read model of game summaries with filtered, paginated listing.

It is derived from the game streams only (see `Meeple.rebuild_lobby`) and updated
after each append. Updates carry the game's version and an older one never
overwrites a newer one, so replays and races are harmless.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import redis

from events.domain.table import Table

# KEYS: summary hash, then the index sorted sets to add to (first those scored by creation
# time, then those scored by last change), then those to remove from.
# ARGV: game id, version, summary json, creation score, number of creation-scored add keys,
# last-change score, number of change-scored add keys.
# A summary of the same version is written again (it is the same summary), so a rebuild
# also fills indexes added since it was first written.
_UPDATE = """
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local old = cjson.decode(current)
  if tonumber(old['version']) > tonumber(ARGV[2]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
local adds = tonumber(ARGV[5])
local changed = tonumber(ARGV[7])
for i = 2, #KEYS do
  if i <= adds + 1 then
    redis.call('ZADD', KEYS[i], ARGV[4], ARGV[1])
  elseif i <= adds + changed + 1 then
    redis.call('ZADD', KEYS[i], ARGV[6], ARGV[1])
  else
    redis.call('ZREM', KEYS[i], ARGV[1])
  end
end
return 1
"""

STATUSES = ("open", "active", "ended")


@dataclass(frozen=True)
class Page:
    items: list[dict[str, Any]]
    total: int
    offset: int
    limit: int


class Lobby:
    def __init__(self, client: redis.Redis, prefix: str = "meeple") -> None:
        self._redis = client
        self._base = f"{prefix}:{{lobby}}"  # one hash tag: all lobby keys share a cluster slot
        self._update = client.register_script(_UPDATE)

    def _index(self, *parts: str) -> str:
        return ":".join((self._base, "idx", *(part for part in parts if part)))

    def record(self, summary: dict[str, Any]) -> bool:
        """Store a game's summary; False when a newer one is already stored. Every game is in
        the indexes the server's own jobs read ("all", "status", "type"); the lists people
        read come from the "listed" (public games) and "shown" ones (a player's public
        games), and a player's own from "player": a private game is listed for its players
        only."""
        game_type, status = summary["type"], summary["status"]
        players = {s["player_id"] for s in summary["seats"]}
        awaited = awaited_players(summary)
        public = summary.get("public", True)
        removes: list[str] = []
        families = ("", "listed") if public else ("",)
        adds = [index for family in families for index in (
            self._index(family, "all"), self._index(family, "status", status),
            self._index(family, "type", game_type),
            self._index(family, "type", game_type, "status", status))]
        families = ("player", "shown") if public else ("player",)
        for p in players:  # a player's games by type and status: a bounded read per page
            for family in families:  # "shown": those anyone may see listed for that player
                adds += [self._index(family, p), self._index(family, p, "status", status),
                         self._index(family, p, "type", game_type),
                         self._index(family, p, "type", game_type, "status", status)]
        # The inbox: each player's games by last change, and those waiting for them.
        changed = [self._index("inbox", p) for p in players]
        changed += [self._index("awaiting", p) for p in awaited]
        removes += [self._index("awaiting", p) for p in players - awaited]
        for other in STATUSES:
            if other != status:
                for family in ("", "listed"):
                    removes += [self._index(family, "status", other),
                                self._index(family, "type", game_type, "status", other)]
                for p in players:
                    for family in ("player", "shown"):
                        removes += [self._index(family, p, "status", other),
                                    self._index(family, p, "type", game_type, "status", other)]
        keys = [f"{self._base}:summary", *adds, *changed, *removes]
        args = [summary["id"], summary["version"], json.dumps(summary),
                _timestamp(summary["created_at"]), len(adds),
                _timestamp(summary["updated_at"]), len(changed)]
        return bool(self._update(keys=keys, args=args))

    def forget(self, game_id: str) -> None:
        """Take a game out of the lobby (a table that expired): its summary and every index
        it may be in."""
        known = self.get(game_id)
        keys = [self._index("all"), self._index("listed", "all")]
        if known is not None:
            game_type = known["type"]
            people = {s["player_id"] for s in known["seats"]}
            for status in STATUSES:
                for family in ("", "listed"):
                    keys += [self._index(family, "status", status),
                             self._index(family, "type", game_type, "status", status)]
                for family in ("player", "shown"):
                    keys += [self._index(family, p, "status", status) for p in people]
                    keys += [self._index(family, p, "type", game_type, "status", status)
                             for p in people]
            keys += [self._index("type", game_type), self._index("listed", "type", game_type)]
            for p in people:
                keys += [self._index(kind, p) for kind in ("player", "shown", "inbox",
                                                            "awaiting")]
                keys += [self._index(family, p, "type", game_type)
                         for family in ("player", "shown")]
        else:
            keys += [self._index(family, "status", status) for status in STATUSES
                     for family in ("", "listed")]
        pipe = self._redis.pipeline()
        for key in keys:
            pipe.zrem(key, game_id)
        pipe.hdel(f"{self._base}:summary", game_id)
        pipe.execute()

    def open_tables(self, player_id: str) -> int:
        """How many open tables the player sits at."""
        return int(self._redis.zcard(self._index("player", player_id, "status", "open")))

    def statuses(self, game_ids: list[str]) -> list[str | None]:
        """Each game's status as the lobby shows it (None: not in the lobby)."""
        if not game_ids:
            return []
        raws = self._redis.hmget(f"{self._base}:summary", game_ids)
        return [json.loads(raw)["status"] if raw else None for raw in raws]

    def open_since_before(self, cutoff: float, limit: int) -> list[str]:
        """Up to `limit` ids of open tables created before `cutoff` (a Unix time), oldest
        first: the candidates for expiry (their last change is checked by the caller)."""
        ids = self._redis.zrangebyscore(self._index("status", "open"), "-inf", cutoff,
                                        start=0, num=limit)
        return [raw.decode() if isinstance(raw, bytes) else str(raw) for raw in ids]

    def get(self, game_id: str) -> dict[str, Any] | None:
        raw = self._redis.hget(f"{self._base}:summary", game_id)
        return json.loads(raw) if raw else None

    def page(
        self,
        *,
        game_type: str | None = None,
        status: str | None = None,
        player_id: str | None = None,
        offset: int = 0,
        limit: int = 20,
        private_too: bool = False,
        everything: bool = False,
    ) -> Page:
        """Newest first. Public games only, but for a player's own list (`private_too`,
        with `player_id`: the player's private games as well) and the server's own jobs
        (`everything`)."""
        if player_id is not None:
            return self._list_for_player(player_id, game_type, status, offset, limit,
                                         "player" if private_too else "shown")
        family = "" if everything else "listed"
        if game_type and status:
            index = self._index(family, "type", game_type, "status", status)
        elif game_type:
            index = self._index(family, "type", game_type)
        elif status:
            index = self._index(family, "status", status)
        else:
            index = self._index(family, "all")
        total = int(self._redis.zcard(index))
        ids = self._redis.zrevrange(index, offset, offset + limit - 1)
        return Page(self._summaries(ids), total, offset, limit)

    def game_ids(self, status: str, limit: int) -> list[str]:
        """The ids of the newest `limit` games of `status` (by creation time), without
        reading their summaries."""
        ids = self._redis.zrevrange(self._index("status", status), 0, limit - 1)
        return [raw.decode() if isinstance(raw, bytes) else str(raw) for raw in ids]

    def _list_for_player(
        self, player_id: str, game_type: str | None, status: str | None, offset: int, limit: int,
        family: str,
    ) -> Page:
        parts = [family, player_id]
        if game_type:
            parts += ["type", game_type]
        if status:
            parts += ["status", status]
        index = self._index(*parts)
        total = int(self._redis.zcard(index))
        ids = self._redis.zrevrange(index, offset, offset + limit - 1)
        return Page(self._summaries(ids), total, offset, limit)

    def _summaries(self, ids: Any) -> list[dict[str, Any]]:
        if not ids:
            return []
        raws = self._redis.hmget(f"{self._base}:summary", ids)
        return [json.loads(raw) for raw in raws if raw]

    def inbox(self, player_id: str, *, awaiting: bool = False, offset: int = 0,
              limit: int = 20) -> Page:
        """A player's games, the most recently changed first (a change: status, seats or whose
        turn it is); with `awaiting`, only those where one of the player's seats must act."""
        index = self._index("awaiting" if awaiting else "inbox", player_id)
        total = int(self._redis.zcard(index))
        ids = self._redis.zrevrange(index, offset, offset + limit - 1)
        return Page(self._summaries(ids), total, offset, limit)


def summary(table: Table) -> dict[str, Any]:
    """The public, secret-free description of a table (lobby entries, list pages)."""
    return {
        "id": table.id,
        "type": table.type,
        "status": table.status.value,
        "version": table.version,
        "seat_count": table.seat_count,
        "seats": [
            {"seat": s.seat, "player_id": s.player_id, "name": s.name, "bot": s.bot,
             "level": None if (level := table.bot_level(s.seat)) is None else level.id,
             "resigned": s.seat in table.resigned}
            for s in table.seats
        ],
        "actors": table.actors(),
        "public": table.public,
        "created_at": table.created_at,
        "updated_at": table.updated_at,
    }


def awaited_players(summary: dict[str, Any]) -> set[str]:
    """The players (ids) with a seat among the summary's actors, but for resigned seats
    (the bot plays those)."""
    actors = set(summary["actors"])
    return {s["player_id"] for s in summary["seats"]
            if s["seat"] in actors and not s.get("resigned")}


def _timestamp(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
