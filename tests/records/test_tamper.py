"""The tamper matrix: any change to a finished game's record fails verification, and the
report names the place. Every registered game type; short (2-seat) games."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from events.records.keys import b64url_encode, raw_public_key, trusted_keys
from events.records.verify import Report, verify_record
from tests.records.helpers import (
    GAME_TYPES,
    attacker_key,
    event_index,
    fact_with_card,
    finished_record,
    flip_char,
    forge,
    middle_move,
    other_seed_hex,
    server_key,
)

Record = dict[str, Any]
# A tamper takes a fresh record, changes it in place or returns a new one, and says where:
# (the changed record, the path the first problem must start with, a path some problem must
# name exactly, or None).
Tamper = Callable[[Record], tuple[Record, str, str | None]]


def server_keys() -> Any:
    public = server_key().public_key()
    from events.records.keys import key_id_of
    return trusted_keys({"keys": [{"id": key_id_of(public), "alg": "Ed25519",
                                   "public_key": b64url_encode(raw_public_key(public))}]})


# --- one byte changed, nothing fixed up -------------------------------------------------------


def at_of_an_event(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    record["events"][k]["at"] = flip_char(record["events"][k]["at"], -2)  # a millisecond digit
    return record, f"events[{k}]", f"events[{k}].hash"


def by_of_an_event(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    record["events"][k]["by"] = flip_char(record["events"][k]["by"])
    return record, f"events[{k}]", f"events[{k}].by"


def type_of_an_event(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    record["events"][k]["type"] = flip_char(record["events"][k]["type"])  # MovePlayea
    return record, f"events[{k}]", f"events[{k}].type"


def move_id(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    move = record["events"][k]["data"]["move"]
    move["id"] = flip_char(move["id"], 0, to="~")
    return record, f"events[{k}]", f"events[{k}].data.move.id"


def card_in_a_fact(record: Record) -> tuple[Record, str, str | None]:
    k, j = fact_with_card(record)
    fact = record["events"][k]["data"]["facts"][j]
    fact["data"]["card"] = flip_char(fact["data"]["card"], 0)
    return record, f"events[{k}]", f"events[{k}].data.facts[{j}].data.card"


def text_of_a_fact(record: Record) -> tuple[Record, str, str | None]:
    k, j = fact_with_card(record)
    fact = record["events"][k]["data"]["facts"][j]
    fact["text"] = flip_char(fact["text"], 0)
    return record, f"events[{k}]", f"events[{k}].data.facts[{j}].text"


def seat_of_a_move(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    data = record["events"][k]["data"]
    data["seat"] = 1 - data["seat"]
    return record, f"events[{k}]", f"events[{k}].data.seat"


def prev_of_an_event(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    record["events"][k]["prev"] = flip_char(record["events"][k]["prev"], 10)
    return record, f"events[{k}]", f"events[{k}].prev"


def the_seed(record: Record) -> tuple[Record, str, str | None]:
    record["seed"] = flip_char(record["seed"], 3)
    return record, "seed", "seed"


def seed_in_seed_revealed(record: Record) -> tuple[Record, str, str | None]:
    k = event_index(record, "SeedRevealed")
    data = record["events"][k]["data"]
    data["seed"] = flip_char(data["seed"], 3)
    return record, f"events[{k}]", f"events[{k}].data.seed"


def the_seed_commitment(record: Record) -> tuple[Record, str, str | None]:
    record["seed_commitment"] = flip_char(record["seed_commitment"], 0)
    return record, "seed_commitment", "seed_commitment"


def a_score(record: Record) -> tuple[Record, str, str | None]:
    record["scores"]["seats"][0]["total"] += 1
    return record, "scores", "scores.seats[0].total"


def a_score_in_game_ended(record: Record) -> tuple[Record, str, str | None]:
    k = event_index(record, "GameEnded")
    record["events"][k]["data"]["scores"]["seats"][0]["total"] += 1
    return record, f"events[{k}]", f"events[{k}].data.scores.seats[0].total"


def a_name_in_the_header(record: Record) -> tuple[Record, str, str | None]:
    seat = record["game"]["seats"][1]
    seat["name"] = flip_char(seat["name"], 0)
    return record, "game.seats", "game.seats[1].name"


def the_options(record: Record) -> tuple[Record, str, str | None]:
    record["game"]["options"]["extra"] = True
    return record, "game.options", "game.options.extra"


def the_signature(record: Record) -> tuple[Record, str, str | None]:
    signature = record["signature"]
    signature["value"] = flip_char(signature["value"], 5)
    return record, "signature.value", "signature.value"


def the_last_character_of_the_signature(record: Record) -> tuple[Record, str, str | None]:
    # The last base64url character of 64 bytes carries 4 padding bits: a lenient decoder
    # would read the same signature from several texts.
    signature = record["signature"]
    signature["value"] = flip_char(signature["value"], -1, to="B" if
                                   signature["value"][-1] == "A" else "A")
    return record, "signature.value", "signature.value"


def the_embedded_public_key(record: Record) -> tuple[Record, str, str | None]:
    signature = record["signature"]
    signature["public_key"] = flip_char(signature["public_key"], 4)
    return record, "signature", None


def the_key_id(record: Record) -> tuple[Record, str, str | None]:
    signature = record["signature"]
    signature["key_id"] = flip_char(signature["key_id"], 0)
    return record, "signature.key_id", "signature.key_id"


# --- events moved, dropped, or replaced ------------------------------------------------------


def two_events_swapped(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    events = record["events"]
    events[k], events[k + 1] = events[k + 1], events[k]
    return record, f"events[{k}]", f"events[{k}].v"


def one_event_dropped(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    del record["events"][k]
    return record, f"events[{k}]", f"events[{k}].v"


def the_last_events_dropped(record: Record) -> tuple[Record, str, str | None]:
    k = event_index(record, "GameEnded")
    del record["events"][k:]
    return record, "game.status", "complete"


def another_seed(record: Record) -> tuple[Record, str, str | None]:
    other = other_seed_hex(record)
    record["seed"] = other
    record["events"][event_index(record, "SeedRevealed")]["data"]["seed"] = other
    k = event_index(record, "SeedRevealed")
    return record, f"events[{k}]", "seed"


# --- forgeries: the change, then the chain re-sealed and the record re-signed ---------------


def forged_card(record: Record) -> tuple[Record, str, str | None]:
    k, j = fact_with_card(record)
    fact = record["events"][k]["data"]["facts"][j]
    fact["data"]["card"] = flip_char(fact["data"]["card"], 0)
    path = f"events[{k}].data.facts[{j}].data.card"
    return forge(record), path, path


def forged_illegal_move(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    move = record["events"][k]["data"]["move"]
    move["id"] = flip_char(move["id"], 0, to="~")
    path = f"events[{k}].data.move.id"
    return forge(record), path, path


def forged_score(record: Record) -> tuple[Record, str, str | None]:
    k = event_index(record, "GameEnded")
    record["events"][k]["data"]["scores"]["seats"][0]["total"] += 1
    record["scores"] = record["events"][k]["data"]["scores"]
    path = f"events[{k}].data.scores.seats[0].total"
    return forge(record), path, path


def forged_seed_and_commitment(record: Record) -> tuple[Record, str, str | None]:
    """Another seed, consistent everywhere: commitment, GameCreated, SeedRevealed, hashes,
    signature. Only re-executing the moves with it can tell: the deal differs."""
    other = other_seed_hex(record)
    commitment = hashlib.sha256(bytes.fromhex(other)).hexdigest()
    record["seed"] = other
    record["seed_commitment"] = commitment
    record["events"][0]["data"]["seed_commitment"] = commitment
    record["events"][event_index(record, "SeedRevealed")]["data"]["seed"] = other
    return forge(record), "events[", None


def forged_swap(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    events = record["events"]
    events[k], events[k + 1] = events[k + 1], events[k]
    return forge(record), f"events[{k}]", None


def forged_drop(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    del record["events"][k]
    return forge(record), f"events[{k}]", None


def forged_author(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    record["events"][k]["by"] = "p_mallory"
    path = f"events[{k}].by"
    return forge(record), path, path


def _insert(record: Record, k: int, kind: str, data: dict[str, Any], by: str) -> None:
    """An event put in before events[k], at its time (reseal makes the chain whole)."""
    at = record["events"][k]["at"]
    record["events"].insert(k, {"v": 0, "type": kind, "at": at, "by": by, "data": data,
                                "prev": "", "hash": ""})


def _player(record: Record, seat: int) -> str:
    return str(record["game"]["seats"][seat]["player_id"])


def forged_resignation_after_the_end(record: Record) -> tuple[Record, str, str | None]:
    """The winner resigns after the last move, which would rank it last: but the server
    appends GameEnded with the move that ends the game, so nothing comes in between."""
    k = event_index(record, "GameEnded")
    winner = record["scores"]["ranking"][0]
    _insert(record, k, "PlayerResigned", {"seat": winner}, _player(record, winner))
    path = f"events[{k}].type"
    return forge(record), path, path


def forged_talk_after_the_end(record: Record) -> tuple[Record, str, str | None]:
    k = event_index(record, "GameEnded")
    _insert(record, k, "MessagePosted", {"seat": 0, "text": "gg"}, _player(record, 0))
    path = f"events[{k}].type"
    return forge(record), path, path


def forged_moves_after_resigning(record: Record) -> tuple[Record, str, str | None]:
    """Seat 1 resigns mid-game and goes on playing its seat itself: a resigned seat is
    played by the bot to the end (its moves are the system's)."""
    k = middle_move(record)
    _insert(record, k, "PlayerResigned", {"seat": 1}, _player(record, 1))
    later = next(i for i in range(k + 1, len(record["events"]))
                 if record["events"][i]["type"] == "MovePlayed"
                 and record["events"][i]["data"]["seat"] == 1)
    path = f"events[{later}].by"
    return forge(record), path, path


def forged_talk_under_another_name(record: Record) -> tuple[Record, str, str | None]:
    k = middle_move(record)
    _insert(record, k, "MessagePosted", {"seat": 0, "text": "I resign soon"},
            _player(record, 1))
    path = f"events[{k}].by"
    return forge(record), path, path


TAMPERS: list[Tamper] = [
    at_of_an_event, by_of_an_event, type_of_an_event, move_id, card_in_a_fact, text_of_a_fact,
    seat_of_a_move, prev_of_an_event, the_seed, seed_in_seed_revealed, the_seed_commitment,
    a_score, a_score_in_game_ended, a_name_in_the_header, the_options, the_signature,
    the_last_character_of_the_signature, the_embedded_public_key, the_key_id,
    two_events_swapped, one_event_dropped, the_last_events_dropped, another_seed,
    forged_card, forged_illegal_move, forged_score, forged_seed_and_commitment, forged_swap,
    forged_drop, forged_author, forged_resignation_after_the_end, forged_talk_after_the_end,
    forged_moves_after_resigning, forged_talk_under_another_name,
]


def names(report: Report) -> list[str]:
    return [problem.path for problem in report.problems]


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_an_untouched_record_verifies(game_type: str) -> None:
    report = verify_record(finished_record(game_type), server_keys())

    assert report.ok and report.status == "valid", [p.describe() for p in report.problems]
    assert report.checked["signature"] == {"key_id": report.checked["signature"]["key_id"],
                                           "valid": True, "trusted": True}
    # Every move was played again (a random 2-seat game of the shortest, Trappist One, has
    # about a hundred).
    moves = sum(1 for e in finished_record(game_type)["events"] if e["type"] == "MovePlayed")
    assert report.checked["moves_reexecuted"] == moves > 50


@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda t: t.__name__)
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_tampering_fails_and_names_the_place(game_type: str, tamper: Tamper) -> None:
    record, first_at, exactly = tamper(finished_record(game_type))

    report = verify_record(record)

    assert not report.ok and report.status == "invalid"
    assert report.first is not None
    assert report.first.path.startswith(first_at), [p.describe() for p in report.problems]
    if exactly is not None:
        assert exactly in names(report), [p.describe() for p in report.problems]
    assert "internal" not in {problem.check for problem in report.problems}


@pytest.mark.parametrize("tamper", [forged_card, forged_seed_and_commitment, forged_score],
                         ids=lambda t: t.__name__)
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_a_forgery_is_not_signed_by_a_trusted_key(game_type: str, tamper: Tamper) -> None:
    record, _, _ = tamper(finished_record(game_type))

    report = verify_record(record, server_keys())

    assert report.checked["signature"]["valid"] is True  # the forger's own key: intact
    assert report.checked["signature"]["trusted"] is False
    assert "signature.key_id" in names(report)


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_problems_say_what_was_expected_and_found(game_type: str) -> None:
    record, path, _ = forged_card(finished_record(game_type))
    original = finished_record(game_type)
    k, j = fact_with_card(original)

    problem = verify_record(record).first

    assert problem is not None and problem.path == path
    assert problem.check == "replay" and problem.version == k + 1
    assert problem.expected == original["events"][k]["data"]["facts"][j]["data"]["card"]
    assert problem.found == record["events"][k]["data"]["facts"][j]["data"]["card"]


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_an_illegal_move_is_reported_with_the_legal_ones(game_type: str) -> None:
    record, path, _ = forged_illegal_move(finished_record(game_type))

    problem = verify_record(record).first

    assert problem is not None and problem.path == path
    assert "illegal move" in problem.detail
    assert isinstance(problem.expected, list) and problem.expected  # the legal move ids
    assert problem.found not in problem.expected


def test_a_record_signed_by_an_untrusted_key_says_so() -> None:
    record = finished_record(GAME_TYPES[0])
    other = attacker_key().public_key()
    from events.records.keys import key_id_of
    published = {"keys": [{"id": key_id_of(other), "alg": "Ed25519",
                           "public_key": b64url_encode(raw_public_key(other))}]}

    report = verify_record(record, trusted_keys(published))

    assert not report.ok
    assert report.first is not None and report.first.path == "signature.key_id"
    assert "not one of the trusted keys" in report.first.detail


def test_a_trusted_id_with_another_key_is_caught() -> None:
    record = finished_record(GAME_TYPES[0])
    key_id = record["signature"]["key_id"]

    report = verify_record(record, lambda wanted: attacker_key().public_key())

    assert not report.ok
    assert report.first is not None and report.first.path == "signature.public_key"
    assert key_id in report.first.detail
