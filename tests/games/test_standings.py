"""The ranking of a score sheet with ties kept together (games.standings.rank_tied_together),
which Trajan and Trappist One share."""

from __future__ import annotations

from games.standings import rank_tied_together


def entry(seat: int, total: int, tiebreak: list[int]) -> dict[str, object]:
    return {"seat": seat, "total": total, "tiebreak": tiebreak}


def test_the_tiebreak_orders_equal_totals() -> None:
    entries = [entry(0, 10, [1]), entry(1, 12, [0]), entry(2, 10, [3])]
    assert rank_tied_together(entries) == [1, 2, 0]
    assert [e["rank"] for e in entries] == [3, 1, 2]


def test_a_tie_that_stands_shares_its_rank_and_the_next_rank_is_skipped() -> None:
    """Trappist One: "a tie on both: all of them win" (the seats of a shared rank as a list)."""
    entries = [entry(0, 7, [2]), entry(1, 9, [1]), entry(2, 9, [1]), entry(3, 3, [0])]
    assert rank_tied_together(entries) == [[1, 2], 0, 3]
    assert [e["rank"] for e in entries] == [3, 1, 1, 4]


def test_everyone_tied() -> None:
    entries = [entry(s, 5, [0, 0]) for s in range(3)]
    assert rank_tied_together(entries) == [[0, 1, 2]]
    assert {e["rank"] for e in entries} == {1}
