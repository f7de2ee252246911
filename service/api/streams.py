"""Live streams, so that clients need not poll: a game's events, and a player's turns.

Server-Sent Events by default, NDJSON (one JSON object a line) when the request's Accept
prefers `application/x-ndjson`. The following itself (catch up, wait, redact) is in
`events.application.live`; this module checks the caller and the game before anything is
streamed (errors are problem+json like everywhere else) and writes the frames.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import redis
import structlog
from flask import Response, current_app, request, stream_with_context
from marshmallow import Schema, fields, validate

from events.application import live
from service.api import Blueprint
from service.api.games import BEARER, OPTIONAL_BEARER
from service.middleware.auth import current_player, key_still_good, meeple, reader_seats
from service.middleware.errors import PROBLEM
from service.middleware.stream_slots import Slot, take_slot
from service.openapi.schemas import Strict
from service.openapi.spec import LIMIT_HEADERS, RETRY_AFTER

blp = Blueprint("streams", __name__, url_prefix="/v1",
                description="Live streams of a game's events and of your turns")
log = structlog.get_logger()

SSE, NDJSON = "text/event-stream", "application/x-ndjson"
MAX_VERSION = 10**12  # no game comes near; bounds what Last-Event-ID may say
_LOCK = threading.Lock()

GAME_FRAMING = (
    "Each event is an envelope exactly as `GET /v1/games/{game_id}/events` shows it to you "
    "at the moment it is sent (others' secrets redacted, `hash` and `prev` null until the "
    "game has ended). Server-Sent Events: `id: <v>`, `event: <envelope type>`, "
    "`data: <the envelope as JSON, one line>`, then a blank line; `: keepalive` every 15 s "
    "of silence. NDJSON (`Accept: application/x-ndjson`): one envelope a line, an empty "
    "line as keepalive. The stream starts with a keepalive and ends after `SeedRevealed` "
    "of a game that ends; for a game already over, once everything after `after` is sent.")
PLAYER_FRAMING = (
    "Server-Sent Events with `id: <game_id>:<version>`, `event: <kind>`, `data: <JSON>`; "
    "NDJSON: one object a line, `{\"event\": <kind>, ...data}`. Kinds: `your_turn` "
    "{game_id, type, version, seats: your seats that must act}, `message` {game_id, v, seat, "
    "name, text}, `game_started` {game_id, type, version}, `game_ended` {game_id, version, "
    "result}. Keepalives as for a game's stream.")


class StreamQuery(Strict):
    after = fields.Integer(validate=validate.Range(min=0, max=MAX_VERSION), metadata={
        "description": "Send the events after this version (`after=0`: the whole log). "
                       "Without it (and without Last-Event-ID) only new events are sent."})


class StreamHeaders(Schema):  # not Strict: every request has headers of its own
    last_event_id = fields.Integer(
        data_key="Last-Event-ID", validate=validate.Range(min=0, max=MAX_VERSION), metadata={
            "description": "The last version received: the stream resumes after it (what "
                           "an EventSource sends when it reconnects). Wins over `after`."})


def _content(framing: str) -> dict[str, Any]:
    """The two media types a stream answers in, for the spec, and the caps' refusals
    (service.middleware.stream_slots)."""
    schema = {"type": "string", "description": framing}
    return {"200": {"description": "A live stream (it stays open)",
                    "content": {SSE: {"schema": schema}, NDJSON: {"schema": schema}}},
            "429": _refusal(
                "Too many requests (`rate_limited`), or you hold as many live streams as a "
                "caller may at once (`too_many_streams`: MEEPLE_STREAMS_PER_CALLER, 10 by "
                "default, per player, or per client address without a key): close one, or "
                "wait Retry-After seconds", {**RETRY_AFTER, **LIMIT_HEADERS}),
            "503": _refusal(
                "This server process holds as many live streams as it may (`streams_full`: "
                "MEEPLE_STREAMS_PER_PROCESS, 500 by default), the game store is unavailable "
                "(`store_unavailable`) or the archive cannot be read "
                "(`archive_unavailable`): retry after Retry-After seconds")}


def _refusal(description: str, headers: dict[str, Any] = RETRY_AFTER) -> dict[str, Any]:
    return {"description": description, "headers": headers,
            "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}}


@blp.route("/games/<game_id>/stream", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER, responses=_content(GAME_FRAMING))
@blp.arguments(StreamQuery, location="query")
@blp.arguments(StreamHeaders, location="headers")
def game_stream(query: dict[str, Any], headers: dict[str, Any], game_id: str) -> Response:
    """The game's events live, as you may see them. Resumable: send `Last-Event-ID` (or
    `after`) to get what came after that version first; with neither, only new events
    are sent (`after=0` for the whole log). A public game needs no key (a spectator's
    view); a private one is, to anyone without a seat at it, no game (404)."""
    app = meeple()
    table = app.load(game_id)
    reader_seats(table)  # before streaming: a wrong key is a 401, a hidden game a 404
    after = headers.get("last_event_id", query.get("after"))
    follower = live.GameFollower(app, blocking_reads(), table, after, reader_seats,
                                 keepalive=setting("STREAM_KEEPALIVE_SECONDS", 15.0))
    return stream(follower, envelope_frame)


@blp.route("/players/me/stream", methods=["GET"])
@blp.doc(security=BEARER, responses=_content(PLAYER_FRAMING))
def player_stream() -> Response:
    """Your turns across your games, live: first one `your_turn` for each game that awaits
    you now, then turns, table talk, starts and ends as they happen. No resume beyond
    that first snapshot: reconnect and read it again."""
    player = current_player()
    follower = live.PlayerFollower(
        meeple(), blocking_reads(), player.id,
        keepalive=setting("STREAM_KEEPALIVE_SECONDS", 15.0),
        refresh=setting("STREAM_REFRESH_SECONDS", live.REFRESH_SECONDS),
        limit=int(setting("STREAM_WATCH_LIMIT", live.WATCH_LIMIT)))
    return stream(follower, notice_frame)


# --- frames --------------------------------------------------------------------------------


def envelope_frame(shown: live.Shown, ndjson: bool) -> str:
    if ndjson:
        return shown.json + "\n"
    envelope = shown.envelope
    return f"id: {envelope['v']}\nevent: {envelope['type']}\ndata: {shown.json}\n\n"


def notice_frame(notice: live.Notice, ndjson: bool) -> str:
    if ndjson:
        return json.dumps({"event": notice.event, **notice.data}, separators=(",", ":")) + "\n"
    body = json.dumps(notice.data, separators=(",", ":"))
    return f"id: {notice.id}\nevent: {notice.event}\ndata: {body}\n\n"


def stream(follower: Iterable[list[Any]], frame: Callable[[Any, bool], str]) -> Response:
    """The follower's batches as a streaming answer, in the media type the client asked
    for. One write per batch; an empty batch is a keepalive. The stream holds a slot under
    the caps (service.middleware.stream_slots) from here until it ends or its client goes away."""
    ndjson = request.accept_mimetypes.best_match([SSE, NDJSON], default=SSE) == NDJSON
    headers = {"Cache-Control": "private, no-cache", "X-Accel-Buffering": "no"}
    if request.method == "HEAD":
        return Response(status=200, mimetype=NDJSON if ndjson else SSE, headers=headers)
    slot = take_slot()
    response = Response(stream_with_context(chunks(follower, frame, ndjson, slot,
                                                   key_still_good())),
                        mimetype=NDJSON if ndjson else SSE, headers=headers)
    # The server closes the answer when the stream ends and when a write finds the client
    # gone; also if it is never iterated at all.
    response.call_on_close(slot.release)
    return response


def chunks(follower: Iterable[list[Any]], frame: Callable[[Any, bool], str], ndjson: bool,
           slot: Slot, allowed: Callable[[], bool]) -> Iterator[str]:
    """The stream's text: a keepalive, then each batch, as long as the caller's key still
    works (`allowed`, asked before each batch: a replaced key's stream ends there)."""
    keepalive = "\n" if ndjson else ": keepalive\n\n"
    try:
        yield keepalive  # at once: the client sees the headers before the first event
        for batch in follower:
            if not allowed():
                log.info("stream ended: its API key was replaced")
                return
            slot.renew()
            yield "".join(frame(item, ndjson) for item in batch) if batch else keepalive
    except redis.RedisError as error:  # too late for a problem: end, the client resumes
        log.warning("stream ended: redis unavailable", error=repr(error))
    except Exception:  # likewise: logged, and the stream ends
        log.exception("stream ended by an error")
    finally:
        slot.release()


# --- settings ------------------------------------------------------------------------------


def setting(name: str, default: float) -> float:
    """A stream setting: the app's config, else MEEPLE_<name> from the environment."""
    value = current_app.config.get(name)
    if value is None:
        value = os.environ.get(f"MEEPLE_{name}") or default
    return float(value)


def blocking_reads() -> live.BlockingReads:
    """This app's pool for blocking reads, made on first use (one per process)."""
    extensions = current_app.extensions
    if "meeple_live" not in extensions:
        with _LOCK:
            if "meeple_live" not in extensions:
                longest = max(setting("STREAM_KEEPALIVE_SECONDS", 15.0),
                              setting("STREAM_REFRESH_SECONDS", live.REFRESH_SECONDS))
                extensions["meeple_live"] = live.BlockingReads(
                    current_app.config["EVENTS_URL"], meeple().prefix, longest)
    reads: live.BlockingReads = extensions["meeple_live"]
    return reads
