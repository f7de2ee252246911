"""The golden records of tests/golden: each verifies, and this code re-enacts every event of
it hash for hash, under the rules_version it was made with (old versions included: history
stays true); a record of a rules_version this code does not have is reported as such."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from events.application.offline import reenact
from events.records.keys import trusted_keys
from events.records.verify import verify_record
from games.registry import GAMES, RULES

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
RECORDS = sorted(GOLDEN.glob("*-r*.json"))


def load(path: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(path.read_text())
    return record


def newest_rules(record: dict[str, Any]) -> bool:
    return bool(GAMES[record["game"]["type"]].rules_version == record["game"]["rules_version"])


def test_every_game_type_has_golden_records_at_two_player_counts() -> None:
    counts: dict[str, set[int]] = {}
    for path in RECORDS:
        record = load(path)
        if newest_rules(record):
            counts.setdefault(record["game"]["type"], set()).add(record["game"]["seat_count"])
    assert {game: len(seats) >= 2 for game, seats in counts.items()} == {
        game: True for game in GAMES}


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_a_golden_record_verifies_with_the_test_key(path: Path) -> None:
    record = load(path)
    keys = trusted_keys(json.loads((GOLDEN / "keys.json").read_text()))

    report = verify_record(record, keys)

    assert report.ok, [problem.describe() for problem in report.problems]
    assert report.checked["signature"]["trusted"] is True
    assert report.checked["rules"].endswith(f"rules_version {record['game']['rules_version']}")


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_re_execution_makes_every_event_again_hash_for_hash(path: Path) -> None:
    record = load(path)

    made = reenact(record)

    assert [e["hash"] for e in made] == [e["hash"] for e in record["events"]]
    assert made == record["events"]


@pytest.mark.parametrize("path", RECORDS[:1], ids=lambda p: p.name)
def test_a_record_of_rules_this_code_lacks_cannot_be_re_executed(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = load(path)
    game = GAMES[record["game"]["type"]]
    monkeypatch.setitem(RULES, game.id, {"999": game})  # as if its version were dropped

    report = verify_record(record)

    assert not report.ok and report.status == "invalid"
    rules = [problem for problem in report.problems if problem.check == "rules"]
    assert [problem.detail for problem in rules] == [
        f"cannot re-execute: rules_version {record['game']['rules_version']}, this code has "
        "['999']"]
    assert rules[0].path == "game.rules_version"
    assert "moves_reexecuted" not in report.checked  # reported, not silently re-executed
