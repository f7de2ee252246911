"""Games: create, list, join, read (as your seat sees it), legal moves, moves, log, state."""

from __future__ import annotations

import re
from typing import Any

from flask import Response, request
from werkzeug.exceptions import BadRequest, PreconditionFailed
from werkzeug.http import parse_etags

from events.accounts.players import Player
from events.domain.table import Status, Table
from events.domain.visibility import redact_log, table_view
from events.exceptions import NotSeated
from events.readmodels.lobby import summary
from games.text import as_text, named
from service.api import Blueprint
from service.middleware.auth import caller, current_player, meeple, reader_seats
from service.middleware.errors import PROBLEM
from service.openapi.schemas import (
    EventsPage,
    EventsQuery,
    GameCreate,
    GameOut,
    GamePage,
    GameQuery,
    JoinRequest,
    LegalMovesOut,
    MovesOut,
    MovesRequest,
    Problem,
    ResignRequest,
    SeatQuery,
    StateOut,
    StateQuery,
    TableOut,
)

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Games and their moves")
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
# Read routes: a key shows your seats' view; without one, a public game as a spectator sees it.
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{}, {"bearerAuth": []}]
IDEMPOTENCY_KEY_MAX = 200
IDEMPOTENCY = {"name": "Idempotency-Key", "in": "header", "required": False,
               "schema": {"type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX},
               "description": "Retrying with the same key returns the first result. A key "
                              "is yours alone, and on a game's routes names one request "
                              "at that game: the same key at another game is another "
                              "request"}
IF_MATCH = {"name": "If-Match", "in": "header", "required": False,
            "schema": {"type": "string", "pattern": r'^(\*|"(0|[1-9][0-9]{0,19})")$'},
            "description": "The game's ETag (its version), e.g. `\"12\"`: same as "
                           "`expected_version` (both: they must agree, else 400). Compared "
                           "strongly (RFC 9110 13.1.1), as exact text: a weak tag "
                           "`W/\"12\"` or `\"0012\"` is a 412. "
                           "`*`: whatever the version"}


ETAG = {"ETag": {"$ref": "#/components/headers/ETag"}}
CONFLICT = {"schema": Problem, "content_type": PROBLEM}


def idempotency_key() -> str | None:
    """The request's Idempotency-Key header, if it sent one, as documented (1 to 200 chars)."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= IDEMPOTENCY_KEY_MAX:
        raise BadRequest(f"Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_MAX} characters")
    return key


def etag(version: int) -> str:
    return f'"{version}"'


def seat_for(table: Table, player: Player | None, wanted: int | None) -> int | None:
    """The seat whose view the caller gets: the one asked for, else their first acting seat
    (None: a spectator's view). Once the game has ended every seat's view is public (replays,
    audits): anyone may ask for any seat of the table."""
    mine = table.seats_of(player.id) if player is not None else []
    if wanted is not None:
        if table.status is Status.ENDED and 0 <= wanted < table.seat_count:
            return wanted
        if wanted not in mine:
            raise NotSeated(f"seat {wanted} is not yours")
        return wanted
    acting = [s for s in mine if s in table.actors()]
    candidates = acting or mine
    return candidates[0] if candidates else None


def game_out(table: Table, player: Player | None, wanted: int | None = None) -> dict[str, Any]:
    seat = seat_for(table, player, wanted)
    return {
        **summary(table),
        "rules_version": table.rules_version,
        "options": table.options,
        "seed_commitment": table.seed_commitment,
        "revealed_seed": table.revealed_seed,
        "your_seats": table.seats_of(player.id) if player is not None else [],
        "seat": seat,
        "view": table_view(table, seat),
        "result": table.result,
        "deadline": table.deadline,
        "turn_deadlines": [
            {"seat": clock.seat, "started_version": clock.version,
             "due_at": table.due_at(clock.seat)} for clock in table.clocks
        ],
        "resigned": list(table.resigned),
    }


@blp.route("", methods=["POST"])
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY])
@blp.arguments(GameCreate)
@blp.response(201, GameOut, headers={**ETAG, "Location": {
    "$ref": "#/components/headers/Location"}})
@blp.alt_response(409, **CONFLICT, description="Too many open tables (`quota_exceeded`), or "
                  "this Idempotency-Key made a game already being made")
def create_game(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Open a table. The caller takes the first free seat unless `join` is false."""
    player = current_player()
    table = meeple().create_game(
        player, body["type"], body["seats"], body["options"], body["bots"], body["join"],
        idempotency_key(), body["deadline"], body["seed"], body["public"],
    )
    headers = {"ETag": etag(table.version), "Location": f"/v1/games/{table.id}"}
    return game_out(table, player), 201, headers


@blp.route("", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER)
@blp.arguments(GameQuery, location="query")
@blp.response(200, GamePage)
def list_games(query: dict[str, Any]) -> dict[str, Any]:
    """Public games, newest first, filtered by type, status and player; `player=me` (with
    your key) lists yours, private ones too. No key needed but for `me`."""
    mine = query.get("player") == "me"
    player = current_player() if mine else caller()  # a wrong key is a 401 even here
    player_id = player.id if mine and player is not None else query.get("player")
    page = meeple().lobby.page(
        game_type=query.get("type"), status=query.get("status"), player_id=player_id,
        offset=query["offset"], limit=query["limit"], private_too=mine,
    )
    return {"items": meeple().current_versions(page.items), "total": page.total,
            "offset": page.offset, "limit": page.limit}


@blp.route("/<game_id>", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER)
@blp.arguments(SeatQuery, location="query")
@blp.response(200, GameOut, headers=ETAG)
@blp.alt_response(304, description="Not modified since the ETag you sent (If-None-Match, "
                  "compared weakly)", headers=ETAG)
def get_game(query: dict[str, Any], game_id: str) -> Any:
    """The game: summary, whose turn, and the table as your seat sees it (as a spectator
    sees it, without a key or a seat: public games only). ETag = version."""
    table = meeple().load(game_id)
    reader_seats(table)
    player = caller()
    tag = etag(table.version)
    # W/"12" matches too: a cache or proxy may weaken the tag it was given.
    if request.if_none_match.contains_weak(str(table.version)):
        return Response(status=304, headers={"ETag": tag})
    return game_out(table, player, query.get("seat")), 200, {"ETag": tag}


@blp.route("/<game_id>/join", methods=["POST"])
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY])
@blp.arguments(JoinRequest)
@blp.response(200, GameOut, headers=ETAG)
@blp.alt_response(409, **CONFLICT, description="The seat is taken (`seat_taken`), the game "
                  "is full (`game_full`) or has started, or you have as many tables waiting "
                  "for players as you may and this one would still wait (`quota_exceeded`)")
def join_game(body: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Take a seat (a given one, or the first free). The game starts when every seat is taken.

    A private table waiting for players takes anyone who has its id (the id is the
    invitation); to a stranger, a private table that has started is no game (404)."""
    player = current_player()
    table = meeple().join_game(player, game_id, body.get("seat"), idempotency_key(),
                               body["seed"])
    return game_out(table, player), 200, {"ETag": etag(table.version)}


@blp.route("/<game_id>/resign", methods=["POST"])
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY])
@blp.arguments(ResignRequest)
@blp.response(200, GameOut, headers=ETAG)
@blp.alt_response(403, **CONFLICT, description="Not your seat (`not_seated`)")
@blp.alt_response(409, **CONFLICT, description="Not started, over, or resigned already")
def resign(body: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Give up a seat: the bot plays it to the end, and it ranks last. Also what happens when
    a table's deadline runs out and its rule is to resign."""
    player = current_player()
    table = meeple().resign(player, game_id, body.get("seat"), idempotency_key())
    return game_out(table, player, body.get("seat")), 200, {"ETag": etag(table.version)}


def legal_moves_out(
    table: Table, player: Player | None, wanted: int | None,
    view: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The caller's legal moves; `view` is that seat's view when the caller has it already."""
    seat = seat_for(table, player, wanted)
    moves: list[dict[str, Any]] = []
    prompt = None
    if seat is not None and table.status is Status.ACTIVE and table.state is not None:
        moves = table.game.legal_moves(table.state, seat)
        prompt = (view or table_view(table, seat) or {}).get("prompt")
    return {"version": table.version, "seat": seat, "prompt": prompt, "moves": moves}


@blp.route("/<game_id>/moves", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER)
@blp.arguments(SeatQuery, location="query")
@blp.response(200, LegalMovesOut)
def legal_moves(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Your legal moves now (for `seat`, or your first seat that must act); none for a
    spectator."""
    table = meeple().load(game_id)
    reader_seats(table)
    return legal_moves_out(table, caller(), query.get("seat"))


# If-Match's grammar (RFC 9110 13.1.1): * or a list of quoted entity tags, weak or strong.
ENTITY_TAGS = re.compile(r'\*|(W/)?"[^"]*"(\s*,\s*(W/)?"[^"]*")*')


def expected_version(in_body: int | None) -> int | None:
    """The version a move request is guarded by: `expected_version`, or If-Match (an ETag
    compared strongly, as RFC 9110 says for If-Match), which must agree when both are sent."""
    header = request.headers.get("If-Match")
    if header is None:
        return in_body
    if not ENTITY_TAGS.fullmatch(header.strip()):
        # werkzeug takes `4` for "4"; an ETag is quoted (RFC 9110 8.8.3), and exact text.
        raise BadRequest('If-Match must be one ETag of this game, e.g. "12", or *')
    tags = parse_etags(header)
    if tags.star_tag:
        return in_body
    strong = sorted(tags.as_set())
    if not strong and tags.as_set(include_weak=True):
        raise PreconditionFailed('If-Match compares ETags strongly (RFC 9110 13.1.1): a weak '
                                 'tag such as W/"12" never matches; send "12"')
    if len(strong) != 1:
        raise BadRequest('If-Match must be one ETag of this game, e.g. "12", or *')
    if not re.fullmatch("[0-9]{1,20}", strong[0]):
        # A well-formed tag that is no version of this game matches nothing (RFC 9110 13.1.1).
        raise PreconditionFailed(f'If-Match "{strong[0][:40]}" is no ETag of this game (they '
                                 'read "12": a version)')
    version = int(strong[0])
    if strong[0] != str(version):
        # Strong comparison is of the exact text: "0012" is not "12", and matches no version.
        raise PreconditionFailed(f'If-Match compares ETags as exact text: "{strong[0]}" is '
                                 f'no ETag of this game (they read "{version}", without '
                                 'leading zeros)')
    if in_body is not None and in_body != version:
        raise BadRequest(f"If-Match says version {version} and expected_version says "
                         f"{in_body}: send one, or the same in both")
    return version


@blp.route("/<game_id>/moves", methods=["POST"])
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY, IF_MATCH])
@blp.arguments(MovesRequest)
@blp.response(201, MovesOut, headers=ETAG)
@blp.alt_response(403, **CONFLICT, description="Not your seat (`not_seated`)")
@blp.alt_response(409, **CONFLICT, description="Someone moved first (`version_conflict`, with "
                  "`current_version`: read the game and send again), `not_your_turn`, "
                  "`game_not_started` or `game_over` (`game_archived` once archived)")
@blp.alt_response(412, **CONFLICT, description="If-Match held a weak ETag, or one that is "
                  "no ETag of a game such as `\"0012\"` (`precondition_failed`): If-Match "
                  "compares strongly, as exact text")
def play_moves(body: dict[str, Any], game_id: str) -> Any:
    """Play one or several moves, all or nothing, guarded by the version you saw."""
    player = current_player()
    expected = expected_version(body.get("expected_version"))
    result = meeple().play_moves(
        player, game_id, body["moves"], expected, body.get("seat"),
        idempotency_key(),
    )
    table = result.table
    seats = table.seats_of(player.id)
    ended = table.status is Status.ENDED
    events = redact_log(result.envelopes, seats, ended)
    game = game_out(table, player, body.get("seat"))
    same_seat = game["seat"] == seat_for(table, player, None)
    payload = {"version": table.version, "replayed": result.replayed, "events": events,
               "game": game,
               "your_moves": legal_moves_out(table, player, None,
                                             game["view"] if same_seat else None)}
    return payload, 201, {"ETag": etag(table.version)}


@blp.route("/<game_id>/table", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER, operationId="game_table")
@blp.arguments(StateQuery, location="query")
@blp.response(200, TableOut, headers=ETAG)
def table_text(query: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int,
                                                               dict[str, str]]:
    """The table in words, as your seat sees it (a spectator's without a key or a seat):
    the readable description each game writes of a view, the same the turn emails show.
    `version`: the table as it was then (a replay); once the game has ended, any `seat`."""
    app = meeple()
    current = app.load(game_id)
    reader_seats(current)
    seat = seat_for(current, caller(), query.get("seat"))
    version = query.get("version")
    table = current if version is None or version == current.version else app.table_at(
        game_id, version)
    view = table_view(table, seat)
    names = table.names()
    sections = table.game.describe(view, seat, names) if view is not None else []
    prompt = view.get("prompt") if view is not None else None
    return {"version": table.version, "seat": seat,
            "prompt": named(prompt, names) if isinstance(prompt, str) else None,
            "sections": [part.as_json() for part in sections],
            "text": as_text(sections)}, 200, {"ETag": etag(table.version)}


@blp.route("/<game_id>/events", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER)
@blp.arguments(EventsQuery, location="query")
@blp.response(200, EventsPage)
@blp.doc(operationId="game_events")
def events(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The log, oldest first, as you may see it: others' secrets are redacted until the end."""
    app = meeple()
    table = app.load(game_id)
    start = query["after"] + 1
    end = min(table.version, query["after"] + query["limit"])
    seats, ended = reader_seats(table), table.status is Status.ENDED
    envelopes = app.events(game_id, start, end) if start <= end else []
    return {
        "items": redact_log(envelopes, seats, ended),
        "version": table.version,
        "next_after": end if end < table.version else None,
    }


@blp.route("/<game_id>/state", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER)
@blp.arguments(StateQuery, location="query")
@blp.response(200, StateOut)
@blp.doc(operationId="game_state")
def state(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The table at any version, as your seat may see it (the current one by default)."""
    app = meeple()
    current = app.load(game_id)
    reader_seats(current)
    player = caller()
    version = query.get("version")
    table = current if version is None or version == current.version else app.table_at(
        game_id, version)
    # A past state is shown as the caller's seat saw it then; once the game is over, every
    # version is also shown in full to everyone (hands, decks), for replays and audits.
    seat = seat_for(current, player, query.get("seat"))
    full = table.state if current.status is Status.ENDED else None
    return {"version": table.version, "status": table.status.value, "seat": seat,
            "actors": table.actors(), "view": table_view(table, seat), "full_state": full}

