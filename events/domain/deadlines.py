"""Deadlines (issue 5.5): pure rules shared by the Table, the dispatcher and the verifier.

A table may give each move a time limit (`DeadlineRule`, stored in GameCreated as
{"seconds", "on_expiry", "bot"}). Each person who must act has a turn clock: the version and
time at which they became an actor. When the clock runs out, TurnTimedOut is appended and then
the table's consequence: a bot plays the seat's turn ("bot"), or the seat resigns
("resign": PlayerResigned, after which the bot plays that seat to the end and it ranks last).
"bot" is that stand-in bot's level (games.bots; the default greedy); rules stored before
levels existed have none, and their stand-in plays random moves, as it always did.

No Table import here: events.records.verify re-checks records with these same functions.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import groupby
from operator import itemgetter
from typing import Any

from games.bots import Level

ON_EXPIRY = ("bot", "resign")
MAX_MOVE_SECONDS = 14 * 24 * 3600
DEFAULT_MIN_MOVE_SECONDS = 3600
# The reminder goes out a quarter of the time per move before expiry, never more than a day.
REMINDER_FRACTION = 4
MAX_REMINDER_LEAD = timedelta(hours=24)


@dataclass(frozen=True)
class TurnClock:
    """When `seat` became an actor: the version of that event and its time (ISO UTC)."""

    seat: int
    version: int
    at: str


def min_move_seconds() -> int:
    """The shortest time per move a table may choose (MEEPLE_MIN_MOVE_SECONDS; tests lower it)."""
    raw = os.environ.get("MEEPLE_MIN_MOVE_SECONDS", "").strip()
    return int(raw) if raw else DEFAULT_MIN_MOVE_SECONDS


def deadline_rule(hours: float, on_expiry: str, minimum: int, bot: str = "greedy"
                  ) -> dict[str, Any]:
    """GameCreated's "deadline" from a request; ValueError says what is wrong with it."""
    level = Level.parse(bot)
    if on_expiry not in ON_EXPIRY:
        raise ValueError(f"on_expiry is one of {', '.join(ON_EXPIRY)}, not {on_expiry!r}")
    seconds = round(hours * 3600)  # fractional hours are fine; whole seconds are stored
    if not minimum <= seconds <= MAX_MOVE_SECONDS:
        raise ValueError(f"the time per move is {minimum / 3600:g} to {MAX_MOVE_SECONDS // 3600} "
                         f"hours, not {hours:g}")
    return {"seconds": seconds, "on_expiry": on_expiry, "bot": level.id}


def is_rule(value: Any) -> bool:
    """The shape of a stored rule (for the verifier); "bot" is optional (older rules)."""
    return (isinstance(value, dict) and set(value) - {"bot"} == {"seconds", "on_expiry"}
            and type(value["seconds"]) is int and value["seconds"] > 0
            and value["on_expiry"] in ON_EXPIRY
            and ("bot" not in value or _is_level_id(value["bot"])))


def _is_level_id(value: Any) -> bool:
    try:
        return isinstance(value, str) and Level.parse(value).id == value
    except ValueError:
        return False


def parse_time(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def due(clock: TurnClock, rule: dict[str, Any]) -> datetime:
    return parse_time(clock.at) + timedelta(seconds=rule["seconds"])


def reminder_time(clock: TurnClock, rule: dict[str, Any]) -> datetime:
    lead = min(timedelta(seconds=rule["seconds"] / REMINDER_FRACTION), MAX_REMINDER_LEAD)
    return due(clock, rule) - lead


def next_clocks(clocks: Sequence[TurnClock], acting: Iterable[int], v: int, at: str,
                restart: Collection[int] = ()) -> tuple[TurnClock, ...]:
    """The clocks after event `v` (at `at`), given the people who must act after it: a seat
    that stays an actor keeps its start, a new one starts now, the others stop; a seat in
    `restart` (TurnTimedOut's seat, a seat whose new turn began: `restarted`) starts again
    now if it is still an actor."""
    old = {clock.seat: clock for clock in clocks}
    new = []
    for seat in sorted(set(acting)):
        kept = old.get(seat)
        new.append(kept if kept is not None and seat not in restart else TurnClock(seat, v, at))
    return tuple(new)


def restarted(envelope: dict[str, Any], turns_before: Mapping[int, int],
              turns_after: Mapping[int, int]) -> set[int]:
    """The seats whose clock starts again at this event: TurnTimedOut's seat, and every seat
    whose turn (the game's `turn`) is not the one it was before the event."""
    seats = {seat for seat, turn in turns_after.items()
             if seat in turns_before and turns_before[seat] != turn}
    if envelope["type"] == "TurnTimedOut":
        seats.add(envelope["data"].get("seat"))
    return seats


def rank_resigned_last(sheet: dict[str, Any], resigned: Sequence[int], *,
                       group_ties: bool = True) -> dict[str, Any]:
    """The score sheet with resigned seats ranked below everyone who played on (whose ranks,
    ties included, keep their order); among resigned seats, the earlier a seat resigned, the
    lower it ranks. Each resigned seat's row says "resigned": true. No resignation: as is.
    Seats still sharing a place stay one list in "ranking" when the game's own sheet grouped
    its ties (`group_ties=False`: the flat list servers wrote before, which records keep)."""
    if not resigned:
        return sheet
    rows = {row["seat"]: dict(row) for row in sheet["seats"]}
    stayed = sorted((row for seat, row in rows.items() if seat not in resigned),
                    key=lambda row: (row["rank"], row["seat"]))
    previous: tuple[int, int] | None = None  # (original rank, new rank) of the row before
    for place, row in enumerate(stayed, start=1):
        rank = previous[1] if previous and previous[0] == row["rank"] else place
        previous = (row["rank"], rank)
        row["rank"] = rank
    for place, seat in enumerate(reversed(list(resigned)), start=len(stayed) + 1):
        rows[seat]["rank"] = place
        rows[seat]["resigned"] = True
    grouped = group_ties and any(isinstance(entry, list) for entry in sheet["ranking"])
    ordered: list[int | list[int]] = [*_places(stayed, grouped), *reversed(list(resigned))]
    return {**sheet, "seats": [rows[row["seat"]] for row in sheet["seats"]],
            "ranking": ordered}


def _places(rows: list[dict[str, Any]], grouped: bool) -> list[int | list[int]]:
    """The seats of `rows` (in rank order) best first; with `grouped`, seats sharing a rank
    as one list, as `games.standings.rank_tied_together` writes them."""
    if not grouped:
        return [row["seat"] for row in rows]
    places = [[row["seat"] for row in same] for _, same in groupby(rows, key=itemgetter("rank"))]
    return [place if len(place) > 1 else place[0] for place in places]
