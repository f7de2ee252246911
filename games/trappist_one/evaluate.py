"""A cheap evaluation for the bots' search (issue 17): each seat's expected final standing.

`evaluate(state)` gives one value per seat in [0, 1]: 1 if the seat will surely win, 0 if it
will surely be last; it is the share of the other seats the seat is expected to finish ahead
of (a tie counts half). Over, it is exact: it follows the score sheet's ranks (stargold
breaking ties, as `score` does).

Before that, each seat's final total is projected from the rules' own scoring (`breakdowns`,
base or expert: planets controlled, satellites, stations, cargo ships, the scrapyard, and the
majorities as they stand now, stargold breaking their ties) plus what is still to come in the
seat's own turns left:
- stargold, while the seat still has a buying phase to spend it in (investment cards cost
  1 to 2 stargold per dominion point), counting a shipment under way at what it has
  produced and can still produce (paid only at its end), and the stargold its turns will
  still bring: Lux,
  `benefit_stargold` cards, and a shipment's production (one stargold per factory produced
  with, up to the loading capacity);
- the planet it is completing: that planet's dominion points times the chance of building
  the factories it lacks, one a construction turn; and the planets after it, three factories
  each, at the mean dominion points of the planets still unbuilt.
The turns left come from the end triggers: the four Biocultist ship stacks (about SHIP_RATE
calls a turn) and the investment deck (about BUY_RATE cards bought a turn), whichever runs
out first; once a trigger fired, only the rest of the round (the seats after the active one).

The projected totals become standings under a normal noise model: seat a finishes ahead of
seat b with probability Phi((a - b) / (s * sqrt 2)), where the spread s grows with the square
root of the points still to come. The weights and rates below were fitted to random play
(the search's playouts).
"""

from __future__ import annotations

from typing import Any

from games.contract import State
from games.standings import at_least, count_spread, final_standing, projected_standing
from games.trappist_one.board import (
    CAPITAL,
    PER_PLANET,
    PLANET_VP,
    PLANETS,
    SETUP,
    SHIPS,
    abilities,
    capacity_bonus,
    controls,
    factories_of,
    factory_total,
)
from games.trappist_one.scoring import breakdowns, score

# The final totals' uncertainty: SPREAD * sqrt(the mean of the points still to come) points,
# plus FLOOR (one standard deviation).
SPREAD = 1.0
SPREAD_FLOOR = 0.5
# Dominion points a stargold is worth while it can still be spent: investment cards cost 1 to
# 2 stargold per dominion point; fitted to random play, which spends it less well.
GOLD_VALUE = 0.4
# Per turn: Biocultist ships called, investment cards bought, factories built.
SHIP_RATE = 0.4
BUY_RATE = 0.45
BUILD_RATE = 0.5
# The share of turns that are shipments, each producing up to the loading capacity.
SHIPMENT_SHARE = 0.4
# Stargold breaks every tie: a little of it counts when nothing else differs.
TIE = 0.01

MEAN_CAPACITY = sum(int(s["capacity"]) for s in SHIPS.values()) / len(SHIPS)
OTHER_PLANETS = [p for p in PLANETS if p != CAPITAL]


def evaluate(state: State) -> list[float]:
    if state["phase"] == "over":
        return final_standing(score(state))
    now, later = forecast(state)
    return projected_standing(now, later, spread(later))


def spread(later: list[float]) -> float:
    """The final totals' uncertainty (one standard deviation): it grows with the points still
    to come, as the variance of a count grows with its mean."""
    return count_spread(sum(later) / len(later), SPREAD, SPREAD_FLOOR)


# --- how much of the game is left ------------------------------------------------------------


def rounds_left(state: State) -> float:
    """Whole rounds still to play after this one: none once an end trigger fired; otherwise
    until the ship stacks or the investment deck run out, whichever comes first."""
    if state["ending"] is not None:
        return 0.0
    players = int(state["players"])
    ships = sum(len(stack) for stack in state["earth"].values())
    deck = len(state["investment_deck"])
    return min(ships / (players * SHIP_RATE), deck / (players * BUY_RATE))


def own_turns_left(state: State) -> list[float]:
    """Each seat's turns to come, counting the rest of this round (the active seat's turn,
    under way, as half; the starting choice as a whole turn for every seat)."""
    rounds = rounds_left(state)
    if state["phase"] == "choose":
        return [rounds + 1.0] * int(state["players"])
    active = int(state["active"])
    return [rounds + (1.0 if seat > active else 0.5 if seat == active else 0.0)
            for seat in range(int(state["players"]))]


def share_left(state: State) -> float:
    """The share of the game's rounds still to play."""
    players = str(state["players"])
    ships = 4 * int(SETUP["ships_per_clan"][players])
    full = min(ships / (int(players) * SHIP_RATE),
               int(SETUP["investment_deck"][players]) / (int(players) * BUY_RATE)) + 1.0
    return min(1.0, (rounds_left(state) + 0.5) / full)


# --- the projection ---------------------------------------------------------------------------


def forecast(state: State) -> tuple[list[float], list[float]]:
    """Each seat's points now (the rules' `breakdowns`) and its expected points to come."""
    now = [float(sum(sheet.values())) for sheet in breakdowns(state)]
    turns = own_turns_left(state)
    later = []
    for seat, player in enumerate(state["seats"]):
        own = turns[seat]
        gold = int(player["stargold"]) + _shipment_gold(state, seat)
        points = TIE * gold
        if own >= 1.0 or (own > 0.0 and state["phase"] in ("benefit", "buying")):
            points += GOLD_VALUE * gold  # still a buying phase to spend it in
        income = 1.0 if controls(player, "lux") else 0.0
        income += sum(int(a.get("benefit_stargold", 0)) for _, a in abilities(player))
        load = MEAN_CAPACITY + capacity_bonus(player)
        income += SHIPMENT_SHARE * min(load, float(factory_total(player)))
        points += GOLD_VALUE * income * max(0.0, own - 1.0)  # the last turn's gold stays
        points += _planets(player, own)
        later.append(points)
    return now, later


def _shipment_gold(state: State, seat: int) -> int:
    """The stargold of the seat's shipment under way, paid at its end: what it has produced
    and what its hand and factories can still produce up to the loading capacity. Without
    it, a shipment's value showed only at its last move, so a search that sees a few moves
    ahead found calling a ship worth little, and greedy often ended a shipment at once."""
    ship = state["shipment"]
    if ship is None or seat != int(state["active"]):
        return 0
    player, produced = state["seats"][seat], ship["produced"]
    done = sum(produced.values())
    more = sum(min(int(player["hand"][r]), factories_of(player, r) - produced[r])
               for r in produced)
    return done + max(0, min(int(ship["capacity"]) - done, more))


def _planets(player: dict[str, Any], own: float) -> float:
    """The dominion points of the planets the seat's construction turns will still control."""
    planets: dict[str, list[str]] = player["planets"]
    builds = own * BUILD_RATE
    points = 0.0
    unbuilt = [p for p in OTHER_PLANETS if not planets[p]]
    for planet in OTHER_PLANETS:
        built = len(planets[planet])
        if 0 < built < PER_PLANET:  # the one incomplete planet (placement rules)
            missing = PER_PLANET - built
            points += PLANET_VP[planet] * at_least(missing, builds)
            builds = max(0.0, builds - missing)
    if unbuilt:
        mean_vp = sum(PLANET_VP[p] for p in unbuilt) / len(unbuilt)
        points += mean_vp * min(float(len(unbuilt)), builds / PER_PLANET)
    return points


def projected(state: State) -> list[float]:
    """Each seat's projected final total."""
    now, later = forecast(state)
    return [a + b for a, b in zip(now, later, strict=True)]
