"""The table as plain JSON data: a player's area, resources, ships, and the state copy.

State (top = last in every deck):
    players, short_game, phase, active, first, turn
    visit      the interaction in progress: {"loc", "count", "card"} or None
    board      {location: [seat of each ship there]}
    display    the cards face up near Paradise (Trobils and Cities), one per slot
    deck       Trobils and Cities still to come; box: cards out of the game
    riffraff   {"deck", "discard"};  stands: {location: {"card", "owner"}} (of 12 in all)
    connections {"deck", "offer"};  offer_reshuffles: how often three identical were replaced
    seats      one area per player, see `new_player`
    rules      2 or 3 in a rules version 2 or 3 game; a version 1 state has no such key (see
               `RULES`)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.asking_for_trobils.cards import RESOURCES, SETUP, SHIP_CARD, Amount, describe
from games.contract import Fact, Move, fact
from games.rng import Rng

Player = dict[str, Any]
State = dict[str, Any]


def who(seat: int) -> str:
    return f"Seat {seat}"


def new_player(hand: int, wormhole: int, credits: int) -> Player:
    """A player's area; `copy_player` copies each of its containers."""
    res = {resource: 0 for resource in RESOURCES}
    res["credit"] = credits
    return {
        "hand": hand,  # ships ready to place
        "wormhole": wormhole,  # ships waiting on the Wormhole to be bought
        "res": res,
        "ship_card": {loc: [] for loc in SHIP_CARD},  # Connection kinds, oldest first
        "trobils": [],  # captured, face up
        "flipped": [],  # thrown into the Star: face down, secret to the others
    }


def copy_player(player: Player) -> Player:
    return {
        **player,
        "res": dict(player["res"]),
        "ship_card": {loc: list(kinds) for loc, kinds in player["ship_card"].items()},
        "trobils": list(player["trobils"]),
        "flipped": list(player["flipped"]),
    }


def copy_state(state: State) -> State:
    """A deep copy of the state, container by container (much faster than a generic copy)."""
    visit = state["visit"]
    return {
        **state,
        "visit": None if visit is None else dict(visit),
        "board": {loc: list(ships) for loc, ships in state["board"].items()},
        "display": list(state["display"]),
        "deck": list(state["deck"]),
        "box": list(state["box"]),
        "riffraff": {pile: list(cards) for pile, cards in state["riffraff"].items()},
        "stands": {loc: dict(stand) for loc, stand in state["stands"].items()},
        "connections": {pile: list(cards) for pile, cards in state["connections"].items()},
        "seats": [copy_player(player) for player in state["seats"]],
    }


# --- rules versions -------------------------------------------------------------------------

# The rules versions this package plays, oldest first. Versions 2 and 3 setup write their number
# into the state; version 1 states (and the golden records of them) have no "rules" key at all.
RULES: tuple[str, ...] = ("1", "2", "3")


def rules_of(state: State) -> int:
    return int(state.get("rules", 1))


def bumps_while_free(state: State) -> bool:
    """Rules version 2: on a location with a space still free (Paradise, the Star) a ship there
    may be bumped too - "a Player may Place a Ship in the available space instead of Bumping":
    placing is the alternative, bumping stays allowed. Version 1 bumps only a full location."""
    return rules_of(state) >= 2


def ties_as_lists(state: State) -> bool:
    """Rules version 3: the score sheet's `ranking` holds the seats sharing a rank as one list
    (`[[0, 1], 2]`), as every game's ScoreSheet does (games.standings.rank_tied_together).
    Versions 1 and 2 list them one by one in seat order (`[0, 1, 2]`): their GameEnded results
    are re-enacted by record verification, so they keep that shape."""
    return rules_of(state) >= 3


# --- resources ----------------------------------------------------------------------------


def can_pay(player: Player, amount: Amount) -> bool:
    res = player["res"]
    return all(res[resource] >= n for resource, n in amount.items())


def pay(player: Player, amount: Amount) -> None:
    res = player["res"]
    for resource, n in amount.items():
        if res[resource] < n:
            raise ValueError(f"not enough {resource}")
        res[resource] -= n


def gain(player: Player, amount: Amount) -> None:
    res = player["res"]
    for resource, n in amount.items():
        res[resource] += n


def exchange(state: State, seat: int, paid: Amount, gained: Amount) -> list[Fact]:
    """`seat` pays `paid` and gains `gained` (a location's or a RiffRaff's offer)."""
    player = state["seats"][seat]
    pay(player, paid)
    gain(player, gained)
    text = f"{who(seat)} pays {describe(paid)} and gains {describe(gained)}."
    return [fact(text, seat=seat, paid=paid, gained=gained)]


def add_up(*amounts: Amount) -> Amount:
    total: Amount = {}
    for amount in amounts:
        for resource, n in amount.items():
            total[resource] = total.get(resource, 0) + n
    return {resource: n for resource, n in total.items() if n}


# --- ships ----------------------------------------------------------------------------------


def ship_total(players: int) -> int:
    """Every ship of one player: in hand + on the board + waiting on the Wormhole."""
    ships = SETUP["ships"][str(players)]
    return int(ships["hand"]) + int(ships["wormhole"])


def connection_count(player: Player) -> int:
    return sum(len(kinds) for kinds in player["ship_card"].values())


# --- the turn -------------------------------------------------------------------------------


def end_turn(state: State, seat: int) -> None:
    """The interaction is over: the next player clockwise (by seat number) takes a turn."""
    state["phase"] = "turn"
    state["visit"] = None
    state["active"] = (seat + 1) % state["players"]
    state["turn"] += 1


Phase = Callable[[State, int, Move, Rng], list[Fact]]
Moves = Callable[[State, int], list[Move]]


def enter(state: State, seat: int, phase: str, moves: Moves, play: Phase, rng: Rng) -> list[Fact]:
    """Ask the player in `phase` - unless there is nothing to decide: no move ends the
    interaction, and a single move (a forced choice, or only "pass") is played at once."""
    state["phase"] = phase
    options = moves(state, seat)
    if not options:
        end_turn(state, seat)
        return []
    if len(options) == 1:
        return play(state, seat, options[0], rng)
    return []
