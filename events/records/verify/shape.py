"""Check 1, format and shape: a JSON object in the meeple-record/1 layout, every field of its
type, the header's fields, and each event's envelope (which events re-execution can read)."""

from __future__ import annotations

from typing import Any

from events.domain.deadlines import is_rule
from events.records.verify.fields import (
    Kind,
    check_fields,
    hex64_or_null,
    is_dict,
    is_hex64,
    is_int,
    is_iso_utc,
    is_list,
    is_str,
    json_kind,
    seat_list,
)
from events.records.verify.paths import json_path
from events.records.verify.report import RECORD_FIELDS
from events.records.verify.verification import Verification

FORMAT = "meeple-record/1"  # the same as events.records.record.FORMAT (kept apart: no Table import)


def check_shape(v: Verification) -> bool:
    """False when the record cannot be read any further."""
    record = v.record
    if not isinstance(record, dict):
        v.findings.add("format", "", "not a game record: expected a JSON object, found "
                       f"{json_kind(record)}")
        return False
    if record.get("format") != FORMAT:
        v.findings.add("format", "format", f"not a {FORMAT} record", expected=FORMAT,
                       found=record.get("format"))
        return False
    if not _check_top_level(v, record):
        return False
    _check_header_shape(v, record["game"])
    v.events = record["events"]
    v.checked["events"] = len(v.events)
    v.usable = [_check_envelope_shape(v, i, e) for i, e in enumerate(v.events)]
    return True


def _check_top_level(v: Verification, record: dict[str, Any]) -> bool:
    """The record's own fields; False when one the other checks need is missing or wrong."""
    fields = {
        "game": isinstance(record.get("game"), dict),
        "seed_commitment": isinstance(record.get("seed_commitment"), str),
        "complete": isinstance(record.get("complete"), bool),
        "redacted_for": record.get("redacted_for") is None or seat_list(
            record.get("redacted_for")),
        "events": isinstance(record.get("events"), list),
        "seed": record.get("seed") is None or isinstance(record.get("seed"), str),
        "scores": record.get("scores") is None or isinstance(record.get("scores"), dict),
        "signature": isinstance(record.get("signature"), dict),
    }
    for name, fine in fields.items():
        if name not in record:
            v.findings.add("format", name, "is missing" + (
                ": the record is not signed" if name == "signature" else ""))
            fields[name] = False
        elif not fine:
            v.findings.add("format", name, f"has the wrong type ({json_kind(record[name])})")
    if "note" in record and not isinstance(record["note"], str):
        v.findings.add("format", "note", "must be a string")
    for name in sorted(set(record) - set(RECORD_FIELDS)):
        v.findings.add("format", json_path("", name), "is not a field of a record")
    return all(fields.values())


def _check_header_shape(v: Verification, header: dict[str, Any]) -> None:
    kinds: dict[str, Kind] = {
        "id": is_str, "type": is_str, "rules_version": is_str, "options": is_dict,
        "seat_count": is_int, "seats": is_list, "created_at": is_iso_utc,
        "status": lambda value: value in ("open", "active", "ended"),
    }
    check_fields(v.findings, header, "game", kinds, {"deadline": is_rule})


def _check_envelope_shape(v: Verification, index: int, envelope: Any) -> bool:
    path = json_path("events", index)
    if not isinstance(envelope, dict):
        v.findings.add("format", path, f"an event is a JSON object, not {json_kind(envelope)}")
        return False
    kinds: dict[str, Kind] = {
        "v": is_int, "type": is_str, "at": is_iso_utc, "by": is_str, "data": is_dict,
        "prev": is_hex64, "hash": is_hex64,
    }
    optional: dict[str, Kind] = {}
    if v.record["complete"] is False:
        optional["redacted"] = lambda value: value is True  # only views of unfinished games
        # Before the end hashes are withheld (null): each would let guesses be tested.
        kinds["prev"] = kinds["hash"] = hex64_or_null
    return check_fields(v.findings, envelope, path, kinds, optional)
