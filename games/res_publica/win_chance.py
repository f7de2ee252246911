"""Res Publica at two players: each seat's chance to win, from a logistic model fitted to
games (`win_chance.json`, written by bench/fit_value.py). The bots' search values the
positions it reaches by it; greedy, and the playouts' model of how greedy plays, still
choose by `evaluate` (games.search.ismcts: `value` and `evaluate`).

Why a second valuation: `evaluate` projects each seat's final total part by part at face
value, and on games of greedy against greedy it predicts the winner little better than a
coin in the first third of a game (log loss 0.656, a coin's 0.693; 0.528 over the whole
game, on the third of 1,400 games that `bench/fit_value.py` holds out). The same parts,
weighed as the games say, predict it better (0.641 and 0.474): points already displayed
weigh two to three times what they score (a Space Station also draws Technology cards),
cards in hand count, and the five-technologies mission's prospect counts against. With
it the search won 0.710 of the 100 `t2` deals against greedy, where it won 0.630 by
`evaluate`, and 0.685 of 300 deals, where it won 0.592 (bench/README.md, session 46).

The model: seat 0 wins with probability sigmoid(z), seat 1 with 1 - sigmoid(z), where
  z = sum over the features f of (w_f + v_f * left) * (f of seat 0 - f of seat 1) / spread
      + (u + u' * left) * turn,
`left` the share of the game still to play (`share_left`), `spread` the final totals'
uncertainty (`spread`), `turn` +1 while seat 0 is in its turn, -1 in seat 1's, 0 in the
final reveal. The features are `evaluate`'s own parts: the points each part of the score
sheet gives now (`breakdown`), the points to come of each prospect (`terms`), the cards in
hand, the trades made, the Space Stations built, and what the trade in progress may bring.
Other player counts, and a game over, are valued by `evaluate` (the score sheet's ranks).
"""

from __future__ import annotations

import json
from math import exp
from pathlib import Path
from typing import Any

from games.contract import State
from games.res_publica import evaluate as projection
from games.res_publica.rules import breakdown

MODEL: dict[str, Any] = json.loads((Path(__file__).parent / "win_chance.json").read_text())
PLAYERS = int(MODEL["players"])
FEATURES: list[str] = list(MODEL["weights"]["difference"])
_DIFFERENCE = [float(MODEL["weights"]["difference"][f]) for f in FEATURES]
_BY_LEFT = [float(MODEL["weights"]["difference_by_share_left"][f]) for f in FEATURES]
# In the order of `features`' values.
WEIGHTS = [*_DIFFERENCE, *_BY_LEFT, float(MODEL["weights"]["turn"]),
           float(MODEL["weights"]["turn_by_share_left"])]
# Past this z the chance is 1 or 0 to the last digit a search could tell apart.
Z_LIMIT = 50.0


def win_chance(state: State) -> list[float]:
    """Each seat's chance to win (two players), else `evaluate`'s standings."""
    if state["phase"] == "over" or int(state["players"]) != PLAYERS:
        return projection.evaluate(state)
    x = features(state)
    z = sum(w * v for w, v in zip(WEIGHTS, x, strict=True))
    chance = 1.0 / (1.0 + exp(-max(-Z_LIMIT, min(Z_LIMIT, z))))
    return [chance, 1.0 - chance]


def features(state: State) -> list[float]:
    """The model's inputs for a two-seat state that is not over: each feature's difference
    (seat 0 less seat 1) over the spread, the same times the share of the game left, then
    the turn and the turn times that share."""
    t = projection.table(state)
    _, later = projection.forecast(state, t)
    drawing = None if t.reveal else state["active"]
    first, second = (seat_features(state, t, later[seat], seat, seat == drawing)
                     for seat in range(PLAYERS))
    spread = projection.spread(state, later)
    left = projection.share_left(state)
    turn = 0.0 if drawing is None else (1.0 if drawing == 0 else -1.0)
    base = [(first[f] - second[f]) / spread for f in FEATURES]
    return [*base, *(v * left for v in base), turn, turn * left]


def seat_features(state: State, t: projection.Table, later: float, seat: int,
                  pending: bool) -> dict[str, float]:
    """One seat's features, by name; `later` its points to come (`forecast`)."""
    player = state["seats"][seat]
    out: dict[str, float] = {f"points:{part}": float(points)
                             for part, points in breakdown(state, seat).items()}
    prospects = projection.terms(t, player, pending)
    out.update({f"to_come:{name}": value for name, value in prospects.items()})
    out["hand"] = float(sum(player["hand"].values()))
    out["trades"] = float(player["trades"])
    out["stations_built"] = float(len(player["stations"]))
    out["trade_prospect"] = later - sum(prospects.values())
    return out
