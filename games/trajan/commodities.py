"""Commodity cards: the face-down deck, the two face-up discard piles, hands and displays.

A hand is counts {commodity: n}, secret; `known` is the part of it that every seat saw go in
(cards taken from a discard pile) and cannot have seen leave since (a card of that commodity
played face up may have been one of them), so determinize keeps it.
"""

from __future__ import annotations

from games.contract import Fact, fact
from games.rng import Rng
from games.trajan.board import COMMODITIES, Player, State, who

PILES = ("left", "right")


def drawable(state: State) -> int:
    """Cards the deck can still give, a reshuffle of the discard piles included (README
    decision 9: the piles but their top cards)."""
    return len(state["deck"]) + sum(max(0, len(p) - 1) for p in state["piles"])


def _reshuffle(state: State, rng: Rng) -> bool:
    """The deck ran out: the discard piles but their top cards become the new deck."""
    cards: list[str] = []
    for pile in state["piles"]:
        cards += pile[:-1]
        del pile[:-1]
    if not cards:
        return False
    rng.shuffle(cards)
    state["deck"] = cards
    state["reshuffles"] += 1
    return True


def draw_card(state: State, rng: Rng) -> str | None:
    if not state["deck"] and not _reshuffle(state, rng):
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


def draw_to_hand(state: State, seat: int, n: int, rng: Rng, why: str) -> list[Fact]:
    """Draw n face down (fewer if none are left); the cards are shown to `seat` alone."""
    drawn: dict[str, int] = {}
    for _ in range(n):
        card = draw_card(state, rng)
        if card is None:
            break
        drawn[card] = drawn.get(card, 0) + 1
        state["seats"][seat]["hand"][card] += 1
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


def hand_size(player: Player) -> int:
    return sum(player["hand"].values())


def in_hand(player: Player) -> list[str]:
    """The commodities in a hand, in data order."""
    return [c for c in COMMODITIES if player["hand"][c] > 0]


def listed(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {c}" for c, n in counts.items() if n) or "nothing"
