"""A cheap evaluation for the bots' search (issue 17): each seat's expected final standing.

`evaluate(state)` gives one value per seat in [0, 1]: 1 if the seat will surely win, 0 if it
will surely be last; it is the share of the other seats the seat is expected to finish ahead
of (a tie counts half). Over, it is exact: it follows the score sheet's ranks (ties broken by
Trobil points, then Trobil cards, as `score` breaks them).

Before that, each seat's final total is projected from the rules' own scoring (`breakdown`:
its Trobils' points, face up and face down, plus the bonus of every City on display for the
resources and Connections it holds now) plus what is still to come:
- the Cities not yet revealed: each of those not on display is in the game with the chance
  (Cities still to come) / (Cities not on display), and would pay its bonus for what the seat
  holds now;
- the Trobils still to be captured (those on display and in the deck, all but the few left
  under the last City): their points, shared out in proportion to each seat's capture power,
  the resources it holds (weighted by what a Trobil costs: Carrots, Slugs, Traps one each, a
  MegaTrap three, the resources that buy them less) plus what it will gather in its turns to
  come (ships in play, since a seat with k ships places k times for each take-back turn, and
  its Connections, which add to every visit of their location);
- what the resources it will gather are worth in City bonuses (the share of them KEPT to the
  end, at the expected bonus per resource of the Cities shown and to come).
The turns to come follow from the Trobils still to capture and the pace of captures so far.

The projected totals become standings under a normal noise model: seat a finishes ahead of
seat b with probability Phi((a - b) / (s * sqrt 2)), where the spread s grows with the square
root of the points still to come, so the values sharpen as the Cities come out. The weights
and rates below were fitted to random play (the search's playouts).
"""

from __future__ import annotations

from games.asking_for_trobils.board import connection_count, ship_total
from games.asking_for_trobils.cards import CITIES, RESOURCES, is_city, points
from games.asking_for_trobils.scoring import breakdown, city_bonus, revealed_cities, score
from games.asking_for_trobils.view import cities_to_come
from games.contract import State
from games.standings import count_spread, final_standing, projected_standing

# The final totals' uncertainty: SPREAD * sqrt(the mean of the points still to come) points,
# plus FLOOR (one standard deviation).
SPREAD = 1.5
SPREAD_FLOOR = 1.0
# How much a unit of each resource does towards a Trobil (a Trobil costs Carrots, Slugs,
# Traps and MegaTraps; a MegaTrap is 2 Ore + 1 Trap at the MegaFactory; Crystals buy Slugs at
# the Moon, Credits Traps at the Merchant and Connections at the Station).
POWER = {"space_carrot": 1.0, "space_slug": 1.0, "trap": 1.0, "megatrap": 3.0, "ore": 0.5,
         "crystal": 0.5, "credit": 0.5}
# Resources gathered per ship placed: a location's own, and per Connection the seat owns.
BASE_YIELD = 1.5
CONNECTION_YIELD = 0.15
# The pace of captures before any is made: PRIOR_TURNS turns for PRIOR_CAPTURES captures.
PRIOR_TURNS = 400.0
PRIOR_CAPTURES = 10.0
# The share of resources gathered that is still held at the end (the rest buys Trobils).
KEPT = 0.25


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


def captures_left(state: State) -> float:
    """Trobils still to be captured before every card on display is a City: those on display
    and in the deck, but for the ones expected under the last City (of k Cities and k
    Trobils shuffled together, k / (k + 1) Trobils lie under the last City)."""
    to_come = cities_to_come(state)
    shown = sum(1 for card in state["display"] if not is_city(card))
    in_deck = len(state["deck"]) - to_come
    under_last = to_come / (to_come + 1)
    return max(0.0, shown + in_deck - under_last)


def share_left(state: State) -> float:
    """The share of the game's Trobils still to be captured."""
    captured = sum(len(p["trobils"]) + len(p["flipped"]) for p in state["seats"])
    left = captures_left(state)
    return left / (left + captured) if left + captured else 0.0


def own_turns_left(state: State) -> float:
    """Each seat's turns to come: the captures left at the pace of captures so far."""
    captured = sum(len(p["trobils"]) + len(p["flipped"]) for p in state["seats"])
    pace = (int(state["turn"]) + PRIOR_TURNS) / (captured + PRIOR_CAPTURES)
    return captures_left(state) * pace / int(state["players"])


# --- the projection ---------------------------------------------------------------------------


def forecast(state: State) -> tuple[list[float], list[float]]:
    """Each seat's points now (the rules' `breakdown`) and its expected points to come."""
    players = int(state["players"])
    seats = state["seats"]
    now = [float(sum(breakdown(state, seat).values())) for seat in range(players)]
    # The Cities still to come, and the bonus each resource is expected to pay at the end.
    shown = set(revealed_cities(state))
    hidden = [city for city in CITIES if city not in shown]
    chance = cities_to_come(state) / len(hidden) if hidden else 0.0
    per_unit = {r: 0.0 for r in RESOURCES}
    for city, spec in CITIES.items():
        if spec["bonus"] == "per_resource":
            per_unit[spec["resource"]] += (1.0 if city in shown else chance) / int(spec["per"])
    unit_value = sum(per_unit.values()) / len(per_unit)
    # The Trobils still to capture, and each seat's power to capture them.
    left = captures_left(state)
    shown_trobils = [card for card in state["display"] if not is_city(card)]
    deck_trobils = [card for card in state["deck"] if not is_city(card)]
    pool = float(sum(points(t) for t in shown_trobils))
    if deck_trobils:
        from_deck = max(0.0, left - len(shown_trobils)) / len(deck_trobils)
        pool += from_deck * sum(points(t) for t in deck_trobils)
    turns = own_turns_left(state)
    ships = ship_total(players)
    gathered = []
    power = []
    for player in seats:
        in_play = ships - int(player["wormhole"])
        placements = turns * in_play / (in_play + 1)
        gain = placements * (BASE_YIELD + CONNECTION_YIELD * connection_count(player))
        gathered.append(gain)
        power.append(sum(POWER[r] * n for r, n in player["res"].items()) + gain)
    total_power = sum(power)
    later = []
    for seat, player in enumerate(seats):
        share = power[seat] / total_power if total_power > 0 else 1.0 / players
        cities = chance * sum(city_bonus(player, city) for city in hidden)
        later.append(cities + share * pool + KEPT * gathered[seat] * unit_value)
    return now, later


def projected(state: State) -> list[float]:
    """Each seat's projected final total."""
    now, later = forecast(state)
    return [a + b for a, b in zip(now, later, strict=True)]
