"""A cheap evaluation for the bots' search (issue 17): each seat's expected final standing.

`evaluate(state)` gives one value per seat in [0, 1]: 1 if the seat will surely win, 0 if it
will surely be last; it is the share of the other seats the seat is expected to finish ahead
of (a tie counts half). Over, it is exact: it follows the score sheet's ranks (ties broken by
Trobil points, then Trobil cards, as `score` breaks them).

Before that, each seat's final total is projected (`forecast`): the points of the Trobils it
has captured (face up and face down) plus what is still to come:
- the Trobils on display that its resources pay for (`claim`). They take their cost one after
  the other, the most points first, each as far as what is left covers it (`covers`): a
  Trobil is paid in Carrots, Slugs, Traps and MegaTraps, what a seat is short of may be made
  of raw resources at a location (Crystals buy Slugs at the Moon, Credits Traps at the
  Merchant, Ore and a Trap make a MegaTrap at the MegaFactory; one made counts MADE of one
  held: it takes a visit), and how far the cost is covered is the harmonic mean, weighted by
  each kind's share of the cost, of the share of each kind the seat has. So a capture is
  limited by the scarcest kind: a Trap is worth much to a seat without one, 2,000 Carrots
  without a Trap pay for nothing, and what one Trobil does not need goes to the next. The
  points paid for are a CLAIM, worth less than a capture (it takes a visit to Paradise, and
  another seat may get there first), all claims together at most the points on display;
- the Trobils nobody's resources pay for yet (the rest of the display, and those still to
  come out of the deck: all but the few left under the last City): shared out by what each
  seat gathers a turn, by its ships in play (a seat with k ships places k times for each
  take-back turn) and its Connections (which add to every visit of their location);
- the City bonuses: of the resources no claimed Trobil needs, each City pays its bonus (one
  point for every `per`), surely for a City on display, with the chance (Cities still to
  come) / (Cities not on display) for the others; but a pile of one resource counts at most
  HOARD of it (`kept_bonus`), so hoarding has ever less value and never beats capturing; and
  so for the share KEPT of what the seat will gather in the turns to come, which follow from
  the Trobils still to capture and the pace of captures so far.

A seat in the middle of a visit that asks it to choose (Paradise, the MegaFactory, the Moon,
the Merchant, a Bounty Hunter) is valued as if it had made its best choice: the Trobil worth
most points it can pay for (`settled`), the exchange that leaves its resources worth most
(`choose_best`). Without that a one-move lookahead (the `greedy` bot) sees no gain in going
there, only in the locations that give resources on arrival, and gathers for ever. When that
capture would end the game (the last Trobil, only Cities left to come), the seat knows the
final score instead of a projection (`ended_by_capture`): it takes the Trobil if it does as
well by ending the game as by passing, and passes otherwise. Valued by the projection, such a
state had a seat that would win by ending the game never go to Paradise (the projection
counts a hoard for less than the Cities pay for it at the end), while the seat behind went
there and passed, turn after turn: a greedy game ran past 50,000 moves.

The projected totals become standings under a normal noise model: seat a finishes ahead of
seat b with probability Phi((a - b) / (s * sqrt 2)), where the spread s grows with the square
root of the points still to come (all but the captured Trobils'), so the values sharpen as the
game goes on. The constants below are set by hand, on bench/ai.py tournaments: greedy bots
finish their games at every player count, and beat random play.
"""

from __future__ import annotations

from functools import cache, lru_cache
from math import exp
from typing import NamedTuple

from games.asking_for_trobils.board import (
    Player,
    can_pay,
    connection_count,
    copy_state,
    ship_total,
)
from games.asking_for_trobils.cards import (
    CITIES,
    LOCATIONS,
    RESOURCES,
    RIFFRAFF,
    cost,
    is_city,
    points,
)
from games.asking_for_trobils.locations import play_capture
from games.asking_for_trobils.scoring import score, trobil_points
from games.asking_for_trobils.turn import PASS
from games.asking_for_trobils.view import cities_to_come
from games.contract import State
from games.rng import Rng
from games.standings import count_spread, final_standing, projected_standing

# The final totals' uncertainty: SPREAD * sqrt(the mean of the points still to come) points,
# plus FLOOR (one standard deviation).
SPREAD = 1.5
SPREAD_FLOOR = 1.0
# What a Trobil is paid in, and what one of each weighs in its cost (a MegaTrap is 2 Ore and a
# Trap, and a visit to the MegaFactory).
UNITS = {"space_carrot": 1.0, "space_slug": 1.0, "trap": 1.0, "megatrap": 3.0}
# What a kind a seat is short of is made of (one of it), at the Moon, the Merchant and the
# MegaFactory; one that could be made counts MADE of one held.
MADE_OF = {"space_slug": {"crystal": 1.0}, "trap": {"credit": 1.0},
           "megatrap": {"ore": 2.0, "trap": 1.0}}
MADE = 0.5
# Added to the share of each kind a seat has, and taken off the mean again: a kind it has none
# of makes the rest worth little, not nothing.
SOFT = 0.1
# What a point of Trobils on display that a seat's resources pay for is worth to it.
CLAIM = 0.6
# A pile of one resource counts for City bonuses as HOARD * (1 - exp(-pile / HOARD)) of it.
HOARD = 10.0
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
    ended = ended_by_capture(state)
    if ended is not None:
        at_end, passing = final_standing(score(ended)), _projected(_passed(state))
        seat = int(state["active"])
        return at_end if at_end[seat] >= passing[seat] else passing
    return _projected(state)


def _projected(state: State) -> list[float]:
    now, later = forecast(state)
    return projected_standing(now, later, spread(later))


def ended_by_capture(state: State) -> State | None:
    """The state once the seat at Paradise has taken the Trobil `settled` assumes it takes,
    if that ends the game ("Once all cards are City Cards, the game immediately ends."); else
    None. The card that replaces it is the deck's next, as the rules draw it."""
    if state["phase"] != "capture":
        return None
    _, display = settled(state)
    taken = [card for card in state["display"] if card not in display]
    if not taken or any(not is_city(card) for card in display):
        return None  # nothing it can pay for, or another Trobil stays on display
    ended = copy_state(state)  # the rules say whether the card drawn in its place ends it
    play_capture(ended, int(state["active"]), {"kind": "trobil", "card": taken[0]}, _NO_DRAW)
    return ended if ended["phase"] == "over" else None


def _passed(state: State) -> State:
    after = copy_state(state)
    play_capture(after, int(after["active"]), PASS, _NO_DRAW)
    return after


_NO_DRAW = Rng(b"a capture draws nothing at random", 0)  # the deck's order is in the state


def spread(later: list[float]) -> float:
    """The final totals' uncertainty (one standard deviation): it grows with the points still
    to come, as the variance of a count grows with its mean."""
    return count_spread(sum(later) / len(later), SPREAD, SPREAD_FLOOR)


# --- how much of the game is left ------------------------------------------------------------


def captures_left(state: State, display: list[str]) -> float:
    """Trobils still to be captured before every card on display is a City: those on display
    and in the deck, but for the ones expected under the last City (of k Cities and k
    Trobils shuffled together, k / (k + 1) Trobils lie under the last City)."""
    to_come = cities_to_come(state)
    shown = sum(1 for card in display if not is_city(card))
    in_deck = len(state["deck"]) - to_come
    under_last = to_come / (to_come + 1)
    return max(0.0, shown + in_deck - under_last)


def own_turns_left(state: State, players: list[Player], left: float) -> float:
    """Each seat's turns to come: the captures left at the pace of captures so far."""
    captured = sum(len(p["trobils"]) + len(p["flipped"]) for p in players)
    pace = (int(state["turn"]) + PRIOR_TURNS) / (captured + PRIOR_CAPTURES)
    return left * pace / int(state["players"])


# --- what is still to be won ------------------------------------------------------------------


class Outlook(NamedTuple):
    """What every seat's resources are measured against."""

    pool: float  # the points of the Trobils still to capture
    trobils: tuple[str, ...]  # those on display, the most points first
    shown: float  # their points
    per_unit: tuple[float, ...]  # the bonus one of each resource (RESOURCES) is expected to pay
    per_connection: float  # and one Connection


def outlook(state: State, display: list[str], left: float) -> Outlook:
    trobils = tuple(sorted((card for card in display if not is_city(card)), key=points,
                           reverse=True))
    shown = float(sum(points(card) for card in trobils))
    pool = shown
    deck_trobils = [card for card in state["deck"] if not is_city(card)]
    if deck_trobils:  # those in the deck by the share of them that will come out
        from_deck = max(0.0, left - len(trobils)) / len(deck_trobils)
        pool += from_deck * sum(points(card) for card in deck_trobils)
    # Each City's bonus: sure for those on display, by chance for those not yet revealed.
    revealed = set(display)
    hidden = sum(1 for city in CITIES if city not in revealed)
    chance = cities_to_come(state) / hidden if hidden else 0.0
    per_unit = dict.fromkeys(RESOURCES, 0.0)
    per_connection = 0.0
    for city, spec in CITIES.items():
        odds = (1.0 if city in revealed else chance) / int(spec["per"])
        if spec["bonus"] == "per_resource":
            per_unit[spec["resource"]] += odds
        else:
            per_connection += odds
    return Outlook(pool, trobils, shown, tuple(per_unit.values()), per_connection)


# --- what a seat's resources pay for ----------------------------------------------------------

Held = tuple[float, ...]  # of each resource, in RESOURCES order
Price = tuple[tuple[str, int, float, tuple[tuple[str, float], ...]], ...]


def held(res: dict[str, int]) -> Held:
    return tuple(float(res[resource]) for resource in RESOURCES)


@lru_cache(maxsize=1 << 14)  # the search values many states in which most seats hold the same
def claim(trobils: tuple[str, ...], res: Held) -> tuple[float, Held]:
    """The points of `trobils` that `res` pays for, and what is left of `res`: the Trobils
    take their cost one after the other, each as far as what is left covers it (`covers`)."""
    left = dict(zip(RESOURCES, res, strict=True))
    paid = sum(points(card) * covers(price(card), left) for card in trobils)
    return paid, tuple(left.values())


@cache
def price(card: str) -> Price:
    """A Trobil's cost, kind by kind in UNITS order (a MegaTrap's Trap after the Trobil's own):
    how many, the kind's share of the cost in UNITS, and what one is made of."""
    amount = cost(card)
    whole = sum(n * UNITS[kind] for kind, n in amount.items())
    return tuple((kind, amount[kind], amount[kind] * UNITS[kind] / whole,
                  tuple(MADE_OF.get(kind, {}).items()))
                 for kind in UNITS if amount.get(kind))


def covers(amount: Price, left: dict[str, float]) -> float:
    """How far `left` covers a Trobil's cost, in [0, 1], taking what it uses out of `left`: the
    harmonic mean, weighted by each kind's share of the cost, of the share of each kind it
    gets (plus SOFT, taken off again after the mean). What is short of a kind is made of raw
    resources as far as they go (MADE_OF), each one made counting MADE of one held."""
    inverse = 0.0
    for kind, n, weight, recipe in amount:
        have = left[kind]
        if have >= n:
            left[kind] = have - n
            inverse += weight / (1.0 + SOFT)
            continue
        left[kind] = 0.0
        made = n - have
        for raw, per in recipe:
            made = min(made, left[raw] / per)
        made = max(0.0, made)
        for raw, per in recipe:
            left[raw] -= made * per
        inverse += weight / ((have + MADE * made) / n + SOFT)
    return max(0.0, 1.0 / inverse - SOFT)


def kept_bonus(view: Outlook, left: Held) -> float:
    """The City points expected for the resources no claimed Trobil needs: a pile of one
    resource counts as HOARD * (1 - exp(-pile / HOARD)) of it (nearly all of a few, at most
    HOARD)."""
    return sum(bonus * HOARD * (1.0 - exp(-n / HOARD))
               for bonus, n in zip(view.per_unit, left, strict=True) if n > 0.0)


def worth(view: Outlook, res: dict[str, int]) -> float:
    """What a seat's resources are worth to it: its CLAIM on the Trobils on display they pay
    for, and the City bonuses of the rest."""
    paid, left = claim(view.trobils, held(res))
    return CLAIM * paid + kept_bonus(view, left)


# --- a choice in the middle of a visit ------------------------------------------------------


def settled(state: State) -> tuple[list[Player], list[str]]:
    """The seats' areas and the cards on display once the seat at Paradise, if one is, has
    taken the Trobil worth most points it can pay for (it leaves the display; the card that
    replaces it is one of those counted in the deck)."""
    players, display = list(state["seats"]), list(state["display"])
    if state["phase"] != "capture":
        return players, display
    seat = int(state["active"])
    player = players[seat]
    payable = [card for card in display if not is_city(card) and can_pay(player, cost(card))]
    if payable:
        card = max(payable, key=points)
        players[seat] = {**player, "res": _exchanged(player["res"], cost(card), {}),
                         "trobils": [*player["trobils"], card]}
        display.remove(card)
    return players, display


def options(state: State) -> list[tuple[dict[str, int], dict[str, int]]]:
    """The (pay, gain) exchanges the active seat chooses among now (at the MegaFactory, the
    Moon, the Merchant, or with a Bounty Hunter; passing pays and gains nothing), or none."""
    phase = state["phase"]
    if phase == "choose":
        spec = LOCATIONS[state["visit"]["loc"]]
        offers = [(dict(o["pay"]), dict(o["gain"])) for o in spec["options"]]
        return offers + [({}, {})] if spec["optional"] else offers
    if phase == "exchange":
        card = RIFFRAFF[state["visit"]["card"]]
        return [(dict(card["pay"]), dict(card["gain"])), ({}, {})]
    return []


def choose_best(state: State, view: Outlook, players: list[Player]) -> list[Player]:
    """`players` once the active seat has made the exchange it is choosing, if it is: of those
    it can pay for, the one that leaves its resources `worth` most."""
    seat = int(state["active"])
    player = players[seat]
    choices = [_exchanged(player["res"], pay, gain) for pay, gain in options(state)
               if can_pay(player, pay)]
    if not choices:
        return players
    best = max(choices, key=lambda res: worth(view, res))
    return [{**p, "res": best} if s == seat else p for s, p in enumerate(players)]


def _exchanged(res: dict[str, int], pay: dict[str, int], gain: dict[str, int]
               ) -> dict[str, int]:
    after = dict(res)
    for kind, n in pay.items():
        after[kind] -= n
    for kind, n in gain.items():
        after[kind] += n
    return after


# --- the projection ---------------------------------------------------------------------------


def forecast(state: State) -> tuple[list[float], list[float]]:
    """Each seat's points from the Trobils it has captured, and its expected points to come."""
    players, display = settled(state)
    count = int(state["players"])
    left = captures_left(state, display)
    view = outlook(state, display, left)
    players = choose_best(state, view, players)
    # What each seat gathers a turn: by its ships in play and its Connections.
    ships = ship_total(count)
    connections = [connection_count(player) for player in players]
    rates = []
    for player, owned in zip(players, connections, strict=True):
        in_play = ships - int(player["wormhole"])
        rates.append(in_play / (in_play + 1) * (BASE_YIELD + CONNECTION_YIELD * owned))
    turns = own_turns_left(state, players, left)
    unit_value = sum(view.per_unit) / len(view.per_unit)
    # The Trobils: the claims of each seat's resources, the rest by what each gathers.
    paid = [claim(view.trobils, held(player["res"])) for player in players]
    claims = [CLAIM * points_paid for points_paid, _ in paid]
    if sum(claims) > view.shown:
        claims = [c * view.shown / sum(claims) for c in claims]
    rest = view.pool - sum(claims)
    now = [float(trobil_points(player)) for player in players]
    later = []
    for seat in range(count):
        trobils = claims[seat] + rest * rates[seat] / sum(rates)
        cities = (kept_bonus(view, paid[seat][1]) + view.per_connection * connections[seat]
                  + KEPT * turns * rates[seat] * unit_value)
        later.append(trobils + cities)
    return now, later
