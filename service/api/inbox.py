"""The caller's inbox: their games, the most recently changed first, and which await them."""

from __future__ import annotations

from typing import Any

from events.readmodels.lobby import awaited_players
from service.api import Blueprint
from service.api.games import BEARER
from service.middleware.auth import current_player, meeple
from service.openapi.schemas import InboxPage, InboxQuery

blp = Blueprint("inbox", __name__, url_prefix="/v1/players/me/games",
                description="Your games, and those waiting for you")


@blp.route("", methods=["GET"])
@blp.doc(security=BEARER)
@blp.arguments(InboxQuery, location="query")
@blp.response(200, InboxPage)
@blp.doc(operationId="my_games")
def inbox(query: dict[str, Any]) -> dict[str, Any]:
    """Your games, newest change first (a change: status, seats, or whose turn it is), each
    with `awaiting_me`; `awaiting=me` keeps only those where one of your seats must act."""
    player = current_player()
    page = meeple().lobby.inbox(player.id, awaiting=query.get("awaiting") == "me",
                                offset=query["offset"], limit=query["limit"])
    items = [{**game, "awaiting_me": player.id in awaited_players(game)}
             for game in meeple().current_versions(page.items)]
    return {"items": items, "total": page.total, "offset": page.offset, "limit": page.limit}
