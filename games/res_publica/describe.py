"""Res Publica 2230 AD in words: one seat's view (or a spectator's) as named sections.

Pure: it reads only the view dict (view.view) and the package's data (cards.json), never the
state, so it says nothing the viewer may not see: another player's hand is a count until
"All players reveal their hands" at the end. Every card, pile, Location and mission is named
by its name in cards.json, as the legal moves' labels name it ("2 Asteroid Mining", "Space
Station", "New Colony"), never by the view's ids ("mining").

Sections: "You (<name>)" for a seated viewer, then each other player by name (a spectator
gets every player by name), "The table" (decks, discard piles, scoring piles, Locations),
then what is in progress (the trade, a New Colony, the end of the game) and "Turn <n>".
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

from games.res_publica.cards import (
    CARD_IDS,
    CATEGORY,
    DATA,
    LOCATIONS,
    MISSIONS,
    NAMES,
    SCORE_PILES,
)
from games.res_publica.trade import describe as said
from games.text import Section, counted, listed, named, seat_name, section

View = dict[str, Any]
WIDTH = 76  # a line's length before the renderer's indent
_BREAK = re.compile(r"(?<=[,;]) ")
GREY = [c for c in CARD_IDS if CATEGORY[c] == "grey"]  # Pilot, Trooper: 1 point each in hand
DECKS: dict[str, str] = {deck: str(spec["name"]) for deck, spec in DATA["decks"].items()}
PILE = {pile: str(spec["name"]) for pile, spec in SCORE_PILES.items()}
PLACE = {pile: str(LOCATIONS[pile]["name"]) for pile in LOCATIONS}

PHASES = {
    "trade": "trade (optional)",
    "effects": "card effects",
    "display": "display cards",
    "propose": "naming a trade",
    "answer": "answers to the trade",
    "choose": "choosing an answer",
    "swap": "the giver of an 'or' picks",
    "colony": "using a New Colony",
}
COLONY_STEPS = {
    "give": "give one hand card to a player of their choice",
    "discard": "discard one hand card",
    "take": "take one non-grey card from either discard pile",
}
BREAKDOWN = {
    "stations": f"{PILE['station']} cards",
    "cities": f"{PILE['city']} cards",
    "resorts": f"{PILE['resort']} cards",
    "missions": "missions",
    "pairs": "pairs in hand",
    "grey": " or ".join(NAMES[c] for c in GREY) + " cards in hand",
}


def describe(view: View, seat: int | None, names: Sequence[str]) -> list[Section]:
    """The table in words for `seat` (None: a spectator), from its view alone."""
    count = len(view["players"])
    others = [s for s in range(count) if s != seat]
    order = others if seat is None else [seat, *others]
    parts = [_player(view, s, seat, names) for s in order]
    parts.append(section("The table", _table(view)))
    parts += _in_progress(view, names)
    parts.append(_turn(view, names))
    return parts


# --- words ---------------------------------------------------------------------------------


def wrapped(lines: Sequence[str]) -> list[str]:
    """Lines cut to WIDTH characters, the rest of a long line indented below it; a line is
    cut after a comma or semicolon where it can be, so "3 Aturians" stays together."""
    return [row for line in lines for row in _wrap(line)]


def _wrap(line: str) -> list[str]:
    if len(line) <= WIDTH:
        return [line]
    pieces = [p for part in _BREAK.split(line) for p in _cut(part)]
    rows = [""]
    for piece in pieces:
        room = WIDTH - (2 if len(rows) > 1 else 0)
        joined = f"{rows[-1]} {piece}" if rows[-1] else piece
        if len(joined) <= room or not rows[-1]:
            rows[-1] = joined
        else:
            rows.append(piece)
    return rows[:1] + [f"  {row}" for row in rows[1:]]


def _cut(piece: str) -> list[str]:
    """A piece too long for a row cut between words (a long name, say)."""
    return textwrap.wrap(piece, WIDTH - 2) if len(piece) > WIDTH - 2 else [piece]


def cards(held: dict[str, int]) -> str:
    """{"mining": 2, "pilot": 1} as "1 Pilot, 2 Asteroid Mining" (data order, as the labels
    count cards: "Name 2 Asteroid Mining"); "none" if empty."""
    return counted({c: held[c] for c in CARD_IDS if held.get(c)}, NAMES)


def points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def side(shown: dict[str, Any]) -> str:
    """A trade side as said ("1 Skythris or 2 Warp Speed"), an unfinished one with "...". """
    if not shown["items"]:
        return "nothing yet"
    text = said(shown)
    if shown["join"] and len(shown["items"]) == 1:
        text += f" {shown['join']} ..."
    return text


def blocked(placed: dict[str, Any], names: Sequence[str]) -> str | None:
    """"blocked by bob's Trooper" for a card under a Trooper, else None."""
    trooper = placed.get("trooper")
    if trooper is None:
        return None
    return f"blocked by {seat_name(names, int(trooper['by']))}'s {NAMES[trooper['card']]}"


# --- the players ---------------------------------------------------------------------------


def _player(view: View, s: int, seat: int | None, names: Sequence[str]) -> Section:
    p = view["players"][s]
    title = f"You ({seat_name(names, s)})" if s == seat else seat_name(names, s)
    lines = [_hand(p), *_displays(p, names), *_missions(p), _tokens(p)]
    lines += _score(view, s) if view.get("score") else [_points(p)]
    return section(title, wrapped(lines))


def _hand(p: dict[str, Any]) -> str:
    total = int(p["hand_count"])
    if "hand" not in p:
        return f"Hand: {total} card{'' if total == 1 else 's'}"
    return f"Hand ({total}): {cards(p['hand'])}" if total else "Hand: none"


def _displays(p: dict[str, Any], names: Sequence[str]) -> list[str]:
    """Score cards and Locations in front of the player, with what they are worth."""
    lines = [_stations(p["stations"], names)] if p["stations"] else []
    for key, pile in (("cities", "city"), ("resorts", "resort")):
        if p[key]:
            values = ", ".join(str(v) for v in p[key])
            lines.append(f"{PILE[pile]} cards: {values} ({points(sum(p[key]))})")
    if p["locations"]:
        shown = [_location(loc, names) for loc in p["locations"]]
        lines.append(f"Locations: {listed(shown)}")
    return lines or ["Score cards and Locations: none yet"]


def _stations(stations: list[dict[str, Any]], names: Sequence[str]) -> str:
    """"Space Station cards: 2 (6 points); 1 blocked by bob's Trooper"."""
    worth = sum(int(st["points"]) for st in stations)
    notes = [f"; 1 {note}" for note in (blocked(st, names) for st in stations) if note]
    return f"{PILE['station']} cards: {len(stations)} ({points(worth)})" + "".join(notes)


def _location(loc: dict[str, Any], names: Sequence[str]) -> str:
    notes = [note for note in (blocked(loc, names),) if note]
    notes += ["used this turn"] if loc.get("used") else []
    return PLACE[loc["card"]] + (f" ({', '.join(notes)})" if notes else "")


def _missions(p: dict[str, Any]) -> list[str]:
    """The planet's four sections: completed ones with their points, the rest face-down."""
    done = [m for m in MISSIONS if p["missions"].get(m)]
    todo = [str(MISSIONS[m]["name"]) for m in MISSIONS if not p["missions"].get(m)]
    lines = []
    if done:
        shown = [f"{MISSIONS[m]['name']} ({MISSIONS[m]['points']})" for m in done]
        lines.append(f"Missions completed: {listed(shown)}")
    if todo:
        lines.append(f"Missions face-down: {listed(todo)}")
    return lines


def _tokens(p: dict[str, Any]) -> str:
    placed = int(p["trades"])
    line = f"Trade tokens: {p['trade_tokens']}"
    if placed:
        line += f" left, {placed} placed on '{MISSIONS['trades']['name']}'"
    return line


def _table_points(p: dict[str, Any]) -> int:
    done = sum(int(MISSIONS[m]["points"]) for m in MISSIONS if p["missions"].get(m))
    return sum(int(st["points"]) for st in p["stations"]) + sum(p["cities"]) + sum(
        p["resorts"]) + done


def _hand_points(hand: dict[str, int]) -> int:
    """1 point per pair of identical cards, 1 per Pilot or Trooper."""
    return sum(n if CATEGORY[c] == "grey" else n // 2 for c, n in hand.items())


def _points(p: dict[str, Any]) -> str:
    line = f"Points so far: {_table_points(p)}"
    if "hand" in p and _hand_points(p["hand"]):
        line += f", and {_hand_points(p['hand'])} for the hand if the game ended now"
    return line


def _score(view: View, s: int) -> list[str]:
    sheet = next(x for x in view["score"]["seats"] if x["seat"] == s)
    parts = [f"{BREAKDOWN.get(k, k)} {v}" for k, v in sheet["breakdown"].items() if v]
    return [f"Final score: {points(int(sheet['total']))}, rank {sheet['rank']}",
            f"From: {listed(parts)}"]


# --- the table -----------------------------------------------------------------------------


def _table(view: View) -> list[str]:
    decks = [f"{DECKS[d]} deck: {n} card{'' if n == 1 else 's'}" for d, n in view["decks"].items()]
    lines = ["; ".join(decks)]
    for deck, pile in view["discards"].items():
        lines.append(f"{DECKS[deck]} discard pile: {cards(pile)}")
    for pile, values in view["piles"].items():
        lines.append(f"{PILE[pile]} pile: {_pile(values)}")
    left = [f"{PLACE[loc]} cards: {n} left" for loc, n in view["locations"].items()]
    return wrapped([*lines, "; ".join(left)])


def _pile(values: list[int]) -> str:
    """A scoring pile, top card first ("top first: 9, 8, 8") or "3 cards of 3 points"."""
    if not values:
        return "empty"
    if len(set(values)) == 1:
        return f"{len(values)} card{'' if len(values) == 1 else 's'} of {points(values[0])}"
    return "top first: " + ", ".join(str(v) for v in values)


# --- in progress ---------------------------------------------------------------------------


def _in_progress(view: View, names: Sequence[str]) -> list[Section]:
    parts = []
    if view.get("trade"):
        parts.append(section("Trade", wrapped(_trade(view, names))))
    if view.get("colony"):
        who = seat_name(names, int(view["active"]))
        step = COLONY_STEPS.get(view["colony"]["step"], view["colony"]["step"])
        parts.append(section("New Colony", wrapped([f"{who} uses a New Colony; next: {step}"])))
    end = _ending(view, names)
    if end:
        parts.append(section("Game end", wrapped(end)))
    return parts


def _trade(view: View, names: Sequence[str]) -> list[str]:
    t = view["trade"]
    by = seat_name(names, int(t["by"]))
    if "proposal" not in t:
        return [f"{by} is naming a request or an offer (not said yet)"]
    mode = t["mode"]
    if view["phase"] == "propose":
        article = "an" if mode == "offer" else "a"
        return [f"{by} is naming {article} {mode}: {side(t['proposal'])}"]
    verb = "requests" if mode == "request" else "offers"
    lines = [f"{by} {verb} {side(t['proposal'])}"]
    lines += [_answer(view, int(s), names) for s in t["order"]]
    if "draft" in t and t["draft"]["items"]:
        lines.append(f"Your answer so far: {side(t['draft'])}")
    if t.get("partner") is not None:
        lines.append(f"{by} accepts the answer of {seat_name(names, int(t['partner']))}")
    if t.get("my_pick"):
        lines.append(f"You give: {_picked(t)}")
    return lines


def _picked(t: dict[str, Any]) -> str:
    """The option of its "or" the viewer picked to give, counted ("2 Asteroid Mining"); the
    two sides of a trade never name the same card type."""
    answer = t["answers"].get(str(t["partner"]))
    sides = [t["proposal"], answer] if isinstance(answer, dict) else [t["proposal"]]
    for item in (it for s in sides for it in s["items"]):
        if item["card"] == t["my_pick"]:
            return f"{item['n']} {NAMES[item['card']]}"
    return str(NAMES.get(t["my_pick"], t["my_pick"]))


def _answer(view: View, s: int, names: Sequence[str]) -> str:
    t, who = view["trade"], seat_name(names, s)
    answer = t["answers"].get(str(s))
    if answer == "pass":
        return f"{who} passes"
    if answer is not None:
        verb = "demands" if t["mode"] == "request" else "tenders"
        return f"{who} {verb} {side(answer)}"
    if s not in view["actors"]:
        return f"{who} has not answered yet"
    if s in t.get("begun", ()):  # version 4: a begun answer is given, never passed
        return f"{who} is answering now, and has begun an answer (no pass now)"
    return f"{who} is answering now"


def _ending(view: View, names: Sequence[str]) -> list[str]:
    reveal, phase = view.get("reveal"), view["phase"]
    if reveal is None:
        return ["A player has completed all four missions: last turn"] if view["ending"] else []
    if view["ending"]:
        lines = ["A player completed all four missions: the game ended"]
    elif not view["decks"].get("tech"):
        lines = ["The last Technology card was drawn: the game ended"]
    else:
        lines = ["Nobody could draw a card any more: the game ended"]
    lines.append("All players reveal their hands")
    if phase == "reveal":
        order = _reveal_order(reveal, names)
        lines.append(f"Each may display for Space Stations and Cities, in turn: {order}")
    else:
        lines.append(f"The game is over. Ranking: {_ranking(view, names)}")
    return lines


def _ranking(view: View, names: Sequence[str]) -> str:
    """'1. alice, 2. bob, 2. carol' (ties share the rank). `ranking` holds a seat, or (rules
    version 5) the seats sharing a rank as one list: both read alike."""
    sheets = {int(x["seat"]): x for x in view["score"]["seats"]} if view.get("score") else {}
    places = view["score"]["ranking"] if sheets else []
    seats = [int(s) for place in places for s in (place if isinstance(place, list) else [place])]
    return listed([f"{sheets[s]['rank']}. {seat_name(names, s)}" for s in seats if s in sheets])


def _reveal_order(reveal: dict[str, Any], names: Sequence[str]) -> str:
    index = int(reveal["index"])
    marks = [" (done)" if i < index else " (now)" if i == index else ""
             for i in range(len(reveal["order"]))]
    return listed([seat_name(names, int(s)) + m for s, m in zip(reveal["order"], marks,
                                                                   strict=True)])


def _turn(view: View, names: Sequence[str]) -> Section:
    phase = view["phase"]
    if phase == "over":
        return section(f"Turn {view['turn']}", ["The game is over."])
    if phase in PHASES:
        head = f"{seat_name(names, int(view['active']))}'s turn: {PHASES[phase]}"
    else:
        head = "Final reveal"
    return section(f"Turn {view['turn']}", wrapped([head, named(str(view["prompt"]), names)]))
