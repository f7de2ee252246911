"""Standings from points: the ranks of a score sheet with ties kept together, and, for the
bots' evaluations (issue 17), each seat's expected share of the other seats it finishes ahead
of, in [0, 1] (1: surely first, 0: surely last). Pure."""

from __future__ import annotations

from math import erf, exp, sqrt
from typing import Any

from games.contract import ScoreSheet


def rank_tied_together(entries: list[dict[str, Any]]) -> list[int | list[int]]:
    """Sets each score sheet entry's "rank" (1 + the entries ahead of it on "total", then
    "tiebreak") and returns the ranking, best first: a seat, or the seats sharing a rank as
    a list (Trajan and Trappist One, whose ties may stand after the tiebreak)."""
    for e in entries:
        e["rank"] = 1 + sum((o["total"], o["tiebreak"]) > (e["total"], e["tiebreak"])
                            for o in entries)
    ranking: list[list[int]] = []
    previous = None
    for e in sorted(entries, key=lambda e: (e["rank"], e["seat"])):
        if e["rank"] == previous:
            ranking[-1].append(e["seat"])
        else:
            ranking.append([e["seat"]])
        previous = e["rank"]
    return [group if len(group) > 1 else group[0] for group in ranking]


def final_standing(sheet: ScoreSheet) -> list[float]:
    """By seat: the share of the other seats it ranks ahead of, a shared rank counting half
    (rank r of n alone: (n - r) / (n - 1); two tied at the top of two: 0.5 each)."""
    ranks = [int(entry["rank"]) for entry in sorted(sheet["seats"], key=lambda e: e["seat"])]
    n = len(ranks)
    if n < 2:
        return [1.0] * n
    return [(sum(1.0 for r in ranks if r > mine) + 0.5 * (ranks.count(mine) - 1)) / (n - 1)
            for mine in ranks]


def standings(totals: list[float], spread: float) -> list[float]:
    """Each seat's expected share of the others it finishes ahead of, when every final total
    is its projection plus independent normal noise of standard deviation `spread`:
    P(a ahead of b) = Phi((a - b) / (spread * sqrt 2)) = (1 + erf((a - b) / (2 spread))) / 2."""
    n = len(totals)
    if n < 2:
        return [1.0] * n
    scale = 1.0 / (2.0 * spread)
    return [sum(0.5 + 0.5 * erf((a - b) * scale) for j, b in enumerate(totals) if j != i)
            / (n - 1) for i, a in enumerate(totals)]


def projected_standing(now: list[float], later: list[float], spread: float) -> list[float]:
    """`standings` of the final totals projected as points now plus points still to come."""
    return standings([a + b for a, b in zip(now, later, strict=True)], spread)


def count_spread(volume: float, scale: float, floor: float) -> float:
    """A final total's uncertainty (one standard deviation) when `volume` points a seat are
    still to come: it grows as the square root, as the variance of a count grows with its
    mean; `floor` is what remains however little is to come."""
    return scale * sqrt(max(0.0, volume)) + floor


def at_least(m: int, mean: float) -> float:
    """P(X >= m) for X ~ Poisson(mean): the chance of m more of a kind in draws to come."""
    if m <= 0:
        return 1.0
    if mean <= 0.0:
        return 0.0
    term = exp(-mean)
    below = term
    for k in range(1, m):
        term *= mean / k
        below += term
    return max(0.0, 1.0 - below)
