"""Check 4, header: what "game" and "seed_commitment" say equals what GameCreated and SeatTaken
say; the game type and its rules_version are the ones this code has."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from events.records.verify.data import valid_created
from events.records.verify.fields import is_int, parse_time
from events.records.verify.paths import first_difference, json_path
from events.records.verify.report import Problem
from events.records.verify.verification import Verification
from games.contract import Game
from games.registry import RULES

# (header field, GameCreated's field): the same value under two names.
_FROM_CREATED = (("type", "type"), ("rules_version", "rules_version"), ("options", "options"),
                 ("seat_count", "seats"), ("deadline", "deadline"))


def check_header(v: Verification) -> tuple[Game | None, dict[str, Any] | None]:
    """The registered game and GameCreated's data, when re-execution can use them."""
    created = _created_data(v)
    if created is None:
        return None, None
    header = v.record["game"]
    if "game_id" in created:  # games made since records name their id in GameCreated
        _compare(v, "game.id", created["game_id"], header.get("id"), "events[0].data.game_id")
    for mine, theirs in _FROM_CREATED:
        _compare(v, json_path("game", mine), created.get(theirs), header.get(mine),
                 f"events[0].data.{theirs}")
    _compare(v, "seed_commitment", created.get("seed_commitment"), v.record["seed_commitment"],
             "events[0].data.seed_commitment")
    _compare(v, "game.created_at", v.events[0].get("at"), header.get("created_at"),
             "events[0].at")
    _compare(v, "game.seats", _seats_taken(v), header.get("seats"), "the SeatTaken events")
    ended = v.first_index("GameEnded") is not None
    started = v.first_index("GameStarted") is not None
    status = "ended" if ended else "active" if started else "open"
    _compare(v, "game.status", status, header.get("status"), "the events")
    _compare(v, "complete", ended, v.record["complete"], "GameEnded's presence")
    return _registered_game(v, created), created


def _created_data(v: Verification) -> dict[str, Any] | None:
    first = v.events[0] if v.events else None
    if not isinstance(first, dict) or first.get("type") != "GameCreated":
        v.findings.add("header", "events[0].type" if v.events else "events",
                       "the first event must be GameCreated", expected="GameCreated",
                       found=first.get("type") if isinstance(first, dict) else None)
        return None
    data = first.get("data")
    # Its fields are checked with every event's data (data.py), which reported what is wrong.
    return data if isinstance(data, dict) and valid_created(data) else None


def _compare(v: Verification, path: str, expected: Any, found: Any, source: str) -> None:
    difference = first_difference(expected, found, path)
    if difference:
        v.findings.add_difference("header", difference, f"the header disagrees with {source}")


def _seats_taken(v: Verification) -> list[dict[str, Any]]:
    names = ("seat", "player_id", "name", "bot")
    seats = [
        {name: e["data"].get(name) for name in names}
        for e in v.events
        if isinstance(e, dict) and e.get("type") == "SeatTaken" and isinstance(e.get("data"), dict)
    ]
    return sorted(seats, key=lambda s: s["seat"] if is_int(s["seat"]) else -1)


def _registered_game(v: Verification, created: dict[str, Any]) -> Game | None:
    versions = RULES.get(created["type"])
    v.checked["rules"] = f"{created['type']} rules_version {created['rules_version']}"
    if versions is None:
        v.findings.add("rules", "game.type", f"unknown game type {created['type']!r}: this code "
                       f"has {sorted(RULES)}; cannot re-execute", found=created["type"])
        return None
    game = versions.get(created["rules_version"])
    if game is None:
        v.findings.add("rules", "game.rules_version", f"cannot re-execute: rules_version "
                       f"{created['rules_version']}, this code has {sorted(versions)}",
                       expected=sorted(versions), found=created["rules_version"])
        return None
    return game


def later_than(record: Any, limit: datetime) -> list[Problem]:
    """The times of a (verified) record later than `limit`: a server importing a record
    refuses a game from its future (its clock, plus some skew), which the verifier itself,
    whose verdict must not depend on the day, cannot (its window ends in 2100)."""
    places: list[tuple[str, Any]] = [("game.created_at", record["game"].get("created_at"))]
    places += [(json_path("events", index, "at"), envelope.get("at"))
               for index, envelope in enumerate(record["events"])]
    problems = []
    for path, at in places:
        moment = parse_time(at)
        if moment is not None and moment > limit:
            version = int(path[7:path.index("]")]) + 1 if path.startswith("events[") else None
            problems.append(Problem("format", version, path, f"<= {_iso(limit)}", at,
                                    "is in the future of this server's clock: a game from the "
                                    "future cannot be imported"))
    return problems


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
