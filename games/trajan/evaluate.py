"""A cheap evaluation for the bots' search (issue 17): each seat's expected final standing.

`evaluate(state)` gives one value per seat in [0, 1]: 1 if the seat will surely win, 0 if it
will surely be last; it is the share of the other seats the seat is expected to finish ahead
of (a tie counts half). Over, it is exact: it follows the score sheet's ranks (the senate
position breaking ties, as `score` does).

Before that, each seat's final total is projected from the rules' own scoring (`breakdown`:
the points track, cards in hand, both camps, construction sets, and the bonus tiles for what
the seat has now) plus what is still to come:
- the people's demands at the end of this quarter: those revealed and those still to be
  revealed this quarter, met as `quarter.meet_demands` meets them (Trajan demand tiles, then
  forum tiles, then demand wildcards; in rules version 2's `demands` phase, only what each
  seat has still to meet), less the forum tiles the seat may still take in its
  turns before the quarter ends; the penalty of the rest (-4 / -9 / -15). In each later
  quarter three more demands come, met by the kept Trajan demand tiles and the forum tiles
  left over, and by those still to be taken;
- this quarter's senate: the bonus tiles on the senate, the first of the vote (votes, then
  position) taking the one worth most to it gold side up, the second the other silver side
  up, each worth what `scoring.bonus_value` says it is worth to that seat now;
- the Trajan tiles on the mat: their points (and the cards or pieces they bring, a point
  each at the end) times the chance of accomplishing them in the turns left;
- the largest construction set one tile short of 3 or 4 of a type (10 / 20 points), times
  the chance of the tile that completes it.
The turns left follow from the quarters and rounds still to play and the time track (a turn
moves the time marker by the markers it takes, about MARKERS_PER_TURN).

The projected totals become standings under a normal noise model: seat a finishes ahead of
seat b with probability Phi((a - b) / (s * sqrt 2)), where the spread s grows with the square
root of the points still to be scored. The weights and rates below were fitted to random play
(the search's playouts).
"""

from __future__ import annotations

from math import exp, sqrt
from typing import Any

from games.contract import State
from games.standings import final_standing, projected_standing
from games.trajan.board import (
    CONSTRUCTION,
    CONSTRUCTION_BONUS,
    DATA,
    FORUM,
    SETUP,
    TRAJAN,
    senate_place,
)
from games.trajan.quarter import vote_key
from games.trajan.rules import matches
from games.trajan.scoring import bonus_value, breakdown, score

# The final totals' uncertainty: SPREAD * sqrt(the points still to be scored, per seat)
# points, plus FLOOR (one standard deviation).
SPREAD = 1.0
SPREAD_FLOOR = 1.0
# Points every seat scores per own turn, on average (the volume of what is still to come).
POINTS_PER_TURN = 6.0
# Markers taken per turn, on average: the time marker moves that far.
MARKERS_PER_TURN = 2.5
# Per own turn: forum demand tiles taken, Trajan tiles accomplished (each tile on the mat),
# construction tiles of a wanted type taken.
FORUM_RATE = 0.15
TRAJAN_RATE = 0.01
CONSTRUCTION_RATE = 0.01
# How much likelier a Trajan tile is accomplished when its tray holds its colours now.
MATCHED = 3.0
# The senate's order may still change in the quarter: its bonus counts this much at least.
SENATE_SURE = 0.5
# The senate position breaks ties: a little of it counts when nothing else differs.
TIE = 0.01

PENALTIES = [int(p) for p in DATA["penalties"]]
ROUNDS = int(SETUP["rounds"])
QUARTERS = int(SETUP["quarters"])
DEMANDS_PER_QUARTER = ROUNDS - 1
SET_VALUES = {int(k): int(v) for k, v in DATA["construction_sets"].items()}
# The chance that a quarter's demands include a given kind (kinds about equally likely).
KIND_COMES = 1.0 - (1.0 - 1.0 / len(DATA["demands"])) ** DEMANDS_PER_QUARTER
# Extra points a Trajan tile's effect brings at the end: cards in hand and pieces in a camp
# score a point each; a +2 marker is worth about one.
EFFECT_POINTS = {"draw_cards": 1.0, "legionnaires": 1.0, "workers": 1.0, "plus2": 1.0}


def evaluate(state: State) -> list[float]:
    if state["phase"] == "over":
        return final_standing(score(state))
    now, later = forecast(state)
    return projected_standing(now, later, spread(state, later))


def spread(state: State, later: list[float]) -> float:
    """The final totals' uncertainty (one standard deviation): it grows with the points still
    to be scored (those every seat scores in its turns, and the projection's own), as the
    variance of a count grows with its mean."""
    volume = POINTS_PER_TURN * own_turns_left(state) + sum(abs(x) for x in later) / len(later)
    return SPREAD * sqrt(volume) + SPREAD_FLOOR


# --- how much of the game is left ------------------------------------------------------------


def rounds_left_in_quarter(state: State) -> float:
    """This round's part still to play (by the time track) and the quarter's later rounds."""
    if state["phase"] in ("start_cards", "start_trajan"):
        return float(ROUNDS)
    if state["phase"] in ("demands", "bonus"):  # the quarter is over but for its last steps
        return 0.0
    part = 0.0 if state["round_over"] else 1.0 - state["time"] / state["lap"]
    return ROUNDS - int(state["round"]) + part


def rounds_left(state: State) -> float:
    return (QUARTERS - int(state["quarter"])) * ROUNDS + rounds_left_in_quarter(state)


def share_left(state: State) -> float:
    return rounds_left(state) / (QUARTERS * ROUNDS)


def turns_per_round(state: State) -> float:
    """Each seat's turns in a round: the lap of the time track over the markers moved a turn,
    shared among the seats."""
    return float(state["lap"]) / (MARKERS_PER_TURN * int(state["players"]))


def own_turns_left(state: State) -> float:
    return rounds_left(state) * turns_per_round(state)


# --- the projection ---------------------------------------------------------------------------


def forecast(state: State) -> tuple[list[float], list[float]]:
    """Each seat's points now (the rules' `breakdown`) and its expected points to come."""
    players = int(state["players"])
    per_round = turns_per_round(state)
    this_quarter = rounds_left_in_quarter(state) * per_round
    own = own_turns_left(state)
    quarters_after = QUARTERS - int(state["quarter"])
    coming: list[str] = []
    if state["phase"] != "bonus":  # in the bonus phase this quarter's demands are met already
        still = ROUNDS - int(state["round"])  # demands still to be revealed this quarter
        coming = list(state["demands"]) + (state["demand_stack"][-still:] if still > 0 else [])
    senate = _senate(state)
    now = []
    later = []
    meeting = state.get("meeting")  # version 2's `demands` phase: seat by seat
    for seat, player in enumerate(state["seats"]):
        now.append(float(sum(breakdown(state, seat).values())))
        space, height = senate_place(state, seat)
        points = TIE * (space + height / (players + 1))
        points += senate[seat]
        due = coming
        if meeting is not None:  # the seats before have met them; the chooser has its rest
            due = [] if seat < meeting["seat"] else \
                list(meeting["open"]) if seat == meeting["seat"] else coming
        points += _demands(player, due, this_quarter, quarters_after, per_round * ROUNDS)
        points += _trajan_tiles(player, own)
        points += _construction(player, own)
        later.append(points)
    return now, later


def _penalty(unmet: float) -> float:
    """The penalty for `unmet` demands, interpolated between the printed ones."""
    if unmet <= 0.0:
        return 0.0
    top = len(PENALTIES) - 1
    if unmet >= top:
        return float(PENALTIES[top])
    low = int(unmet)
    return PENALTIES[low] + (unmet - low) * (PENALTIES[low + 1] - PENALTIES[low])


def _demands(player: dict[str, Any], coming: list[str], turns: float, quarters_after: int,
             turns_per_quarter: float) -> float:
    """The expected demand penalties of this quarter and the later ones."""
    kept = [str(TRAJAN[t].get("demand")) for t in player["kept"]]
    forum = [str(FORUM[t].get("demand")) for t in player["tiles"] if FORUM[t].get("demand")]
    wild = sum(1 for t in player["tiles"] if FORUM[t].get("wild") == "demand")
    unmet = 0
    left = list(forum)
    for demand in coming:  # Trajan demand tiles first (kept), then forum tiles, then wildcards
        if demand in kept:
            kept.remove(demand)
        elif demand in left:
            left.remove(demand)
        elif wild:
            wild -= 1
        else:
            unmet += 1
    points = _penalty(unmet - FORUM_RATE * turns)
    spare = len(left) + wild  # what is left over serves the next quarter
    # A kept Trajan demand tile meets a demand of its kind whenever one comes in a quarter.
    kept_cover = len(player["kept"]) * KIND_COMES
    for quarter in range(quarters_after):
        cover = kept_cover + FORUM_RATE * turns_per_quarter + (spare if quarter == 0 else 0)
        points += _penalty(DEMANDS_PER_QUARTER - cover)
    return points


def _senate(state: State) -> list[float]:
    """The expected value of this quarter's senate bonus tiles to each seat."""
    players = int(state["players"])
    out = [0.0] * players
    tiles = list(state["senate_bonus"])
    if not tiles:
        return out
    order = state["vote"] if state["vote"] is not None else \
        sorted(range(players), key=lambda s: vote_key(state, s), reverse=True)
    sure = 1.0 if state["phase"] == "bonus" else \
        SENATE_SURE + (1.0 - SENATE_SURE) * (1.0 - rounds_left_in_quarter(state) / ROUNDS)
    first, second = int(order[0]), int(order[1])
    values = [bonus_value(state, first, tile, "gold") for tile in tiles]
    best = max(range(len(tiles)), key=lambda i: values[i])
    out[first] += sure * values[best]
    for i, tile in enumerate(tiles):
        if i != best:
            out[second] += sure * bonus_value(state, second, tile, "silver")
    return out


def _trajan_tiles(player: dict[str, Any], own: float) -> float:
    """The Trajan tiles on the mat: their points times the chance of accomplishing them, the
    greater when their tray holds their colours already (it needs only to be the target)."""
    points = 0.0
    for tray, tile in enumerate(player["slots"]):
        if tile is not None:
            spec = TRAJAN[tile]
            extra = EFFECT_POINTS.get(str(spec["effect"]), 0.0) * int(spec.get("count", 0))
            rate = TRAJAN_RATE * (MATCHED if matches(player["trays"][tray], spec["colours"])
                                  else 1.0)
            points += (1.0 - exp(-own * rate)) * (int(spec["points"]) + extra)
    return points


def _construction(player: dict[str, Any], own: float) -> float:
    """The largest set (wild construction tiles added) one tile short of the next size: its
    extra points, times the chance of taking the tile."""
    counts = {kind: 0 for kind in CONSTRUCTION_BONUS}
    for tile in player["construction"]:
        counts[CONSTRUCTION[tile]["type"]] += 1
    wild = sum(1 for t in player["tiles"] if FORUM[t].get("wild") == "construction")
    chance = 1.0 - exp(-own * CONSTRUCTION_RATE)
    points = 0.0
    best = max(counts.values()) + wild
    if best + 1 in SET_VALUES:
        points += chance * (SET_VALUES[best + 1] - SET_VALUES.get(best, 0))
    return points


def projected(state: State) -> list[float]:
    """Each seat's projected final total."""
    now, later = forecast(state)
    return [a + b for a, b in zip(now, later, strict=True)]

