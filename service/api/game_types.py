"""The games Meeple hosts, and their leaderboards."""

from __future__ import annotations

from typing import Any

from events.readmodels.ratings import Ratings
from games.contract import Game
from games.registry import RULES
from games.schemas import move_schema, view_schema
from service.api import Blueprint
from service.middleware.auth import meeple
from service.openapi.schemas import GameTypeOut, GameTypeSummaryOut, LeaderboardOut
from service.openapi.spec import component_prefix

blp = Blueprint("game_types", __name__, url_prefix="/v1/game-types", description="Game types")


def summary(game: Game) -> dict[str, Any]:
    options = {
        name: {"type": type(field).__name__, "required": field.required}
        for name, field in game.options().fields.items()
    }
    prefix = component_prefix(game.id)
    return {"id": game.id, "title": game.title, "min_players": game.min_players,
            "max_players": game.max_players, "rules_version": game.rules_version,
            "rules_versions": list(RULES[game.id]), "options": options,
            "components": {"view": f"{prefix}View", "move": f"{prefix}Move"}}


@blp.route("")
@blp.response(200, GameTypeSummaryOut(many=True))
def list_game_types() -> list[dict[str, Any]]:
    """Every game type, with its player counts and options."""
    return [summary(game) for game in meeple().game_types()]


@blp.route("/<game_type>")
@blp.response(200, GameTypeOut)
def get_game_type(game_type: str) -> dict[str, Any]:
    """One game type, with the JSON Schemas of its view and of its legal moves."""
    game = meeple().game_type(game_type)
    return {**summary(game), "view_schema": view_schema(game.id),
            "move_schema": move_schema(game.id)}


@blp.route("/<game_type>/leaderboard")
@blp.response(200, LeaderboardOut)
def leaderboard(game_type: str) -> dict[str, Any]:
    """The best rated players of a game type (openskill ordinal, mu - 3 sigma)."""
    game = meeple().game_type(game_type)
    return {"game_type": game.id, "rows": Ratings(meeple().redis).leaderboard(game.id)}
