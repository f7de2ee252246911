"""Check 7, deadlines (events.domain.deadlines), for a table with one, and resignations:
each TurnTimedOut names a seat on the clock started at that version and comes at or after
its deadline; then, at a "resign" table, that seat's PlayerResigned at once; a MovePlayed by
"system" only for a resigned seat or one timed out at a "bot" table, until it stops acting
(which moves the bot chose is not re-derived: any legal move re-executes); resigned seats
rank last. It runs inside the re-execution (replay.py), which holds the rules' state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from events.domain.deadlines import TurnClock, due, next_clocks, parse_time, restarted
from events.records.verify.fields import is_int
from events.records.verify.paths import json_path
from events.records.verify.report import Findings


@dataclass
class Deadlines:
    """The rule, the turn clocks, the seats that resigned (in order), the timed-out seats the
    system plays until they stop acting, and a seat whose PlayerResigned must come next (a
    timed-out turn at a "resign" table)."""

    findings: Findings
    rule: dict[str, Any] | None
    clocks: tuple[TurnClock, ...] = ()
    resigned: list[int] = field(default_factory=list)
    autoplay: set[int] = field(default_factory=set)
    must_resign: int | None = None
    turns: dict[int, int] = field(default_factory=dict)  # each actor's turn (game.turn)

    def played_by_system(self, seat: int) -> bool:
        """A resigned or timed-out seat, played by the bot."""
        return seat in (*self.resigned, *self.autoplay)

    def tick(self, envelope: dict[str, Any], acting: list[int], turns: dict[int, int]) -> None:
        """The turn clocks after an event, as events.domain.table.evolve keeps them: `acting`
        are the people who must act after it, `turns` the turn of every seat that must (none
        once the game is not in play). The system plays a timed-out seat until that turn of
        it is over: it no longer acts, or its next turn began."""
        restart = restarted(envelope, self.turns, turns)
        self.clocks = next_clocks(self.clocks, acting, envelope["v"], envelope["at"], restart)
        self.autoplay = {seat for seat in self.autoplay
                         if seat in turns and self.turns.get(seat, turns[seat]) == turns[seat]}
        self.turns = turns

    def timed_out(self, index: int, envelope: dict[str, Any]) -> bool:
        data = envelope["data"]
        seat, started = data.get("seat"), data.get("started")
        if set(data) != {"seat", "started"} or not is_int(seat) or not is_int(started):
            self.findings.add("format", json_path("events", index, "data"),
                              'TurnTimedOut is {"seat", "started"}', found=data)
            return False
        if self.rule is None:
            self.findings.add("replay", json_path("events", index, "type"), "a game without a "
                              "deadline has no timed-out turns", found="TurnTimedOut")
            return False
        clock = next((c for c in self.clocks if c.seat == seat), None)
        if clock is None or clock.version != started:
            self.findings.add("replay", json_path("events", index, "data", "started"),
                              f"seat {seat} is not on a clock that started at this version",
                              expected=clock.version if clock else None, found=started)
            return False
        deadline = due(clock, self.rule)
        if parse_time(envelope["at"]) < deadline:
            self.findings.add("replay", json_path("events", index, "at"), "the turn timed out "
                              "before its deadline", expected=f">= {deadline.isoformat()}",
                              found=envelope["at"])
        if self.rule["on_expiry"] == "resign":
            self.must_resign = seat
        else:
            self.autoplay.add(seat)
        return True

    def expect_resignation(self, index: int, envelope: dict[str, Any]) -> bool:
        """At a "resign" table, the seat's PlayerResigned comes right after TurnTimedOut."""
        if self.must_resign is None:
            return True
        seat = envelope["data"].get("seat")
        if envelope["type"] == "PlayerResigned" and seat == self.must_resign:
            return True
        self.findings.add("replay", json_path("events", index, "type"), f"seat "
                          f"{self.must_resign} timed out at a table whose rule is to resign: "
                          "its PlayerResigned must come now", expected="PlayerResigned",
                          found=envelope["type"])
        return False

    def resign(self, index: int, envelope: dict[str, Any],
               may_resign: Callable[[int], bool]) -> bool:
        """PlayerResigned, timed out or not; `may_resign`: a player's seat, in play."""
        data = envelope["data"]
        seat = data.get("seat")
        if set(data) != {"seat"} or not is_int(seat):
            self.findings.add("format", json_path("events", index, "data"),
                              'PlayerResigned is {"seat"}', found=data)
            return False
        if not may_resign(seat) or seat in self.resigned:
            self.findings.add("replay", json_path("events", index, "data", "seat"), "only a "
                              "player's seat that has not resigned may resign, while the game "
                              "is in play", found=seat)
            return False
        self.must_resign = None
        self.resigned.append(seat)
        return True
