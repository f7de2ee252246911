"""What a seat knows: its view of the table, its prompt, and determinized states for AI.

Secret (decisions note): hands (mega-factory cards and cargo ships), the starting choice
until the reveal, hangars and scrapyards (face down: their owner sees them, the others see
how many), the decks and the cards back in the box. Everything else is public.

The starting choice: while `phase == "choose"` another seat's entry shows only
`has_chosen` and its hand size, which is its starting size minus 3 once it has chosen
whatever it chose; the facts of a pick carry its content to the picker alone.
"""

from __future__ import annotations

from typing import Any

from games.rng import Rng
from games.trappist_one.board import INVESTMENT, RESOURCES, State
from games.trappist_one.rules import actors, clone, score


def view(state: State, seat: int | None) -> dict[str, Any]:
    over = state["phase"] == "over"
    return {
        "phase": state["phase"],
        "active": state["active"],
        "turn": state["turn"],
        "actors": sorted(actors(state)),
        "options": dict(state["options"]),
        "market": list(state["market"]),
        "points": list(state["points"]),
        "earth": {clan: list(ships) for clan, ships in state["earth"].items()},
        "factory_deck": len(state["factory_deck"]),
        "factory_discard": dict(state["factory_discard"]),
        "reshuffles": state["reshuffles"],
        "investment_deck": len(state["investment_deck"]),
        "removed": len(state["removed"]),
        "ship_discard": state["ship_discard"],
        "used": list(state["used"]),
        "placing": clone(state["placing"]),
        "shipment": clone(state["shipment"]),
        "reaction": clone(state["reaction"]),
        "ending": state["ending"],
        "players": [_player_view(state, s, seat, over) for s in range(state["players"])],
        "prompt": prompt(state, seat),
        "score": score(state) if over else None,
    }


def _player_view(state: State, s: int, seat: int | None, over: bool) -> dict[str, Any]:
    p = state["seats"][s]
    entry: dict[str, Any] = {
        "seat": s,
        "stargold": p["stargold"],
        "planets": {pl: list(fs) for pl, fs in p["planets"].items()},
        "satellites": dict(p["satellites"]),
        "stations": list(p["stations"]),
        "hand_count": sum(p["hand"].values()) + len(p["cargo"]),
        "hangar_count": len(p["hangar"]),
        "scrapyard_count": len(p["scrapyard"]),
    }
    if state["phase"] == "choose":
        entry["has_chosen"] = p["pick"] is not None
    if s == seat or over:
        entry["hand"] = dict(p["hand"])
        entry["cargo"] = list(p["cargo"])
        entry["hangar"] = list(p["hangar"])
        entry["scrapyard"] = list(p["scrapyard"])
        if p["pick"] is not None:
            entry["pick"] = dict(p["pick"])
    return entry


PROMPTS = {
    "choose": "Choose 3 mega-factory cards for Capital One (in secret; revealed together).",
    "benefit": "Benefit phase: take any benefits, in any order, then go on to buying.",
    "buying": "Buying phase: buy market cards, then end buying.",
    "place": "Play a mega-factory (no construction bonus), or skip.",
    "phase3": "Build a mega-factory, or ship.",
    "architecton": "Architecton: pay to play another mega-factory, or skip.",
    "produce": "Produce: discard matching cards, up to the loading capacity; then done.",
    "end": "Discard down to your hand limit.",
    "react": "Another player called a ship: use or decline your reaction.",
    "over": "The game is over.",
}


def prompt(state: State, seat: int | None) -> str | None:
    if seat is None or seat not in actors(state):
        return None
    return PROMPTS[state["phase"]]


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A state `seat` cannot tell from this one: the unseen cards dealt anew.

    Mega-factory cards: the deck, the other hands and the other starting choices are one
    pool, dealt back in the same sizes. Investment cards: the deck, the removed cards, the
    other seats' cargo ships in hand and their scrapyards' investment cards, likewise
    (README "Status": this ignores what a seat saw being bought). Hangars: the other seats'
    ships are one pool."""
    new = clone(state)
    others = [s for s in range(state["players"]) if s != seat]
    # mega-factory cards
    pool = list(new["factory_deck"])
    for s in others:
        p = new["seats"][s]
        pool += [r for r in RESOURCES for _ in range(p["hand"][r])]
        if p["pick"] is not None:
            pool += [r for r in RESOURCES for _ in range(p["pick"][r])]
    rng.shuffle(pool)
    for s in others:
        p = new["seats"][s]
        n = sum(p["hand"].values())
        p["hand"] = {r: 0 for r in RESOURCES}
        for r in pool[:n]:
            p["hand"][r] += 1
        del pool[:n]
        if p["pick"] is not None:
            p["pick"] = {r: 0 for r in RESOURCES}
            for r in pool[:3]:
                p["pick"][r] += 1
            del pool[:3]
    new["factory_deck"] = pool
    # investment cards: others' cargo ships in hand are cargo ships, the rest is any card
    cards = list(new["investment_deck"]) + list(new["removed"])
    for s in others:
        p = new["seats"][s]
        cards += p["cargo"] + [c for c in p["scrapyard"] if c in INVESTMENT]
    rng.shuffle(cards)
    cargo = [c for c in cards if INVESTMENT[c]["kind"] == "cargo"]
    for s in others:
        p = new["seats"][s]
        p["cargo"], cargo = cargo[: len(p["cargo"])], cargo[len(p["cargo"]) :]
        for c in p["cargo"]:
            cards.remove(c)
    rest = iter(cards)
    new["investment_deck"] = [next(rest) for _ in new["investment_deck"]]
    new["removed"] = [next(rest) for _ in new["removed"]]
    for s in others:
        p = new["seats"][s]
        p["scrapyard"] = [next(rest) if c in INVESTMENT else c for c in p["scrapyard"]]
    ships = [sh for s in others for sh in new["seats"][s]["hangar"]]
    rng.shuffle(ships)
    for s in others:
        n = len(new["seats"][s]["hangar"])
        new["seats"][s]["hangar"], ships = ships[:n], ships[n:]
    return new

