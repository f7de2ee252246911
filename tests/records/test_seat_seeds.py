"""Issue 12: "Nobody chooses the deal, not even the server": each seat contributes a seed of its
own when it joins (the API makes one if the client sends none) and the game's randomness
derives from the committed server seed and every seat's contribution, all of them in the log;
the verifier re-derives it. For games of the new rules versions and record format only, so
old records stay as they are."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from events.application.offline import OfflineLog, fixed_clock, play_random_move
from events.domain.table import Status, decide_create, decide_join
from events.records.record import build_record
from events.records.verify import verify_record
from games.registry import get_game
from games.rng import SEAT_SEED, Rng, seats_key, server_made_seat_seed
from tests.records.helpers import (
    attacker_key,
    event_index,
    finished_record,
    forge,
    sign,
)
from tests.records.test_golden import RECORDS, load

RP, TROBILS = "res-publica-2230ad", "asking-for-trobils"
SEED = b"tests: a server seed"


def forger_key(_key_id: str) -> Any:
    return attacker_key().public_key()


def seated(game_type: str, contributions: list[str]) -> OfflineLog:
    """A game of len(contributions) seats, every one taken, dealt by seats."""
    log = OfflineLog("seeded", SEED, fixed_clock())
    game = get_game(game_type)
    log.append([decide_create(game, len(contributions), {}, hashlib.sha256(SEED).hexdigest(),
                              game_id="seeded", dealing="seats")])
    for seat, contribution in enumerate(contributions):
        log.append(decide_join(log.table, f"p{seat}", f"player {seat}", seat, seed=contribution))
    return log


def test_the_deal_is_the_rules_setup_keyed_by_the_server_seed_and_every_seats_seed() -> None:
    for game_type in (RP, TROBILS):
        log = seated(game_type, ["alice-1", "bob_2", "carol3"])
        started = log.envelopes[-1]
        assert started["type"] == "GameStarted"
        key = seats_key(SEED, ["alice-1", "bob_2", "carol3"])
        assert log.table.state == get_game(game_type).setup(3, {}, Rng(key, started["v"]))


def test_any_one_seat_changing_its_seed_changes_the_deal() -> None:
    seeds = ["alice-1", "bob_2", "carol3"]
    first = seated(RP, seeds).table.state
    for seat in range(3):
        other = list(seeds)
        other[seat] += "x"
        assert seated(RP, other).table.state != first, f"seat {seat}'s seed changes nothing"


def test_a_new_record_carries_every_seat_seed_and_the_verifier_rederives_the_deal() -> None:
    record = finished_record(RP, 3)
    created = record["events"][0]["data"]
    assert created["dealing"] == "seats"
    taken = [e["data"] for e in record["events"] if e["type"] == "SeatTaken"]
    assert len(taken) == 3 and all(re.fullmatch(SEAT_SEED, t["seed"]) for t in taken)
    assert verify_record(record).ok
    # A forger who changes a seat's seed (and re-seals and re-signs) gets another deal: the
    # recorded draws are no longer what the rules deal.
    index = event_index(record, "SeatTaken", 1)
    record["events"][index]["data"]["seed"] += "0"
    report = verify_record(forge(record), forger_key)
    assert not report.ok
    assert any(p.check == "replay" and p.version and p.version > index + 1
               for p in report.problems), [p.describe() for p in report.problems]


def test_a_seed_in_a_game_without_dealing_and_none_in_one_with_are_refused() -> None:
    for change in ("drop dealing", "drop a seed"):
        record = finished_record(RP, 2)
        if change == "drop dealing":
            del record["events"][0]["data"]["dealing"]
        else:
            del record["events"][event_index(record, "SeatTaken")]["data"]["seed"]
        report = verify_record(forge(record), forger_key)
        assert not report.ok and any(p.path.endswith(".seed") for p in report.problems), change


def test_old_records_keep_the_server_seed_alone_and_verify() -> None:
    """"so old records stay as they are": the version 1 golden records have no dealing and
    no seat seeds, and verify as they did."""
    # Version 1 of the games hosted before seat seeds (the later games' first records deal
    # by seats from the start: tests/golden/README.md).
    old = [path for path in RECORDS if path.name.endswith("-r1.json")
           and path.name.startswith(("res-publica-2230ad-", "asking-for-trobils-"))]
    assert old
    for path in old:
        record = load(path)
        assert "dealing" not in record["events"][0]["data"]
        assert all("seed" not in e["data"] for e in record["events"] if e["type"] == "SeatTaken")


def test_the_verifier_tells_seeds_the_server_made_from_seeds_the_seats_brought() -> None:
    """A seat that sends no seed gets one made from the server's committed seed
    (games.rng.server_made_seat_seed). Once the seed is revealed, `meeple verify` lists which
    seats' seeds those are: a player who sent none checks that hers is among them (a server
    that picked it after seeing the others' would show it among the brought ones)."""
    log = OfflineLog("seeded", SEED, fixed_clock())
    log.append([decide_create(get_game(RP), 3, {}, hashlib.sha256(SEED).hexdigest(),
                              game_id="seeded", dealing="seats")])
    for seat, brought in enumerate(["alice-1", None, None]):
        log.append(decide_join(log.table, f"p_{seat}", f"player {seat}", seat, seed=brought,
                               server_seed=SEED))
    assert log.envelopes[2]["data"]["seed"] == server_made_seat_seed(SEED, 1)
    rng = Rng(b"tests: moves", 0)
    while log.table.status is not Status.ENDED:
        play_random_move(log, rng)
    record = sign(build_record(log.table, log.envelopes, SEED, []))

    report = verify_record(record)
    assert report.ok, [p.describe() for p in report.problems]
    assert report.checked["seat_seeds"] == {"made_by_server": [1, 2], "brought": [0]}

    # A server that chose seat 2's seed instead (and dealt with it) is caught by its player.
    k = event_index(record, "SeatTaken", 2)
    record["events"][k]["data"]["seed"] = "chosen-by-the-server"
    assert verify_record(forge(record)).checked["seat_seeds"] == \
        {"made_by_server": [1], "brought": [0, 2]}


def test_server_made_seeds_are_fixed_per_seat_and_server_seed() -> None:
    seeds = {server_made_seat_seed(s, seat) for s in (SEED, SEED + b"x") for seat in range(5)}
    assert len(seeds) == 10 and all(re.fullmatch(SEAT_SEED, seed) for seed in seeds)
    assert server_made_seat_seed(SEED, 0) == server_made_seat_seed(SEED, 0)
