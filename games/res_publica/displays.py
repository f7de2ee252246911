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

Group = tuple[str, Hand]  # (id suffix, cards)


def wild_for(card: str) -> str | None:
    """The wild card that may stand in for `card` (a Pilot for a race card), if any."""
    if has(card, "no_wild"):
        return None
    for wild in WILDS:
        if deck_of(wild) == deck_of(card) and category(card) != category(wild):
            return wild
    return None


def identical(hand: Hand, card: str, size: int) -> list[Group]:
    """Every way to show `size` identical `card`s, wilds filling in; one real card at least."""
    wild = wild_for(card)
    spare = hand.get(wild, 0) if wild else 0
    groups: list[Group] = []
    for used in range(min(spare, size - 1) + 1):
        if hand.get(card, 0) >= size - used:
            cards = {card: size - used}
            if used and wild:
                cards[wild] = used
            groups.append((card + (f":p{used}" if used else ""), cards))
    return groups


def _station(state: State, player: Player) -> list[Group]:
    size = DISPLAYS["station"]["identical"]
    races = [c for c in of_category("race") if not has(c, "no_station")]
    return [g for c in races for g in identical(player["hand"], c, size)]


def _city(state: State, player: Player) -> list[Group]:
    size = city_size(player, DISPLAYS["city"]["identical"])
    techs = [c for c in of_category("tech") if not has(c, "no_city")]
    return [g for c in techs for g in identical(player["hand"], c, size)]


def _keyword_group(keyword: str, display: str) -> Callable[[State, Player], list[Group]]:
    def groups(state: State, player: Player) -> list[Group]:
        size = DISPLAYS[display]["identical"]
        return [g for c in with_keyword(keyword) for g in identical(player["hand"], c, size)]

    return groups


def _colony(state: State, player: Player) -> list[Group]:
    rule, hand = DISPLAYS["colony"], player["hand"]
    races = [g for c in of_category("race") for g in identical(hand, c, rule["race"])]
    techs = [g for c in of_category("tech") for g in identical(hand, c, rule["tech"])]
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
