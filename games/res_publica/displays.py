"""Displaying groups of cards from the hand for a Score card, a Location or the mission.

Each kind of display (keys of "displays" in cards.json) has one generator listing the
groups the hand can make now; a group is a small hand {card: count}. Displayed cards go
to their deck's discard pile and the display gains what the data file names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations

from games.contract import Fact, Move, fact
from games.res_publica.board import Player, State, city_size, flip_missions, gain, who
from games.res_publica.cards import (
    CARD_IDS,
    DISPLAYS,
    Hand,
    category,
    deck_of,
    has,
    listing,
    of_category,
    remove,
    with_keyword,
)

WILDS = with_keyword("wild")
MISSION_TECH = [c for c in of_category("tech") if not has(c, "no_mission")]
RACES, TECHS = of_category("race"), of_category("tech")
STATION_RACES = [c for c in RACES if not has(c, "no_station")]
CITY_TECHS = [c for c in TECHS if not has(c, "no_city")]

Group = tuple[str, Hand]  # (id suffix, cards)


def wild_for(card: str) -> str | None:
    """The wild card that may stand in for `card` (a Pilot for a race card), if any."""
    if has(card, "no_wild"):
        return None
    for wild in WILDS:
        if deck_of(wild) == deck_of(card) and category(card) != category(wild):
            return wild
    return None


WILD_FOR: dict[str, str | None] = {c: wild_for(c) for c in CARD_IDS}


def identical(hand: Hand, card: str, size: int) -> list[Group]:
    """Every way to show `size` identical `card`s, wilds filling in; one real card at least."""
    have = hand.get(card, 0)
    wild = WILD_FOR[card]
    spare = hand.get(wild, 0) if wild else 0
    if not have or have + spare < size:
        return []
    groups: list[Group] = []
    for used in range(min(spare, size - 1) + 1):
        if have >= size - used:
            cards = {card: size - used}
            if used and wild:
                cards[wild] = used
            groups.append((card + (f":p{used}" if used else ""), cards))
    return groups


def all_identical(hand: Hand, cards: list[str], size: int) -> list[Group]:
    """`identical` for each of `cards` in turn (skipping the ones not in hand, quickly)."""
    return [g for c in cards if c in hand for g in identical(hand, c, size)]


def _station(state: State, player: Player) -> list[Group]:
    return all_identical(player["hand"], STATION_RACES, DISPLAYS["station"]["identical"])


def _city(state: State, player: Player) -> list[Group]:
    size = city_size(player, DISPLAYS["city"]["identical"])
    return all_identical(player["hand"], CITY_TECHS, size)


def _keyword_group(keyword: str, display: str) -> Callable[[State, Player], list[Group]]:
    cards = with_keyword(keyword)

    def groups(state: State, player: Player) -> list[Group]:
        return all_identical(player["hand"], cards, DISPLAYS[display]["identical"])

    return groups


def _colony(state: State, player: Player) -> list[Group]:
    rule, hand = DISPLAYS["colony"], player["hand"]
    races = all_identical(hand, RACES, rule["race"])
    techs = all_identical(hand, TECHS, rule["tech"]) if races else []
    groups = []
    for race_id, race_cards in races:
        for tech_id, tech_cards in techs:
            race, _, pilots = race_id.partition(":")
            suffix = f"{race}:{tech_id}" + (f":{pilots}" if pilots else "")
            groups.append((suffix, {**race_cards, **tech_cards}))
    return groups


def _mission(state: State, player: Player) -> list[Group]:
    if player["missions"]["tech5"]:
        return []
    size = DISPLAYS["mission"]["different"]
    held = [c for c in MISSION_TECH if player["hand"].get(c)]
    one_way = len(MISSION_TECH) == size
    return [
        ("tech5" if one_way else "+".join(combo), {c: 1 for c in combo})
        for combo in combinations(held, size)
    ]


GENERATORS: dict[str, Callable[[State, Player], list[Group]]] = {
    "station": _station,
    "city": _city,
    "resort": _keyword_group("resort", "resort"),
    "university": _keyword_group("university", "university"),
    "colony": _colony,
    "mission": _mission,
}


def supply_left(state: State, kind: str) -> bool:
    """An empty pile means that display can no longer be made."""
    what = DISPLAYS[kind]["gain"]
    if what in state["piles"]:
        return bool(state["piles"][what])
    if what in state["locations"]:
        return state["locations"][what] > 0
    return True


def display_moves(state: State, seat: int, kinds: Iterable[str] = GENERATORS) -> list[Move]:
    player = state["seats"][seat]
    moves = []
    for kind in kinds:
        if not supply_left(state, kind):
            continue
        for suffix, cards in GENERATORS[kind](state, player):
            label = f"Display {listing(cards)} for {DISPLAYS[kind]['name']}"
            moves.append(
                {"id": f"{kind}:{suffix}", "label": label, "kind": "display", "display": kind,
                 "cards": cards}
            )
    return moves


def apply_display(state: State, seat: int, move: Move) -> list[Fact]:
    hand = state["seats"][seat]["hand"]
    for card in CARD_IDS:
        n = move["cards"].get(card, 0)
        if n:
            remove(hand, card, n)
            pile = state["discards"][deck_of(card)]
            pile[card] = pile.get(card, 0) + n
    got = gain(state, seat, DISPLAYS[move["display"]]["gain"])
    text = f"{who(seat)} displays {listing(move['cards'])} and gains {got}."
    facts = [fact(text, seat=seat, display=move["display"], cards=move["cards"])]
    return facts + flip_missions(state, seat)
