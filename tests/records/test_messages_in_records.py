"""Table talk (MessagePosted) is part of the log and so of the record: a record with messages
in the middle of play still verifies; the verifier carries them, and a tampered message breaks
the chain. Talk after the end is in the log but not in the record, which ends at SeedRevealed
(docs/records.md, section 1): a record that carries some is refused."""

from __future__ import annotations

import hashlib
from typing import Any

from events.application.offline import OfflineLog, fixed_clock, play_offline, play_random_move
from events.domain.envelope import NewEvent
from events.domain.table import Status
from events.records.record import build_record
from events.records.verify import verify_record
from games.rng import DRAWS_BY_MOVE, Rng
from tests.records.helpers import GAME_TYPES, SEED, sign


def finished_with_messages(game_type: str, after_the_end: bool = False,
                           draws: str = DRAWS_BY_MOVE) -> dict[str, Any]:
    """A record with talk during play; `after_the_end`: also the talk that followed the end
    (which no server's record holds now); `draws=""`: a game made before GameCreated said
    "draws"."""
    rng = Rng(b"tests/records messages", 2)
    table, envelopes = play_offline(game_type, 2, SEED, rng, moves=3, game_id="g-talk",
                                    clock=fixed_clock(), draws=draws)
    log = OfflineLog(table.id, SEED, fixed_clock())
    log.table, log.envelopes = table, list(envelopes)
    log.append([NewEvent("MessagePosted", {"seat": 0, "text": "good luck"}, "p_alice")])
    assert log.table.state == table.state and log.table.actors() == table.actors()
    while log.table.status is not Status.ENDED:
        play_random_move(log, rng)
    if after_the_end:  # in the log, but not in a record (events.records.finished)
        log.append([NewEvent("MessagePosted", {"seat": 1, "text": "well played"}, "p_bob")])
    return sign(build_record(log.table, log.envelopes, SEED, []))


def test_a_finished_game_with_messages_verifies() -> None:
    for game_type in GAME_TYPES:
        record = finished_with_messages(game_type)
        kinds = [e["type"] for e in record["events"]]
        assert kinds.count("MessagePosted") == 1 and kinds[-1] == "SeedRevealed"
        assert kinds.index("MessagePosted") < kinds.index("GameEnded")
        assert hashlib.sha256(bytes.fromhex(record["seed"])).hexdigest() == (
            record["seed_commitment"])
        report = verify_record(record)
        assert report.ok, [p.to_json() for p in report.problems]
        assert report.checked["not_rederived"]["MessagePosted"].startswith("1 ×")
        assert report.checked["reexecuted_to_the_end"] is True


def test_a_changed_message_is_caught() -> None:
    record = finished_with_messages(GAME_TYPES[0])
    talk = next(e for e in record["events"] if e["type"] == "MessagePosted")
    talk["data"]["text"] = "you cheat"
    report = verify_record(record)
    assert not report.ok
    assert report.first is not None and report.first.version == talk["v"]


def test_talk_after_the_end_is_refused_in_a_record() -> None:
    """No server's record holds it (docs/records.md, section 1: a record ends at SeedRevealed;
    an older one may carry one GameScored after it): one that does is not what a server
    signed. Before this was checked, such a record verified (an outside audit)."""
    record = finished_with_messages(GAME_TYPES[0], after_the_end=True)
    talk = record["events"][-1]
    assert talk["type"] == "MessagePosted" and record["events"][-2]["type"] == "SeedRevealed"
    report = verify_record(record)
    assert not report.ok and report.first is not None
    assert (report.first.check, report.first.version) == ("replay", talk["v"])
    assert "a record ends at SeedRevealed" in report.first.detail


def test_talk_after_the_end_in_a_record_made_before_draws_by_moves_verifies() -> None:
    """Before 1 December 2026 a server's record held the game's whole log, talk after the end
    included, and those records keep verifying (docs/records.md, section 1: a record without
    "draws" "may carry table talk after SeedRevealed too, checked as any talk is"). Refused
    for a while in session 38: an outside audit signed such a record on the old code."""
    record = finished_with_messages(GAME_TYPES[0], after_the_end=True, draws="")
    assert "draws" not in record["events"][0]["data"]
    assert [e["type"] for e in record["events"][-2:]] == ["SeedRevealed", "MessagePosted"]
    report = verify_record(record)
    assert report.ok, [p.to_json() for p in report.problems]
