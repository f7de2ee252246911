"""Asking for Trobils as a state machine of named phases.

A turn starts in "turn" (place a ship, or take all back). Placing a ship may open the
location's phase (locations.py) or, at Smashed Rock, a RiffRaff phase (riffraff.py, turn.py);
when the interaction is over the next player's turn starts. Revealing the last City ends the
game at once: "over".

Each phase has ONE function listing its legal moves (MOVES) and one applying them (PLAY), so
the moves offered and the moves played come from the same code. State is plain JSON data;
`play` works on a fresh copy (board.copy_state) and never touches its input.
"""

from __future__ import annotations

from games.asking_for_trobils import locations, riffraff, turn
from games.asking_for_trobils.board import Moves, Phase, State, copy_state, new_player
from games.asking_for_trobils.cards import (
    CITIES,
    CONNECTIONS,
    LOCATION_IDS,
    RIFFRAFF,
    SETUP,
    TROBILS,
    counted_deck,
)
from games.contract import Fact, Move
from games.rng import Rng

# --- setup -------------------------------------------------------------------------------


def rockets_removed(players: int, short_game: bool) -> bool:
    """"Remove 5 marked Trobil Cards out of the deck before setup." (2 players) and "To play
    a shorter game, remove the 5 cards marked for a 2 Player game setup." """
    return short_game or players == SETUP["rocket_removed_at_players"]


def build_deck(players: int, short_game: bool, rng: Rng) -> tuple[list[str], list[str]]:
    """"Shuffle the Trobil Cards and City Cards separately. Without looking, randomly take a
    number of City Cards equal to players + 1 (place the unused City Cards back in the box).
    Take the same number of Trobil Cards, and shuffle them with the City Cards. Place the
    remaining Trobil Cards on top of this stack." Returns (deck, box); top = last."""
    removed = rockets_removed(players, short_game)
    trobils = [t for t, spec in TROBILS.items() if not (removed and spec["rocket"])]
    box = [t for t in TROBILS if t not in trobils]
    cities = list(CITIES)
    rng.shuffle(trobils)
    rng.shuffle(cities)
    n = players + 1
    mixed = trobils[:n] + cities[:n]
    rng.shuffle(mixed)
    return mixed + trobils[n:], box + cities[n:]


def setup(players: int, short_game: bool, rng: Rng, rules_version: str = "1") -> State:
    """A new table under `rules_version` (board.RULES). Version 1's state is exactly what it
    always was: no "rules" key, so its golden records re-enact hash for hash."""
    deck, box = build_deck(players, short_game, rng)
    display = [deck.pop() for _ in range(players + 1)]  # "Draw cards equal to players +1"
    riffraff_deck = counted_deck(RIFFRAFF)
    rng.shuffle(riffraff_deck)
    connection_deck = counted_deck(CONNECTIONS)
    rng.shuffle(connection_deck)
    offer = [connection_deck.pop() for _ in range(SETUP["offer"])]
    ships = SETUP["ships"][str(players)]
    first = rng.randbelow(players)  # "Otherwise, decide randomly."
    state: State = {
        "players": players,
        "short_game": short_game,
        "phase": "turn",
        "active": first,
        "first": first,
        "turn": 1,
        "visit": None,
        "board": {loc: [] for loc in LOCATION_IDS},
        "display": display,
        "deck": deck,
        "box": box,
        "riffraff": {"deck": riffraff_deck, "discard": []},
        "stands": {},
        "connections": {"deck": connection_deck, "offer": offer},
        "offer_reshuffles": 0,
        "seats": [new_player(ships["hand"], ships["wormhole"], SETUP["credits"])
                  for _ in range(players)],
    }
    if rules_version != "1":
        state["rules"] = int(rules_version)
    return state


# --- dispatch ------------------------------------------------------------------------------

MOVES: dict[str, Moves] = {
    "turn": turn.turn_moves,
    "extra_turn": turn.extra_turn_moves,
    "interact_again": turn.interact_again_moves,
    **locations.MOVES,
    **riffraff.MOVES,
    "over": lambda state, seat: [],
}

PLAY: dict[str, Phase] = {
    "turn": turn.play_turn,
    "extra_turn": turn.play_extra_turn,
    "interact_again": turn.play_interact_again,
    **locations.PLAY,
    **riffraff.PLAY,
}


def actors(state: State) -> set[int]:
    if state["phase"] == "over":
        return set()
    return {int(state["active"])}


def play(state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
    """Apply a legal move to a copy of the state."""
    new = copy_state(state)
    return new, PLAY[new["phase"]](new, seat, move, rng)
