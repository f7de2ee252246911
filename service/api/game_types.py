"""The games Meeple hosts, and their leaderboards."""

from __future__ import annotations

from typing import Any

from events.readmodels.ratings import Ratings
from games.contract import Game
from service.api import Blueprint
from service.auth import meeple
from service.schemas import GameTypeOut, LeaderboardOut

blp = Blueprint("game_types", __name__, url_prefix="/v1/game-types", description="Game types")


def describe(game: Game) -> dict[str, Any]:
    options = {
        name: {"type": type(field).__name__, "required": field.required}
        for name, field in game.options().fields.items()
    }
    return {"id": game.id, "title": game.title, "min_players": game.min_players,
            "max_players": game.max_players, "rules_version": game.rules_version,
            "options": options}


@blp.route("")
@blp.response(200, GameTypeOut(many=True))
def list_game_types() -> list[dict[str, Any]]:
    """Every game type, with its player counts and options."""
    return [describe(game) for game in meeple().game_types()]


@blp.route("/<game_type>")
@blp.response(200, GameTypeOut)
def get_game_type(game_type: str) -> dict[str, Any]:
    """One game type."""
    return describe(meeple().game_type(game_type))


@blp.route("/<game_type>/leaderboard")
@blp.response(200, LeaderboardOut)
def leaderboard(game_type: str) -> dict[str, Any]:
    """The best rated players of a game type (openskill ordinal, mu - 3 sigma)."""
    game = meeple().game_type(game_type)
    return {"game_type": game.id, "rows": Ratings(meeple().redis).leaderboard(game.id)}
