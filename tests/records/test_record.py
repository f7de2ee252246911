"""Building and signing records: complete once the game ended, one seat's redacted view
before that, never the seed or another seat's secrets before the end."""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature

from events.application.offline import extend, fixed_clock, play_offline, reenact
from events.domain.envelope import NewEvent, canonical_json, envelope_hash
from events.domain.table import Status, Table, evolve
from events.records.keys import b64url_decode, key_id_of, public_key_from_b64
from events.records.record import FORMAT, build_record, sign_record, unsigned
from events.records.verify import verify_record
from games.rng import Rng
from tests.records.helpers import GAME_TYPES, SEED, game, server_key, sign


@functools.cache
def tables_by_version(game_type: str, players: int) -> tuple[Table, ...]:
    """The table after each version (index v-1), folded as the server folds it."""
    _, envelopes = game(game_type, players)
    table, tables = Table.empty(f"g-{game_type}-{players}"), []  # the id helpers.game uses
    for envelope in envelopes:
        table = evolve(table, envelope, SEED)
        tables.append(table)
    return tuple(tables)


def secrets_of_others(envelopes: list[dict[str, Any]], seats: list[int]) -> list[bytes]:
    """The canonical JSON of every fact the holder of `seats` may not read."""
    return [
        canonical_json(fact)
        for e in envelopes if e["type"] == "MovePlayed"
        for fact in e["data"]["facts"]
        if fact["to"] != "all" and not set(fact["to"]) & set(seats)
    ]


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_a_finished_game_makes_a_complete_record(game_type: str) -> None:
    table, envelopes = game(game_type)

    record = build_record(table, envelopes, SEED, [0])

    assert record["format"] == FORMAT
    assert record["complete"] is True and record["redacted_for"] is None
    assert "note" not in record
    assert record["events"] == envelopes  # every envelope as stored, private facts and all
    assert record["seed"] == SEED.hex()
    assert record["seed_commitment"] == hashlib.sha256(SEED).hexdigest()
    assert record["scores"] == table.result == envelopes[-2]["data"]["scores"]
    assert record["game"] == {
        "id": table.id, "type": game_type, "rules_version": table.rules_version,
        "options": table.options, "seat_count": 2,
        "seats": [{"seat": 0, "player_id": "p_alice", "name": "alice", "bot": False},
                  {"seat": 1, "player_id": "p_bob", "name": "bob", "bot": False}],
        "created_at": envelopes[0]["at"], "status": "ended",
    }


def test_a_finished_record_takes_the_revealed_seed_when_none_is_given() -> None:
    table, envelopes = game(GAME_TYPES[0])

    assert build_record(table, envelopes, None, [])["seed"] == SEED.hex()


def test_a_seed_that_does_not_match_the_commitment_is_refused() -> None:
    table, envelopes = game(GAME_TYPES[0])

    with pytest.raises(ValueError, match="commitment"):
        build_record(table, envelopes, b"another seed", [])


def test_envelopes_must_be_the_whole_stream() -> None:
    table, envelopes = game(GAME_TYPES[0])

    with pytest.raises(ValueError, match="versions 1 to"):
        build_record(table, envelopes[1:], SEED, [])


@pytest.mark.parametrize("seats", [[0], [2], [], [0, 1]], ids=str)
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_before_the_end_no_version_holds_the_seed_or_another_seats_secrets(
        game_type: str, seats: list[int]) -> None:
    _, envelopes = game(game_type, players=3)
    tables = tables_by_version(game_type, 3)
    last = next(i for i, t in enumerate(tables) if t.status is Status.ENDED)  # before GameEnded
    # The record at the last version before the end, checked event by event ...
    latest = build_record(tables[last - 1], envelopes[:last], SEED, seats)
    secrets = set(secrets_of_others(envelopes[:last], seats))
    assert secrets, "the game should have had secrets to keep"
    for shown in latest["events"]:
        if shown["type"] == "MovePlayed":
            assert not secrets & {canonical_json(f) for f in shown["data"]["facts"]}
            if shown["data"]["seat"] not in seats:
                assert "move" not in shown["data"]  # other seats' choices stay hidden
    text = canonical_json(latest)
    assert SEED.hex().encode() not in text
    assert not any(secret in text for secret in secrets)
    # ... and the record at every earlier version is its prefix, with no seed or scores.
    for v in range(1, last + 1):
        record = build_record(tables[v - 1], envelopes[:v], SEED, seats)

        assert record["events"] == latest["events"][:v]
        assert record["complete"] is False and record["redacted_for"] == seats
        assert record["seed"] is None and record["scores"] is None
        assert "redacted view" in record["note"] and str(seats) in record["note"]
        assert SEED.hex() not in json.dumps(record["game"])


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_a_seats_own_facts_stay_in_its_view(game_type: str) -> None:
    _, envelopes = game(game_type, players=3)
    tables = tables_by_version(game_type, 3)
    v = next(i for i, t in enumerate(tables) if t.status is Status.ENDED)  # just before GameEnded
    record = build_record(tables[v - 1], envelopes[:v], SEED, [1])
    text = canonical_json(record)
    own = [canonical_json(f) for e in envelopes[:v] if e["type"] == "MovePlayed"
           for f in e["data"]["facts"] if f["to"] != "all" and 1 in f["to"]]

    assert own and all(fact in text for fact in own)


def test_a_redacted_record_is_reported_as_partial() -> None:
    _, envelopes = game(GAME_TYPES[0], players=3)
    table = tables_by_version(GAME_TYPES[0], 3)[59]
    record = sign(build_record(table, envelopes[:60], SEED, [0]))

    report = verify_record(record)

    assert not report.ok and report.status == "partial"
    assert [problem.check for problem in report.problems] == ["complete"]
    assert "cannot be re-executed" in report.problems[0].detail
    assert report.checked["signature"]["valid"] is True
    assert report.checked["redacted_events"] > 0
    # Before the end no hash is shown (each would let guesses of hidden parts be tested).
    assert report.checked["hashes_checked"] == 0
    assert all(e["hash"] is None and e["prev"] is None for e in record["events"])


def test_a_partial_record_that_was_changed_is_invalid() -> None:
    _, envelopes = game(GAME_TYPES[0], players=3)
    table = tables_by_version(GAME_TYPES[0], 3)[59]
    record = json.loads(json.dumps(sign(build_record(table, envelopes[:60], SEED, [0]))))
    record["events"][3]["at"] = record["events"][3]["at"].replace("Z", "0Z")

    report = verify_record(record)

    assert report.status == "invalid"
    assert "signature.value" in [problem.path for problem in report.problems]  # no hashes yet


def test_a_partial_record_carrying_a_seed_is_invalid() -> None:
    _, envelopes = game(GAME_TYPES[0], players=3)
    table = tables_by_version(GAME_TYPES[0], 3)[59]
    record = build_record(table, envelopes[:60], SEED, [0])
    record["seed"] = SEED.hex()

    report = verify_record(sign(record))

    assert report.status == "invalid" and "seed" in [p.path for p in report.problems]


def test_the_signature_covers_the_canonical_record_and_embeds_the_key() -> None:
    table, envelopes = game(GAME_TYPES[0])
    record = build_record(table, envelopes, SEED, [])
    key_id = key_id_of(server_key().public_key())

    signed = sign_record(record, key_id, server_key())

    signature = signed["signature"]
    assert set(signature) == {"alg", "key_id", "public_key", "value"}
    assert signature["alg"] == "Ed25519" and signature["key_id"] == key_id
    assert len(b64url_decode(signature["public_key"])) == 32
    assert "=" not in signature["value"] + signature["public_key"]  # unpadded base64url
    public = public_key_from_b64(signature["public_key"])
    public.verify(b64url_decode(signature["value"]), canonical_json(record))
    assert unsigned(signed) == record and "signature" not in record  # the input is untouched
    with pytest.raises(InvalidSignature):
        public.verify(b64url_decode(signature["value"]), canonical_json({**record, "x": 1}))


def test_signing_again_replaces_the_signature() -> None:
    table, envelopes = game(GAME_TYPES[0])
    once = sign(build_record(table, envelopes, SEED, []))

    twice = sign(once)

    assert twice == once  # Ed25519 is deterministic, and the old signature is not signed over
    assert verify_record(twice).ok


def test_a_key_id_that_is_not_the_keys_is_refused() -> None:
    table, envelopes = game(GAME_TYPES[0])

    with pytest.raises(ValueError, match="not the id"):
        sign_record(build_record(table, envelopes, SEED, []), "0" * 16, server_key())


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_ratings_are_carried_and_said_to_be_not_rederived(game_type: str) -> None:
    table, envelopes = game(game_type)
    ratings = [{"seat": 0, "player_id": "p_alice", "before": {"mu": 25.0, "sigma": 8.333},
                "after": {"mu": 27.1, "sigma": 8.1}}]
    table, envelopes = extend(table, envelopes, [NewEvent("GameScored", {"ratings": ratings},
                                                          "system")], SEED, fixed_clock())

    report = verify_record(sign(build_record(table, envelopes, SEED, [])))

    assert report.ok, [p.describe() for p in report.problems]
    assert "GameScored" in report.checked["not_rederived"]
    assert "not re-derived" in report.checked["not_rederived"]["GameScored"]


@pytest.mark.parametrize("after", ["GameScored", "MessagePosted"])
def test_after_seed_revealed_a_record_carries_one_game_scored_and_nothing_else(
        after: str) -> None:
    """docs/records.md, section 1: a record ends at SeedRevealed; one signed before that rule
    may carry one GameScored after it. A second GameScored, or anything after the first, is
    what no server's record holds (both verified before: an outside audit)."""
    table, envelopes = game(GAME_TYPES[0])
    ratings = [{"seat": 0, "player_id": "p_alice", "before": {"mu": 25.0, "sigma": 8.333},
                "after": {"mu": 27.1, "sigma": 8.1}}]
    scored = NewEvent("GameScored", {"ratings": ratings}, "system")
    talker = table.seat_of(0)
    assert talker is not None
    extra = scored if after == "GameScored" else NewEvent(
        "MessagePosted", {"seat": 0, "text": "gg"}, talker.player_id)
    table, envelopes = extend(table, envelopes, [scored, extra], SEED, fixed_clock())

    report = verify_record(sign(build_record(table, envelopes, SEED, [])))

    assert not report.ok and report.first is not None
    assert (report.first.check, report.first.version) == ("replay", len(envelopes))
    assert "a record ends at SeedRevealed" in report.first.detail


def test_a_five_player_record_verifies_and_reenacts() -> None:
    table, envelopes = play_offline("res-publica-2230ad", 5, SEED, Rng(b"five", 5),
                                    bots=[3, 4], clock=fixed_clock())
    record = sign(build_record(table, envelopes, SEED, []))

    report = verify_record(record)

    assert report.ok, [p.describe() for p in report.problems]
    assert report.checked["moves_reexecuted"] == sum(
        e["type"] == "MovePlayed" for e in envelopes)
    assert [e["hash"] for e in reenact(record)] == [e["hash"] for e in envelopes]
    assert record["game"]["seats"][3]["bot"] is True


def test_a_redacted_hash_does_not_reveal_a_hidden_draw() -> None:
    """A hash over a few unknown values can be searched: every hash of every guess at a hidden
    draw is tried against the whole record (an envelope's hash, the next one's prev)."""
    import itertools

    from games.contract import fact
    from games.res_publica.cards import CARD_IDS, listing

    _, envelopes = game("res-publica-2230ad", players=2)
    table = tables_by_version("res-publica-2230ad", 2)[79]
    record = build_record(table, envelopes[:80], SEED, [0])
    draws = [e for e in record["events"] if e.get("redacted") and e["data"]["facts"]
             and "draws" in e["data"]["facts"][0]["text"]]
    assert draws
    shown = draws[0]
    text = json.dumps(record)
    assert shown["hash"] is None
    seat, facts = shown["data"]["seat"], shown["data"]["facts"]
    count = facts[0]["data"]["race"] + facts[0]["data"]["tech"]
    moves = ["draw", *(f"draw:{r}r" for r in range(4)), *(f"draw:{t}t" for t in range(4)),
             *(f"draw:{r}r{t}t" for r in range(4) for t in range(4))]
    for move_id, combo in itertools.product(moves, itertools.combinations_with_replacement(
            CARD_IDS, count)):
        drawn: dict[str, int] = {}
        for card in combo:
            drawn[card] = drawn.get(card, 0) + 1
        private = fact(f"You draw {listing(drawn)}.", to=[seat], cards=drawn)
        guess = {key: value for key, value in shown.items() if key != "redacted"}
        guess["data"] = {"seat": seat, "move": {"id": move_id},
                         "facts": [facts[0], private, *facts[1:]]}
        assert envelope_hash(guess) not in text, f"seat {seat}'s draw is {drawn}"
