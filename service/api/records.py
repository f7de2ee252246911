"""Game records: signed, self-contained, verifiable by anyone; and the keys that sign them."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from flask import Response, current_app, json, request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from events.accounts.players import Player
from events.domain.table import Status, Table, evolve
from events.exceptions import RecordInvalid, Unauthorized
from events.records.finished import finished_record, keep_imported
from events.records.keys import Keyring, trusted_keys
from events.records.reading import RECORD_MAX_BYTES, RECORD_MAX_CONTAINERS, too_many_containers
from events.records.record import build_record, sign_record
from events.records.verify import Problem, Report, verify_record
from events.records.verify.header import later_than
from events.records.verify.paths import described
from service.api import Blueprint
from service.api.games import BEARER, OPTIONAL_BEARER
from service.middleware import json_body
from service.middleware.auth import api_key_of_request, current_player, meeple, reader_seats
from service.openapi.schemas import GameOut, KeysOut, RecordDoc, VerifyReport

blp = Blueprint("records", __name__, description="Game records, their verification and import")

# A record holds every event of a game: far more than a move request (service
# MAX_CONTENT_LENGTH), but its cost is bounded (events.records.reading), in bytes smaller
# still for a caller without a key.
ANONYMOUS_RECORD_MAX_BYTES = 1024 * 1024
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# An imported game may not happen in this server's future, but for this much clock skew (the
# verifier's own window, which must not depend on the day, ends in 2100).
FUTURE_SKEW = timedelta(days=1)


def keyring() -> Keyring:
    ring: Keyring = current_app.extensions["meeple_keys"]
    return ring


def import_keys() -> Callable[[str], Ed25519PublicKey | None]:
    """The keys an imported record may be signed by: this server's, and the operator's
    MEEPLE_TRUSTED_KEYS file (read at each import: an operator may edit it at any time)."""
    own = keyring().public_key
    path = current_app.config.get("TRUSTED_KEYS") or os.environ.get("MEEPLE_TRUSTED_KEYS")
    if not path:
        return own
    others = trusted_keys(json.loads(Path(path).read_text()))
    return lambda key_id: own(key_id) or others(key_id)


def record_json(record: dict[str, Any], status: int = 200) -> Response:
    # Returned as is: a schema dump could alter what the signature covers.
    return Response(json.dumps(record), status=status, mimetype="application/json")


def posted_record() -> dict[str, Any]:
    request.max_content_length = (RECORD_MAX_BYTES if caller() is not None
                                  else ANONYMOUS_RECORD_MAX_BYTES)
    if not request.is_json:
        raise BadRequest("send the record as a JSON object (Content-Type: application/json)")
    data = request.get_data(cache=True)
    if too_many_containers(data):  # before parsing: they cost memory (reading.py)
        raise RequestEntityTooLarge(f"a record holds at most {RECORD_MAX_CONTAINERS} JSON "
                                    "objects and arrays")
    try:
        body = json_body.loads(data)
    except json_body.UnacceptableJson as err:
        raise BadRequest(f"the record is not acceptable JSON: {err}") from None
    if not isinstance(body, dict):
        raise BadRequest("send the record as a JSON object (Content-Type: application/json)")
    return body


def caller() -> Player | None:
    """The authenticated caller, or None for anonymous calls and wrong keys."""
    if api_key_of_request() is None:
        return None
    try:
        return current_player()
    except Unauthorized:
        return None


@blp.route("/v1/games/<game_id>/record", methods=["GET"])
@blp.doc(security=OPTIONAL_BEARER)
@blp.response(200, RecordDoc, headers={"Meeple-Imported": {
    "description": "Only on an imported game's record: `signed-by=<key id>; imported-at=<time>`"
                   " (this server did not host the game; the record is served as it came)",
    "schema": {"type": "string"}}})
def game_record(game_id: str) -> Response:
    """The game's record. Once the game has ended it is complete (every event to the seed's
    reveal, the seed, the scores), anyone can verify it offline, and it is final: the same
    bytes at every fetch. A game played here is signed by this server; an imported one is
    served as it came, with its original signature, and says so in `Meeple-Imported`
    (`signed-by=<key id>; imported-at=<time>`). Before the end: the caller's redacted view,
    which says so (`complete: false`)."""
    app = meeple()
    table = app.load(game_id)
    seats = reader_seats(table)
    if table.status is Status.ENDED:
        response = Response(finished_record(app, game_id, keyring()), mimetype="application/json")
        origin = app.store.origin(game_id)
        if origin is not None:  # served as it came: this server did not host the game
            response.headers["Meeple-Imported"] = (f"signed-by={origin['signed_by']}; "
                                                   f"imported-at={origin['imported_at']}")
        return response
    # The events of that table only: a bot may move between the two reads.
    envelopes = app.events(game_id, 1, table.version)
    record = build_record(table, envelopes, None, seats)
    key_id, private_key = keyring().current()
    return record_json(sign_record(record, key_id, private_key))


@blp.route("/v1/keys", methods=["GET"])
@blp.response(200, KeysOut)
@blp.doc(operationId="public_keys")
def keys() -> dict[str, Any]:
    """The public keys that sign records, old ones included (a rotation never orphans a
    record). Give them to `meeple verify --keys` to check a record came from this server."""
    return {"keys": keyring().public_keys()}


ANY_RECORD = {"required": True, "description": "A record (see RecordDoc), or any JSON object: "
              "whatever it is, the answer says what is wrong with it",
              "content": {"application/json": {"schema": {"type": "object"}}}}


@blp.route("/v1/records/verify", methods=["POST"])
@blp.doc(requestBody=ANY_RECORD)
@blp.response(200, VerifyReport)
@blp.doc(operationId="verify_record")
def verify(**_: Any) -> dict[str, Any]:
    """Re-execute a record with this server's rules and check everything: signature (against
    this server's keys), hash chain, seed, every move, fact and score. `ok` false comes with
    the first divergence: where, what was expected, what was found."""
    report = verify_record(posted_record(), keyring().public_key)
    return dict(report.to_json())


@blp.route("/v1/records", methods=["POST"])
@blp.doc(security=BEARER,
         requestBody={"required": True, "content": {"application/json": {"schema": RecordDoc}}})
@blp.response(201, GameOut, headers={"ETag": {"$ref": "#/components/headers/ETag"},
                                     "Location": {"$ref": "#/components/headers/Location"}})
def import_record(**_: Any) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Import a finished game from its record, under its original id (archives, moving games
    between servers). The record must verify completely and be signed by one of this
    server's keys or by a key the operator trusts (MEEPLE_TRUSTED_KEYS: a file in the format
    of GET /v1/keys). Refused (422): the reason and the verifier's report. An imported game
    keeps its record as it came and never counts for ratings."""
    from service.api.games import etag, game_out

    player = current_player()
    record = posted_record()
    report = verify_record(record, import_keys())
    if not report.ok:
        signature = report.checked.get("signature") or {}
        if signature.get("valid") and signature.get("trusted") is False:
            raise RecordInvalid(f"the record is signed by key {signature.get('key_id')}, which "
                                "is neither this server's nor one its operator trusts "
                                "(MEEPLE_TRUSTED_KEYS)", report.to_json())
        raise RecordInvalid("the record does not verify: see 'report'", report.to_json())
    if not record.get("complete"):
        raise RecordInvalid("only a complete record of a finished game can be imported",
                            report.to_json())
    app = meeple()
    future = later_than(record, app.clock() + FUTURE_SKEW)
    if future:
        raise RecordInvalid("the record holds times in this server's future: see 'report'",
                            refused(report, future))
    game_id = str(record["game"]["id"])
    if not GAME_ID.match(game_id):  # the verifier refuses such an id: never reached
        raise RecordInvalid("the record's game id must be 1 to 64 letters, digits, '_' or '-'",
                            report.to_json())
    check_loadable(game_id, record, report)
    table = app.import_game(game_id, record["events"], bytes.fromhex(record["seed"]),
                            player.id, signed_by=str(record["signature"]["key_id"]),
                            keep=lambda: keep_imported(app, game_id, record))
    return game_out(table, player), 201, {"Location": f"/v1/games/{game_id}",
                                          "ETag": etag(table.version)}


def refused(report: Report, problems: list[Problem]) -> dict[str, Any]:
    """`report` (of a record that verifies) with the problems an import adds."""
    return Report(False, "invalid", problems, report.checked, not_listed=0).to_json()


def check_loadable(game_id: str, record: dict[str, Any], report: Report) -> None:
    """The game folds from its events as every later read of it will (events.domain.table
    evolve), before anything is written: a record this server cannot read is refused with a
    422, never stored half-way to answer 500 then and at every read after."""
    table = Table.empty(game_id)
    seed = bytes.fromhex(record["seed"])
    for index, envelope in enumerate(record["events"]):
        try:
            table = evolve(table, envelope, seed)
        except Exception as error:  # noqa: BLE001 - whatever it is, the record is refused
            problem = Problem("internal", index + 1, f"events[{index}]", None, None,
                              "this server cannot load the game at this event: "
                              f"{described(error)}")
            raise RecordInvalid("the record verifies, but this server cannot load its game: "
                                "see 'report'", refused(report, [problem])) from None
