"""Bearer API keys. `current_player()` is the authenticated caller of this request."""

from __future__ import annotations

from flask import current_app, g, request

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.exceptions import Unauthorized

BEARER = "Bearer "


def meeple() -> Meeple:
    app: Meeple = current_app.extensions["meeple"]
    return app


def api_key_of_request() -> str | None:
    header = request.headers.get("Authorization", "")
    if header.startswith(BEARER) and len(header) > len(BEARER):
        return header[len(BEARER):].strip()
    return None


def current_player() -> Player:
    if "player" not in g:
        key = api_key_of_request()
        if key is None:
            raise Unauthorized("send your API key as 'Authorization: Bearer KEY'")
        g.player = meeple().players.authenticate(key)
    player: Player = g.player
    return player
