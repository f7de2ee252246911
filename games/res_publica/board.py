"""A player's area: Score cards, Locations, Troopers on them, and the planet's missions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.contract import Fact, fact
from games.res_publica.cards import DATA, LOCATIONS, MISSIONS, deck_of

Player = dict[str, Any]
State = dict[str, Any]

# How far a player is towards each counted mission; "tech5" is flipped by its own display.
PROGRESS: dict[str, Callable[[Player], int]] = {
    "stations": lambda p: len(p["stations"]),
    "cities": lambda p: len(p["cities"]),
    "trades": lambda p: int(p["trades"]),
}


# Where a gained Score card goes in the player's area.
AREA = {"station": "stations", "city": "cities", "resort": "resorts"}


def who(seat: int) -> str:
    return f"Seat {seat}"


def as_printed(state: State) -> bool:
    """Whether the game is played under rules_version 2, the rules as printed (README "Rules
    versions"). Version 1 states carry no "rules" key; the rules code branches on this where
    the two versions differ."""
    return int(state.get("rules", 1)) >= 2


def unseen_transfer(state: State, a: int, b: int) -> None:
    """A card, maybe of either deck, changed hands between `a` and `b` unseen by the others:
    they no longer know how many cards of each deck either holds (view.split_unknown). A new
    list each time: the state's lists are shared between copies (rules.FOOTPRINT)."""
    state["unseen_transfers"] = [*state.get("unseen_transfers", []), sorted((a, b))]


def or_counts_match(state: State) -> bool:
    """Rules version 3: the two options of an "or" name as many cards each, so the hand sizes
    (public) do not tell the others which option changed hands (README "Rules versions")."""
    return int(state.get("rules", 1)) >= 3


def answers_bind(state: State) -> bool:
    """Rules version 4: each drafting step of an answer is a move the others see (not what it
    names), so an opponent who has begun drafting an answer may no longer pass, and "and" and
    "or" follow a first card type whatever the drafter holds (README "Rules versions")."""
    return int(state.get("rules", 1)) >= 4


def draws_counted(state: State) -> bool:
    """Rules version 4: a draw option's label and counts say what it draws, capped at the
    Technology deck, and options that would draw the same cards are one."""
    return int(state.get("rules", 1)) >= 4


def ties_as_lists(state: State) -> bool:
    """Rules version 5: the score sheet's `ranking` holds the seats sharing a rank as one list
    (`[[0, 1], 2]`), as openapi's ScoreSheet says of every game's result
    (games.standings.rank_tied_together). Versions 1 to 4 list them one by one in seat order
    (`[0, 1, 2]`): their GameEnded results are re-enacted by record verification, so they
    keep that shape."""
    return int(state.get("rules", 1)) >= 5


def new_player() -> Player:
    """A player's area; `copy_player` copies each of its containers."""
    return {
        "hand": {},
        "stations": [],  # [{"points": 3, "trooper": None | {"card", "by"}}]
        "cities": [],  # City values, in the order gained
        "resorts": [],  # Resort values
        "locations": [],  # [{"card": "colony" | "university", "trooper": ..., "used": bool}]
        "missions": {m: False for m in MISSIONS},
        "trades": 0,  # Trade tokens placed on the "3 trades" mission
    }


def copy_player(player: Player) -> Player:
    """A deep copy of a player's area, key order kept (much faster than a generic copy).
    Every container of `new_player` must be copied here."""
    return {
        **player,
        "hand": dict(player["hand"]),
        "stations": [_copy_placed(s) for s in player["stations"]],
        "cities": list(player["cities"]),
        "resorts": list(player["resorts"]),
        "locations": [_copy_placed(loc) for loc in player["locations"]],
        "missions": dict(player["missions"]),
    }


def _copy_placed(card: dict[str, Any]) -> dict[str, Any]:
    """A Space Station or location, with its Trooper."""
    trooper = card["trooper"]
    return {**card, "trooper": None if trooper is None else dict(trooper)}


def active_stations(player: Player) -> int:
    return sum(1 for s in player["stations"] if s["trooper"] is None)


def active_locations(player: Player, effect: str) -> list[dict[str, Any]]:
    """The player's unblocked locations with this effect keyword."""
    return [
        loc
        for loc in player["locations"]
        if loc["trooper"] is None and LOCATIONS[loc["card"]]["effect"] == effect
    ]


def city_size(player: Player, normal: int) -> int:
    """Identical technology cards a City needs: fewer with an active University."""
    sizes = [LOCATIONS[loc["card"]]["city_size"] for loc in active_locations(player, "city_size")]
    return min([normal, *sizes])


def blockable(player: Player) -> list[str]:
    """Targets a Trooper may block: "station" and location ids that have an unblocked card."""
    targets = ["station"] if active_stations(player) else []
    for loc in player["locations"]:
        if loc["trooper"] is None and loc["card"] not in targets:
            targets.append(loc["card"])
    return targets


def block(player: Player, target: str, trooper: str, by: int) -> None:
    cards = player["stations"] if target == "station" else player["locations"]
    for card in cards:
        if card["trooper"] is None and (target == "station" or card["card"] == target):
            card["trooper"] = {"card": trooper, "by": by}
            return
    raise ValueError(f"nothing to block: {target}")


def release_troopers(state: State, seat: int) -> list[Fact]:
    """End of the blocked player's turn: their Troopers go to the discard pile."""
    player = state["seats"][seat]
    released = 0
    for card in player["stations"] + player["locations"]:
        trooper = card["trooper"]
        if trooper is not None:
            pile = state["discards"][deck_of(trooper["card"])]
            pile[trooper["card"]] = pile.get(trooper["card"], 0) + 1
            card["trooper"] = None
            released += 1
    if not released:
        return []
    return [fact(f"{who(seat)} discards {released} Trooper(s) that blocked them.", seat=seat)]


def release_all_troopers(state: State) -> list[Fact]:
    """Every Trooper goes to the discard pile (version 2, when the game ends: the reveal is
    nobody's turn, so a Trooper blocks nothing in it)."""
    return [f for seat in range(state["players"]) for f in release_troopers(state, seat)]


def gain(state: State, seat: int, what: str) -> str:
    """Give the player a Score card, Location or mission; returns what they got, for the log."""
    player = state["seats"][seat]
    if what in state["piles"]:
        value = state["piles"][what].pop(0)
        if what == "station":
            player["stations"].append({"points": value, "trooper": None})
        else:
            player[AREA[what]].append(value)
        return f"a {DATA['score_piles'][what]['name']} ({value})"
    if what in state["locations"]:
        state["locations"][what] -= 1
        player["locations"].append({"card": what, "trooper": None, "used": False})
        return f"a {LOCATIONS[what]['name']}"
    player["missions"][what] = True
    return f"the mission '{MISSIONS[what]['name']}'"


def flip_missions(state: State, seat: int) -> list[Fact]:
    """Flip every planet section whose qualifier the player now meets."""
    player = state["seats"][seat]
    facts = []
    for mission, progress in PROGRESS.items():
        if not player["missions"][mission] and progress(player) >= MISSIONS[mission]["needs"]:
            player["missions"][mission] = True
            text = f"{who(seat)} completes the mission '{MISSIONS[mission]['name']}'."
            facts.append(fact(text, seat=seat, mission=mission))
    if all(player["missions"].values()) and state["phase"] not in ("reveal", "over"):
        # Version 1 plays the turn to its end; version 2 ends the game at once (rules.play).
        if not state["ending"] and not as_printed(state):
            facts.append(fact(f"{who(seat)} completed all four missions: last turn.", seat=seat))
        state["ending"] = True
    return facts
