"""Check 1, format and shape: a JSON object in the meeple-record/1 layout, every field of its
type, the header's fields (names, ids and times as the API takes them), each event's
envelope and its times, and each event's data (data.py): which events re-execution can read.

Before any of it, the record must be plain JSON values: no NaN or infinity, no integer of more
than 20 digits, no key that is not a string, no string that is not text (a lone UTF-16
surrogate) (a record read by events.records.reading has none; a value made in memory, or read
by a lenient parser, may). The canonical JSON that hashes and signs refuses
those (events.domain.envelope), so such a record is reported here and read no further."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from events.domain.deadlines import MAX_MOVE_SECONDS, is_rule
from events.records.verify.data import check_event_data
from events.records.verify.fields import (
    CLOCK_STEP_BACK,
    GAME_ID_RULE,
    MAX_SEATS,
    NAME_RULE,
    PLAYER_ID_RULE,
    TIME_RULE,
    Kind,
    check_fields,
    hex64_or_null,
    is_author,
    is_bool,
    is_dict,
    is_game_id,
    is_hex64,
    is_int,
    is_list,
    is_name,
    is_player_id,
    is_record_time,
    is_str,
    json_kind,
    parse_time,
    seat_list,
)
from events.records.verify.paths import brief, json_path
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
    if not _plain_json(v, record):
        return False
    if not _check_top_level(v, record):
        return False
    _check_header_shape(v, record["game"])
    v.events = record["events"]
    v.checked["events"] = len(v.events)
    v.usable = [_check_envelope_shape(v, i, e) for i, e in enumerate(v.events)]
    _check_times(v)
    check_event_data(v)
    return True


MAX_INT = 10 ** 20  # 20 digits, as service.middleware.json_body takes a request's integers


def _all_plain(record: dict[str, Any]) -> bool:
    """Whether _plain_json would find nothing, at the speed of the json module's C code: a
    record is nearly always plain, and walking every value in Python cost a page view's
    budget (bench/verify.py). NaN or infinity fails the dump, a non-string key (or a tuple)
    the round trip, and what may be a 21-digit integer sends the record to the exact walk."""
    try:
        text = json.dumps(record, allow_nan=False, ensure_ascii=False)
        text.encode()  # a lone surrogate fails here
        return _LONG_DIGITS.search(text) is None and json.loads(text) == record
    except (ValueError, TypeError, RecursionError):
        return False


# A number of 21 digits or more in json.dumps' text: after ": ", ", " or "[" (hex hashes hold
# runs of decimal digits too, but inside quotes; text that looks like this in a string only
# costs the exact walk).
_LONG_DIGITS = re.compile(r"[:,\[] ?-?\d{21}")


def _plain_json(v: Verification, record: dict[str, Any]) -> bool:
    """No value JSON cannot carry exactly (canonical JSON refuses them): False if one is
    there, each reported where it is."""
    if _all_plain(record):
        return True
    fine = True
    stack: list[tuple[Any, str]] = [(record, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    v.findings.add("format", path, f"holds the key {brief(key)}, which is not "
                                   "a string: not JSON (it would change in a round trip)")
                    fine = False
                elif not _is_text(key):
                    v.findings.add("format", path, f"holds a key that is not text: {LONE}")
                    fine = False
                else:
                    stack.append((item, json_path(path, key)))
        elif isinstance(value, list):
            stack.extend((item, json_path(path, index)) for index, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            v.findings.add("format", path, f"{value} is not a JSON number")
            fine = False
        elif type(value) is int and not -MAX_INT < value < MAX_INT:
            v.findings.add("format", path, "an integer of more than 20 digits")
            fine = False
        elif isinstance(value, str) and not _is_text(value):
            v.findings.add("format", path, f"not text: {LONE}")
            fine = False
    return fine


LONE = "a lone UTF-16 surrogate (\\ud800 to \\udfff not in a pair), which UTF-8 cannot hold"


def _is_text(value: str) -> bool:
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
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
        "id": is_game_id, "type": is_str, "rules_version": is_str, "options": is_dict,
        "seat_count": lambda value: is_int(value) and 1 <= value <= MAX_SEATS,
        "seats": is_list, "created_at": is_record_time,
        "status": lambda value: value in ("open", "active", "ended"),
    }
    optional: dict[str, Kind] = {
        "deadline": lambda value: is_rule(value) and value["seconds"] <= MAX_MOVE_SECONDS,
    }
    words = {
        "id": GAME_ID_RULE, "seat_count": f"a seat count, 1 to {MAX_SEATS}",
        "created_at": TIME_RULE, "status": '"open", "active" or "ended"',
        "deadline": f'{{"seconds": 1 to {MAX_MOVE_SECONDS:,}, "on_expiry": "bot" or "resign",'
                    ' optional "bot": a bot level}',
    }
    check_fields(v.findings, header, "game", kinds, optional, words)
    seats = header.get("seats")
    if isinstance(seats, list):
        for index, row in enumerate(seats):
            _check_seat_row(v, index, row)


_SEAT_ROW: dict[str, Kind] = {
    "seat": lambda value: is_int(value) and 0 <= value < MAX_SEATS,
    "player_id": is_player_id, "name": is_name, "bot": is_bool,
}
_SEAT_WORDS = {"seat": f"a seat number, 0 to {MAX_SEATS - 1}", "player_id": PLAYER_ID_RULE,
               "name": NAME_RULE, "bot": "true or false"}


def _check_seat_row(v: Verification, index: int, row: Any) -> None:
    path = json_path("game", "seats", index)
    if not isinstance(row, dict):
        v.findings.add("format", path, f"a seat is an object, not {json_kind(row)}")
        return
    check_fields(v.findings, row, path, _SEAT_ROW, words=_SEAT_WORDS)


def _check_envelope_shape(v: Verification, index: int, envelope: Any) -> bool:
    path = json_path("events", index)
    if not isinstance(envelope, dict):
        v.findings.add("format", path, f"an event is a JSON object, not {json_kind(envelope)}")
        return False
    kinds: dict[str, Kind] = {
        "v": is_int, "type": is_str, "at": is_record_time, "by": is_author, "data": is_dict,
        "prev": is_hex64, "hash": is_hex64,
    }
    optional: dict[str, Kind] = {}
    if v.record["complete"] is False:
        optional["redacted"] = lambda value: value is True  # only views of unfinished games
        # Before the end hashes are withheld (null): each would let guesses be tested.
        kinds["prev"] = kinds["hash"] = hex64_or_null
    words = {"at": TIME_RULE, "by": f'"system" or {PLAYER_ID_RULE}'}
    return check_fields(v.findings, envelope, path, kinds, optional, words)


def _check_times(v: Verification) -> None:
    """Times go forward: an event is not older than one before it by more than a clock's
    step back (CLOCK_STEP_BACK: times are taken by whichever process appends)."""
    latest = None
    for index, envelope in enumerate(v.events):
        moment = parse_time(envelope.get("at")) if isinstance(envelope, dict) else None
        if moment is None or not is_record_time(envelope["at"]):
            continue  # reported with the envelope
        if latest is not None and moment < latest[0] - CLOCK_STEP_BACK:
            v.findings.add("format", json_path("events", index, "at"), "is earlier than an event "
                           f"before it (events[{latest[1]}]) by more than "
                           f"{CLOCK_STEP_BACK}: times go forward",
                           expected=f">= {v.events[latest[1]]['at']} - {CLOCK_STEP_BACK}",
                           found=envelope["at"])
            v.usable[index] = False
        elif latest is None or moment > latest[0]:
            latest = (moment, index)
