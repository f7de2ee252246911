"""Table talk: seated players post short messages to a game; anyone who may read it reads them.

A message is a `MessagePosted` event in the game's stream, so it is part of the log and of the
game record, and it advances the game's version (a move guarded by an older version is a
conflict) without changing the state, the turn or anything the rules see.
"""

from __future__ import annotations

from typing import Any

from events.application.meeple import Meeple
from events.domain.envelope import Envelope
from events.domain.table import Table
from service.api import Blueprint
from service.api.games import (
    BEARER,
    CONFLICT,
    ETAG,
    IDEMPOTENCY,
    OPTIONAL_BEARER,
    etag,
    idempotency_key,
)
from service.middleware.auth import current_player, meeple, reader_seats
from service.openapi.schemas import MessageCreate, MessagePostOut, MessagesPage, MessagesQuery

blp = Blueprint("messages", __name__, url_prefix="/v1/games", description="Table talk")
# The log is read in slices of this many events while looking for messages, at most
# SCAN_LIMIT events a request: a page may then hold fewer messages than asked, its
# `next_after` saying where to go on (a long game's log cannot make one request cost more).
SCAN = 500
SCAN_LIMIT = 5000


def message_out(table: Table, envelope: Envelope) -> dict[str, Any]:
    seat = envelope["data"]["seat"]
    placed = table.seat_of(seat)
    return {"v": envelope["v"], "at": envelope["at"], "seat": seat,
            "name": placed.name if placed is not None else "", "text": envelope["data"]["text"]}


def find_messages(app: Meeple, game_id: str, after: int, version: int, wanted: int
                  ) -> tuple[list[Envelope], int]:
    """Up to `wanted` MessagePosted envelopes after version `after`, oldest first, and the
    last version looked at (below `version` when SCAN_LIMIT events were read first)."""
    found: list[Envelope] = []
    start, stop = after + 1, min(version, after + SCAN_LIMIT)
    while start <= stop and len(found) < wanted:
        end = min(stop, start + SCAN - 1)
        found += [e for e in app.events(game_id, start, end) if e["type"] == "MessagePosted"]
        start = end + 1
    return found[:wanted], start - 1


@blp.route("/<game_id>/messages", methods=["POST"])
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY])
@blp.arguments(MessageCreate)
@blp.response(201, MessagePostOut, headers=ETAG)
@blp.alt_response(403, **CONFLICT, description="You have no seat at this table (`not_seated`)")
@blp.alt_response(409, **CONFLICT, description="The game ended long ago and was archived: it "
                  "is read-only (`game_archived`)")
def post_message(body: dict[str, Any], game_id: str) -> Any:
    """Post a message as your first seat (seated players only; also after the end, until the
    game is archived, by default 7 days after its last event). It is an event: the game's
    version goes up by one. At most 10 a minute per API key by default."""
    player = current_player()
    result = meeple().post_message(player, game_id, body["text"], idempotency_key())
    table = result.table
    payload = {"version": table.version, "replayed": result.replayed,
               "message": message_out(table, result.envelope)}
    return payload, 201, {"ETag": etag(table.version)}


@blp.route("/<game_id>/messages", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER)
@blp.arguments(MessagesQuery, location="query")
@blp.response(200, MessagesPage)
def list_messages(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The game's messages posted after version `after`, oldest first, `limit` at a time."""
    app = meeple()
    table = app.load(game_id)
    reader_seats(table)
    limit = query["limit"]
    found, looked = find_messages(app, game_id, query["after"], table.version, limit + 1)
    items = found[:limit]
    if len(found) > limit:
        next_after: int | None = items[-1]["v"]
    else:  # all there was up to `looked`; the rest of the log, if any, on the next page
        next_after = looked if looked < table.version else None
    return {"items": [message_out(table, e) for e in items], "version": table.version,
            "next_after": next_after}
