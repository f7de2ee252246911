"""Final scoring: Trobil points plus every revealed City's bonus; ties by Trobil points, then
Trobil cards; players still tied share the rank (from rules version 3 on, also one list in the
`ranking`: board.ties_as_lists)."""

from __future__ import annotations

from typing import Any

from games.asking_for_trobils.board import Player, State, connection_count, ties_as_lists, who
from games.asking_for_trobils.cards import CITIES, is_city, points
from games.contract import Fact, fact
from games.standings import rank_tied_together


def all_trobils(player: Player) -> list[str]:
    return [*player["trobils"], *player["flipped"]]


def trobil_points(player: Player) -> int:
    """"Even if you turn the card over by throwing the Trobil into the O-Renj Star, you still
    retain these points." """
    return sum(points(t) for t in all_trobils(player))


def city_bonus(player: Player, city: str) -> int:
    spec = CITIES[city]
    if spec["bonus"] == "per_connection":
        held = connection_count(player)
    else:
        held = int(player["res"][spec["resource"]])
    return held // int(spec["per"])


def revealed_cities(state: State) -> list[str]:
    """The Cities on display, in data order (the bonuses of the final scoring)."""
    shown = set(state["display"])
    return [city for city in CITIES if city in shown]


def breakdown(state: State, seat: int) -> dict[str, int]:
    player = state["seats"][seat]
    parts = {"trobils": trobil_points(player)}
    for city in revealed_cities(state):
        parts[city] = city_bonus(player, city)
    return parts


def score(state: State) -> dict[str, Any]:
    sheets = []
    for seat, player in enumerate(state["seats"]):
        parts = breakdown(state, seat)
        tiebreak = [parts["trobils"], len(all_trobils(player))]
        sheets.append({"seat": seat, "total": sum(parts.values()), "breakdown": parts,
                       "tiebreak": tiebreak})
    if ties_as_lists(state):  # rules version 3: seats sharing a rank are one list
        return {"seats": sheets, "ranking": rank_tied_together(sheets)}
    keys = [(s["total"], s["tiebreak"]) for s in sheets]
    for sheet, key in zip(sheets, keys, strict=True):
        sheet["rank"] = 1 + sum(1 for other in keys if other > key)
    # rules versions 1 and 2: every seat once, tied seats in seat order (kept as recorded)
    ranking = [s["seat"] for s in sorted(sheets, key=lambda s: (s["rank"], s["seat"]))]
    return {"seats": sheets, "ranking": ranking}


def all_cities_shown(state: State) -> bool:
    """"Once all cards are City Cards, the game immediately ends." """
    return all(is_city(card) for card in state["display"])


def finish_game(state: State) -> list[Fact]:
    state["phase"] = "over"
    state["visit"] = None
    sheet = score(state)
    results = "; ".join(f"{who(s['seat'])}: {s['total']}" for s in sheet["seats"])
    return [fact(f"Every card on display is a City: the game ends. Scores: {results}.",
                 score=sheet)]
