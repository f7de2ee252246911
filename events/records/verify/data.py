"""Each event's data, by type: its keys, their types and bounds, as the server writes them
(events/domain/table.py, events/application/meeple.py for MessagePosted, workers/jobs.py with
events/readmodels/ratings.py for GameScored) and as the API bounds what people send
(service/openapi/schemas.py). It runs with the shape check (shape.py), before anything else reads
the events, so that no later check, and no server importing the record, meets data it cannot
read: an event whose data breaks these rules gets a problem (check "data") at its version and
is not re-executed (replay.py stops there).

A record is hashed data, so a key that no server writes is refused too ("is not a field
here"): accepting one would accept a record no server made. The rules per type are `DATA`
below, one table per event type; docs/records.md lists them in words.

Rules that depend on the events before (a seat in range needs GameCreated's seat count, a
message's seat must be taken, a seat's "seed" exists exactly at a "dealing": "seats" table)
read `Seen`, what the events so far established.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from events.domain.deadlines import MAX_MOVE_SECONDS, is_rule
from events.records.verify.fields import (
    GAME_ID_RULE,
    MAX_SEATS,
    MESSAGE_MAX_LENGTH,
    MOVE_ID_MAX_LENGTH,
    NAME_RULE,
    PLAYER_ID_RULE,
    SEAT_SEED,
    is_bool,
    is_dict,
    is_game_id,
    is_hex64,
    is_int,
    is_message,
    is_name,
    is_number,
    is_player_id,
    is_str,
    json_kind,
    shown,
)
from events.records.verify.paths import json_path
from events.records.verify.verification import Verification
from games.rng import DRAWS_BY_MOVE


@dataclass
class Seen:
    """What the events before the one checked established."""

    seats: int | None = None  # GameCreated's seat count, once it is a valid one
    seated: set[int] = field(default_factory=set)  # the seats SeatTaken took
    dealing: bool = False  # GameCreated says "dealing": "seats": each SeatTaken has a "seed"
    version: int = 0  # the version of the event checked

    def seat_count(self) -> int:
        return self.seats if self.seats is not None else MAX_SEATS

    def is_seat(self, value: Any) -> bool:
        return is_int(value) and 0 <= value < self.seat_count()


# A fault: where under the key (further keys or indexes) and what is wrong there.
Fault = tuple[tuple[str | int, ...], str]
Check = Callable[[Any, Seen], Iterator[Fault]]
Presence = Callable[[Seen], bool]  # True: the key must be there; False: it must not


@dataclass(frozen=True)
class Key:
    """One key of an event's data: how to check its value, and whether it must be there
    (`present`: "required", "optional", or a function of what was seen)."""

    check: Check
    present: str | Presence = "required"


def rule(kind: Callable[[Any], bool], words: str) -> Check:
    """A check of the value alone: `words` say what it must be."""
    def check(value: Any, _: Seen) -> Iterator[Fault]:
        if not kind(value):
            yield (), f"must be {words}"
    return check


def seat(value: Any, seen: Seen) -> Iterator[Fault]:
    if not seen.is_seat(value):
        yield (), f"must be a seat number, 0 to {seen.seat_count() - 1}"


def seated(value: Any, seen: Seen) -> Iterator[Fault]:
    if not is_int(value) or value not in seen.seated:
        yield (), f"must be a seat taken before this event ({sorted(seen.seated)})"


def seats(value: Any, _: Seen) -> Iterator[Fault]:
    if not is_int(value) or not 1 <= value <= MAX_SEATS:
        yield (), f"must be a seat count, 1 to {MAX_SEATS}"


def deadline(value: Any, _: Seen) -> Iterator[Fault]:
    if not is_rule(value) or value["seconds"] > MAX_MOVE_SECONDS:
        yield (), (f'must be {{"seconds": 1 to {MAX_MOVE_SECONDS:,} (14 days), "on_expiry": '
                   '"bot" or "resign", optional "bot": a bot level (random, greedy, '
                   'ismcts-<n>ms or ismcts-<n>it)}')


def started(value: Any, seen: Seen) -> Iterator[Fault]:
    if not is_int(value) or not 1 <= value < seen.version:
        yield (), f"must be the version at which the turn started, 1 to {seen.version - 1}"


def move(value: Any, _: Seen) -> Iterator[Fault]:
    if (not isinstance(value, dict) or set(value) != {"id"} or not isinstance(value["id"], str)
            or not 1 <= len(value["id"]) <= MOVE_ID_MAX_LENGTH):
        yield (), (f'must be {{"id": a move id of 1 to {MOVE_ID_MAX_LENGTH} characters}}, '
                   "as a move is recorded")


def facts(value: Any, seen: Seen) -> Iterator[Fault]:
    if not isinstance(value, list):
        yield (), "must be a list of facts"
        return
    for index, fact in enumerate(value):
        if not isinstance(fact, dict) or set(fact) != {"text", "data", "to"}:
            yield (index,), 'a fact is {"text", "data", "to"}'
            continue
        if not isinstance(fact["text"], str):
            yield (index, "text"), "must be a string"
        if not isinstance(fact["data"], dict):
            yield (index, "data"), "must be an object"
        to = fact["to"]
        if to != "all" and not (isinstance(to, list) and all(seen.is_seat(s) for s in to)):
            yield (index, "to"), '"all" or a list of seat numbers'


def rating_rows(value: Any, seen: Seen) -> Iterator[Fault]:
    """GameScored's rows, in either of the two layouts servers have written: the scoring
    worker's {"seat", "player_id", "before": {"mu", "sigma"}, "after": {"mu", "sigma"}}
    (events/readmodels/ratings.py) and the older {"seat", "player_id", "mu_before",
    "mu_after"} (the golden records, tests/golden/make_golden.py). One row a seat at most."""
    if not isinstance(value, list) or len(value) > seen.seat_count():
        yield (), f"must be a list of at most {seen.seat_count()} rating rows, one a seat"
        return
    taken: set[int] = set()
    for index, row in enumerate(value):
        if not isinstance(row, dict):
            yield (index,), f"a rating row is an object, not {json_kind(row)}"
            continue
        yield from _rating_row(index, row, seen, taken)


_WORKER_ROW = {"seat", "player_id", "before", "after"}
_GOLDEN_ROW = {"seat", "player_id", "mu_before", "mu_after"}


def _rating_row(index: int, row: dict[str, Any], seen: Seen, taken: set[int]) -> Iterator[Fault]:
    if set(row) not in (_WORKER_ROW, _GOLDEN_ROW):
        yield (index,), ('a rating row is {"seat", "player_id", "before": {"mu", "sigma"}, '
                         '"after": {"mu", "sigma"}} or {"seat", "player_id", "mu_before", '
                         '"mu_after"}')
        return
    if not seen.is_seat(row["seat"]) or row["seat"] in taken:
        yield (index, "seat"), (f"must be a seat number, 0 to {seen.seat_count() - 1}, "
                                "one row a seat")
    else:
        taken.add(row["seat"])
    if not is_player_id(row["player_id"]):
        yield (index, "player_id"), f"must be {PLAYER_ID_RULE}"
    if "before" in row:
        for when in ("before", "after"):
            rating = row[when]
            if (not isinstance(rating, dict) or set(rating) != {"mu", "sigma"}
                    or not is_number(rating["mu"]) or not is_number(rating["sigma"])
                    or rating["sigma"] <= 0):
                yield (index, when), ('must be {"mu": a finite number, "sigma": a finite '
                                      "number > 0}")
    else:
        for name in ("mu_before", "mu_after"):
            if not is_number(row[name]):
                yield (index, name), "must be a finite number"


def seat_seed(value: Any, _: Seen) -> Iterator[Fault]:
    if not isinstance(value, str) or not SEAT_SEED.fullmatch(value):
        yield (), "must be 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'"


def dealing(seen: Seen) -> bool:
    return seen.dealing


MESSAGE = (f"1 to {MESSAGE_MAX_LENGTH} characters without surrounding whitespace and no "
           "control characters but TAB, LF and CR, as the API posts table talk")

# Every event type a server writes, and its data.
DATA: dict[str, dict[str, Key]] = {
    "GameCreated": {  # events.domain.table.decide_create
        "type": Key(rule(is_str, "a game type id")),
        "rules_version": Key(rule(is_str, "a rules version")),
        "options": Key(rule(is_dict, "an object")),
        "seats": Key(seats),
        "seed_commitment": Key(rule(is_hex64, "64 lowercase hex digits")),
        "deadline": Key(deadline, "optional"),  # a table with a time per move
        "game_id": Key(rule(is_game_id, GAME_ID_RULE), "optional"),
        "dealing": Key(rule(lambda value: value == "seats", '"seats"'), "optional"),
        # the random streams numbered by the moves (games.rng.setup_stream, move_stream);
        # games made before leave it out (numbered by versions)
        "draws": Key(rule(lambda value: value == DRAWS_BY_MOVE, f'"{DRAWS_BY_MOVE}"'),
                     "optional"),
        # a private table (public ones, the default, leave it out)
        "public": Key(rule(lambda value: value is False, "false"), "optional"),
    },
    "SeatTaken": {  # events.domain.table.decide_join
        "seat": Key(seat),
        "player_id": Key(rule(is_player_id, PLAYER_ID_RULE)),
        "name": Key(rule(is_name, NAME_RULE)),
        "bot": Key(rule(is_bool, "true or false")),
        "seed": Key(seat_seed, dealing),  # exactly at a "dealing": "seats" table
    },
    "GameStarted": {},
    "MovePlayed": {  # events.domain.table._decide_plays
        "seat": Key(seat),
        "move": Key(move),  # a redacted view may leave it out (another seat's move)
        "facts": Key(facts),
    },
    "GameEnded": {"scores": Key(rule(is_dict, "the score sheet, an object"))},
    "SeedRevealed": {"seed": Key(rule(is_str, "the seed, as hex"))},  # its form: seed.py
    "TurnTimedOut": {"seat": Key(seat), "started": Key(started)},
    "PlayerResigned": {"seat": Key(seat)},
    "MessagePosted": {  # events.application.meeple.Meeple.post_message
        "seat": Key(seated),
        "text": Key(rule(is_message, MESSAGE)),
    },
    "GameScored": {"ratings": Key(rating_rows)},  # workers.jobs.score_game
}


def check_event_data(v: Verification) -> None:
    """Every event's data against its type's rules; an event that breaks them is no longer
    usable (`v.usable`). Unknown types are the re-execution's to report (replay.py)."""
    seen = Seen()
    for index, envelope in enumerate(v.events):
        if not isinstance(envelope, dict) or not isinstance(envelope.get("data"), dict):
            continue  # the shape check reported it
        kind = envelope.get("type")
        if not isinstance(kind, str) or kind not in DATA:
            continue
        seen.version = index + 1
        faults = list(data_faults(kind, envelope["data"], seen, envelope.get("redacted") is True))
        for keys, detail in faults:
            path = json_path("events", index, "data", *keys)
            v.findings.add("data", path, f"{kind}: {detail}", found=shown(
                _at(envelope["data"], keys)) if keys else None)
        if faults:
            v.usable[index] = False
        _remember(seen, kind, envelope["data"], fine=not faults)


def data_faults(kind: str, data: dict[str, Any], seen: Seen,
                redacted: bool = False) -> Iterator[Fault]:
    """What is wrong with the data of an event of type `kind` (one of DATA)."""
    keys = DATA[kind]
    for name, key in keys.items():
        wanted = _wanted(key, name, seen, redacted)
        if name not in data:
            if wanted is True:
                yield (name,), "is missing"
        elif wanted is False:
            yield (name,), "is not a field here" + (
                ' (only at a table whose GameCreated says "dealing": "seats")'
                if kind == "SeatTaken" and name == "seed" else "")
        else:
            yield from (((name, *where), detail) for where, detail in key.check(data[name], seen))
    for name in sorted(set(data) - set(keys)):
        yield (name,), ("is not a field here: a record is hashed data, and no server writes "
                        f"this key in {kind}")


def valid_created(data: dict[str, Any]) -> bool:
    """GameCreated's data follows its rules (for the header check, which reads it)."""
    return not any(data_faults("GameCreated", data, Seen(version=1)))


def _wanted(key: Key, name: str, seen: Seen, redacted: bool) -> bool | None:
    """True: required; False: must not be there; None: optional."""
    if redacted and name == "move":
        return None  # a seat's view of another seat's move holds no move
    if key.present == "required":
        return True
    if key.present == "optional":
        return None
    assert callable(key.present)
    return key.present(seen)


def _remember(seen: Seen, kind: str, data: dict[str, Any], fine: bool) -> None:
    if kind == "GameCreated" and seen.version == 1:
        if is_int(data.get("seats")) and 1 <= data["seats"] <= MAX_SEATS:
            seen.seats = data["seats"]
        seen.dealing = data.get("dealing") == "seats"
    elif kind == "SeatTaken" and (fine or seen.is_seat(data.get("seat"))):
        seen.seated.add(data["seat"])


def _at(data: Any, keys: tuple[str | int, ...]) -> Any:
    for key in keys:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


