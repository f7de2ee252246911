"""Commodity cards: the face-down deck, the two face-up discard piles, hands and displays.

A hand is counts {commodity: n}, secret; `known` is the part of it that every seat saw go in
(cards taken from a discard pile) and cannot have seen leave since (a card of that commodity
played face up may have been one of them), so determinize keeps it.

The books of the deck's generation (for determinize, games/trajan/view.py). Once the discard
piles have been shuffled into a new deck, everyone knows what that deck started with (the
piles were face up) and how many cards each seat has drawn from it since; the cards a seat
held at the reshuffle cannot be in it. So from the first reshuffle on the state keeps:
- `provenance` (public, derived from the public log alone): `pool`, the new deck's
  composition when it was made, less the cards turned face up from it since to refill a
  pile; `old`, how many cards of each hand were not known (`known`) then; `ledger`, per
  seat, in order, what it did since with the unknown part of its hand: an int for cards
  drawn from the new deck, a commodity for a card that left the hand face up and was not
  one of its known cards (`remove_from_hand` spends those first); `straddle`:
  [seat, old, new] when the reshuffle came in the middle of a draw, which took `old` cards
  from the old deck (counted in `old`) and then `new` from the new one, else None;
- each seat's `drawn` (secret, like its hand): what it drew from the new deck, by commodity,
  but for a draw the reshuffle came in the middle of, which is its `straddle` (all the cards
  of that draw: the fact to the drawer names them together, so even the drawer does not
  know which came from which deck).
No rule reads them. A state without `provenance` (no reshuffle yet) is exactly what it always
was.
"""

from __future__ import annotations

from games.contract import Fact, fact
from games.generations import note_draw, note_played, open_books
from games.rng import Rng
from games.trajan.board import COMMODITIES, Player, State, who

PILES = ("left", "right")


def drawable(state: State) -> int:
    """Cards the deck can still give, a reshuffle of the discard piles included (README
    decision 9: the piles but their top cards)."""
    return len(state["deck"]) + sum(max(0, len(p) - 1) for p in state["piles"])


def _reshuffle(state: State, rng: Rng, seat: int | None = None, pending: int = 0) -> bool:
    """The deck ran out: the discard piles but their top cards become the new deck. `seat`
    is drawing, and took `pending` cards from the old deck in the same draw."""
    cards: list[str] = []
    for pile in state["piles"]:
        cards += pile[:-1]
        del pile[:-1]
    if not cards:
        return False
    open_books(state, {c: cards.count(c) for c in COMMODITIES},
               [hand_size(p) - sum(p["known"].values()) for p in state["seats"]], seat, pending,
               COMMODITIES)
    rng.shuffle(cards)
    state["deck"] = cards
    state["reshuffles"] += 1
    return True


def draw_card(state: State, rng: Rng, seat: int | None = None, pending: int = 0) -> str | None:
    if not state["deck"] and not _reshuffle(state, rng, seat, pending):
        return None
    return str(state["deck"].pop())


def refill_piles(state: State, rng: Rng) -> None:
    """"When a discard pile is emptied, replace it with a card from the top of the commodity
    deck." """
    for pile in state["piles"]:
        if not pile:
            card = draw_card(state, rng)
            if card is not None:
                pile.append(card)
                books = state.get("provenance")
                if books is not None:  # face up: no longer a hidden card of the new deck
                    books["pool"][card] -= 1


def draw_to_hand(state: State, seat: int, n: int, rng: Rng, why: str) -> list[Fact]:
    """Draw n face down (fewer if none are left); the cards are shown to `seat` alone."""
    drawn: dict[str, int] = {}
    fresh: dict[str, int] = {}  # drawn from the deck as it is now (after a reshuffle in here)
    straddles = False
    for _ in range(n):
        before = state["reshuffles"]
        card = draw_card(state, rng, seat, sum(drawn.values()))
        if card is None:
            break
        if state["reshuffles"] > before:
            fresh, straddles = {}, bool(drawn)
        drawn[card] = drawn.get(card, 0) + 1
        fresh[card] = fresh.get(card, 0) + 1
        state["seats"][seat]["hand"][card] += 1
    note_draw(state, seat, fresh, drawn if straddles else None)
    count = sum(drawn.values())
    return [fact(f"{who(seat)} draws {count} commodity card(s) ({why}).", seat=seat,
                 count=count),
            fact(f"You draw {listed(drawn)}.", to=[seat], seat=seat, drawn=drawn)]


def take_from_pile(state: State, seat: int, pile: int, rng: Rng) -> list[Fact]:
    card = str(state["piles"][pile].pop())
    player = state["seats"][seat]
    player["hand"][card] += 1
    player["known"][card] += 1
    refill_piles(state, rng)
    return [fact(f"{who(seat)} takes {card} from the {PILES[pile]} discard pile.", seat=seat,
                 card=card, pile=PILES[pile])]


def remove_from_hand(player: Player, card: str, n: int = 1) -> None:
    """The cards leave the hand face up. Nobody can tell whether they were the known cards of
    that commodity or unseen ones, so the others can be sure of n fewer: the known cards are
    spent first (else the view would tell them that a hidden card of it is still there)."""
    player["hand"][card] -= n
    player["known"][card] = max(0, player["known"][card] - n)


def play_from_hand(state: State, seat: int, card: str, n: int = 1) -> None:
    """`remove_from_hand`, noting in the books (if kept) the cards that were not known ones."""
    player = state["seats"][seat]
    unknown = n - min(n, player["known"][card])
    remove_from_hand(player, card, n)
    note_played(state, seat, [card] * unknown)


def hand_size(player: Player) -> int:
    return sum(player["hand"].values())


def in_hand(player: Player) -> list[str]:
    """The commodities in a hand, in data order."""
    return [c for c in COMMODITIES if player["hand"][c] > 0]


def listed(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {c}" for c, n in counts.items() if n) or "nothing"
