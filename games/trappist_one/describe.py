"""Trappist One's table in words (games.text): one seat's view, or a spectator's, as sections.

Built from the view alone. Every name is the one the legal moves' labels use: a resource by
its id in components.json ("solar", as in "Build a solar mega-factory on Navalis"), a planet
by its name there ("Capital One"), an investment card by its id ("Buy cargo-5 for 4",
"Use satellite-3"), with its values from components.json beside it. Sections: the viewer
("You (<name>)"), every other seat by name, the market area, Earth's Biocultist ships, the
decks, what is in progress (the turn, a placement, a shipment, reactions, the end) and the
options in force.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from games.text import Section, counted, listed, named, seat_name, section
from games.trappist_one.board import (
    INVESTMENT,
    PER_PLANET,
    PLANET_NAMES,
    PLANET_VP,
    PLANETS,
    SHIPS,
    controls,
    hand_limit,
)
from games.trappist_one.rules import TRIGGERS

WIDTH = 78  # the longest line: a longer one is split (short_lines, fit, wrapped)

KINDS = {"worker": "Biocultist worker", "satellite": "satellite", "cargo": "cargo ship",
         "station": "orbital station"}

# Short forms of the ability vocabulary of components.json ("_header" / "abilities").
ABILITIES = {
    "benefit_stargold": "benefit: gain {} stargold",
    "benefit_draw": "benefit: draw {}",
    "benefit_pay1_draw2": "benefit: pay 1 stargold, draw 2",
    "benefit_play_factory": "benefit: play a mega-factory",
    "capacity": "+{} loading capacity",
    "buy_discount": "buying: {} less per card",
    "buy_refill": "buying: refill the gap at once",
    "react_clan_draw": "reaction: draw 1 when another calls {} Biocultist ship",
}

PHASES = {
    "choose": "the starting choice for Capital One",
    "benefit": "benefit phase (1)",
    "buying": "buying phase (2)",
    "place": "playing a mega-factory",
    "phase3": "construction or shipment (3)",
    "architecton": "construction phase 3(A): Architecton",
    "produce": "shipment phase 3(B): non-specialised production",
    "react": "shipment phase 3(B): reactions",
    "end": "end phase (4): the hand limit",
    "over": "the game is over",
}


def describe(view: dict[str, Any], seat: int | None, names: Sequence[str]) -> list[Section]:
    players = view["players"]
    parts: list[tuple[str, list[str]]] = []
    if seat is not None:
        parts.append((f"You ({seat_name(names, seat)})", _player(players[seat])))
    for entry in players:
        if entry["seat"] != seat:
            parts.append((seat_name(names, entry["seat"]), _player(entry)))
    parts += [
        ("The market area", _market(view, seat, names)),
        ("Earth", _earth(view)),
        ("The decks", _decks(view)),
        ("Now", _now(view, seat, names)),
        ("Options", _options(view)),
    ]
    return [section(title, short_lines(lines)) for title, lines in parts]


def short_lines(lines: Sequence[str]) -> list[str]:
    """Each line within WIDTH: a longer one goes on below, indented two more."""
    out: list[str] = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip()))
        out += textwrap.wrap(line.strip(), WIDTH, initial_indent=indent,
                             subsequent_indent=indent + "  ", break_on_hyphens=False) \
            if len(line) > WIDTH else [line]
    return out


# --- cards -------------------------------------------------------------------------------


def ability_text(card: str) -> str:
    """The card's ability in a few words, "" for none."""
    spec = INVESTMENT[card].get("ability") or {}
    return "; ".join(ABILITIES[key].format(article(value) if key == "react_clan_draw" else value)
                     for key, value in spec.items())


def card_text(card: str) -> str:
    """An investment card's values from components.json, for the market:
    "cargo ship, solar+exovegetation, capacity 4; price 4, 2 DP"."""
    spec = INVESTMENT[card]
    parts = [KINDS[spec["kind"]]]
    if spec["kind"] == "worker":
        parts.append(f"{spec['clan']} clan")
    if spec["kind"] == "cargo":
        parts += ["+".join(spec["resources"]), f"capacity {spec['capacity']}"]
    return "; ".join([", ".join(parts), f"price {spec['cost']}, {spec['vp']} DP",
                      *filter(None, [ability_text(card)])])


def _in_play_text(card: str) -> str:
    """A card in play: its dominion points and ability."""
    return "; ".join([f"{INVESTMENT[card]['vp']} DP", *filter(None, [ability_text(card)])])


def fit(head: str, tail: str, indent: str = "") -> list[str]:
    """"head: tail" on one line if it fits WIDTH, else tail on a line of its own below."""
    line = f"{indent}{head}: {tail}"
    return [line] if len(line) <= WIDTH else [f"{indent}{head}:", f"{indent}  {tail}"]


def article(word: str) -> str:
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def wrapped(head: str, items: Sequence[str]) -> list[str]:
    """"head: a, b, c" over as many lines as WIDTH needs ("head: none" when empty)."""
    lines, line = [], f"{head}: "
    for n, item in enumerate(items):
        piece = item + (", " if n < len(items) - 1 else "")
        if len(line) + len(piece) > WIDTH and line.strip() != f"{head}:":
            lines.append(line.rstrip())
            line = "  "
        line += piece
    return lines + [line if items else f"{head}: none"]


# --- a seat ------------------------------------------------------------------------------


def _player(entry: dict[str, Any]) -> list[str]:
    """A seat's area: everything its view entry holds (the private parts only when shown)."""
    lines = [f"Stargold: {entry['stargold']}"]
    if entry["seat"] == 0:
        lines.append("Starting player")
    if "has_chosen" in entry:
        lines.append("Has chosen for Capital One" if entry["has_chosen"]
                     else "Still choosing for Capital One")
    if "pick" in entry:
        lines.append(f"Chosen for Capital One: {counted(entry['pick'])} (revealed together)")
    lines += _hand(entry)
    lines += _planets(entry)
    lines += _in_play(entry)
    lines += _face_down(entry)
    lines.append(_points(entry))
    return lines


def _hand(entry: dict[str, Any]) -> list[str]:
    size = f"Hand: {plural(entry['hand_count'], 'card')} (limit {hand_limit(entry)})"
    if "hand" not in entry:
        return [size]
    return [size,
            f"Mega-factory cards: {counted(entry['hand'])}",
            *_cargo(entry["cargo"])]


def _cargo(cargo: list[str]) -> list[str]:
    lines = [line for card in cargo for line in fit(card, card_text(card), "  ")]
    return ["Cargo ships in hand:", *lines] if lines else ["Cargo ships in hand: none"]


def _planets(entry: dict[str, Any]) -> list[str]:
    lines = []
    for planet in PLANETS:
        factories = entry["planets"][planet]
        if factories:
            state = "controlled" if controls(entry, planet) else f"{len(factories)} of {PER_PLANET}"
            lines.append(f"{PLANET_NAMES[planet]}: {', '.join(factories)} ({state})")
    return ["Mega-factories by planet:", *(f"  {line}" for line in lines)] if lines \
        else ["Mega-factories: none yet"]


def _in_play(entry: dict[str, Any]) -> list[str]:
    satellites = [line for planet, card in entry["satellites"].items()
                  for line in fit(f"{card} over {PLANET_NAMES[planet]}", _in_play_text(card),
                                  "  ")]
    stations = [line for card in entry["stations"]
                for line in fit(card, _in_play_text(card), "  ")]
    return (["Satellites:", *satellites] if satellites else ["Satellites: none"]) + \
        (["Orbital stations:", *stations] if stations else ["Orbital stations: none"])


def _face_down(entry: dict[str, Any]) -> list[str]:
    if "hangar" not in entry:
        hangar, scrapyard = entry["hangar_count"], entry["scrapyard_count"]
        return [f"Hangar: {plural(hangar, 'Biocultist ship') if hangar else 'none'}"
                + (", face down" if hangar else ""),
                f"Scrapyard: {plural(scrapyard, 'card') if scrapyard else 'none'}"
                + (", face down" if scrapyard else "")]
    hangar = [f"{ship} (capacity {SHIPS[ship]['capacity']})" for ship in entry["hangar"]]
    return wrapped("Hangar", hangar) + wrapped("Scrapyard", list(entry["scrapyard"]))


def _points(entry: dict[str, Any]) -> str:
    """The dominion points the entry shows, before the majorities of the final scoring."""
    total = sum(PLANET_VP[planet] for planet in PLANETS if controls(entry, planet))
    cards = list(entry["satellites"].values()) + list(entry["stations"])
    if "hangar" in entry:
        cards += list(entry["cargo"]) + [c for c in entry["scrapyard"] if c in INVESTMENT]
        total += sum(int(INVESTMENT[c]["vp"]) for c in cards)
        return f"Dominion points so far: {total} (majorities not counted)"
    total += sum(int(INVESTMENT[c]["vp"]) for c in cards)
    return f"Dominion points in sight: {total} (planets, satellites, stations)"


# --- the shared table --------------------------------------------------------------------


def _market(view: dict[str, Any], seat: int | None, names: Sequence[str]) -> list[str]:
    lines = []
    for card, target in zip(view["market"], view["points"], strict=True):
        at = "nobody" if target is None else "you" if target == seat else seat_name(names, target)
        if card is None:
            lines.append(f"A gap (pointing at {at})")
            continue
        lines += fit(f"{card}, pointing at {at}", card_text(card))
    return lines + ["Prices in stargold; DP: dominion points"]


def _earth(view: dict[str, Any]) -> list[str]:
    lines = []
    for clan, ships in view["earth"].items():
        capacities = ", ".join(str(SHIPS[ship]["capacity"]) for ship in ships)
        lines.append(f"{clan} Biocultist ships: {len(ships)}, loading capacity {capacities}"
                     if ships else f"{clan} Biocultist ships: none left")
    if any(view["earth"].values()):
        lines.append("(the next ship to call first)")
    return lines


def _decks(view: dict[str, Any]) -> list[str]:
    lines = [f"Mega-factory deck: {view['factory_deck']} cards",
             f"Mega-factory discard pile: {counted(view['factory_discard'])}"]
    if view["reshuffles"]:
        lines.append(f"Discard pile reshuffled into the deck {view['reshuffles']} time(s)")
    lines.append(f"Investment deck: {view['investment_deck']} cards")
    if view["removed"] and view["options"].get("refill_from_removed"):
        lines.append(f"Investment cards back in the box: {view['removed']}")
    if view["ship_discard"]:
        lines.append(f"Hangar cards discarded: {view['ship_discard']}")
    return lines


def _now(view: dict[str, Any], seat: int | None, names: Sequence[str]) -> list[str]:
    if view["phase"] == "over":
        return _final(view, names)
    active = seat_name(names, view["active"])
    phase = PHASES[view["phase"]]
    if view["placing"]:
        phase = f"{PHASES[view['placing']['back']]}: {phase}"
    lines = [f"Turn {view['turn']}: {phase}" if view["phase"] == "choose"
             else f"Turn {view['turn']}: {active}'s {phase}"]
    waiting = [seat_name(names, s) for s in view["actors"]]
    lines.append(f"Waiting for: {listed(waiting)}")
    if view["used"]:
        used = [PLANET_NAMES.get(u, u) for u in view["used"]]
        lines += wrapped("Benefits used this turn", used)
    lines += _placing(view, active) + _shipment(view, active) + _reaction(view, names)
    if view["ending"]:
        lines.append(TRIGGERS[view["ending"]])
    if view["prompt"]:
        lines.append(f"Your move: {named(view['prompt'], names)}")
    return lines


def _placing(view: dict[str, Any], active: str) -> list[str]:
    placing = view["placing"]
    if not placing:
        return []
    kinds = "a" if len(placing["resources"]) > 1 else article(placing["resources"][0])
    return [f"{active} may play {kinds} mega-factory by {placing['by']} (no bonus)"]


def _shipment(view: dict[str, Any], active: str) -> list[str]:
    ship = view["shipment"]
    if not ship:
        return []
    how = "ships with" if ship["cargo"] else "calls"
    kind = "cargo ship" if ship["cargo"] else "Biocultist ship"
    return [f"Shipment: {active} {how} {ship['ship']} ({kind}, {'+'.join(ship['resources'])})",
            f"  loading capacity {ship['capacity']}; produced: {counted(ship['produced'])}"]


def _reaction(view: dict[str, Any], names: Sequence[str]) -> list[str]:
    reaction = view["reaction"]
    if not reaction:
        return []
    lines = [f"Reactions to the call of {article(reaction['clan'])} Biocultist ship:"]
    for s, card in reaction["pending"]:
        answer = reaction["answers"].get(f"{s}:{card}")
        said = "to decide" if answer is None else "uses it" if answer else "declines"
        lines.append(f"  {seat_name(names, s)}: {card}, {said}")
    return lines


def _final(view: dict[str, Any], names: Sequence[str]) -> list[str]:
    lines = ["The game is over."]
    sheet = view.get("score")
    if sheet:
        if sheet.get("end"):
            lines.append(TRIGGERS[sheet["end"]].split(":")[0] + ".")
        for entry in sorted(sheet["seats"], key=lambda e: (e["rank"], e["seat"])):
            lines.append(f"{entry['rank']}. {seat_name(names, entry['seat'])}: "
                         f"{entry['total']} DP, {entry['tiebreak'][0]} stargold")
    return lines


def _options(view: dict[str, Any]) -> list[str]:
    options = view["options"]
    return [f"Scoring: {'expert' if options.get('expert_scoring') else 'base'}",
            f"Exodite expansion: {'yes' if options.get('exodite') else 'no'}",
            "Refill the market from the removed cards at the end: "
            + ("yes" if options.get("refill_from_removed") else "no")]
