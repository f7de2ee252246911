"""Whatever a record holds, verifying it costs little (issue 11, point 1): the report lists
the first problems in record order and counts the rest, a run stops after a bounded number
of problems, and a record's seat count cannot make the verifier build a list of its seats."""

from __future__ import annotations

from typing import Any

import pytest

from events.records.verify import report as report_module
from events.records.verify import verify_record
from events.records.verify.report import MAX_FOUND, MAX_LISTED
from tests.records.helpers import finished_record


def junk(events: int) -> dict[str, Any]:
    return {"format": "meeple-record/1", "game": {}, "seed_commitment": "", "complete": True,
            "redacted_for": None, "events": [{}] * events, "seed": None, "scores": None,
            "signature": {}}


def test_a_record_of_junk_is_listed_in_part_counted_and_stopped():
    report = verify_record(junk(200_000))  # seven problems an event: far beyond the stop
    assert report.status == "invalid" and not report.ok
    assert len(report.problems) == MAX_LISTED
    assert report.stopped is True
    assert len(report.problems) + report.not_listed == MAX_FOUND
    answer = report.to_json()
    assert answer["not_listed"] == report.not_listed and answer["stopped"] is True
    assert answer["first"] == answer["problems"][0]


def test_the_problems_listed_are_the_first_in_record_order(monkeypatch):
    record = junk(40)  # a few hundred problems: all found
    monkeypatch.setattr(report_module, "MAX_LISTED", 10**6)
    everything = verify_record(record)
    monkeypatch.undo()
    capped = verify_record(record)
    assert everything.not_listed == 0 and not everything.stopped
    assert len(everything.problems) > MAX_LISTED
    assert capped.problems == everything.problems[:MAX_LISTED]
    assert capped.not_listed == len(everything.problems) - MAX_LISTED
    assert capped.stopped is False


@pytest.mark.parametrize("seats", [2**70, 0, -1, 99])
def test_a_seat_count_the_game_does_not_have_is_refused_not_enumerated(seats):
    record = finished_record("res-publica-2230ad", 2)
    record["events"][0]["data"]["seats"] = seats
    report = verify_record(record)
    assert not report.ok
    paths = [problem.path for problem in report.problems]
    assert "events[0].data.seats" in paths
    assert len(report.problems) <= MAX_LISTED


def test_a_deeply_nested_difference_is_reported_as_json() -> None:
    """A fact whose data is nested 600 deep (a hostile record): the report names it, and its
    JSON form (`meeple verify --json`, POST /v1/records/verify) can be written; it once
    raised RecursionError, deep-copying the found value."""
    import json

    record = finished_record("res-publica-2230ad")
    index, move = next((i, e) for i, e in enumerate(record["events"])
                       if e["type"] == "MovePlayed" and e["data"]["facts"])
    deep: list[Any] = []
    inner = deep
    for _ in range(600):
        inner.append([])
        inner = inner[0]
    move["data"]["facts"][0]["data"] = {"deep": deep}
    report = verify_record(record)
    assert not report.ok
    assert any(p.path.startswith(f"events[{index}].data.facts[0].data") for p in report.problems)
    assert json.loads(json.dumps(report.to_json()))["status"] == "invalid"
