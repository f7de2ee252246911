"""The kinds of JSON value a record's fields hold, and the check of an object's fields that
the shape, header and signature checks share."""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from events.records.verify.paths import json_path
from events.records.verify.report import Findings
from games.rng import SEAT_SEED as SEAT_SEED_PATTERN

Kind = Callable[[Any], bool]  # is this JSON value of the right type and form?

HEX = re.compile(r"(?:[0-9a-f]{2})+")  # lowercase, whole bytes: how seeds are written
_HEX64 = re.compile(r"[0-9a-f]{64}")
_ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z")

# What the server writes, as the API bounds it. The verifier imports neither the service nor
# the use cases (it runs offline), so the bounds are repeated here; tests/records/
# test_event_data.py holds them equal to the originals.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # service.api.records.GAME_ID, events.store
# A person is "p_" and 16 hex digits (events.accounts.players), a bot "bot:<policy>"; the
# golden and test records name people "p_alice", "p_0": any 1 to 62 id characters after "p_".
PLAYER_ID = re.compile(r"p_[A-Za-z0-9_-]{1,62}|bot:[A-Za-z0-9_-]{1,60}")
SYSTEM = "system"  # the author of the events nobody's request caused
NAME_MAX_LENGTH = 40  # service.openapi.schemas.PlayerCreate.name
MESSAGE_MAX_LENGTH = 500  # events.application.meeple.MESSAGE_MAX_LENGTH
MAX_SEATS = 10  # service.openapi.schemas.GameCreate.seats
MOVE_ID_MAX_LENGTH = 200  # service.openapi.schemas.MoveIn.id
SEAT_SEED = re.compile(SEAT_SEED_PATTERN)  # SeatTaken's "seed" at a "dealing": "seats" table
# Times: a verdict must not depend on the day a record is checked, so the verifier's window is
# fixed (the golden records are dated 2030); a server importing a record also refuses any time
# later than its own clock allows (service.api.records, FUTURE_SKEW).
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)  # exclusive
# Times are taken by whichever process appends (API or worker, maybe on another host), so
# they may step back a little between events; never by more than this.
CLOCK_STEP_BACK = timedelta(hours=1)
# A name may not hold these (service.openapi.schemas.printable_name): control, format and line or
# paragraph separators (CR, LF, U+2028, a right-to-left override ...).
_UNPRINTABLE = ("Cc", "Cf", "Zl", "Zp")
# Table talk may run over several lines, as the API takes it: TAB, LF and CR are allowed, no
# other control character.
_TALK_CONTROLS = frozenset("\t\n\r")


def is_str(value: Any) -> bool:
    return isinstance(value, str)


def is_dict(value: Any) -> bool:
    return isinstance(value, dict)


def is_list(value: Any) -> bool:
    return isinstance(value, list)


def is_int(value: Any) -> bool:
    return type(value) is int  # JSON true is not a number


def is_hex64(value: Any) -> bool:
    return isinstance(value, str) and bool(_HEX64.fullmatch(value))


def hex64_or_null(value: Any) -> bool:
    return value is None or is_hex64(value)


def is_iso_utc(value: Any) -> bool:
    return parse_time(value) is not None


def parse_time(value: Any) -> datetime | None:
    """The moment of a well-formed record time, None for anything else."""
    return _parse_time(value) if isinstance(value, str) else None


@functools.lru_cache(maxsize=4096)  # each event's time is read by three checks
def _parse_time(value: str) -> datetime | None:
    if not _ISO_UTC.fullmatch(value):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def is_record_time(value: Any) -> bool:
    """ISO UTC, and between 2000 and 2100 (EARLIEST, LATEST): no year 9999."""
    moment = parse_time(value)
    return moment is not None and EARLIEST <= moment < LATEST


def is_game_id(value: Any) -> bool:
    return isinstance(value, str) and bool(GAME_ID.fullmatch(value))


def is_player_id(value: Any) -> bool:
    return isinstance(value, str) and bool(PLAYER_ID.fullmatch(value))


def is_author(value: Any) -> bool:
    """Who wrote an event: a player id, a bot, or the system."""
    return value == SYSTEM or is_player_id(value)


def is_name(value: Any) -> bool:
    """A seat's name as the API takes a player's: 1 to 40 characters, no control, format or
    line-separator characters, something besides spaces."""
    return (isinstance(value, str) and 1 <= len(value) <= NAME_MAX_LENGTH
            and bool(value.strip()) and not any(
                unicodedata.category(char) in _UNPRINTABLE for char in value))


NAME_RULE = (f"a name of 1 to {NAME_MAX_LENGTH} characters with something besides spaces and "
             "no control, format or line-separator characters (CR, LF, U+2028, ...), as the "
             "API takes a player's name")
PLAYER_ID_RULE = 'a player id ("p_…" or "bot:…", at most 64 letters, digits, "_" or "-")'
GAME_ID_RULE = "a game id: 1 to 64 letters, digits, '_' or '-'"
TIME_RULE = ("a time in UTC, YYYY-MM-DDTHH:MM:SS.mmmZ, from the year 2000 to 2099 (no year "
             "9999)")


def is_message(value: Any) -> bool:
    """Table talk as the API posts it: stripped, 1 to 500 characters, no control characters
    but TAB, LF and CR."""
    return (isinstance(value, str) and value == value.strip()
            and 1 <= len(value) <= MESSAGE_MAX_LENGTH and not any(
                unicodedata.category(char) == "Cc" and char not in _TALK_CONTROLS
                for char in value))


def is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite JSON number (not a boolean)."""
    return type(value) in (int, float) and math.isfinite(value)


def seat_list(value: Any) -> bool:
    return isinstance(value, list) and all(is_int(seat) for seat in value)


def json_kind(value: Any) -> str:
    """What a JSON value is, in words: "an object", "null", ..."""
    kinds = ((dict, "an object"), (list, "an array"), (str, "a string"), (bool, "a boolean"),
             (int, "a number"), (float, "a number"))
    if value is None:
        return "null"
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def check_fields(findings: Findings, value: dict[str, Any], path: str, kinds: dict[str, Kind],
                 optional: dict[str, Kind] | None = None,
                 words: dict[str, str] | None = None) -> bool:
    """Every field of `kinds` is there and of its kind, and no other is, except the ones of
    `optional` when of their kind; False (with "format" problems) when not. `words` say what
    a field must be, for the report ("has the wrong type or form" otherwise)."""
    fine = True
    words = words or {}
    for name, is_right in kinds.items():
        if name not in value:
            findings.add("format", json_path(path, name), "is missing")
            fine = False
        elif not is_right(value[name]):
            findings.add("format", json_path(path, name), _wrong(name, words),
                         found=shown(value[name]))
            fine = False
    for name in sorted(value.keys() - kinds.keys()):
        if optional and name in optional:
            if optional[name](value[name]):
                continue
            findings.add("format", json_path(path, name), _wrong(name, words),
                         found=shown(value[name]))
        else:
            findings.add("format", json_path(path, name), "is not a field here")
        fine = False
    return fine


def _wrong(name: str, words: dict[str, str]) -> str:
    return f"must be {words[name]}" if name in words else "has the wrong type or form"


def shown(value: Any) -> Any:
    """A found value as a report shows it: a long text is cut (a 5,000-character name needs no
    repeating)."""
    if isinstance(value, str) and len(value) > 100:
        return value[:100] + f"… ({len(value)} characters)"
    return value
