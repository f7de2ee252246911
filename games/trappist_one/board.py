"""Component data from components.json, and a player's area.

Mega-factory cards are identical but for their resource, so a hand's or a pile's factories
are counts {resource: n}; the mega-factory deck is a list of resources (top = last).
Investment cards and Biocultist ships have ids (components.json).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from games.generations import note_draw, open_books
from games.rng import Rng

State = dict[str, Any]

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "components.json").read_text())
RESOURCES: list[str] = list(DATA["resources"])
PLANETS: list[str] = [p["id"] for p in DATA["planets"]]
PLANET_NAMES: dict[str, str] = {p["id"]: p["name"] for p in DATA["planets"]}
PLANET_VP: dict[str, int] = {p["id"]: int(p["vp"]) for p in DATA["planets"]}
CAPITAL = "capital_one"
INVESTMENT: dict[str, dict[str, Any]] = DATA["investment"]
SHIPS: dict[str, dict[str, Any]] = DATA["ships"]
SETUP: dict[str, Any] = DATA["setup"]
PER_PLANET: int = int(SETUP["factories_per_planet"])


def rules_of(state: State) -> int:
    """The rules version a state is played under (README "Rules versions"): version 1 states
    carry no "rules" key."""
    return int(state.get("rules", 1))


def hides_hands_on_hiring(state: State) -> bool:
    """Version 2: hiring a worker shows nobody whether the buyer holds a card of its clan."""
    return rules_of(state) >= 2


def who(seat: int) -> str:
    return f"Player {seat + 1}"


def ability(card: str) -> dict[str, Any]:
    spec = INVESTMENT[card].get("ability")
    return dict(spec) if spec else {}


def new_player() -> dict[str, Any]:
    return {
        "hand": {r: 0 for r in RESOURCES},  # mega-factory cards by resource (secret)
        "cargo": [],  # cargo ships in hand (secret)
        "planets": {p: [] for p in PLANETS},  # the resources of the factories on each planet
        "satellites": {},  # planet -> satellite card id
        "stations": [],
        "hangar": [],  # Biocultist ship ids, face down
        "scrapyard": [],  # investment card ids and cargo ships, face down
        "stargold": 0,
        "pick": None,  # the secret starting choice, until the reveal
    }


def copy_player(p: dict[str, Any]) -> dict[str, Any]:
    """A copy of a player's area that shares nothing mutable with it."""
    return {
        **p,
        "hand": dict(p["hand"]), "cargo": list(p["cargo"]),
        "planets": {k: list(v) for k, v in p["planets"].items()},
        "satellites": dict(p["satellites"]), "stations": list(p["stations"]),
        "hangar": list(p["hangar"]), "scrapyard": list(p["scrapyard"]),
        "stargold": p["stargold"], "pick": None if p["pick"] is None else dict(p["pick"]),
        **{key: dict(p[key]) for key in ("drawn", "straddle") if key in p},
    }


def hand_size(p: dict[str, Any]) -> int:
    return sum(p["hand"].values()) + len(p["cargo"])


def hand_limit(p: dict[str, Any]) -> int:
    """"Capital One allows you to hold up to 5 cards ... For each additional planet you have
    at least one mega-factory on your hand limit increases by 1." """
    others = sum(1 for planet, fs in p["planets"].items() if fs and planet != CAPITAL)
    return int(SETUP["hand_limit"]) + others


def controls(p: dict[str, Any], planet: str) -> bool:
    return len(p["planets"][planet]) >= PER_PLANET


def factories_of(p: dict[str, Any], resource: str) -> int:
    return sum(fs.count(resource) for fs in p["planets"].values())


def factory_total(p: dict[str, Any]) -> int:
    return sum(len(fs) for fs in p["planets"].values())


def placeable_planets(p: dict[str, Any]) -> list[str]:
    """Where a factory may go (built or played, decisions note): "You cannot build a
    mega-factory on a planet you already control" and "You cannot build a mega-factory on a
    planet if you already have another incomplete planet"."""
    incomplete = [pl for pl, fs in p["planets"].items() if 0 < len(fs) < PER_PLANET]
    if incomplete:
        return incomplete
    return [pl for pl, fs in p["planets"].items() if not fs]


def satellite_slots(p: dict[str, Any]) -> list[str]:
    """"Place them in a slot over a planet ("orbit") that has at least one mega-factory." """
    return [pl for pl in PLANETS if p["planets"][pl] and pl not in p["satellites"]]


def abilities(p: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(card, ability) of the satellites and stations in play, in a fixed order."""
    cards = [p["satellites"][pl] for pl in PLANETS if pl in p["satellites"]] + p["stations"]
    return [(c, ability(c)) for c in cards if ability(c)]


def capacity_bonus(p: dict[str, Any]) -> int:
    bonus = sum(int(a.get("capacity", 0)) for _, a in abilities(p))
    if controls(p, "navalis"):
        bonus += 1
    return bonus


def buy_discount(p: dict[str, Any]) -> int:
    return sum(int(a.get("buy_discount", 0)) for _, a in abilities(p))


def refills_at_once(p: dict[str, Any]) -> bool:
    return controls(p, "morula_calva") or any(a.get("buy_refill") for _, a in abilities(p))


def draw_factories(state: State, n: int, rng: Rng, seat: int | None = None) -> dict[str, int]:
    """Draw n mega-factory cards, reshuffling the discard pile into a new deck when the deck
    runs out (decisions note). Returns the drawn counts; fewer if both are empty. With the
    drawing `seat`, keeps the books of the deck's generation (`games.generations`): they
    change nothing the rules, the facts or the view say."""
    drawn: dict[str, int] = {}
    fresh: dict[str, int] = {}  # drawn from the deck as it is now (after a reshuffle in here)
    straddles = False
    for _ in range(n):
        if not state["factory_deck"]:
            pile = [r for r in RESOURCES for _ in range(state["factory_discard"][r])]
            if not pile:
                break
            pending = sum(drawn.values())
            open_books(state, dict(state["factory_discard"]),
                       [sum(p["hand"].values()) + (pending if s == seat else 0)
                        for s, p in enumerate(state["seats"])], seat, pending, RESOURCES)
            straddles = bool(drawn)
            rng.shuffle(pile)
            state["factory_deck"] = pile
            state["factory_discard"] = {r: 0 for r in RESOURCES}
            state["reshuffles"] += 1
            fresh = {}
        r = state["factory_deck"].pop()
        drawn[r] = drawn.get(r, 0) + 1
        fresh[r] = fresh.get(r, 0) + 1
    if seat is not None:
        note_draw(state, seat, fresh, drawn if straddles else None)
    return drawn
