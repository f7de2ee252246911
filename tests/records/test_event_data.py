"""Each event type's data and the header's names, ids and times are checked (events/records/
verify/data.py, shape.py): a record whose chain is re-sealed and that is signed again by the
trusted key, so that nothing else catches the change, is refused at the version of the event,
for the reason. And the small bugs of the same bullet: canonical JSON refuses NaN, sealing
refuses keys that are not strings, a JSON `true` is not version 1."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from events.application.offline import OfflineLog, fixed_clock, play_offline
from events.domain.envelope import NewEvent, canonical_json, chain_breaks, seal
from events.domain.table import Status, decide_moves, decide_moves_for, decide_resign
from events.records.keys import b64url_encode, key_id_of, raw_public_key, trusted_keys
from events.records.record import build_record
from events.records.verify import Report, fields, verify_record
from events.records.verify import data as data_rules
from events.records.verify.data import Seen, data_faults
from events.records.verify.header import later_than
from games.bots import random_move
from games.rng import Rng
from tests.records.helpers import GAME_TYPES, SEED, event_index, finished_record, reseal, server_key
from tests.records.helpers import sign as sign_with_server_key

Record = dict[str, Any]
GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def server_keys() -> Any:
    public = server_key().public_key()
    return trusted_keys({"keys": [{"id": key_id_of(public), "alg": "Ed25519",
                                   "public_key": b64url_encode(raw_public_key(public))}]})


def resealed(record: Record) -> Record:
    """The record after a change, chain re-sealed and signed again by the trusted key: only
    a check of what the change made can catch it."""
    record["events"] = reseal(record["events"])
    return sign_with_server_key(record)


def verify(record: Record) -> Report:
    return verify_record(json.loads(json.dumps(record)), server_keys())


def without_data_checks(record: Record, monkeypatch: pytest.MonkeyPatch) -> Report:
    """The verdict of the verifier as it was: no check of event data."""
    with monkeypatch.context() as patched:
        patched.setattr("events.records.verify.shape.check_event_data", lambda v: None)
        patched.setattr("events.records.verify.header.valid_created", lambda data: True)
        return verify(record)


def problems(report: Report) -> list[tuple[str, int | None, str]]:
    return [(p.check, p.version, p.path) for p in report.problems]


def only_data_problems(report: Report, version: int, path: str, words: str) -> None:
    """The report names this event's data, for this reason, and nothing else but the stop of
    the re-execution there."""
    assert not report.ok and report.status == "invalid"
    first = report.first
    assert first is not None
    assert (first.check, first.version, first.path) == ("data", version, path), problems(report)
    assert words in first.detail, first.detail
    others = [p for p in report.problems if p is not first]
    assert all(p.check == "data" and p.version == version or
               p.check == "replay" and p.path == f"events[{version - 1}]"
               and "malformed" in p.detail for p in others), problems(report)


# --- each event type ---------------------------------------------------------------------


def message_record() -> Record:
    """A finished game with table talk before its end."""
    rng = Rng(b"tests/records event data", 2)
    table, envelopes = play_offline(GAME_TYPES[0], 2, SEED, rng, moves=3, game_id="g-data",
                                    clock=fixed_clock())
    log = OfflineLog(table.id, SEED, fixed_clock())
    log.table, log.envelopes = table, list(envelopes)
    log.append([NewEvent("MessagePosted", {"seat": 0, "text": "good luck"}, "p_alice")])
    finish(log, rng)
    return json.loads(json.dumps(sign_with_server_key(build_record(log.table, log.envelopes,
                                                                   SEED, []))))


def finish(log: OfflineLog, rng: Rng) -> None:
    """Random moves to the end; a resigned seat is played by the system."""
    while log.table.status is not Status.ENDED:
        table = log.table
        assert table.state is not None
        seat = rng.choice(sorted(table.game.actors(table.state)))
        move = [{"id": random_move(table.game, table.state, seat, rng)["id"]}]
        if seat in table.resigned:
            decision = decide_moves_for(table, seat, move, log.seed)
        else:
            placed = table.seat_of(seat)
            assert placed is not None
            decision = decide_moves(table, placed.player_id, seat, move, log.seed)
        log.append(decision.events, decision.table)


def resigned_record() -> Record:
    rng = Rng(b"tests/records resigned", 2)
    table, envelopes = play_offline(GAME_TYPES[0], 2, SEED, rng, moves=2, game_id="g-resign",
                                    clock=fixed_clock())
    log = OfflineLog(table.id, SEED, fixed_clock())
    log.table, log.envelopes = table, list(envelopes)
    log.append(decide_resign(log.table, 1, "p_bob").events)
    finish(log, rng)
    return json.loads(json.dumps(sign_with_server_key(build_record(log.table, log.envelopes,
                                                                   SEED, []))))


def scored_record(rows: list[dict[str, Any]]) -> Record:
    record = finished_record(GAME_TYPES[0])
    at = record["events"][-1]["at"]
    record["events"].append({"v": len(record["events"]) + 1, "type": "GameScored", "at": at,
                             "by": "system", "data": {"ratings": copy.deepcopy(rows)}})
    return json.loads(json.dumps(resealed(record)))


WORKER_ROWS = [{"seat": s, "player_id": f"p_{name}", "before": {"mu": 25.0, "sigma": 8.3},
                "after": {"mu": 25.0 + (1 - 2 * s), "sigma": 8.1}}
               for s, name in enumerate(("alice", "bob"))]
GOLDEN_ROWS = [{"seat": s, "player_id": f"p_{s}", "mu_before": 25.0, "mu_after": 25.0}
               for s in range(2)]


def test_records_as_servers_write_them_pass() -> None:
    for record in (message_record(), resigned_record(), scored_record(WORKER_ROWS),
                   scored_record(GOLDEN_ROWS), scored_record([])):
        report = verify(record)
        assert report.ok, problems(report)


def test_every_golden_record_passes_the_data_checks() -> None:
    for path in sorted(GOLDEN.glob("*-r*.json")):
        record = json.loads(path.read_text())
        report = verify_record(record, trusted_keys(json.loads((GOLDEN / "keys.json")
                                                               .read_text())))
        assert report.ok, (path.name, problems(report))


Change = Callable[[Record], tuple[int, str, str]]  # changes a record: (index, path, words)


def message_too_long(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "MessagePosted")
    record["events"][k]["data"]["text"] = "x" * 501
    return k, "data.text", "1 to 500 characters"


def message_with_a_bell(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "MessagePosted")
    record["events"][k]["data"]["text"] = "ding\x07"
    return k, "data.text", "no control characters"


def message_not_stripped(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "MessagePosted")
    record["events"][k]["data"]["text"] = " padded "
    return k, "data.text", "without surrounding whitespace"


def message_text_not_a_string(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "MessagePosted")
    record["events"][k]["data"]["text"] = ["hello"]
    return k, "data.text", "1 to 500 characters"


def message_from_a_free_seat(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "MessagePosted")
    record["events"][k]["data"]["seat"] = 5
    return k, "data.seat", "a seat taken before this event"


def message_without_text(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "MessagePosted")
    del record["events"][k]["data"]["text"]
    return k, "data.text", "is missing"


def message_with_another_key(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "MessagePosted")
    record["events"][k]["data"]["html"] = "<b>hi</b>"
    return k, "data.html", "a record is hashed data"


MESSAGE_CHANGES = [message_too_long, message_with_a_bell, message_not_stripped,
                   message_text_not_a_string, message_from_a_free_seat, message_without_text,
                   message_with_another_key]


@pytest.mark.parametrize("change", MESSAGE_CHANGES, ids=lambda c: c.__name__)
def test_junk_in_a_message_is_refused_and_only_this_check_sees_it(
        change: Change, monkeypatch: pytest.MonkeyPatch) -> None:
    record = message_record()
    k, path, words = change(record)
    record = resealed(record)
    assert without_data_checks(record, monkeypatch).ok  # carried, not re-derived: unseen before
    only_data_problems(verify(record), k + 1, f"events[{k}].{path}", words)


def row(**changes: Any) -> list[dict[str, Any]]:
    rows = copy.deepcopy(WORKER_ROWS)
    rows[1].update(changes)
    return rows


SCORE_CHANGES: list[tuple[str, Any, str, str]] = [
    ("not a list", {"seat": 0}, "data.ratings", "a list of at most 2 rating rows"),
    ("a row of neither layout", row(rank=1), "data.ratings[1]", "a rating row is"),
    ("a mu that is text", row(after={"mu": "27", "sigma": 8.0}), "data.ratings[1].after",
     "a finite number"),
    ("a sigma of zero", row(before={"mu": 25.0, "sigma": 0}), "data.ratings[1].before",
     "number > 0"),
    ("a boolean mu", row(after={"mu": True, "sigma": 8.0}), "data.ratings[1].after",
     "a finite number"),
    ("a seat out of range", row(seat=7), "data.ratings[1].seat", "a seat number, 0 to 1"),
    ("two rows for one seat", row(seat=0), "data.ratings[1].seat", "one row a seat"),
    ("a player id with a newline", row(player_id="p_bob\n"), "data.ratings[1].player_id",
     "a player id"),
    ("an old row with text", [{**GOLDEN_ROWS[0], "mu_after": "25.0"}],
     "data.ratings[0].mu_after", "a finite number"),
    ("too many rows", WORKER_ROWS * 2, "data.ratings", "at most 2 rating rows"),
]


@pytest.mark.parametrize(("name", "ratings", "path", "words"), SCORE_CHANGES,
                         ids=[c[0] for c in SCORE_CHANGES])
def test_junk_in_game_scored_is_refused_and_only_this_check_sees_it(
        name: str, ratings: Any, path: str, words: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    record = scored_record(ratings)
    k = event_index(record, "GameScored")
    assert without_data_checks(record, monkeypatch).ok
    only_data_problems(verify(record), k + 1, f"events[{k}].{path}", words)


def test_game_scored_without_ratings_is_refused() -> None:
    record = scored_record([])
    k = event_index(record, "GameScored")
    record["events"][k]["data"] = {}
    only_data_problems(verify(resealed(record)), k + 1, f"events[{k}].data.ratings",
                       "is missing")


def a_long_name_with_a_line_break(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "SeatTaken")
    name = ("x" * 2500) + "\r\n" + ("y" * 2498)
    record["events"][k]["data"]["name"] = name
    record["game"]["seats"][0]["name"] = name  # the header agrees: only the rule catches it
    return k, "data.name", "1 to 40 characters"


def a_name_with_a_line_break(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "SeatTaken")
    record["events"][k]["data"]["name"] = record["game"]["seats"][0]["name"] = "ali\nce"
    return k, "data.name", "line-separator"


def a_name_of_spaces(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "SeatTaken")
    record["events"][k]["data"]["name"] = record["game"]["seats"][0]["name"] = "   "
    return k, "data.name", "something besides spaces"


def a_bot_flag_that_is_text(record: Record) -> tuple[int, str, str]:
    k = event_index(record, "SeatTaken")
    record["events"][k]["data"]["bot"] = record["game"]["seats"][0]["bot"] = "no"
    return k, "data.bot", "true or false"


def a_seat_seed_without_dealing(record: Record) -> tuple[int, str, str]:
    record["events"][0]["data"].pop("dealing", None)
    for nth in range(2):
        record["events"][event_index(record, "SeatTaken", nth)]["data"].pop("seed", None)
    k = event_index(record, "SeatTaken")
    record["events"][k]["data"]["seed"] = "abc"
    return k, "data.seed", '"dealing": "seats"'


SEAT_CHANGES = [a_long_name_with_a_line_break, a_name_with_a_line_break, a_name_of_spaces,
                a_bot_flag_that_is_text, a_seat_seed_without_dealing]


@pytest.mark.parametrize("change", SEAT_CHANGES, ids=lambda c: c.__name__)
def test_a_seat_taken_against_the_api_rules_is_refused(
        change: Change, monkeypatch: pytest.MonkeyPatch) -> None:
    record = finished_record(GAME_TYPES[0])
    k, path, words = change(record)
    record = resealed(record)
    report = verify(record)
    first = report.first
    assert first is not None and (first.check, first.version) in {("data", k + 1), ("format",
                                                                                     None)}
    data = [p for p in report.problems if p.check == "data"]
    assert [(p.version, p.path) for p in data] == [(k + 1, f"events[{k}].{path}")]
    assert words in data[0].detail
    header = [p for p in report.problems if p.path.startswith("game.")]
    if change is not a_seat_seed_without_dealing:  # the header's row breaks the same rule
        assert [p.path for p in header] == [f"game.seats[0].{path.split('.')[-1]}"]
        assert header[0].check == "format" and words in header[0].detail
    else:
        assert header == []
    if change is a_long_name_with_a_line_break:
        assert len(str(data[0].found)) < 200  # the report does not repeat 5,000 characters


def dealt_by_seats(record: Record, second: Any) -> Record:
    """The record as a table dealt by its seats, the second seat's seed `second` (None: no
    seed)."""
    record["events"][0]["data"]["dealing"] = "seats"
    first = record["events"][event_index(record, "SeatTaken")]["data"]
    first.setdefault("seed", "a-Z_09")
    data = record["events"][event_index(record, "SeatTaken", 1)]["data"]
    data.pop("seed", None)
    if second is not None:
        data["seed"] = second
    return resealed(record)


def test_a_table_dealt_by_its_seats_carries_a_seed_in_every_seat_taken() -> None:
    fine = finished_record(GAME_TYPES[0])
    if "dealing" not in fine["events"][0]["data"]:  # games made before seats dealt
        fine = dealt_by_seats(fine, "x" * 64)
    assert fine["events"][0]["data"]["dealing"] == "seats"
    assert verify(fine).ok, problems(verify(fine))

    missing = dealt_by_seats(finished_record(GAME_TYPES[0]), None)
    k = event_index(missing, "SeatTaken", 1)
    only_data_problems(verify(missing), k + 1, f"events[{k}].data.seed", "is missing")

    for bad in ("", "x" * 65, "no spaces", "é", 7):
        record = dealt_by_seats(finished_record(GAME_TYPES[0]), bad)
        only_data_problems(verify(record), k + 1, f"events[{k}].data.seed", "1 to 64 characters")


def test_game_created_may_say_dealing_seats_and_nothing_else() -> None:
    record = finished_record(GAME_TYPES[0])
    record["events"][0]["data"]["dealing"] = "cards"
    report = verify(resealed(record))
    assert not report.ok
    assert report.first is not None
    assert (report.first.check, report.first.version, report.first.path) == (
        "data", 1, "events[0].data.dealing")
    assert '"seats"' in report.first.detail

    record = finished_record(GAME_TYPES[0])
    record["events"][0]["data"]["colour"] = "red"
    report = verify(resealed(record))
    assert report.first is not None and report.first.path == "events[0].data.colour"
    assert "hashed data" in report.first.detail

    record = finished_record(GAME_TYPES[0])
    record["events"][0]["data"]["game_id"] = record["game"]["id"] = "a game\r\nid"
    report = verify(resealed(record))
    assert ("format", None, "game.id") in problems(report)
    assert ("data", 1, "events[0].data.game_id") in problems(report)


def test_other_event_types_data_is_checked_too() -> None:
    cases: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
        ("GameStarted", lambda d: d.update(extra=1), "data.extra", "is not a field here"),
        ("MovePlayed", lambda d: d["move"].update(id="m" * 201), "data.move", "1 to 200"),
        ("MovePlayed", lambda d: d.update(seat=True), "data.seat", "a seat number"),
        ("MovePlayed", lambda d: d.update(facts={}), "data.facts", "a list of facts"),
        ("GameEnded", lambda d: d.update(scores=[]), "data.scores", "the score sheet"),
        ("SeedRevealed", lambda d: d.update(at="now"), "data.at", "is not a field here"),
    ]
    for kind, change, path, words in cases:
        record = finished_record(GAME_TYPES[0])
        k = event_index(record, kind, 1 if kind == "MovePlayed" else 0)
        change(record["events"][k]["data"])
        report = verify(resealed(record))
        data = [p for p in report.problems if p.check == "data"]
        assert [(p.version, p.path) for p in data] == [(k + 1, f"events[{k}].{path}")], kind
        assert words in data[0].detail
        assert report.first is not None and report.first.version in (k + 1, None)


def test_a_resignation_names_a_seat() -> None:
    record = resigned_record()
    k = event_index(record, "PlayerResigned")
    record["events"][k]["data"]["seat"] = 9
    report = verify(resealed(record))
    assert report.first is not None
    assert (report.first.check, report.first.version, report.first.path) == (
        "data", k + 1, f"events[{k}].data.seat")


def test_the_rules_of_the_deadline_events() -> None:
    seen = Seen(seats=3, seated={0, 1, 2}, version=12)
    assert list(data_faults("TurnTimedOut", {"seat": 2, "started": 11}, seen)) == []
    assert [where for where, _ in data_faults("TurnTimedOut", {"seat": 3, "started": 12},
                                              seen)] == [("seat",), ("started",)]
    assert [where for where, _ in data_faults("TurnTimedOut", {"seat": 0}, seen)] == [
        ("started",)]
    assert [where for where, _ in data_faults("PlayerResigned", {"seat": 0, "why": "x"},
                                              seen)] == [("why",)]
    deadline = {"seconds": 15 * 24 * 3600, "on_expiry": "bot"}
    created = {"type": "t", "rules_version": "1", "options": {}, "seats": 2,
               "seed_commitment": "0" * 64, "deadline": deadline}
    assert [where for where, _ in data_faults("GameCreated", created, Seen(version=1))] == [
        ("deadline",)]


def test_every_event_type_a_server_writes_has_rules() -> None:
    written = {"GameCreated", "SeatTaken", "GameStarted", "MovePlayed", "GameEnded",
               "SeedRevealed", "GameScored", "PlayerResigned", "TurnTimedOut", "MessagePosted"}
    assert set(data_rules.DATA) == written


def test_the_bounds_are_the_apis() -> None:
    from events.accounts.players import BOT_PREFIX, bot_player
    from events.application.meeple import MESSAGE_MAX_LENGTH
    from events.store.event_store import GAME_ID
    from service.api.records import GAME_ID as IMPORT_GAME_ID
    from service.openapi.schemas import GameCreate, MoveIn, PlayerCreate

    assert fields.MESSAGE_MAX_LENGTH == MESSAGE_MAX_LENGTH
    def bound(schema: Any, name: str) -> int:
        return int(next(v for v in schema().fields[name].validators if hasattr(v, "max")).max)

    assert bound(PlayerCreate, "name") == fields.NAME_MAX_LENGTH
    assert bound(MoveIn, "id") == fields.MOVE_ID_MAX_LENGTH
    assert bound(GameCreate, "seats") == fields.MAX_SEATS
    assert fields.GAME_ID.pattern == GAME_ID.pattern == IMPORT_GAME_ID.pattern.strip("^$")
    assert fields.is_player_id(bot_player(3).id) and bot_player(3).id.startswith(BOT_PREFIX)
    assert fields.is_name(bot_player(3).name)
    assert fields.is_player_id("p_" + "0123456789abcdef")  # events.accounts.players.register
    for name in ("x" * 41, "a\rb", "a\u2028b", "\u202eevil", " ", ""):
        assert not fields.is_name(name)


# --- the header and the times ------------------------------------------------------------


def header_change(change: Callable[[Record], None]) -> Report:
    record = finished_record(GAME_TYPES[0])
    change(record)
    return verify(resealed(record))


def test_times_in_the_year_9999_are_refused() -> None:
    def far(record: Record) -> None:
        first = record["events"][0]
        first["at"] = record["game"]["created_at"] = "9999-01-01T00:00:01.000Z"

    report = header_change(far)
    assert ("format", None, "game.created_at") in problems(report)
    assert ("format", 1, "events[0].at") in problems(report)
    assert any("no year 9999" in p.detail for p in report.problems)


def test_a_malformed_time_is_refused() -> None:
    def odd(record: Record) -> None:
        k = event_index(record, "MovePlayed")
        record["events"][k]["at"] = "2030-01-01 00:00:05"

    report = header_change(odd)
    assert [p.path for p in report.problems if p.check == "format"][0].endswith("].at")


def test_times_may_step_back_a_little_but_not_far() -> None:
    record = finished_record(GAME_TYPES[0])
    k = event_index(record, "MovePlayed", 3)
    at = record["events"][k]["at"]
    record["events"][k]["at"] = at[:11] + "00:00:00.500Z"  # a clock step back of seconds
    report = verify(resealed(copy.deepcopy(record)))
    assert report.ok, problems(report)

    record["events"][k]["at"] = "2029-12-31T22:00:00.000Z"
    report = verify(resealed(record))
    assert report.first is not None
    assert (report.first.check, report.first.version, report.first.path) == (
        "format", k + 1, f"events[{k}].at")
    assert "times go forward" in report.first.detail


def test_real_games_times_go_forward() -> None:
    for path in sorted(GOLDEN.glob("*-r*.json")):
        times = [e["at"] for e in json.loads(path.read_text())["events"]]
        assert times == sorted(times)


def test_the_header_ids_and_authors_obey_the_rules() -> None:
    report = header_change(lambda r: r["game"].update(id="../etc"))
    assert ("format", None, "game.id") in problems(report)
    assert report.first is not None and "1 to 64 letters" in report.first.detail

    report = header_change(lambda r: r["game"].update(seat_count=True))
    assert ("format", None, "game.seat_count") in problems(report)

    def author(record: Record) -> None:
        k = event_index(record, "GameStarted")
        record["events"][k]["by"] = "sys\ntem"

    report = header_change(author)
    k = event_index(finished_record(GAME_TYPES[0]), "GameStarted")
    assert ("format", k + 1, f"events[{k}].by") in problems(report)


def test_an_import_refuses_what_is_later_than_the_servers_clock() -> None:
    from datetime import UTC, datetime, timedelta

    record = finished_record(GAME_TYPES[0])  # dated 2030-01-01
    moment = datetime(2030, 1, 1, tzinfo=UTC)
    late = later_than(record, moment)
    assert late[0].path == "game.created_at" and late[0].version is None
    assert late[1].path == "events[0].at" and late[1].version == 1
    assert len(late) == 1 + len(record["events"])
    assert later_than(record, moment + timedelta(days=1)) == []


# --- the small bugs ----------------------------------------------------------------------


def test_canonical_json_refuses_nan_and_the_verifier_reports_it() -> None:
    for number in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError):
            canonical_json({"mu": number})
    record = scored_record(GOLDEN_ROWS)
    k = event_index(record, "GameScored")
    record["events"][k]["data"]["ratings"][0]["mu_after"] = math.nan  # only in memory
    report = verify_record(record, server_keys())  # not through JSON: NaN stays
    assert not report.ok and report.first is not None
    assert (report.first.check, report.first.path) == (
        "format", f"events[{k}].data.ratings[0].mu_after")
    assert "not a JSON number" in report.first.detail
    assert [p.check for p in report.problems] == ["format"]  # no "internal" problem


def test_a_lenient_parsers_nan_gets_a_report() -> None:
    text = json.dumps(scored_record(GOLDEN_ROWS)).replace('"mu_after": 25.0', '"mu_after": NaN',
                                                          1)
    report = verify_record(json.loads(text), server_keys())
    assert report.first is not None and report.first.path.endswith("mu_after")
    assert "internal" not in {p.check for p in report.problems}


def test_sealing_refuses_keys_that_are_not_strings() -> None:
    with pytest.raises(ValueError, match="not a"):
        seal(1, "MovePlayed", {"facts": [{"data": {9: "a", 10: "b"}}]}, "p_a", "0" * 64)
    # A JSON round trip keeps every sealed hash: {"10", "9"} stays in that order.
    sealed = seal(1, "X", {"facts": [{"data": {"9": "a", "10": "b"}}]}, "p_a", "0" * 64)
    assert json.loads(json.dumps(sealed)) == sealed and chain_breaks([sealed]) == []
    record = finished_record(GAME_TYPES[0])
    record["events"][3]["data"]["facts"] = [{0: 1}]  # in memory
    report = verify_record(record, server_keys())
    assert report.first is not None and report.first.check == "format"
    assert "not a string" in report.first.detail


def test_a_version_that_is_true_breaks_the_chain() -> None:
    at = "2030-01-01T00:00:01.000Z"
    sealed = seal(1, "GameCreated", {}, "system", "0" * 64, at)
    forged = seal(True, "GameCreated", {}, "system", "0" * 64, at)
    assert chain_breaks([sealed]) == []
    assert chain_breaks([forged]) == ["v1: version is True"]
    record = finished_record(GAME_TYPES[0])
    record["events"][0]["v"] = True
    report = verify_record(record, server_keys())
    assert ("format", 1, "events[0].v") in problems(report)


def test_the_verifiers_copies_of_the_api_rules_are_the_apis() -> None:
    """The verifier imports nothing of the application or the API (it runs offline, alone), so
    it keeps its own copies of their limits; a record the server writes must always verify."""
    from events.application import meeple
    from events.records.verify import fields
    from service.openapi import schemas

    assert fields.MESSAGE_MAX_LENGTH == meeple.MESSAGE_MAX_LENGTH
    name = schemas.PlayerCreate().fields["name"]
    assert any(getattr(v, "max", None) == fields.NAME_MAX_LENGTH for v in name.validators)
    seats = schemas.GameCreate().fields["seats"]
    assert any(getattr(v, "max", None) == fields.MAX_SEATS for v in seats.validators)
    for text in ("hello\tthere\nand\r\nagain", "bell\x07", "esc\x1b[2J", "nul\x00"):
        assert (meeple.message_problem(text) is None) == fields.is_message(text), text
