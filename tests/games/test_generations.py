"""games.generations: which cards played since a reshuffle came from the new deck, on cases
small enough to know the answer (the games' own tests deal whole worlds with it:
test_trappist_one.py and test_trajan.py, "after a reshuffle")."""

from __future__ import annotations

from collections import Counter

from games.generations import attribute, deal
from games.rng import Rng


def rng(n: int = 0) -> Rng:
    return Rng(b"generations", n)


def test_a_card_played_before_any_draw_from_the_new_deck_is_an_old_one() -> None:
    for n in range(8):
        assert attribute([[("a", 0)]], [1], Counter(a=1), Counter(a=1), rng(n)) == [[False]]


def test_a_card_played_by_a_seat_that_held_none_at_the_reshuffle_is_a_new_one() -> None:
    for n in range(8):
        assert attribute([[("a", 1)]], [0], Counter(a=1), Counter(), rng(n)) == [[True]]


def test_no_side_fits_no_world() -> None:
    assert attribute([[("a", 0)]], [0], Counter(a=1), Counter(a=1), rng()) is None


def test_both_sides_are_chosen_when_both_fit() -> None:
    sides = {str(attribute([[("a", 1)]], [1], Counter(a=1), Counter(a=1), rng(n)))
             for n in range(16)}
    assert sides == {"[[True]]", "[[False]]"}


def test_a_deal_keeps_the_old_cards_out_of_the_new_deck() -> None:
    """Seat 1 held one `x` at the reshuffle of a deck made of two `y`; it drew one card
    since. Its hand of two is one `x` and one `y`; the deck is the other `y`."""
    books = {"pool": {"y": 2}, "old": [0, 1], "ledger": [[], [1]], "straddle": None}
    for n in range(8):
        dealt = deal(books, ["y"], {1: Counter(x=1, y=1)}, [0], Counter(), Counter(), rng(n))
        assert dealt is not None
        assert dealt.deck == ["y"] and dealt.hands[1] == Counter(x=1, y=1)
        assert dealt.drawn[1] == ["y"]
