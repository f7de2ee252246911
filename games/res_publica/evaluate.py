"""A cheap evaluation for the bots (issue 17): each seat's expected final standing. Greedy
chooses by it, and so does every seat in the search's playouts; at two players the search
values where its playouts end by `win_chance`, a model fitted to games on this projection's
parts.

`evaluate(state)` gives one value per seat in [0, 1]: 1 if the seat will surely win, 0 if it
will surely be last; it is the share of the other seats the seat is expected to finish ahead
of (a tie counts half). Over, it is exact: it follows the score sheet's ranks.

Before that, each seat's final total is projected from the rules' own scoring (`breakdown`:
Score cards, Resorts, missions, pairs and grey cards in hand, as if the game ended now) plus
what its hand and its draws may still become, as the rulebook scores them:
- a group of identical cards towards a display: five Race cards (Pilots wild) for a Space
  Station (3), five Technology cards (four with an active University) for a City (the top
  of the pile when it is ready, the pile's mean otherwise), three Aturians for a Resort (7);
  each worth its points times the chance of drawing the cards still missing, less the pair
  points its cards score in hand now;
- the missions still face down: two Stations (7) and two Cities (5) from the owned ones plus
  those groups, five different technologies (5), three trades (3).
Draws are counted per seat: one Race card per own turn while the Race deck lasts, one
Technology card per active Space Station (at most three cards a turn), so Stations are worth
their future draws too. The chance of drawing the m cards a group lacks is a Poisson tail
with the mean number of such cards among the seat's remaining draws (the deck's own mix).

The seat whose turn it is has its draw still to come, one more than the others (`pending`).

A trade in progress is valued by what it may still bring (`trade_prospects`), since its moves
change no points until the swap and a one-move lookahead would otherwise never start one:
- the proposer of a request: the cards it names for its cheapest other card, if an opponent
  who holds them (in the world evaluated) answers (ANSWERED each), or the best answer given;
- an opponent drafting an answer: its gain at the swap, if the proposer would gain too and
  accepts (ACCEPTED); a demand the proposer would lose by is worth nothing.
From rules version 4 on, an opponent who has begun drafting an answer must give one, so its
draft is valued as that answer for both traders (`bound_prospects`): taken if the proposer
gains by it, with its author's gain or loss; a draft the proposer would decline costs its
author a little (IDLE_ANSWER), so that a seat with no answer worth giving passes. (Valued as
in version 3, greedy began answers it would not have given and then had to give them: the
search won 0.960 of 100 games against it, where it wins some 0.6 otherwise.)
Gains are differences of `worth` (a hand's pairs now and its prospects). Offers are valued
only by the tenders they receive. With trading, greedy went from 27.5 % to 50 % of 5-player
games against 4 random players (bench/README.md).

The projected totals become standings under a normal noise model: seat a finishes ahead of
seat b with probability Phi((a - b) / (s * sqrt 2)), where the spread s grows with the square
root of the points still to come (`spread`), so the values sharpen as the decks run down.
SPREAD and the rates below were fitted to random play (the search's playouts).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from math import exp
from typing import Any, NamedTuple

from games.contract import State
from games.res_publica.board import active_stations, city_size
from games.res_publica.cards import (
    CARD_IDS,
    DATA,
    DECK,
    DISPLAYS,
    MISSIONS,
    grey_points,
    pair_points,
    with_keyword,
)
from games.res_publica.displays import CITY_TECHS, MISSION_TECH, STATION_RACES, WILDS
from games.res_publica.rules import breakdown, score
from games.standings import at_least, count_spread, final_standing, projected_standing

# The final totals' uncertainty: SPREAD * sqrt(the mean of the points still to come) points,
# plus what the end may still change (one standard deviation; fitted to random play).
SPREAD = 2.5
SPREAD_FLOOR = 2.0
# Trades the seat makes on its own turns, per own turn (the "3 trades" mission).
TRADE_RATE = 0.15
# Technology cards drawn per turn, at the least, in the estimate of the turns left.
TECH_RATE = 1.0
# Own turns ahead over which the groups in hand are completed from the draws (the sets
# after that are counted per card drawn: CARD_VALUE).
HORIZON = 4.0
CARD_VALUE = 0.4

RESORTS = with_keyword("resort")
RACE_CARDS = [c for c in CARD_IDS if DECK[c] == "race"]
TECH_CARDS = [c for c in CARD_IDS if DECK[c] == "tech"]
START_HAND = int(DATA["setup"]["start_hand"])
STATION_SIZE = int(DISPLAYS["station"]["identical"])
CITY_SIZE = int(DISPLAYS["city"]["identical"])
RESORT_SIZE = int(DISPLAYS["resort"]["identical"])
DRAW_RACE = int(DATA["draw"]["race"])  # Race cards a turn, while the deck lasts
DRAW_MAX = int(DATA["draw"]["max"])  # cards a turn at most
TECH_PER_STATION = int(DATA["draw"]["tech_per_station"])
MISSION_POINTS = {m: int(spec["points"]) for m, spec in MISSIONS.items()}


def evaluate(state: State) -> list[float]:
    if state["phase"] == "over":
        return final_standing(score(state))
    now, later = forecast(state)
    return projected_standing(now, later, spread(state, later))


def spread(state: State, later: list[float]) -> float:
    """The final totals' uncertainty (one standard deviation): it grows with the points still
    to come (those the projection counts, and the Race cards every seat will draw alike), as
    the variance of a count grows with its mean."""
    race = 0.0 if state["phase"] == "reveal" else \
        min(len(state["decks"]["race"]), turns_left(state)) / int(state["players"])
    volume = sum(later) / len(later) + CARD_VALUE * race * DRAW_RACE
    return count_spread(volume, SPREAD, SPREAD_FLOOR)


# --- how much of the game is left ------------------------------------------------------------


def turns_left(state: State) -> float:
    """Turns (all seats together) until the Technology deck runs out: each turn draws a
    Technology card per active Space Station (at most 2 beside the Race card while the Race
    deck lasts, 3 after), at least TECH_RATE a turn on average (Stations are yet to come)."""
    race, tech = len(state["decks"]["race"]), len(state["decks"]["tech"])
    stations = [active_stations(p) for p in state["seats"]]
    beside = DRAW_MAX - DRAW_RACE
    with_race = max(sum(min(s, beside) for s in stations) / len(stations), TECH_RATE)
    alone = max(sum(min(s, DRAW_MAX) for s in stations) / len(stations), TECH_RATE)
    return min(tech / with_race, race + max(0.0, tech - race * with_race) / alone)


@cache
def _turns_at_start(players: int) -> float:
    race = sum(int(spec["count"]) for c, spec in DATA["cards"].items() if DECK[c] == "race")
    tech = sum(int(spec["count"]) for c, spec in DATA["cards"].items() if DECK[c] == "tech")
    race -= START_HAND * players
    return min(tech / TECH_RATE, race + max(0.0, tech - race * TECH_RATE) / TECH_RATE)


def share_left(state: State) -> float:
    if state["phase"] in ("reveal", "over"):
        return 0.0
    return min(1.0, turns_left(state) / _turns_at_start(int(state["players"])))


# --- the projection ---------------------------------------------------------------------------


def at_least_two(owned: int, chances: list[float]) -> float:
    """P(owned + successes >= 2) for independent events with these chances."""
    if owned >= 2:
        return 1.0
    none = 1.0
    one = 0.0
    for p in chances:
        one = one * (1.0 - p) + none * p
        none *= 1.0 - p
    return 1.0 - none if owned == 1 else 1.0 - none - one


def _mix(cards: list[str], kinds: list[str]) -> dict[str, float]:
    """Each kind's share of a deck (the chance that a draw is that card)."""
    if not cards:
        return {}
    return {card: cards.count(card) / len(cards) for card in kinds}


class Table(NamedTuple):
    """What every seat's projection shares: the decks' mix, the piles, the turns left."""

    race_mix: dict[str, float]
    tech_mix: dict[str, float]
    pilot_share: float  # the chance that a Race draw is a wild card
    own_turns: float  # each seat's turns still to come
    race_left: int
    tech_left: int
    players: int
    station_value: float
    resort_value: float
    city_ready: float  # the City a display now would gain
    city_mean: float  # the mean of the Cities left
    reveal: bool
    key: int  # one number for all of the above (equal tables, equal keys): the memos' key


def table(state: State) -> Table:
    players = int(state["players"])
    race_deck, tech_deck = state["decks"]["race"], state["decks"]["tech"]
    race_mix = _mix(race_deck, RACE_CARDS)
    reveal = state["phase"] == "reveal"
    piles = state["piles"]
    city = piles["city"]
    t = Table(
        race_mix=race_mix, tech_mix=_mix(tech_deck, TECH_CARDS),
        pilot_share=sum(race_mix.get(w, 0.0) for w in WILDS),
        own_turns=0.0 if reveal else turns_left(state) / players,
        race_left=len(race_deck), tech_left=len(tech_deck), players=players,
        station_value=float(piles["station"][0]) if piles["station"] else 0.0,
        resort_value=float(piles["resort"][0]) if piles["resort"] else 0.0,
        city_ready=float(city[0]) if city else 0.0,
        city_mean=sum(city) / len(city) if city else 0.0,
        reveal=reveal, key=0,
    )
    # The two mixes are dicts: as tuples, with every other field, they are the table. The
    # memos are keyed on a number for it, hashed once here rather than at every look-up.
    return t._replace(key=_table_number(
        (tuple(t.race_mix.items()), tuple(t.tech_mix.items()), *t[2:-1])))


def _table_number(fields: tuple[Any, ...]) -> int:
    number = _TABLES.get(fields)
    if number is None:
        if len(_TABLES) >= MEMO_SIZE:  # numbers are given again: forget what they keyed
            forget()
        number = _TABLES[fields] = len(_TABLES)
    return number


def forecast(state: State, t: Table | None = None) -> tuple[list[float], list[float]]:
    """Each seat's points now (the rules' `breakdown`) and its expected points to come;
    `t` the state's `table`, if the caller has it already."""
    t = table(state) if t is None else t
    if t.reveal:  # only those not yet done may still display
        reveal = state["reveal"]
        displaying = set(reveal["order"][reveal["index"]:])
    else:
        displaying = set(range(t.players))
    now = [float(sum(breakdown(state, seat).values())) for seat in range(t.players)]
    drawing = None if t.reveal else state["active"]  # its turn's draw is still to come
    later = [to_come(t, player, pending=seat == drawing) if seat in displaying else 0.0
             for seat, player in enumerate(state["seats"])]
    if state.get("trade") is not None:
        for seat, gain in trade_prospects(state, t).items():
            later[seat] += gain
    return now, later


def projected(state: State) -> list[float]:
    """Each seat's projected final total."""
    now, later = forecast(state)
    return [a + b for a, b in zip(now, later, strict=True)]


# Each term's weight in the points to come (`to_come`); 1 counts a term at face value.
WEIGHTS: dict[str, float] = {
    "stations": 1.0, "cities": 1.0, "resorts": 1.0, "mission_stations": 1.0,
    "mission_cities": 1.0, "mission_tech5": 1.0, "mission_trades": 1.0,
    "late_draws": CARD_VALUE,
}


def to_come(t: Table, player: dict[str, Any], pending: bool = False) -> float:
    """The expected points of the seat's displays and missions to come: its `terms`, weighted.
    `pending`: the seat is in its turn, so one draw more is to come than for the others.
    Memoized: a bot values many states that differ only in a trade's draft."""
    return _memo(_TO_COME, seat_key(t, player, pending), lambda: sum(
        WEIGHTS[name] * value for name, value in terms(t, player, pending).items()))


def seat_key(t: Table, player: dict[str, Any], pending: bool) -> tuple[Any, ...]:
    """All that a seat's prospects depend on, hashable: the memos' key. The hand's items
    keep their order, so a memo gives exactly what the computation would (`cheapest` breaks
    ties in hand order)."""
    return (t.key, pending, tuple(player["hand"].items()), player["trades"],
            tuple(player["missions"].values()), len(player["stations"]), len(player["cities"]),
            active_stations(player), city_size(player, CITY_SIZE))


def forget() -> None:
    """Empty the memos (a test compares memoized values with fresh ones)."""
    for memo in (_TABLES, _TO_COME, _WORTH, _CHEAPEST, _REQUEST):
        memo.clear()


def _memo(memo: dict[tuple[Any, ...], Any], key: tuple[Any, ...],
          compute: Callable[[], Any]) -> Any:
    """`memo[key]`, computed once; a full memo starts afresh (MEMO_SIZE bounds its memory)."""
    value = memo.get(key)
    if value is None:
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        value = memo[key] = compute()
    return value


MEMO_SIZE = 20_000
_TABLES: dict[tuple[Any, ...], int] = {}
_TO_COME: dict[tuple[Any, ...], float] = {}
_WORTH: dict[tuple[Any, ...], float] = {}
_CHEAPEST: dict[tuple[Any, ...], list[str]] = {}
_REQUEST: dict[tuple[Any, ...], float] = {}


def terms(t: Table, player: dict[str, Any], pending: bool = False) -> dict[str, float]:
    """The seat's prospects, each in points at face value (`late_draws` in cards)."""
    hand: dict[str, int] = player["hand"]
    missions = player["missions"]
    soon = min(t.own_turns, HORIZON)
    cap = DRAW_MAX - (DRAW_RACE if t.race_left else 0)
    tech_rate = min(active_stations(player) * TECH_PER_STATION, cap)
    race_draws = min(soon * DRAW_RACE, t.race_left / t.players)
    tech_draws = min(soon * tech_rate, float(t.tech_left))
    if pending:
        race_draws += DRAW_RACE if t.race_left else 0
        tech_draws = min(tech_draws + tech_rate, float(t.tech_left))
    later = t.own_turns - soon
    out = dict.fromkeys(WEIGHTS, 0.0)
    # Beyond the horizon, every card drawn counts; the Race draws are the same for every seat,
    # so only the Stations' Technology draws make a difference.
    out["late_draws"] = min(later * tech_rate, float(t.tech_left))
    pilots = sum(hand.get(w, 0) for w in WILDS)
    best_race = max(STATION_RACES, key=lambda c: hand.get(c, 0))
    stations: list[float] = []
    for card in STATION_RACES:  # five identical Race cards, Pilots wild, one real card at least
        have = hand.get(card, 0)
        wild = pilots if card == best_race else 0
        missing = max(STATION_SIZE - have - wild, 1 if have == 0 else 0)
        chance = at_least(missing, race_draws * (t.race_mix.get(card, 0.0) + t.pilot_share)) \
            if t.station_value else 0.0  # an empty pile: no more Stations
        stations.append(chance)
        out["stations"] += chance * (t.station_value - min(have, STATION_SIZE) // 2)
    size = city_size(player, CITY_SIZE)
    cities: list[float] = []
    for card in CITY_TECHS:
        have = hand.get(card, 0)
        chance = at_least(size - have, tech_draws * t.tech_mix.get(card, 0.0)) \
            if t.city_ready else 0.0
        cities.append(chance)
        value = t.city_ready if have >= size else t.city_mean
        out["cities"] += chance * (value - min(have, size) // 2)
    # Missions flip whenever the qualifier is met, also in the final reveal.
    if not missions["stations"]:
        owned = len(player["stations"])
        out["mission_stations"] = MISSION_POINTS["stations"] * at_least_two(owned, stations)
    if not missions["cities"]:
        owned = len(player["cities"])
        out["mission_cities"] = MISSION_POINTS["cities"] * at_least_two(owned, cities)
    if t.reveal:  # "If any player can display cards to build a Station or a City"
        return out
    for card in RESORTS:
        have = hand.get(card, 0)
        chance = at_least(RESORT_SIZE - have, race_draws * t.race_mix.get(card, 0.0)) \
            if t.resort_value else 0.0
        out["resorts"] += chance * (t.resort_value - min(have, RESORT_SIZE) // 2)
    if not missions["tech5"]:  # five different technologies: each one missing must be drawn
        chance = 1.0
        for card in MISSION_TECH:
            if not hand.get(card, 0):
                chance *= 1.0 - exp(-tech_draws * t.tech_mix.get(card, 0.0))
        out["mission_tech5"] = MISSION_POINTS["tech5"] * chance
    if not missions["trades"]:
        missing = int(MISSIONS["trades"]["needs"]) - int(player["trades"])
        out["mission_trades"] = MISSION_POINTS["trades"] * at_least(missing,
                                                                     t.own_turns * TRADE_RATE)
    return out


# --- a trade in progress ----------------------------------------------------------------------
# A trade's moves change no points until the swap, so a one-ply look (greedy, the search's
# tree) would never start one: the trade in progress is valued at what it may still bring.


def trade_prospects(state: State, t: Table) -> dict[int, float]:
    """The expected gain of the trade in progress, for the seats it may still pay: the
    proposer (its proposal, or the best answer it already has) and an opponent drafting an
    answer. Gains are in points (`worth`); a trade that would lose is not made (0)."""
    if state["phase"] not in ("propose", "answer", "choose"):
        return {}  # the swap: its picks are one move from done
    if "begun" in state["trade"]:
        return bound_prospects(state, t)
    look = _Look(t, state)
    trade = state["trade"]
    by, mode, proposal = trade["by"], trade["mode"], trade["proposal"]
    best = 0.0
    for partner_key, answer in trade["answers"].items():
        if answer is not None:
            best = max(best, look.trade(by, int(partner_key), mode, proposal, answer)[0])
    best = max(best, _request_prospect(state, look, drafting=set()))
    out = {by: best}
    for key, draft in trade["drafts"].items():
        if draft["items"]:
            gain_by, gain = look.trade(by, int(key), mode, proposal, draft)
            out[int(key)] = ACCEPTED * gain if gain_by > 0 and gain > 0 else 0.0
    return out


def bound_prospects(state: State, t: Table) -> dict[int, float]:
    """`trade_prospects` from rules version 4 on, where an opponent who has begun drafting an
    answer must give one: its draft is valued as the answer it will be, for both traders,
    like an answer already given. An answer the proposer gains by is taken (by the proposer
    for sure when given, at ACCEPTED while drafted, the proposer not yet having seen it),
    with what it brings its author, gain or loss; one the proposer would decline brings
    nothing, and costs its author IDLE_ANSWER while it is drafted, so that a seat with no
    answer worth giving passes rather than begin one it must then give. The opponents who
    have not begun still answer at ANSWERED, as before."""
    look = _Look(t, state)
    trade = state["trade"]
    by, mode, proposal = trade["by"], trade["mode"], trade["proposal"]
    best = 0.0
    out: dict[int, float] = {}
    sides = [(int(k), a, False) for k, a in trade["answers"].items() if a is not None]
    sides += [(int(k), d, True) for k, d in trade["drafts"].items() if d["items"]]
    for partner, side, drafted in sides:
        gain_by, gain = look.trade(by, partner, mode, proposal, side)
        if gain_by > 0:
            best = max(best, ACCEPTED * gain_by if drafted else gain_by)
            out[partner] = ACCEPTED * gain if drafted else gain
        else:
            out[partner] = -IDLE_ANSWER if drafted else 0.0
    drafting = {partner for partner, _, drafted in sides if drafted}
    best = max(best, _request_prospect(state, look, drafting))
    return {**out, by: best}


def _request_prospect(state: State, look: _Look, drafting: set[int]) -> float:
    """A request's worth to its proposer from the opponents who may still answer it (not
    those in `drafting`, valued by their drafts): while it is drafted, and once made."""
    trade = state["trade"]
    if trade["mode"] != "request":
        return 0.0
    if state["phase"] == "propose":
        return look.request_value(trade)
    if state["phase"] == "answer" and trade["proposal"]["items"]:
        waiting = [s for s in trade["order"]
                   if str(s) not in trade["answers"] and s not in drafting]
        return look.asked_value(trade["by"], trade["proposal"], waiting)
    return 0.0


# The chance that an opponent who can give what is asked answers with a price worth paying.
ANSWERED = 0.5
# The chance that a proposer accepts an answer that gains it points.
ACCEPTED = 0.5
# What drafting an answer the proposer would decline costs its author (rules version 4: a
# begun answer must be given, so this only tells a seat with nothing to gain to pass).
IDLE_ANSWER = 0.05
# Copies of a card a request names, at most, when valuing a request not yet drafted.
REQUEST_MOST = 2

Items = list[tuple[str, int]]


def worth(t: Table, player: dict[str, Any], hand: dict[str, int], trades: int,
          pending: bool) -> float:
    """What a hand is worth to its player: its pairs and grey cards now, and its prospects."""
    holder = {**player, "hand": hand, "trades": trades}
    return _memo(_WORTH, seat_key(t, holder, pending), lambda: pair_points(hand)
                 + grey_points(hand) + to_come(t, holder, pending))


def _moved(hand: dict[str, int], gets: Items, gives: Items) -> dict[str, int]:
    out = dict(hand)
    for card, n in gives:
        out[card] = out.get(card, 0) - n
        if out[card] <= 0:
            del out[card]
    for card, n in gets:
        out[card] = out.get(card, 0) + n
    return out


def _given(hand: dict[str, int], side: dict[str, Any]) -> Items | None:
    """What the holder of `hand` gives for `side` (an "or": the first option it holds);
    None if it cannot give it."""
    items = [(it["card"], int(it["n"])) for it in side["items"]]
    held = [(c, n) for c, n in items if hand.get(c, 0) >= n]
    if side["join"] == "or":
        return held[:1] or None
    return items if len(held) == len(items) else None


class _Look:
    """One evaluation's look at the trade in progress: what each seat's hand is worth now,
    and its cards from the one it loses least by giving away, worked out once each."""

    def __init__(self, t: Table, state: State) -> None:
        self.t = t
        self.state = state
        self._worth: dict[int, float] = {}

    def gain(self, seat: int, gets: Items, gives: Items, token: bool) -> float:
        player = self.state["seats"][seat]
        pending = seat == self.state["active"]
        trades = int(player["trades"])
        if seat not in self._worth:
            self._worth[seat] = worth(self.t, player, player["hand"], trades, pending)
        hand = _moved(player["hand"], gets, gives)
        return worth(self.t, player, hand, trades + token, pending) - self._worth[seat]

    def cheapest(self, seat: int) -> list[str]:
        """The seat's cards, the one it loses least by giving away first."""
        player = self.state["seats"][seat]
        key = seat_key(self.t, player, seat == self.state["active"])
        return _memo(_CHEAPEST, key, lambda: sorted(
            player["hand"], key=lambda c: -self.gain(seat, [], [(c, 1)], False)))

    def trade(self, by: int, partner: int, mode: str, proposal: dict[str, Any],
              answer: dict[str, Any]) -> tuple[float, float]:
        """(the proposer's gain, the partner's gain) if the proposer accepts `answer`; a side
        either cannot give counts as no trade (0, 0)."""
        seats = self.state["seats"]
        by_side, partner_side = (proposal, answer) if mode == "offer" else (answer, proposal)
        by_gives = _given(seats[by]["hand"], by_side)
        partner_gives = _given(seats[partner]["hand"], partner_side)
        if by_gives is None or partner_gives is None:
            return 0.0, 0.0
        return (self.gain(by, partner_gives, by_gives, True),
                self.gain(partner, by_gives, partner_gives, False))

    def asked_value(self, by: int, proposal: dict[str, Any], waiting: list[int]) -> float:
        """A request's worth to the proposer while opponents who hold it may still answer:
        the cards for its cheapest other card, at the chance that one of them answers."""
        seats = self.state["seats"]
        holders = [s for s in waiting if _given(seats[s]["hand"], proposal) is not None]
        if not holders:
            return 0.0
        gets = _given(seats[holders[0]]["hand"], proposal) or []
        named = {card for card, _ in gets}
        price = next((card for card in self.cheapest(by) if card not in named), None)
        if price is None:
            return 0.0
        gain = self.gain(by, gets, [(price, 1)], True)
        return max(0.0, gain) * (1.0 - (1.0 - ANSWERED) ** len(holders))

    def request_value(self, trade: dict[str, Any]) -> float:
        """A request being drafted: what it names so far, or (nothing named yet) the best
        request of one card type it could name."""
        proposal, by = trade["proposal"], trade["by"]
        if proposal["items"]:
            return self.asked_value(by, proposal, trade["order"])
        seats = self.state["seats"]
        key = (seat_key(self.t, seats[by], by == self.state["active"]), tuple(trade["order"]),
               *(tuple(seats[s]["hand"].items()) for s in trade["order"]))
        return _memo(_REQUEST, key, lambda: self._best_request(trade))

    def _best_request(self, trade: dict[str, Any]) -> float:
        by = trade["by"]
        best = 0.0
        for card in CARD_IDS:
            for n in range(1, REQUEST_MOST + 1):
                side = {"items": [{"card": card, "n": n}], "join": None}
                best = max(best, self.asked_value(by, side, trade["order"]))
        return best
