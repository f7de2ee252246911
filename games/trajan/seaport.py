"""The seaport action: its four options, the discard after drawing 2, and loading a ship.

A ship is loaded one unit at a time (`load` phase, README decision 11), so that the legal
moves stay few however large a hand grows: a unit is a card (identical and different-goods
ships) or a pair of cards (pairs ship). A load is only offered while a combination printed on
the ship can still be completed, so a started shipment always ends with `ship:done`.
"""

from __future__ import annotations

from typing import Any

from games.contract import Fact, Move, fact
from games.rng import Rng
from games.trajan.board import COMMODITIES, FORUM, SHIPS, Player, State, score_points, who
from games.trajan.commodities import (
    PILES,
    draw_to_hand,
    drawable,
    in_hand,
    play_from_hand,
    take_from_pile,
)

WILD = "wild"


def wilds(player: Player) -> list[str]:
    """The player's commodity wildcards (forum tiles)."""
    return [t for t in player["tiles"] if FORUM[t].get("wild") == "commodity"]


# --- the four options ----------------------------------------------------------------------


def options(state: State, seat: int) -> list[Move]:
    player = state["seats"][seat]
    moves: list[Move] = []
    if drawable(state) > 0:
        moves.append(_move("draw", "Seaport: draw 2 cards, then discard 1"))
    for i, pile in enumerate(state["piles"]):
        if pile:
            moves.append(_move(f"take:{PILES[i]}", f"Seaport: take the {pile[-1]} from the "
                               f"{PILES[i]} discard pile", pile=PILES[i], card=pile[-1]))
    have = in_hand(player)
    for i, a in enumerate(have):
        moves.append(_move(f"display:{a}", f"Seaport: play {a} to your display and draw 1",
                           cards=[a]))
        for b in have[i:]:
            if a != b or player["hand"][a] >= 2:
                moves.append(_move(f"display:{a}+{b}", f"Seaport: play {a} and {b} to your "
                                   "display and draw 2", cards=[a, b]))
    for ship in SHIPS:
        if _reachable(player, ship, [], len(wilds(player))):
            level = "front" if state["ships"][ship] == "front" else "back"
            moves.append(_move(f"ship:{ship}", f"Seaport: ship goods on the {SHIPS[ship]['name']}"
                               f" ({level} side)", ship=ship))
    return moves


def _move(option: str, label: str, **fields: Any) -> Move:
    return {"id": f"seaport:{option}", "label": label, "action": "seaport",
            "option": option.split(":")[0], **fields}


def apply(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    option = move["option"]
    if option == "draw":
        state["phase"] = "discard"
        return draw_to_hand(state, seat, 2, rng, "seaport")
    if option == "take":
        return take_from_pile(state, seat, PILES.index(move["pile"]), rng)
    if option == "display":
        return _display(state, seat, list(move["cards"]), rng)
    state["loading"] = {"ship": move["ship"], "cards": [], "wilds": 0}
    state["phase"] = "load"
    return [fact(f"{who(seat)} starts loading the {SHIPS[move['ship']]['name']}.", seat=seat,
                 ship=move["ship"])]


def _display(state: State, seat: int, cards: list[str], rng: Rng) -> list[Fact]:
    player = state["seats"][seat]
    for card in cards:
        play_from_hand(state, seat, card)
        player["display"][card] += 1
    facts = [fact(f"{who(seat)} plays {' and '.join(cards)} to the display.", seat=seat,
                  cards=cards)]
    return facts + draw_to_hand(state, seat, len(cards), rng, "seaport: refill")


# --- the discard after drawing 2 -----------------------------------------------------------


def discard_moves(state: State, seat: int) -> list[Move]:
    return [{"id": f"discard:{c}:{pile}", "label": f"Discard {c} to the {pile} pile",
             "card": c, "pile": pile}
            for c in in_hand(state["seats"][seat]) for pile in PILES]


def discard(state: State, seat: int, move: Move) -> list[Fact]:
    play_from_hand(state, seat, move["card"])
    state["piles"][PILES.index(move["pile"])].append(move["card"])
    state["phase"] = "action"
    return [fact(f"{who(seat)} discards {move['card']} to the {move['pile']} pile.", seat=seat,
                 card=move["card"], pile=move["pile"])]


# --- loading a ship ------------------------------------------------------------------------


def _levels(ship: str) -> list[int]:
    return [int(level["count"]) for level in SHIPS[ship]["levels"]]


def _more(player: Player, ship: str, cards: list[str], wild: int) -> int:
    """How many more units the hand (and `wild` wildcards) could still add to `cards`."""
    combination = SHIPS[ship]["combination"]
    hand = player["hand"]
    real = [c.split("+")[0] for c in cards if c != WILD]
    if combination == "identical":
        if real:
            return hand[real[0]] + wild
        best = max((hand[c] for c in COMMODITIES), default=0)
        return best + wild if best else 0
    if combination == "different":
        fresh = sum(1 for c in COMMODITIES if hand[c] and c not in real)
        return fresh + wild if fresh or real else 0
    twos = sum(1 for c in COMMODITIES if hand[c] >= 2 and c not in real)
    ones = sum(1 for c in COMMODITIES if hand[c] == 1 and c not in real)
    return twos + min(wild, ones)


def _reachable(player: Player, ship: str, cards: list[str], wild: int) -> bool:
    levels = _levels(ship)
    return len(cards) < levels[-1] and len(cards) + _more(player, ship, cards, wild) >= levels[0]


def _units(player: Player, ship: str, cards: list[str], wild: int) -> list[tuple[str, int, str]]:
    """(unit, wildcards it takes, label) of every unit that could be loaded next."""
    combination = SHIPS[ship]["combination"]
    hand = player["hand"]
    real = [c.split("+")[0] for c in cards if c != WILD]
    out: list[tuple[str, int, str]] = []
    if combination == "pairs":
        for c in COMMODITIES:
            if c in real:
                continue
            if hand[c] >= 2:
                out.append((c, 0, f"Load a pair of {c}"))
            if hand[c] >= 1 and wild:
                out.append((f"{c}+{WILD}", 1, f"Load {c} and a commodity wildcard as a pair"))
        return out
    for c in COMMODITIES:
        if hand[c] and (c not in real if combination == "different" else not real or c == real[0]):
            out.append((c, 0, f"Load {c}"))
    if wild and cards:  # a wildcard stands for one card, never the first (README decision 11)
        out.append((WILD, 1, "Load a commodity wildcard"))
    return out


def load_moves(state: State, seat: int) -> list[Move]:
    player, loading = state["seats"][seat], state["loading"]
    ship, cards = loading["ship"], loading["cards"]
    wild = len(wilds(player)) - loading["wilds"]
    moves: list[Move] = []
    for unit, takes, label in _units(player, ship, cards, wild):
        after = _after(player, ship, unit)
        if _reachable(after, ship, [*cards, unit], wild - takes) or \
                len(cards) + 1 in _levels(ship):
            moves.append({"id": f"load:{unit}", "label": label, "unit": unit})
    if len(cards) in _levels(ship):
        points = _points(state, ship, len(cards))
        moves.append({"id": "ship:done", "label": f"Ship these goods for {points} points",
                      "points": points})
    return moves


def _cards_of(ship: str, unit: str) -> tuple[str | None, int]:
    """The commodity a unit takes from the hand, and how many cards of it."""
    card = unit.split("+")[0]
    if card == WILD:
        return None, 0
    pair = SHIPS[ship]["combination"] == "pairs" and "+" not in unit
    return card, 2 if pair else 1


def _after(player: Player, ship: str, unit: str) -> Player:
    """The player as it would be after loading `unit` (for the reachability test)."""
    card, n = _cards_of(ship, unit)
    if card is None:
        return player
    return {**player, "hand": {**player["hand"], card: player["hand"][card] - n}}


def _points(state: State, ship: str, count: int) -> int:
    side = state["ships"][ship]
    return next(int(level[side]) for level in SHIPS[ship]["levels"] if level["count"] == count)


def load(state: State, seat: int, move: Move) -> list[Fact]:
    player, loading = state["seats"][seat], state["loading"]
    unit = move["unit"]
    card, n = _cards_of(loading["ship"], unit)
    if card is not None:
        play_from_hand(state, seat, card, n)
        player["display"][card] += n
    if WILD in unit:
        loading["wilds"] += 1
    loading["cards"].append(unit)
    return [fact(f"{who(seat)} loads {unit.replace('+', ' and a ')}.", seat=seat, unit=unit)]


def ship_done(state: State, seat: int) -> list[Fact]:
    player, loading = state["seats"][seat], state["loading"]
    ship = loading["ship"]
    for tile in wilds(player)[: loading["wilds"]]:  # the wildcards used leave the game
        player["tiles"].remove(tile)
        state["gone"].append(tile)
    points = _points(state, ship, len(loading["cards"]))
    facts = [score_points(state, seat, points, "ship", f"goods shipped on the "
                          f"{SHIPS[ship]['name']}")]
    if state["ships"][ship] == "front":
        state["ships"][ship] = "back"
        facts.append(fact(f"The {SHIPS[ship]['name']} turns to its gray side.", ship=ship))
    state["loading"] = None
    state["phase"] = "action"
    return facts
