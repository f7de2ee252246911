"""Component data from cards.json, and small helpers on amounts of resources.

An amount is a dict {resource: n}. Decks are lists of card ids, top = last. Connection
and RiffRaff cards of one kind are identical, so their id is their kind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "cards.json").read_text())
RESOURCES: list[str] = list(DATA["resources"])
LOCATIONS: dict[str, dict[str, Any]] = DATA["locations"]
LOCATION_IDS: list[str] = list(LOCATIONS)
SHIP_CARD: list[str] = list(DATA["ship_card"])
TROBILS: dict[str, dict[str, Any]] = DATA["trobils"]
CITIES: dict[str, dict[str, Any]] = DATA["cities"]
RIFFRAFF: dict[str, dict[str, Any]] = DATA["riffraff"]
CONNECTIONS: dict[str, dict[str, Any]] = DATA["connections"]
SETUP: dict[str, Any] = DATA["setup"]

Amount = dict[str, int]

SPACES: dict[str, int] = {loc: int(spec["spaces"]) for loc, spec in LOCATIONS.items()}
ACTION: dict[str, str | None] = {loc: spec.get("action") for loc, spec in LOCATIONS.items()}
STAND_SPOTS: list[str] = [loc for loc, spec in LOCATIONS.items() if not spec.get("no_stand")]
NAMES: dict[str, str] = {
    card: str(spec["name"])
    for table in (LOCATIONS, TROBILS, CITIES, RIFFRAFF, CONNECTIONS)
    for card, spec in table.items()
}


def name(card: str) -> str:
    """A location's, card's or Connection's printed (or stand-in) name."""
    return NAMES[card]


def is_city(card: str) -> bool:
    return card in CITIES


def points(trobil: str) -> int:
    return int(TROBILS[trobil]["points"])


def credits_of(trobil: str) -> int:
    return int(TROBILS[trobil]["credits"])


def cost(trobil: str) -> Amount:
    return dict(TROBILS[trobil]["cost"])


def effect(riffraff: str) -> str:
    return str(RIFFRAFF[riffraff]["effect"])


def counted_deck(table: dict[str, dict[str, Any]]) -> list[str]:
    """One id per physical card: each kind `count` times, in data order."""
    return [card for card, spec in table.items() for _ in range(int(spec["count"]))]


def describe(amount: Amount) -> str:
    """'2 Crystals and 1 Ore' in resource order (or 'nothing')."""
    parts = []
    for resource in RESOURCES:
        n = amount.get(resource, 0)
        if n:
            names = DATA["resources"][resource]
            parts.append(f"{n} {names['one'] if n == 1 else names['many']}")
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
