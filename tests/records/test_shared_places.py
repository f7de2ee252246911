"""Rulebook (Trappist One): "If there is a tie in both dominion points and stargold, between
2 or more mega-corporations at the end of the game, you share the control over Trappist One:
All of you win!" The game's sheet says so in `ranking` (seats sharing a place are one list,
openapi.yaml ScoreSheet); a resignation re-ranks the sheet (resigned seats last), and that
kept the shared place in the rows' ranks but flattened it in `ranking` (outside rules audit,
session 38). Records written so keep verifying."""

from __future__ import annotations

from typing import Any

import pytest

from events.domain.deadlines import rank_resigned_last
from events.records.verify import verify_record
from games.registry import get_game
from tests.records.helpers import finished_record, reseal, sign
from tests.records.test_tamper import server_keys

SHARED_WIN: dict[str, Any] = {
    "seats": [{"seat": 0, "total": 9, "tiebreak": 4, "rank": 1},
              {"seat": 1, "total": 9, "tiebreak": 4, "rank": 1},
              {"seat": 2, "total": 3, "tiebreak": 0, "rank": 3}],
    "ranking": [[0, 1], 2],
}


def test_a_shared_win_stays_one_place_when_another_seat_resigned() -> None:
    ranked = rank_resigned_last(SHARED_WIN, [2])
    assert [(row["rank"], row.get("resigned", False)) for row in ranked["seats"]] == [
        (1, False), (1, False), (3, True)]
    assert ranked["ranking"] == [[0, 1], 2]
    # A game whose sheet lists tied seats one by one keeps its own shape.
    flat = {**SHARED_WIN, "ranking": [0, 1, 2]}
    assert rank_resigned_last(flat, [2])["ranking"] == [0, 1, 2]


def test_a_resigned_seat_below_a_shared_place_of_three() -> None:
    sheet = {"seats": [{"seat": s, "rank": 1} for s in range(3)] + [{"seat": 3, "rank": 4}],
             "ranking": [[0, 1, 2], 3]}
    assert rank_resigned_last(sheet, [1])["ranking"] == [[0, 2], 3, 1]


def _resigned_record(monkeypatch: pytest.MonkeyPatch, ranking: list[Any]) -> dict[str, Any]:
    """A finished 3-seat Trappist One record in which seat 0 resigned after its last move and
    the rules' sheet (patched) is a shared win of seats 1 and 2; its GameEnded carries the
    re-ranked sheet with `ranking` as given."""
    record = finished_record("trappist-one", 3)
    game = get_game("trappist-one", record["game"]["rules_version"])
    sheet = {"seats": [{"seat": 0, "total": 20, "tiebreak": 1, "rank": 1},
                       {"seat": 1, "total": 9, "tiebreak": 4, "rank": 2},
                       {"seat": 2, "total": 9, "tiebreak": 4, "rank": 2}],
             "ranking": [0, [1, 2]]}
    monkeypatch.setattr(type(game), "score", lambda self, state: sheet)
    events = record["events"]
    last = max(i for i, e in enumerate(events)
               if e["type"] == "MovePlayed" and e["data"]["seat"] == 0)
    events.insert(last + 1, {"v": 0, "type": "PlayerResigned", "at": events[last]["at"],
                             "by": record["game"]["seats"][0]["player_id"],
                             "data": {"seat": 0}, "prev": "", "hash": ""})
    scores = {**rank_resigned_last(sheet, [0]), "ranking": ranking}
    ended = next(e for e in events if e["type"] == "GameEnded")
    ended["data"]["scores"] = record["scores"] = scores
    record["events"] = reseal(events)
    return sign(record)


@pytest.mark.parametrize("ranking", [[[1, 2], 0], [1, 2, 0]])
def test_records_verify_with_the_shared_place_grouped_or_as_written_before(
        monkeypatch: pytest.MonkeyPatch, ranking: list[Any]) -> None:
    report = verify_record(_resigned_record(monkeypatch, ranking), server_keys())
    assert report.ok, report.problems


def test_a_record_whose_ranking_puts_the_resigned_seat_first_does_not_verify(
        monkeypatch: pytest.MonkeyPatch) -> None:
    report = verify_record(_resigned_record(monkeypatch, [0, [1, 2]]), server_keys())
    assert not report.ok
