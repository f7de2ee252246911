"""Bearer API keys. `current_player()` is the authenticated caller of this request."""

from __future__ import annotations

from collections.abc import Callable

from flask import current_app, g, request

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.domain.table import Table
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


def key_still_good() -> Callable[[], bool]:
    """For a long answer (a live stream): whether the request's API key still works, asked
    again later (a replaced key stops working at once, open streams included). A request
    without a key has nothing to lose."""
    key = api_key_of_request()
    if key is None:
        return lambda: True
    players = meeple().players

    def check() -> bool:
        try:
            players.authenticate(key)
        except Unauthorized:
            return False
        return True

    return check


def caller() -> Player | None:
    """The authenticated player, or None for a request without an API key. A key that is
    not one is a 401, not an anonymous call."""
    if api_key_of_request() is None:
        return None
    return current_player()


def reader_seats(table: Table) -> list[int]:
    """The seats whose secrets the caller of this request may read in `table`: none for a
    spectator (anyone, with or without a key, at a public table). A private table is, to
    anyone without a seat at it, no game at all (404, as for an id that names none). Every
    route that shows a game's view, log, messages or record asks here."""
    player = caller()
    seats = table.seats_of(player.id) if player is not None else []
    if not seats and not table.public:
        raise meeple().not_shown(table.id)
    return seats
