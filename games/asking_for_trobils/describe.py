"""Asking for Trobils in words: one seat's view (or a spectator's) as named sections.

Pure: it reads only the view dict (view.view) and the package's data (cards.json), never the
state, so it says nothing the viewer may not see: another seat's face-down Trobils are a count
("Once a Trobil Card is flipped over, only the owner may look at the card"). Every location,
card and resource is named as the legal moves' labels name it (cards.name, the data's
resource names), e.g. "Trobil 4", "Ore Connection", "Star of O-Renj", "Space Carrots".
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from games.asking_for_trobils.cards import (
    CITIES,
    DATA,
    LOCATIONS,
    RESOURCES,
    RIFFRAFF,
    SETUP,
    SHIP_CARD,
    TROBILS,
    name,
)
from games.text import Section, listed, named, seat_name, section

WIDTH = 76  # a line's length before the renderer's indent


# --- words for amounts and cards ---------------------------------------------------------------


def resource(kind: str, n: int) -> str:
    """'1 Crystal', '3 Crystals', as the labels say it (cards.json resource names)."""
    names = DATA["resources"][kind]
    return f"{n} {names['one'] if n == 1 else names['many']}"


def amount(held: dict[str, int]) -> str:
    """{'crystal': 3, 'ore': 1} as '3 Crystals, 1 Ore' in resource order; 'none' if empty."""
    return listed([resource(kind, held[kind]) for kind in RESOURCES if held.get(kind)])


def times(cards: Sequence[str]) -> list[str]:
    """Card ids as names, repeats counted: ['ore', 'ore', 'crystal'] -> 'Ore Connection x2', ..."""
    counts: dict[str, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return [name(card) + (f" x{n}" if n > 1 else "") for card, n in counts.items()]


def pts(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def trobil(card: str) -> str:
    return f"{name(card)} ({pts(int(TROBILS[card]['points']))})"


def wrap(head: str, items: Sequence[str]) -> list[str]:
    """'head: a, b, c' broken between items so that no line is longer than WIDTH."""
    lines, line = [], f"{head}: "
    indent = " " * (len(head) - len(head.lstrip()) + 2)
    for i, item in enumerate(items or ["none"]):
        piece = item + ("," if i < len(items) - 1 else "")
        if len(line) + len(piece) > WIDTH and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    return [*lines, line.rstrip()]


# --- a seat --------------------------------------------------------------------------------------


def ship_locations(view: dict[str, Any], seat: int) -> list[str]:
    return [name(loc) + (f" x{n}" if n > 1 else "")
            for loc, ships in view["board"].items() if (n := ships.count(seat))]


def ship_card(player: dict[str, Any]) -> list[str]:
    card, n = player["ship_card"], player["connections"]
    if not n:
        return ["Ship Card: no Connections"]
    lines = [f"Ship Card: {n} Connection" + ("s" if n > 1 else "")]
    for loc in SHIP_CARD:
        if card.get(loc):
            lines += wrap(f"  {name(loc)}", times(card[loc]))
    return lines


def trobils(player: dict[str, Any]) -> list[str]:
    lines = wrap("Trobils face up", [trobil(card) for card in player["trobils"]])
    if "flipped" in player:  # the owner's own view (everyone's once the game is over)
        lines += wrap("Trobils face down", [trobil(card) for card in player["flipped"]])
        return [*lines, f"Trobil points: {player['trobil_points']}"]
    down = player["face_down"]
    if not down:
        return [*lines, "Trobils face down: none", f"Trobil points: {player['face_up_points']}"]
    cards = "1 Trobil" if down == 1 else f"{down} Trobils"
    return [*lines, f"Trobils face down: {cards} (only they know which)",
            f"Trobil points: {player['face_up_points']} face up, plus {cards} face down"]


def stands_of(view: dict[str, Any], seat: int) -> list[str]:
    owned = [f"{name(stand['card'])} on {name(loc)}"
             for loc, stand in view["stands"].items() if stand["owner"] == seat]
    return wrap("RiffRaff Stands", owned) if owned else []


def seat_lines(view: dict[str, Any], seat: int) -> list[str]:
    player = view["players"][seat]
    ships = (f"Ships: {player['ships_in_hand']} in hand, {player['ships_on_board']} on the "
             f"board, {player['ships_on_wormhole']} on the Wormhole")
    return [ships, *wrap("Ships on", ship_locations(view, seat)),
            *wrap("Resources", amount(player["resources"]).split(", ")),
            *ship_card(player), *trobils(player), *stands_of(view, seat)]


# --- the table -----------------------------------------------------------------------------------


def board(view: dict[str, Any], names: Sequence[str]) -> Section:
    """Which ships are at which location, in the rulebook's names."""
    lines = []
    for loc, ships in view["board"].items():
        spaces = int(LOCATIONS[loc]["spaces"])
        free = f" ({spaces - len(ships)} of {spaces} spaces free)" if spaces > 1 else ""
        lines += wrap(name(loc) + free, [seat_name(names, s) for s in ships] or ["empty"])
    return section("The board", lines)


def city(card: str) -> str:
    spec = CITIES[card]
    per = int(spec["per"])
    if spec["bonus"] == "per_connection":
        what = "Connection" if per == 1 else f"{per} Connections"
    else:
        kind = DATA["resources"][spec["resource"]]
        what = kind["one"] if per == 1 else f"{per} {kind['many']}"
    return f"{name(card)} (a City): at the end, 1 point for every {what}"


def display_card(card: str) -> list[str]:
    if card in CITIES:
        return [city(card)]
    spec = TROBILS[card]
    return [f"{trobil(card)}, {resource('credit', int(spec['credits']))} at the Star",
            *wrap("  cost", amount(spec["cost"]).split(", "))]


def display(view: dict[str, Any]) -> Section:
    """The cards face up near Paradise, and the deck under them."""
    lines = [line for card in view["display"] for line in display_card(card)]
    lines.append(f"Deck: {view['deck']} cards, {view['cities_to_come']} Cities still to come")
    if view["short_game"]:
        lines.append("Short Game Variant: the rocket-marked Trobils are out")
    return section("Near Paradise", lines)


def station(view: dict[str, Any]) -> Section:
    offer = view["connections"]
    lines = [*wrap("Connections on offer", [name(card) for card in offer["offer"]]),
             f"Connection deck: {offer['deck']} cards"]
    if offer["reshuffles"]:
        n = offer["reshuffles"]
        lines.append("Three identical on offer were reshuffled: " + ("once" if n == 1 else
                                                                     f"{n} times"))
    return section("O-Renj Station", lines)


def stand(loc: str, stand: dict[str, Any], names: Sequence[str]) -> list[str]:
    """A RiffRaff Stand on a location, its owner and its lasting effect (cards.json)."""
    spec, owner = RIFFRAFF[stand["card"]], seat_name(names, stand["owner"])
    paid = amount(spec.get("amount", {}))
    if spec.get("lasting") == "toll":
        effect = f"others pay {owner} {paid} on placing here"
    else:
        effect = f"{owner} gains {paid} on placing here"
    return wrap(name(loc), [f"{owner}'s {name(stand['card'])}", effect])


def riffraff(view: dict[str, Any], names: Sequence[str]) -> Section:
    deck = view["riffraff"]
    lines = [f"RiffRaff deck: {deck['deck']} cards on Smashed Rock",
             *wrap("Played", times(deck["discard"])),
             f"RiffRaff Stands: {view['stands_left']} of {SETUP['stands']} left"]
    for loc, spec in view["stands"].items():
        lines += stand(loc, spec, names)
    return section("RiffRaff", lines)


def now(view: dict[str, Any], names: Sequence[str]) -> Section:
    """Whose turn it is, the visit in progress (a location's or a RiffRaff card's), the
    prompt."""
    if view["phase"] == "over":
        return section("Now", ["The game is over."])
    active = seat_name(names, view["active"])
    lines = [f"Turn {view['turn']}: {active} to play"]
    visit = view["visit"]
    if visit is not None and view["phase"] != "turn":
        lines.append(f"{active} is visiting {name(visit['loc'])}")
        if visit.get("card"):
            lines.append(f"RiffRaff card drawn: {name(visit['card'])}")
        if view["phase"] == "connections":
            most = LOCATIONS[visit["loc"]]["max_buys"]
            lines.append(f"Connections bought: {visit['count']} of {most}")
        if view["phase"] == "throw" and visit["count"]:
            lines.append(f"Trobils thrown into the Star: {visit['count']}")
    prompt = textwrap.wrap(named(view["prompt"], names), WIDTH, subsequent_indent="  ")
    return section("Now", [*lines, *prompt])


def final_score(view: dict[str, Any], names: Sequence[str]) -> Section:
    sheets = {sheet["seat"]: sheet for sheet in view["score"]["seats"]}
    lines = []
    for place in view["score"]["ranking"]:  # a seat, or (rules version 3) tied seats
        for seat in place if isinstance(place, list) else [place]:
            sheet = sheets[seat]
            parts = [f"{'Trobils' if key == 'trobils' else name(key)} {n}"
                     for key, n in sheet["breakdown"].items()]
            lines += wrap(f"{sheet['rank']}. {seat_name(names, seat)}: {pts(sheet['total'])}",
                          parts)
    return section("Final score", lines)


def describe(view: dict[str, Any], seat: int | None, names: Sequence[str]) -> list[Section]:
    """The viewer's own area first, then each other seat by name, then the board, the cards
    near Paradise, the Station's offer, the RiffRaff, and what is going on now."""
    seats = range(len(view["players"]))
    sections = [] if seat is None else [
        section(f"You ({seat_name(names, seat)})", seat_lines(view, seat))]
    sections += [section(seat_name(names, s), seat_lines(view, s)) for s in seats if s != seat]
    sections += [board(view, names), display(view), station(view), riffraff(view, names),
                 now(view, names)]
    if view.get("score"):
        sections.append(final_score(view, names))
    return sections
