"""Deadlines without a store: turn clocks in evolve, the timeout decision, resignations and
the ranks, and records with these events that verify (and tampered ones that do not)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from events.application.offline import OfflineLog, reenact, seat_player
from events.domain.deadlines import (
    TurnClock,
    deadline_rule,
    format_time,
    is_rule,
    parse_time,
    rank_resigned_last,
)
from events.domain.envelope import NewEvent
from events.domain.table import (
    Status,
    Table,
    decide_create,
    decide_join,
    decide_moves,
    decide_moves_for,
    decide_resign,
    decide_timeout,
    evolve,
)
from events.exceptions import AlreadyResigned, DeadlineNotDue, StaleDeadline
from events.records.record import build_record
from events.records.verify import verify_record
from games.bots import GREEDY, RANDOM, bot_move, bot_rng, random_move
from games.registry import get_game
from games.rng import Rng
from tests.records.helpers import forge, sign

RP = "res-publica-2230ad"
SEED = b"tests/deadlines: a seed"
MINUTE = 60


class ManualClock:
    """Event times for an offline log: a second per event, and jumps when a test says so."""

    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self, v: int) -> str:
        self.now += timedelta(seconds=1)
        return format_time(self.now)

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


def deadline_game(on_expiry: str, players: int = 3, game_type: str = RP,
                  bot: str | None = None) -> tuple[OfflineLog, ManualClock]:
    """A started table of people (Res Publica unless told) with a minute per move; `bot`:
    the stand-in's level (None: a rule from before levels, whose stand-in is random)."""
    game = get_game(game_type)
    clock = ManualClock()
    log = OfflineLog("dl", SEED, clock)
    rule: dict[str, Any] = {"seconds": MINUTE, "on_expiry": on_expiry}
    if bot is not None:
        rule["bot"] = bot
    options = dict(game.options().load({}))
    log.append([decide_create(game, players, options, hashlib.sha256(SEED).hexdigest(), rule)])
    for seat in range(players):
        player_id, name, _ = seat_player(seat)
        log.append(decide_join(log.table, player_id, name, seat))
    assert log.table.status is Status.ACTIVE
    return log, clock


def play_one(log: OfflineLog, rng: Rng) -> None:
    """A random move of the first seat that must act: its player's, or the bot's."""
    table = log.table
    assert table.state is not None
    seat = table.actors()[0]
    move = {"id": random_move(table.game, table.state, seat, rng)["id"]}
    if table.bot_played(seat):
        decision = decide_moves_for(table, seat, [move], log.seed)
    else:
        placed = table.seat_of(seat)
        assert placed is not None
        decision = decide_moves(table, placed.player_id, seat, [move], log.seed)
    log.append(decision.events, decision.table)


def time_out(log: OfflineLog, clock: ManualClock, seat: int) -> list[dict[str, Any]]:
    """Let `seat`'s deadline pass and append the timeout; the envelopes it added."""
    started = log.table.clock_of(seat)
    assert started is not None
    clock.now = parse_time(started.at) + timedelta(seconds=MINUTE)
    count = len(log.envelopes)
    decision = decide_timeout(log.table, seat, started.version, log.seed, clock.now)
    log.append(decision.events, decision.table)
    return log.envelopes[count:]


def rebuilt(log: OfflineLog) -> Table:
    table = Table.empty(log.table.id)
    for envelope in log.envelopes:
        table = evolve(table, envelope, log.seed)
    return table


def play_to_the_end(log: OfflineLog, rng: Rng) -> None:
    for _ in range(20_000):
        if log.table.status is Status.ENDED:
            return
        play_one(log, rng)
    raise AssertionError("no end")


# --- turn clocks ------------------------------------------------------------------------------


def test_clocks_start_when_a_seat_must_act_and_a_seat_that_stays_keeps_its_start() -> None:
    log, _ = deadline_game("bot")
    started = log.envelopes[-1]  # GameStarted
    table = log.table
    assert table.clocks == tuple(TurnClock(seat, started["v"], started["at"])
                                 for seat in table.actors())
    rng = Rng(b"clocks", 0)
    for _ in range(30):
        before = log.table
        play_one(log, rng)
        after, last = log.table, log.envelopes[-1]
        for seat in after.actors():
            clock = after.clock_of(seat)
            assert clock is not None
            if seat in before.actors():
                assert clock == before.clock_of(seat)  # still on the same turn
            else:
                assert clock.version > before.version and clock.at <= last["at"]
        assert {c.seat for c in after.clocks} == set(after.actors())
    assert rebuilt(log).to_json() == log.table.to_json()  # the decided table == the folded one


def test_a_message_restarts_no_clock() -> None:
    log, clock = deadline_game("bot")
    before = log.table.clocks
    clock.advance(30)
    log.append([NewEvent("MessagePosted", {"seat": 0, "text": "hurry"}, "p_alice")])
    assert log.table.clocks == before


def test_a_table_without_deadline_keeps_no_clock() -> None:
    game = get_game(RP)
    log = OfflineLog("plain", SEED)
    log.append([decide_create(game, 2, {}, hashlib.sha256(SEED).hexdigest())])
    assert "deadline" not in log.envelopes[0]["data"]  # the same events as before deadlines
    for seat in range(2):
        player_id, name, _ = seat_player(seat)
        log.append(decide_join(log.table, player_id, name, seat))
    assert log.table.clocks == () and log.table.deadline is None


def test_snapshot_round_trip_keeps_clocks_and_resignations() -> None:
    log, _ = deadline_game("resign")
    seat = log.table.actors()[0]
    decision = decide_resign(log.table, seat, "p_x")
    log.append(decision.events, decision.table)
    again = Table.from_json(json.loads(json.dumps(log.table.to_json())))
    assert again == log.table


# --- timing out -------------------------------------------------------------------------------


def test_an_early_or_stale_timeout_does_nothing() -> None:
    log, _ = deadline_game("bot")
    seat = log.table.actors()[0]
    clock = log.table.clock_of(seat)
    assert clock is not None
    due = parse_time(clock.at) + timedelta(seconds=MINUTE)
    with pytest.raises(DeadlineNotDue):
        decide_timeout(log.table, seat, clock.version, SEED, due - timedelta(milliseconds=1))
    with pytest.raises(StaleDeadline):
        decide_timeout(log.table, seat, clock.version - 1, SEED, due)
    idle = next(s for s in range(3) if s not in log.table.actors())
    with pytest.raises(StaleDeadline):
        decide_timeout(log.table, idle, clock.version, SEED, due)


def test_bot_expiry_plays_the_seat_until_it_no_longer_acts() -> None:
    log, clock = deadline_game("bot")
    seat = log.table.actors()[0]
    started = log.table.clock_of(seat)
    assert started is not None
    added = time_out(log, clock, seat)
    assert added[0]["type"] == "TurnTimedOut" and added[0]["by"] == "system"
    assert added[0]["data"] == {"seat": seat, "started": started.version}
    moves = [e for e in added if e["type"] == "MovePlayed"]
    assert moves and all(e["by"] == "system" and e["data"]["seat"] == seat for e in moves)
    assert seat not in log.table.actors() or log.table.status is Status.ENDED
    # The bot's moves are the random bot's, with the rng the `ai` queue would use.
    table = rebuilt_until(log, added[0]["v"])
    assert table.state is not None
    first = random_move(table.game, table.state, seat, bot_rng(SEED, table.version, seat))
    assert moves[0]["data"]["move"] == {"id": first["id"]}
    assert rebuilt(log).to_json() == log.table.to_json()


def test_a_greedy_stand_in_plays_greedys_moves_and_the_record_verifies() -> None:
    log, clock = deadline_game("bot", bot="greedy")
    seat = log.table.actors()[0]
    added = time_out(log, clock, seat)
    moves = [e for e in added if e["type"] == "MovePlayed"]
    table = rebuilt_until(log, added[0]["v"])
    assert table.state is not None
    first = bot_move(table.game, table.state, seat, bot_rng(SEED, table.version, seat), GREEDY)
    assert moves[0]["data"]["move"] == {"id": first["id"]}
    play_to_the_end(log, Rng(b"deadline games", 2))
    record = record_of(log)
    assert record["game"]["deadline"]["bot"] == "greedy"
    assert reenact(record) == record["events"]
    assert verify_record(record).ok


def rebuilt_until(log: OfflineLog, v: int) -> Table:
    table = Table.empty(log.table.id)
    for envelope in log.envelopes[:v]:
        table = evolve(table, envelope, log.seed)
    return table


def test_resign_expiry_resigns_the_seat_and_the_bot_plays_it_from_then_on() -> None:
    log, clock = deadline_game("resign")
    seat = log.table.actors()[0]
    added = time_out(log, clock, seat)
    assert [e["type"] for e in added] == ["TurnTimedOut", "PlayerResigned"]
    assert added[1]["by"] == "system" and added[1]["data"] == {"seat": seat}
    table = log.table
    assert table.resigned == (seat,) and table.bot_played(seat)
    assert seat in table.actors() and table.clock_of(seat) is None  # no clock for a bot
    placed = table.seat_of(seat)
    assert placed is not None and not placed.bot  # the header still says who sat there
    with pytest.raises(AlreadyResigned):
        decide_resign(table, seat, placed.player_id)
    with pytest.raises(AlreadyResigned):
        decide_moves(table, placed.player_id, seat, [{"id": "x"}], SEED)


# --- ranks ------------------------------------------------------------------------------------


def test_resigned_seats_rank_last_the_first_to_resign_lowest() -> None:
    sheet = {"seats": [{"seat": 0, "rank": 1}, {"seat": 1, "rank": 2}, {"seat": 2, "rank": 2},
                       {"seat": 3, "rank": 4}], "ranking": [0, 1, 2, 3]}
    ranked = rank_resigned_last(sheet, [0, 3])
    assert [(r["seat"], r["rank"], r.get("resigned", False)) for r in ranked["seats"]] == [
        (0, 4, True), (1, 1, False), (2, 1, False), (3, 3, True)]
    assert ranked["ranking"] == [1, 2, 3, 0]
    assert rank_resigned_last(sheet, []) is sheet


def test_a_deadline_rule_is_checked() -> None:
    assert deadline_rule(1.5, "bot", 3600) == {"seconds": 5400, "on_expiry": "bot",
                                               "bot": "greedy"}
    for hours, on_expiry in ((0.5, "bot"), (14 * 24 + 1, "bot"), (2, "pass")):
        with pytest.raises(ValueError):
            deadline_rule(hours, on_expiry, 3600)


def test_the_rule_names_its_stand_in_bot_and_older_rules_keep_theirs() -> None:
    """Issue 17: "A deadline that gives a seat to a bot uses a table-chosen level (default
    greedy)"; history stays true: a rule stored before levels existed keeps its random bot."""
    assert deadline_rule(1, "bot", 3600, "ismcts")["bot"] == "ismcts-200ms"  # canonical
    with pytest.raises(ValueError, match="unknown bot level"):
        deadline_rule(1, "bot", 3600, "grandmaster")
    with pytest.raises(ValueError, match="out of range"):
        deadline_rule(1, "bot", 3600, "ismcts-60000ms")
    assert is_rule({"seconds": 60, "on_expiry": "bot"})  # older tables
    assert is_rule({"seconds": 60, "on_expiry": "bot", "bot": "ismcts-500it"})
    for bot in ("ismcts", "nobody", 3, None):  # only canonical level ids are stored
        assert not is_rule({"seconds": 60, "on_expiry": "bot", "bot": bot})
    older = Table("g", deadline={"seconds": 60, "on_expiry": "bot"})
    assert older.stand_in_level() == RANDOM
    assert Table("g", deadline=deadline_rule(1, "resign", 3600)).stand_in_level() == GREEDY
    assert Table("g").stand_in_level() == GREEDY  # a resigned seat at a table without a clock


# --- whole games and their records ------------------------------------------------------------


def finished(on_expiry: str) -> tuple[OfflineLog, int]:
    """A 3-seat game to the end in which the first seat to act timed out."""
    log, clock = deadline_game(on_expiry)
    rng = Rng(b"deadline games", 1)
    for _ in range(5):
        play_one(log, rng)
    seat = log.table.actors()[0]
    time_out(log, clock, seat)
    play_to_the_end(log, rng)
    return log, seat


def record_of(log: OfflineLog) -> dict[str, Any]:
    return json.loads(json.dumps(sign(build_record(log.table, log.envelopes, log.seed, []))))


@pytest.mark.parametrize("on_expiry", ["bot", "resign"])
def test_a_game_with_timeouts_verifies_and_reenacts_hash_for_hash(on_expiry: str) -> None:
    log, seat = finished(on_expiry)
    record = record_of(log)
    assert record["game"]["deadline"] == {"seconds": MINUTE, "on_expiry": on_expiry}
    report = verify_record(record)
    assert report.ok, [p.describe() for p in report.problems]
    assert [e["hash"] for e in reenact(record)] == [e["hash"] for e in log.envelopes]
    assert rebuilt(log).to_json() == log.table.to_json()
    rows = {row["seat"]: row for row in log.table.result["seats"]}  # type: ignore[index]
    if on_expiry == "resign":
        assert rows[seat]["rank"] == 3 and rows[seat]["resigned"] is True
        assert log.table.result["ranking"][-1] == seat  # type: ignore[index]
    else:
        assert "resigned" not in rows[seat]


def index_of(record: dict[str, Any], kind: str) -> int:
    return next(i for i, e in enumerate(record["events"]) if e["type"] == kind)


def problems(record: dict[str, Any]) -> list[str]:
    report = verify_record(record)
    assert not report.ok
    return [p.path for p in report.problems]


def test_a_timeout_before_the_deadline_is_caught() -> None:
    record = record_of(finished("bot")[0])
    k = index_of(record, "TurnTimedOut")
    started = record["events"][k]["data"]["started"]
    record["events"][k]["at"] = record["events"][started - 1]["at"]  # when the turn began
    assert f"events[{k}].at" in problems(forge(record))


def test_a_system_move_for_a_seat_that_did_not_time_out_is_caught() -> None:
    record = record_of(finished("bot")[0])
    k = index_of(record, "MovePlayed")  # before the timeout: a player's own move
    record["events"][k]["by"] = "system"
    assert f"events[{k}].by" in problems(forge(record))


def test_a_dropped_resignation_or_a_changed_deadline_is_caught() -> None:
    record = record_of(finished("resign")[0])
    k = index_of(record, "PlayerResigned")
    dropped = json.loads(json.dumps(record))
    del dropped["events"][k]
    assert any(path.startswith(f"events[{k}]") for path in problems(forge(dropped)))
    record["game"]["deadline"]["seconds"] = 3600
    assert "game.deadline.seconds" in problems(forge(record))


def test_a_voluntary_resignation_without_deadline_verifies_and_ranks_last() -> None:
    game = get_game(RP)
    log = OfflineLog("quit", SEED, ManualClock())
    log.append([decide_create(game, 3, {}, hashlib.sha256(SEED).hexdigest())])
    for seat in range(3):
        player_id, name, _ = seat_player(seat)
        log.append(decide_join(log.table, player_id, name, seat))
    rng = Rng(b"quitter", 2)
    for _ in range(3):
        play_one(log, rng)
    decision = decide_resign(log.table, 1, "p_bob")
    log.append(decision.events, decision.table)
    play_to_the_end(log, rng)
    record = record_of(log)
    assert "deadline" not in record["game"] and log.table.clocks == ()
    report = verify_record(record)
    assert report.ok, [p.describe() for p in report.problems]
    assert log.table.result["ranking"][-1] == 1  # type: ignore[index]
    forged = json.loads(json.dumps(record))
    k = index_of(forged, "PlayerResigned")
    forged["events"][k]["by"] = "p_alice"  # someone else resigned bob's seat
    assert f"events[{k}].by" in problems(forge(forged))


# --- a new turn without a break (Trappist One: the last to choose starts the game) ----------

TRAPPIST = "trappist-one"


def last_to_choose(on_expiry: str) -> tuple[OfflineLog, ManualClock]:
    """Trappist One on the clock, seats 1 and 2 have made the secret starting choice: seat 0,
    the starting player, is the last to choose and then plays turn 1 without a break."""
    log, clock = deadline_game(on_expiry, 3, TRAPPIST)
    rng = Rng(b"tests/deadlines: trappist", 0)
    for _ in range(2):
        seat = max(log.table.actors())
        assert seat != 0
        state = log.table.state
        assert state is not None
        move = {"id": random_move(log.table.game, state, seat, rng)["id"]}
        placed = log.table.seat_of(seat)
        assert placed is not None
        decision = decide_moves(log.table, placed.player_id, seat, [move], log.seed)
        log.append(decision.events, decision.table)
    assert log.table.actors() == [0]
    return log, clock


def test_a_turn_that_follows_without_a_break_gets_its_own_clock() -> None:
    log, _ = last_to_choose("bot")
    chose_from = log.table.clock_of(0)
    assert chose_from is not None and chose_from.version < log.table.version
    table = log.table
    assert table.state is not None
    pick = random_move(table.game, table.state, 0, Rng(b"pick", 0))
    placed = table.seat_of(0)
    assert placed is not None
    decision = decide_moves(table, placed.player_id, 0, [{"id": pick["id"]}], log.seed)
    log.append(decision.events, decision.table)
    assert log.table.state is not None and log.table.state["phase"] == "benefit"
    assert log.table.actors() == [0]
    turn_one = log.table.clock_of(0)
    assert turn_one is not None and turn_one.version == log.table.version  # from the reveal
    assert rebuilt(log).to_json() == log.table.to_json()


def test_a_timed_out_choice_is_all_the_bot_plays_and_the_record_says_so() -> None:
    log, clock = last_to_choose("bot")
    added = time_out(log, clock, 0)
    assert [e["type"] for e in added] == ["TurnTimedOut", "MovePlayed"]
    assert added[1]["data"]["move"]["id"].startswith("pick:")
    assert log.table.actors() == [0]  # turn 1 is its player's, on a clock of its own
    turn_one = log.table.clock_of(0)
    assert turn_one is not None and turn_one.version == log.table.version
    play_to_the_end(log, Rng(b"tests/deadlines: the rest", 0))
    record = record_of(log)
    report = verify_record(record)
    assert report.ok, [p.describe() for p in report.problems]
    assert [e["hash"] for e in reenact(record)] == [e["hash"] for e in log.envelopes]
    # The system may not go on to play seat 0's first turn.
    k = next(i for i, e in enumerate(record["events"]) if i > index_of(record, "TurnTimedOut") + 1
             and e["type"] == "MovePlayed" and e["data"]["seat"] == 0)
    record["events"][k]["by"] = "system"
    assert f"events[{k}].by" in problems(forge(record))
