"""Player accounts."""

from __future__ import annotations

from typing import Any

from service.api import Blueprint
from service.auth import current_player, meeple
from service.schemas import PlayerCreate, PlayerCreated, PlayerOut

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Player accounts")
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]


@blp.route("", methods=["POST"])
@blp.arguments(PlayerCreate)
@blp.response(201, PlayerCreated)
def register(body: dict[str, Any]) -> dict[str, Any]:
    """Register a player and receive an API key (shown only once)."""
    player, api_key = meeple().players.register(body["name"])
    return {"id": player.id, "name": player.name, "created_at": player.created_at,
            "api_key": api_key}


@blp.route("/me")
@blp.doc(security=BEARER)
@blp.response(200, PlayerOut)
def me() -> dict[str, Any]:
    """The player the API key belongs to."""
    player = current_player()
    return {"id": player.id, "name": player.name, "created_at": player.created_at}
