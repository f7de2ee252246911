"""Portable game records: one self-contained, signed JSON document per game.

    {"format": "meeple-record/1",
     "game": {"id", "type", "rules_version", "options", "seat_count",
              "seats": [{"seat", "player_id", "name", "bot"}], "created_at", "status",
              "deadline" (only a table with a time per move: {"seconds", "on_expiry"})},
     "seed_commitment": SHA-256 hex of the secret seed, as in GameCreated,
     "complete": true once the game has ended,
     "redacted_for": null, or the seats whose view this is (an unfinished game),
     "note": only in an incomplete record: says it is a redacted view,
     "events": every envelope (complete), or each as `redact_envelope` shows it,
     "seed": hex (complete) or null, "scores": the score sheet (complete) or null,
     "signature": {"alg": "Ed25519", "key_id", "public_key", "value"}}

The signature is over `canonical_json` of the record without "signature". A complete
record can be verified offline with the games' rules code alone (events.records.verify); an
incomplete one is only one caller's view and says so. The header duplicates what the
events say (for readers); the verifier checks that they agree.
"""

from __future__ import annotations

import hashlib
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.domain.envelope import Envelope, canonical_json
from events.domain.table import Status, Table
from events.domain.visibility import redact_log
from events.records.keys import ALG, b64url_encode, key_id_of, raw_public_key

FORMAT = "meeple-record/1"

PARTIAL_NOTE = (
    "This game is not over. This record is the redacted view of seats {seats}: the seed and "
    "every fact those seats may not read are left out, so it cannot be re-executed or fully "
    "verified. Ask again once the game has ended for the complete record."
)


def build_record(
    table: Table, envelopes: list[Envelope], seed: bytes | None, seats: list[int]
) -> dict[str, Any]:
    """The record of `table`, whose stream is `envelopes` (versions 1..table.version).

    Ended: complete, every envelope as stored, with the seed (`seed`, or the one the
    table revealed) and the score sheet. Not ended: the view of the caller holding `seats`
    (possibly none): redacted envelopes, no seed, no scores, and a note saying so.
    `seats` is ignored once the game has ended: everything is public then.
    """
    if [e.get("v") for e in envelopes] != list(range(1, table.version + 1)):
        raise ValueError(f"expected the envelopes of versions 1 to {table.version}, in order")
    complete = table.status is Status.ENDED
    record: dict[str, Any] = {
        "format": FORMAT,
        "game": record_header(table),
        "seed_commitment": table.seed_commitment,
        "complete": complete,
        "redacted_for": None,
        "events": list(envelopes),
        "seed": None,
        "scores": None,
    }
    if complete:
        record["seed"] = _revealed_seed(table, seed)
        record["scores"] = table.result
    else:
        shown = sorted(set(seats))
        record["redacted_for"] = shown
        record["note"] = PARTIAL_NOTE.format(seats=shown)
        record["events"] = redact_log(envelopes, shown, False)
    return record


def record_header(table: Table) -> dict[str, Any]:
    header = {
        "id": table.id,
        "type": table.type,
        "rules_version": table.rules_version,
        "options": table.options,
        "seat_count": table.seat_count,
        # A seat's seed, if any, is in its SeatTaken event: the header keeps its form.
        "seats": [{"seat": s.seat, "player_id": s.player_id, "name": s.name, "bot": s.bot}
                  for s in table.seats],
        "created_at": table.created_at,
        "status": table.status.value,
    }
    if table.deadline is not None:  # only then: records of other games keep their layout
        header["deadline"] = table.deadline
    return header


def _revealed_seed(table: Table, seed: bytes | None) -> str:
    """The seed of an ended game as hex; it must match the commitment (never sign a lie)."""
    hex_seed = seed.hex() if seed is not None else table.revealed_seed
    if hex_seed is None:
        raise ValueError("the record of an ended game needs its seed")
    if hashlib.sha256(bytes.fromhex(hex_seed)).hexdigest() != table.seed_commitment:
        raise ValueError("this seed does not match the game's seed commitment")
    return hex_seed


def sign_record(
    record: dict[str, Any], key_id: str, private_key: Ed25519PrivateKey
) -> dict[str, Any]:
    """A copy of `record` signed with `private_key` (any previous signature is replaced).

    The public key travels inside, so anyone can check integrity offline; whether the key is
    the server's is a separate check against its published keys (GET /v1/keys)."""
    raw_public = raw_public_key(private_key.public_key())
    if key_id_of(raw_public) != key_id:
        raise ValueError(f"key id {key_id} is not the id of this key ({key_id_of(raw_public)})")
    body = unsigned(record)
    signature = private_key.sign(canonical_json(body))
    return {
        **body,
        "signature": {
            "alg": ALG,
            "key_id": key_id,
            "public_key": b64url_encode(raw_public),
            "value": b64url_encode(signature),
        },
    }


def unsigned(record: dict[str, Any]) -> dict[str, Any]:
    """The part of a record that its signature covers."""
    return {key: value for key, value in record.items() if key != "signature"}
