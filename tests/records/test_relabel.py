"""Issue 12, point 4: "The game id is part of `GameCreated`, so relabelling a record breaks
its chain": a record passed off as another game (its header's id changed, and re-signed by
the very key that signed it) fails verification at GameCreated."""

from __future__ import annotations

from events.records.verify import verify_record
from tests.records.helpers import finished_record, sign


def test_a_game_names_its_id_in_its_first_event() -> None:
    record = finished_record("res-publica-2230ad")
    assert record["events"][0]["data"]["game_id"] == record["game"]["id"]
    assert verify_record(record).ok


def test_a_relabelled_record_fails_at_game_created() -> None:
    record = finished_record("res-publica-2230ad")
    record["game"]["id"] = "another-game"
    report = verify_record(sign(record))  # signed again: the signature alone proves nothing
    assert not report.ok
    [first] = report.problems[:1]
    assert first.check == "header" and first.path == "game.id"
    assert "events[0].data.game_id" in first.detail
