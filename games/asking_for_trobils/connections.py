"""Connection cards: the three on offer by O-Renj Station, and the Ship Card they go on."""

from __future__ import annotations

from typing import Any

from games.asking_for_trobils.board import Player, State
from games.asking_for_trobils.cards import SETUP, name
from games.contract import Fact, fact
from games.rng import Rng


def price(station: dict[str, Any], player: Player, ship_loc: str) -> int:
    """"Each Connection Card costs 2 Credits plus 1 Credit for every Connection Card
    already on the same Ship Card Location." """
    return int(station["price"]) + int(station["price_step"]) * len(player["ship_card"][ship_loc])


def offered_kinds(state: State) -> list[str]:
    """The kinds on offer, each once, in slot order (two identical cards are one choice)."""
    return list(dict.fromkeys(state["connections"]["offer"]))


def take_offered(state: State, kind: str) -> None:
    """Take a card of this kind from the offer; "it is immediately replaced on the Board by a
    new Connection" (while the deck has one: then the slot stays empty)."""
    offer, deck = state["connections"]["offer"], state["connections"]["deck"]
    slot = offer.index(kind)
    if deck:
        offer[slot] = deck.pop()
    else:
        del offer[slot]


def add_connection(player: Player, kind: str, ship_loc: str) -> None:
    """"Connection Cards cannot be moved once they are placed" - they stay in this list."""
    player["ship_card"][ship_loc].append(kind)


def refresh_if_identical(state: State, rng: Rng) -> list[Fact]:
    """"If all 3 available Connection Cards on the Board are the same at the end of
    purchasing, they are shuffled back in and replaced." Once: if the three new cards are
    identical again, they stay (README decision)."""
    conn = state["connections"]
    offer = conn["offer"]
    if len(offer) != SETUP["offer"] or len(set(offer)) != 1:
        return []
    conn["deck"] += offer
    rng.shuffle(conn["deck"])
    conn["offer"] = [conn["deck"].pop() for _ in range(min(SETUP["offer"], len(conn["deck"])))]
    state["offer_reshuffles"] += 1  # public: the view tells a reshuffle from a chance redraw
    text = f"Three identical {name(offer[0])}s were on offer: they are shuffled back and replaced."
    return [fact(text, offer=list(conn["offer"]))]
