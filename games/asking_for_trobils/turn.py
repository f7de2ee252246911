"""A turn: place one ship (bumping if needed) and interact with its location, or take all
ships back. Also the two RiffRaff phases that place a ship or interact again.

    turn            place:<loc> | place:<loc>:bump:<seat> | take-back
                    (bump: a full location; rules version 2 on also Paradise and the Star with room)
    extra_turn      the same ship moves on: place:<loc>[:bump:<seat>] | pass
    interact_again  again:<loc> (a location where you have a ship) | pass

Arriving at a location: bump, then "A Player always collects their Connection resources before
interacting with a Location or RiffRaff", then the RiffRaff Stand there, then the location.
"""

from __future__ import annotations

from functools import cache

from games.asking_for_trobils import locations, riffraff
from games.asking_for_trobils.board import State, add_up, bumps_while_free, end_turn, gain, who
from games.asking_for_trobils.cards import (
    CONNECTIONS,
    LOCATION_IDS,
    LOCATIONS,
    SETUP,
    SPACES,
    describe,
    name,
)
from games.contract import Fact, Move, fact
from games.rng import Rng

TAKE_BACK: Move = {"id": "take-back", "label": "Take all your ships back", "kind": "take-back"}
PASS: Move = {"id": "pass", "label": "Pass", "kind": "leave"}


# --- placing a ship --------------------------------------------------------------------------


def turn_moves(state: State, seat: int) -> list[Move]:
    """"A Player must do 1 of 2 Actions on their turn." ... "If a Player has no Ships to
    place, they must pick up all of their Ships." """
    if state["seats"][seat]["hand"] == 0:
        return [dict(TAKE_BACK)]
    return placement_moves(state, seat)


def placement_moves(state: State, seat: int, leaving: str | None = None) -> list[Move]:
    """Every location: a free space is taken; a full one is entered by bumping one ship there
    ("There is no blocking."), which seat's ship is the player's choice. Rules version 2 on also
    offers those bumps while a space is free (board.bumps_while_free): only Paradise and the
    Star can hold a ship and have room, so every other location is as in version 1."""
    also_bump_when_free = bumps_while_free(state)
    moves = []
    for loc in LOCATION_IDS:
        if loc == leaving:
            continue
        ships = state["board"][loc]
        free = len(ships) < SPACES[loc]
        if free:
            moves.append(dict(_place_move(loc, None, False)))
        if not free or also_bump_when_free:
            moves += [dict(_place_move(loc, other, other == seat)) for other in sorted(set(ships))]
    return moves


@cache
def _place_move(loc: str, bump: int | None, own: bool) -> Move:
    if bump is None:
        return {"id": f"place:{loc}", "label": f"Place a ship on {name(loc)}", "kind": "place",
                "loc": loc, "bump": None}
    whose = "your own ship (it is destroyed)" if own else f"{who(bump)}'s ship"
    return {"id": f"place:{loc}:bump:{bump}", "label": f"Place a ship on {name(loc)}, bumping "
            f"{whose}", "kind": "place", "loc": loc, "bump": bump}


def play_turn(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["kind"] == "take-back":
        return take_back(state, seat)
    state["seats"][seat]["hand"] -= 1
    return place(state, seat, move, rng)


def place(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    """Put the ship (already taken from hand or board) on the move's location and arrive."""
    loc, bumped = move["loc"], move["bump"]
    facts = [] if bumped is None else bump(state, seat, loc, bumped)
    state["board"][loc].append(seat)
    facts.append(fact(f"{who(seat)} places a ship on {name(loc)}.", seat=seat, loc=loc,
                      bump=bumped))
    facts += collect_connections(state, seat, loc)
    facts += riffraff.on_arrival(state, seat, loc)
    bonus = (bumped is not None and bumped != seat
             and state["players"] == SETUP["bump_bonus_at_players"])
    return facts + interact(state, seat, loc, rng, bonus)


def bump(state: State, seat: int, loc: str, bumped: int) -> list[Fact]:
    """"they give the Ship back to its owner" - or, for your own ship, "the Ship being Bumped
    is destroyed" and waits on the Wormhole to be bought again."""
    state["board"][loc].remove(bumped)
    if bumped == seat:
        state["seats"][seat]["wormhole"] += 1
        return [fact(f"{who(seat)} bumps its own ship on {name(loc)}: it is destroyed and goes "
                     "back to the Wormhole.", seat=seat, loc=loc)]
    state["seats"][bumped]["hand"] += 1
    return [fact(f"{who(seat)} bumps {who(bumped)}'s ship on {name(loc)}: it goes back to "
                 f"{who(bumped)}.", seat=seat, loc=loc, bumped=bumped)]


def collect_connections(state: State, seat: int, loc: str) -> list[Fact]:
    player = state["seats"][seat]
    kinds = player["ship_card"].get(loc)
    if not kinds:
        return []
    amount = add_up(*(CONNECTIONS[kind]["gives"] for kind in kinds))
    gain(player, amount)
    return [fact(f"{who(seat)}'s Connections on {name(loc)} give {describe(amount)}.",
                 seat=seat, loc=loc, gained=amount)]


def interact(state: State, seat: int, loc: str, rng: Rng, bump_bonus: bool = False
             ) -> list[Fact]:
    """The location's own effect: what it gives, then its action (which may ask)."""
    spec = LOCATIONS[loc]
    amount = add_up(spec.get("gain", {}), spec.get("bump_bonus", {}) if bump_bonus else {})
    facts = []
    if amount:
        gain(state["seats"][seat], amount)
        extra = " (with the bumping bonus)" if bump_bonus else ""
        facts.append(fact(f"{who(seat)} collects {describe(amount)}{extra}.", seat=seat,
                          gained=amount))
    state["visit"] = {"loc": loc, "count": 0, "card": None}
    action = spec.get("action")
    if action is None:
        end_turn(state, seat)
        return facts
    if action == "riffraff":
        return facts + riffraff.draw(state, seat, rng)
    return facts + locations.start(action, state, seat, rng)


def take_back(state: State, seat: int) -> list[Fact]:
    """"If a Player has no Ships to place, they must pick up all of their Ships." """
    taken = 0
    for ships in state["board"].values():
        while seat in ships:
            ships.remove(seat)
            taken += 1
    state["seats"][seat]["hand"] += taken
    end_turn(state, seat)
    return [fact(f"{who(seat)} takes back all {taken} of its ships.", seat=seat, ships=taken)]


# --- RiffRaff: another turn with the same ship ------------------------------------------------


def extra_turn_moves(state: State, seat: int) -> list[Move]:
    """The ship that drew the card moves on to another location (README decision)."""
    return placement_moves(state, seat, leaving=state["visit"]["loc"]) + [dict(PASS)]


def play_extra_turn(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["kind"] == "leave":
        end_turn(state, seat)
        return []
    state["board"][state["visit"]["loc"]].remove(seat)
    return place(state, seat, move, rng)


# --- RiffRaff: interact once more ------------------------------------------------------------


def interact_again_moves(state: State, seat: int) -> list[Move]:
    """Any location where one of the player's ships stands (README decision)."""
    return [
        dict(_again_move(loc)) for loc in LOCATION_IDS if seat in state["board"][loc]
    ] + [dict(PASS)]


@cache
def _again_move(loc: str) -> Move:
    return {"id": f"again:{loc}", "label": f"Interact once more with {name(loc)}",
            "kind": "again", "loc": loc}


def play_interact_again(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["kind"] == "leave":
        end_turn(state, seat)
        return []
    loc = move["loc"]
    facts = [fact(f"{who(seat)} interacts once more with {name(loc)}.", seat=seat, loc=loc)]
    facts += collect_connections(state, seat, loc)
    return facts + interact(state, seat, loc, rng)
