"""Per game type ratings (openskill, Plackett-Luce) and the leaderboard read model.

Ratings are computed once per finished game by the scoring job and recorded in
the game's `GameScored` event with the values before and after, so setting
them again from that event is idempotent and the leaderboard can be rebuilt.
"""

from __future__ import annotations

from typing import Any

import redis
from openskill.models import PlackettLuce

from events.domain.table import Table
from games.bots import level_of_player

_MODEL = PlackettLuce()


class Ratings:
    def __init__(self, client: redis.Redis, prefix: str = "meeple") -> None:
        self._redis = client
        self._base = f"{prefix}:{{ratings}}"

    def _hash(self, game_type: str) -> str:
        return f"{self._base}:{game_type}"

    def _board(self, game_type: str) -> str:
        return f"{self._base}:{game_type}:board"

    def lock(self, game_type: str) -> Any:
        """Ratings of one game type change one game at a time."""
        return self._redis.lock(f"{self._base}:{game_type}:lock", timeout=30, blocking_timeout=30)

    def current(self, game_type: str, player_id: str) -> tuple[float, float]:
        raw = self._redis.hget(self._hash(game_type), player_id)
        if raw is None:
            default = _MODEL.rating()
            return default.mu, default.sigma
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        mu, sigma = text.split(",")
        return float(mu), float(sigma)

    def compute(self, table: Table) -> list[dict[str, Any]]:
        """New ratings for the players of a finished table; [] when it is not rated.

        Each bot level is rated as one player (its player id, "bot:greedy"), so the
        leaderboard lists bots by level; a level on several seats of one table is left out
        of that table's rating. Hot-seat games (one person on several seats) are not rated.
        """
        assert table.result is not None
        people = [s.player_id for s in table.seats if not s.bot]
        if len(set(people)) != len(people):
            return []
        ids = [s.player_id for s in table.seats]
        rated = [s for s in table.seats if ids.count(s.player_id) == 1]
        if len(rated) < 2:
            return []
        rank_of = {row["seat"]: row["rank"] for row in table.result["seats"]}
        before = [self.current(table.type, s.player_id) for s in rated]
        teams = [[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
        after = _MODEL.rate(teams, ranks=[rank_of[s.seat] for s in rated])
        return [
            {
                "seat": s.seat,
                "player_id": s.player_id,
                "before": {"mu": b[0], "sigma": b[1]},
                "after": {"mu": a[0].mu, "sigma": a[0].sigma},
            }
            for s, b, a in zip(rated, before, after, strict=True)
        ]

    def apply(self, game_type: str, ratings: list[dict[str, Any]]) -> None:
        pipe = self._redis.pipeline()
        for row in ratings:
            mu, sigma = row["after"]["mu"], row["after"]["sigma"]
            pipe.hset(self._hash(game_type), row["player_id"], f"{mu},{sigma}")
            pipe.zadd(self._board(game_type), {row["player_id"]: mu - 3 * sigma})
        pipe.execute()

    def leaderboard(self, game_type: str, limit: int = 20) -> list[dict[str, Any]]:
        rows: list[tuple[bytes, float]] = self._redis.zrevrange(  # type: ignore[assignment]
            self._board(game_type), 0, limit - 1, withscores=True
        )
        return [_row(i + 1, pid.decode(), float(score)) for i, (pid, score) in enumerate(rows)]


def _row(rank: int, player_id: str, rating: float) -> dict[str, Any]:
    level = level_of_player(player_id)
    return {"rank": rank, "player_id": player_id, "rating": round(rating, 3),
            "bot": level is not None, "level": None if level is None else level.id}
