"""Nobody chooses the deal by padding the log (an outside audit, session 38).

Numbered by versions, the setup drew from Rng(key, version of GameStarted) and each move from
Rng(key, its version): a server that had read the last seat's own seed could add events
before the start (table talk "by" a bot seat, which nobody would notice), try 0, 1, 2... of
them and keep the deal it liked, and do the same between moves; the record verified. Games
made now say `"draws": "moves"` in GameCreated: the setup draws from stream 0 and the n-th
move from stream n (games.rng.setup_stream, move_stream), so no event but a move shifts a
draw. Older records (no "draws") keep the version numbering and verify as before. And table
talk by a bot's seat, which no server writes, is refused."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from events.accounts.players import bot_player
from events.application.offline import (
    OfflineLog,
    fixed_clock,
    play_offline,
    play_random_move,
)
from events.domain.envelope import NewEvent
from events.domain.table import Status, decide_create, decide_join, decide_moves
from events.records.record import build_record
from events.records.verify import verify_record
from games.registry import get_game
from games.rng import DRAWS_BY_MOVE, Rng, seats_key, server_made_seat_seed
from tests.records.helpers import GAME_TYPES, SEED, attacker_key, forge, sign

RP = "res-publica-2230ad"


def padded_start(inserted: int, draws: str, game_type: str = RP) -> OfflineLog:
    """The auditor's attack on the deal: a 2-seat table, a bot in seat 0, then `inserted`
    lines of talk before Bob joins with his own seed (the server has read it by then)."""
    game = get_game(game_type)
    log = OfflineLog("g-deal", SEED, fixed_clock())
    log.append([decide_create(game, 2, dict(game.options().load({})),
                              hashlib.sha256(SEED).hexdigest(), game_id="g-deal",
                              dealing="seats", draws=draws)])
    bot = bot_player(0)
    log.append(decide_join(log.table, bot.id, bot.name, 0, bot=True,
                           seed=server_made_seat_seed(SEED, 0)))
    for _ in range(inserted):
        log.append([NewEvent("MessagePosted", {"seat": 0, "text": "hi"}, bot.id)])
    log.append(decide_join(log.table, "p_bob", "bob", 1, bot=False, seed="bobs-own-seed"))
    assert log.table.state is not None  # full: started
    return log


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_events_before_the_start_no_longer_change_the_deal(game_type: str) -> None:
    honest = padded_start(0, DRAWS_BY_MOVE, game_type).table.state
    for inserted in (1, 2, 5):
        assert padded_start(inserted, DRAWS_BY_MOVE, game_type).table.state == honest
    key = seats_key(SEED, [server_made_seat_seed(SEED, 0), "bobs-own-seed"])
    game = get_game(game_type)
    assert honest == game.setup(2, dict(game.options().load({})), Rng(key, 0))  # stream 0


def test_numbered_by_versions_padding_did_choose_among_deals() -> None:
    """What the attack did (and still does to a game of before "draws": its deal is kept)."""
    deals = {str(padded_start(inserted, "").table.state) for inserted in range(4)}
    assert len(deals) == 4


def moves_of(envelopes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in envelopes if e["type"] == "MovePlayed"]


def replayed_with_talk(table: Any, envelopes: list[dict[str, Any]], moves: list[dict[str, Any]],
                       talk_before: set[int]) -> list[dict[str, Any]]:
    """The same moves again from `table`, with a line of talk by seat 0's player before each
    move whose index is in `talk_before`; the MovePlayed envelopes made."""
    log = OfflineLog(table.id, SEED, fixed_clock())
    log.table, log.envelopes = table, list(envelopes)
    talker = table.seat_of(0).player_id
    for index, move in enumerate(moves):
        if index in talk_before:
            log.append([NewEvent("MessagePosted", {"seat": 0, "text": "hm"}, talker)])
        decision = decide_moves(log.table, move["by"], move["data"]["seat"],
                                [move["data"]["move"]], SEED)
        log.append(decision.events, decision.table)
    return moves_of(log.envelopes)


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_talk_between_moves_no_longer_changes_a_later_draw(game_type: str) -> None:
    start, opening = play_offline(game_type, 2, SEED, Rng(b"audit", 2), moves=0, game_id="g",
                                  clock=fixed_clock())
    _, whole = play_offline(game_type, 2, SEED, Rng(b"audit", 2), game_id="g",
                            clock=fixed_clock())
    moves = moves_of(whole)
    again = replayed_with_talk(start, opening, moves, talk_before={0, 3, 7, 20, len(moves) // 2})
    assert [m["data"] for m in again] == [m["data"] for m in moves]  # every fact the same


def test_numbered_by_versions_talk_between_moves_changed_the_draws() -> None:
    """The other half of the audit (trobils draws at random as it goes): one line of talk
    before some move changes what a later move draws, in a game of before "draws"."""
    game_type = "asking-for-trobils"
    start, opening = play_offline(game_type, 2, SEED, Rng(b"audit", 2), moves=0, game_id="g",
                                  clock=fixed_clock(), draws="")
    _, whole = play_offline(game_type, 2, SEED, Rng(b"audit", 2), game_id="g",
                            clock=fixed_clock(), draws="")
    moves = moves_of(whole)
    changed = False
    for before in range(len(moves)):
        try:
            again = replayed_with_talk(start, opening, moves, talk_before={before})
        except Exception:  # noqa: BLE001 - a later move became illegal: changed too
            changed = True
            break
        if [m["data"] for m in again] != [m["data"] for m in moves]:
            changed = True
            break
    assert changed


def test_a_new_game_says_draws_moves_and_its_record_verifies() -> None:
    table, envelopes = play_offline(RP, 3, SEED, Rng(b"tests draws", 3), bots=[2], game_id="g-3",
                                    clock=fixed_clock())
    created = envelopes[0]["data"]
    assert created["draws"] == "moves" and created["dealing"] == "seats"
    report = verify_record(sign(build_record(table, envelopes, SEED, [])))
    assert report.ok, [p.describe() for p in report.problems]
    assert report.checked["moves_reexecuted"] == table.moves == len(moves_of(envelopes))
    assert report.checked["randomness"] == {"dealing": "seats", "draws": "moves"}


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_an_old_style_record_numbered_by_versions_still_verifies(game_type: str) -> None:
    """It verifies, and says what it is: an auditor who relies on draws nobody can shift
    sees that this record has not got them (an outside audit found that nothing said so)."""
    table, envelopes = play_offline(game_type, 2, SEED, Rng(b"tests old", 2), game_id="g-old",
                                    clock=fixed_clock(), draws="")
    assert "draws" not in envelopes[0]["data"]
    report = verify_record(sign(build_record(table, envelopes, SEED, [])))
    assert report.ok, [p.describe() for p in report.problems]
    assert report.checked["randomness"] == {"dealing": "seats", "draws": "versions"}


@pytest.mark.parametrize("draws", ["", DRAWS_BY_MOVE])
def test_the_verifier_follows_the_records_numbering(draws: str) -> None:
    """A record that says the other numbering than its draws were made with (re-sealed and
    re-signed by a trusted forger) does not verify: the field is not decoration."""
    table, envelopes = play_offline(RP, 2, SEED, Rng(b"tests flip", 2), game_id="g-flip",
                                    clock=fixed_clock(), draws=draws)
    record = build_record(table, envelopes, SEED, [])
    created = record["events"][0]["data"]
    if draws:
        del created["draws"]
    else:
        created["draws"] = DRAWS_BY_MOVE
    forged = forge(record)
    report = verify_record(forged, lambda _: attacker_key().public_key())
    assert not report.ok
    assert report.first is not None and report.first.check == "replay"


def test_an_unknown_numbering_is_refused() -> None:
    table, envelopes = play_offline(RP, 2, SEED, Rng(b"tests flip", 2), game_id="g-flip",
                                    clock=fixed_clock())
    record = build_record(table, envelopes, SEED, [])
    record["events"][0]["data"]["draws"] = "versions"
    report = verify_record(forge(record), lambda _: attacker_key().public_key())
    assert not report.ok and report.first is not None
    assert (report.first.check, report.first.path) == ("data", "events[0].data.draws")


@pytest.mark.parametrize("draws", ["", DRAWS_BY_MOVE])
def test_table_talk_by_a_bot_seat_is_refused(draws: str) -> None:
    """No server writes it (a bot holds no API key; Meeple.post_message posts as a seated
    player's own id): a record that holds some was not written by a server, whatever it
    did to the draws."""
    log = padded_start(1, draws)
    rng = Rng(b"audit deal", 1)
    while log.table.status is not Status.ENDED:
        play_random_move(log, rng)
    record = sign(build_record(log.table, log.envelopes, SEED, []))
    report = verify_record(record)
    assert report.checked["seat_seeds"]["brought"] == [1]  # Bob brought his own seed
    assert not report.ok and report.first is not None
    talk = next(e for e in record["events"] if e["type"] == "MessagePosted")
    assert (report.first.path, report.first.version) == ("events[2].data.seat", talk["v"])
    assert "table talk by a bot's seat" in report.first.detail


def test_talk_by_a_players_seat_before_the_start_still_verifies() -> None:
    """A player who took a seat may talk while the table waits: that stays valid, and (drawn
    by moves) changes nothing."""
    game = get_game(RP)
    log = OfflineLog("g-wait", SEED, fixed_clock())
    log.append([decide_create(game, 2, {}, hashlib.sha256(SEED).hexdigest(), game_id="g-wait",
                              dealing="seats", draws=DRAWS_BY_MOVE)])
    log.append(decide_join(log.table, "p_alice", "alice", 0, seed="alices-seed"))
    log.append([NewEvent("MessagePosted", {"seat": 0, "text": "anyone?"}, "p_alice")])
    log.append(decide_join(log.table, "p_bob", "bob", 1, seed="bobs-own-seed"))
    rng = Rng(b"wait", 1)
    while log.table.status is not Status.ENDED:
        play_random_move(log, rng)
    report = verify_record(sign(build_record(log.table, log.envelopes, SEED, [])))
    assert report.ok, [p.describe() for p in report.problems]
