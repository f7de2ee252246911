"""How a view reads in a turn email (workers/email_text.py)."""

from __future__ import annotations

from workers.email_text import view_lines


def test_lines_of_text_in_a_view_get_a_line_each() -> None:
    """A list of readable lines that hold commas themselves ("Seaport: orange, blue", as
    Trajan's mat is shown) would run together on one line: each gets its own."""
    view = {"mat": ["Seaport: orange, blue", "Forum: white, pink"], "hand": ["wine", "oil"]}
    assert view_lines(view, {}) == ["  mat:", "    Seaport: orange, blue",
                                    "    Forum: white, pink", "  hand: wine, oil"]


def test_seats_are_named_after_their_players() -> None:
    view = {"players": [{"seat": 0, "stargold": 3}, {"seat": 1, "stargold": 0}]}
    assert view_lines(view, {0: "ann", 1: "ben"}) == [
        "  players:", "    seat 0 (ann): stargold 3", "    seat 1 (ben): stargold 0"]
