"""What a seat knows: its view of the table, its prompt, and determinized states for AI.

"Nothing is secret in Asking for Trobils, with the exception of turned over (thrown into the
Star of O-Renj) Trobil Cards." Besides those, the order of the three decks (and which Cities
are in the game) is unknown to everyone. Once the game is over, everything is shown.
"""

from __future__ import annotations

from typing import Any

from games.asking_for_trobils.board import State, bumps_while_free, connection_count, who
from games.asking_for_trobils.cards import (
    LOCATIONS,
    RIFFRAFF,
    SETUP,
    describe,
    is_city,
    name,
    points,
)
from games.asking_for_trobils.rules import actors
from games.asking_for_trobils.scoring import score, trobil_points
from games.rng import Rng


def view(state: State, seat: int | None) -> dict[str, Any]:
    """Built of fresh containers only: nothing in it is shared with `state`."""
    over = state["phase"] == "over"
    visit = state["visit"]
    shown: dict[str, Any] = {
        "phase": state["phase"],
        "active": state["active"],
        "first": state["first"],
        "turn": state["turn"],
        "short_game": state["short_game"],
        "actors": sorted(actors(state)),
        "visit": None if visit is None else dict(visit),
        "board": {loc: list(ships) for loc, ships in state["board"].items()},
        "display": list(state["display"]),
        "deck": len(state["deck"]),
        "cities_to_come": cities_to_come(state),
        "riffraff": {"deck": len(state["riffraff"]["deck"]),
                     "discard": list(state["riffraff"]["discard"])},
        "stands": {loc: dict(stand) for loc, stand in state["stands"].items()},
        "stands_left": SETUP["stands"] - len(state["stands"]),
        "connections": {"offer": list(state["connections"]["offer"]),
                        "deck": len(state["connections"]["deck"]),
                        "reshuffles": state["offer_reshuffles"]},
        "players": _players_view(state, seat),
        "prompt": prompt(state, seat),
        "score": score(state) if over else None,
    }
    if over:  # "everything is visible": every deck's cards in order, and the box
        shown["deck_cards"] = list(state["deck"])
        shown["box"] = list(state["box"])
        shown["riffraff"]["deck_cards"] = list(state["riffraff"]["deck"])
        shown["connections"]["deck_cards"] = list(state["connections"]["deck"])
    return shown


def cities_to_come(state: State) -> int:
    """Public: players + 1 Cities are in the game; those not on display are in the deck."""
    return state["players"] + 1 - sum(1 for card in state["display"] if is_city(card))


def _players_view(state: State, seat: int | None) -> list[dict[str, Any]]:
    on_board = [0] * state["players"]
    for ships in state["board"].values():
        for s in ships:
            on_board[s] += 1
    return [_player_view(state, s, seat, on_board[s]) for s in range(state["players"])]


def _player_view(state: State, s: int, seat: int | None, on_board: int) -> dict[str, Any]:
    player = state["seats"][s]
    entry: dict[str, Any] = {
        "seat": s,
        "ships_in_hand": player["hand"],
        "ships_on_board": on_board,
        "ships_on_wormhole": player["wormhole"],
        "resources": dict(player["res"]),
        "ship_card": {loc: list(kinds) for loc, kinds in player["ship_card"].items()},
        "connections": connection_count(player),
        "trobils": list(player["trobils"]),
        "face_down": len(player["flipped"]),
        "face_up_points": sum(points(t) for t in player["trobils"]),
    }
    if s == seat or state["phase"] == "over":
        entry["flipped"] = list(player["flipped"])
        entry["trobil_points"] = trobil_points(player)
    return entry


# --- prompts -----------------------------------------------------------------------------------


def prompt(state: State, seat: int | None) -> str:
    phase = state["phase"]
    if phase == "over":
        return "The game is over."
    waiting = sorted(actors(state))
    if seat not in waiting:
        return "Waiting for " + ", ".join(who(s) for s in waiting) + "."
    return PROMPTS[phase](state, seat)


def _turn_prompt(state: State, seat: int) -> str:
    if state["seats"][seat]["hand"] == 0:
        return "You have no ships left to place: take all your ships back."
    if bumps_while_free(state):
        return ("Your turn: place a ship on a location (bump a ship if it is full; on a location "
                "with several spaces you may bump a ship even while a space is free).")
    return "Your turn: place a ship on a location (bump a ship if it is full)."


def _where(state: State) -> str:
    return name(state["visit"]["loc"])


def _card(state: State) -> str:
    return name(state["visit"]["card"])


def _choose_prompt(state: State, seat: int) -> str:
    optional = LOCATIONS[state["visit"]["loc"]]["optional"]
    return f"{_where(state)}: choose one of the actions" + (", or pass." if optional else ".")


def _exchange_prompt(state: State, seat: int) -> str:
    spec = RIFFRAFF[state["visit"]["card"]]
    return (f"{_card(state)}: you may pay {describe(spec['pay'])} to gain "
            f"{describe(spec['gain'])}, or pass.")


PROMPTS = {
    "turn": _turn_prompt,
    "capture": lambda state, seat: f"{_where(state)}: take one Trobil you can pay for, or pass.",
    "throw": lambda state, seat: (f"{_where(state)}: throw your captured Trobils into the star "
                                  "one at a time for their Credits, then say done."),
    "connections": lambda state, seat: (
        f"{_where(state)}: buy a Connection and put it on your Ship Card "
        f"({state['visit']['count']} of 3 bought), or say done."),
    "choose": _choose_prompt,
    "ship": lambda state, seat: f"{_where(state)}: pay for another ship, or pass.",
    "exchange": _exchange_prompt,
    "free_connection": lambda state, seat: (f"{_card(state)}: take a Connection on offer for "
                                            "free and put it on your Ship Card."),
    "stand": lambda state, seat: f"{_card(state)}: put its RiffRaff Stand on a location.",
    "extra_turn": lambda state, seat: (f"{_card(state)}: take another turn with the same ship "
                                       "(place it on another location), or pass."),
    "interact_again": lambda state, seat: (f"{_card(state)}: interact once more with a "
                                           "location where you have a ship, or pass."),
}


# --- determinize -------------------------------------------------------------------------------


def determinize(state: State, seat: int, rng: Rng) -> State:
    """Resample what `seat` cannot know: the order of the RiffRaff and Connection decks, and
    which unseen Trobils and Cities are where.

    Unseen Trobils are those in the deck; unseen Cities are those in the deck and in the box.
    Another seat's face-down Trobils are not unseen: a Trobil only ever reaches a player by a
    capture at Paradise, face up, whose public fact names it (as the view did until the
    flip), and "only the owner may look at the card" hides it from view, not from memory.
    So every other seat keeps its flipped cards, as the seat saw them captured and thrown,
    and they are not in the pool (no reachable state holds a face-down Trobil whose identity
    was never public; a state built by hand with one is treated alike). The deck keeps its
    size, its number of Cities and its structure: the Cities are only among its bottom
    2 x (players + 1) cards, above them are Trobils only.

    Each pool of unseen cards is put in a canonical (sorted) order before it is shuffled, so
    the result depends on what the seat knows and on `rng` alone, never on the order the
    true state holds the hidden cards in.

    Copy-on-write: the result has new decks and box; it shares everything else with `state`
    (which it leaves alone)."""
    if state["phase"] == "over":
        return state
    new = dict(state)
    riffraff = new["riffraff"] = dict(state["riffraff"])
    riffraff["deck"] = _shuffled(state["riffraff"]["deck"], rng)
    connections = new["connections"] = dict(state["connections"])
    connections["deck"] = _shuffled(state["connections"]["deck"], rng)
    _redeal_trobils_and_cities(state, new, rng)
    return new


def _shuffled(cards: list[str], rng: Rng) -> list[str]:
    """The cards in a new random order: shuffled from a canonical one (their order in the
    true state is hidden)."""
    pool = sorted(cards)
    rng.shuffle(pool)
    return pool


def _redeal_trobils_and_cities(state: State, new: State, rng: Rng) -> None:
    """The deck's Trobils and the unseen Cities (deck and box) dealt anew; every seat's
    Trobils, face up or down, stay where they are (see `determinize`)."""
    deck = state["deck"]
    trobils = sorted(c for c in deck if not is_city(c))  # canonical: the order is hidden
    cities = sorted(c for c in deck + state["box"] if is_city(c))
    rng.shuffle(trobils)
    rng.shuffle(cities)
    in_deck = sum(1 for c in deck if is_city(c))
    mixed_size = min(len(deck), 2 * (state["players"] + 1))
    mixed = cities[:in_deck] + [trobils.pop() for _ in range(mixed_size - in_deck)]
    rng.shuffle(mixed)
    new["deck"] = mixed + trobils
    new["box"] = [c for c in state["box"] if not is_city(c)] + cities[in_deck:]
