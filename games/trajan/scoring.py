"""End scoring, exactly as the summary lists it, and the score sheet.

The points scored during play (Trajan and construction tiles, senate, legionnaires, ships,
demand penalties) are on each seat's track (`points`); the sheet adds the end's items.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from games.standings import rank_tied_together
from games.trajan.board import (
    BONUS,
    CONSTRUCTION,
    CONSTRUCTION_BONUS,
    DATA,
    FORUM,
    SETUP,
    Player,
    State,
    senate_place,
)


def construction_sets(player: Player) -> int:
    """"10 VP per set of 3 construction tiles with a matching icon or 20 VP per set of 4";
    wild construction tiles complete sets (note), placed where they score most."""
    counts = {t: 0 for t in CONSTRUCTION_BONUS}
    for tile in player["construction"]:
        counts[CONSTRUCTION[tile]["type"]] += 1
    wild = sum(1 for t in player["tiles"] if FORUM[t].get("wild") == "construction")
    values = {int(k): int(v) for k, v in DATA["construction_sets"].items()}
    biggest = max(values)
    best = 0
    for placement in product(list(counts), repeat=wild):
        tried = dict(counts)
        for kind in placement:
            tried[kind] += 1
        best = max(best, sum(values.get(min(n, biggest), 0) for n in tried.values()))
    return best


def _commodity_wilds(player: Player) -> int:
    return sum(1 for t in player["tiles"] if FORUM[t].get("wild") == "commodity")


def bonus_value(state: State, seat: int, tile: str, side: str, wild: int = 0) -> int:
    """What one bonus tile is worth to `seat` (components.json `effects`)."""
    player, spec = state["seats"][seat], BONUS[tile]
    value = int(spec[side])
    effect = spec["effect"]
    if effect == "demand_icon":
        owns = any(FORUM[t].get("demand") == spec["icon"] for t in player["tiles"])
        return value if owns else 0
    if effect == "commodities":
        return value * (sum(player["display"][c] for c in spec["commodities"]) + wild)
    if effect == "province_legionnaires":
        return value * sum(1 for p in state["provinces"].values() if seat in p["legions"])
    if effect == "district_workers":
        workers = sum(1 for site in state["district"] if seat in site["workers"])
        return (workers + 1) // 2 if side == "silver" and spec.get("silver_half_up") \
            else value * workers
    gold = sum(1 for b in player["bonus"] if b["side"] == "gold")
    return value * gold  # gold_bonus_tiles


def bonus_points(state: State, seat: int) -> int:
    """Every bonus tile; the unused commodity wildcards count as cards for the commodity
    tile that pays most per card (README decision 17)."""
    player = state["seats"][seat]
    tiles = [(b["tile"], b["side"]) for b in player["bonus"]]
    commodity = [(int(BONUS[t][s]), i) for i, (t, s) in enumerate(tiles)
                 if BONUS[t]["effect"] == "commodities"]
    best = max(commodity)[1] if commodity else None
    wild = _commodity_wilds(player)
    return sum(bonus_value(state, seat, t, s, wild if i == best else 0)
               for i, (t, s) in enumerate(tiles))


def breakdown(state: State, seat: int) -> dict[str, int]:
    player = state["seats"][seat]
    return {
        "track": int(player["points"]),
        "cards": sum(player["hand"].values()),  # "1 VP per commodity card in a player's hand"
        "worker_camp": int(player["worker_camp"]),
        "military_camp": int(player["legion_camp"]),
        "construction_sets": construction_sets(player),
        "bonus_tiles": bonus_points(state, seat),
    }


def score(state: State) -> dict[str, Any]:
    """"In case of a tie, the player occupying the higher position in the senate wins":
    further along, then higher in the stack (`tiebreak`)."""
    entries = []
    for seat in range(state["players"]):
        sheet = breakdown(state, seat)
        space, height = senate_place(state, seat)
        entries.append({"seat": seat, "total": sum(sheet.values()), "breakdown": sheet,
                        "tiebreak": [space, height]})
    return {"ranking": rank_tied_together(entries),
            "seats": entries, "quarters": state["quarter"],
            # rounds played: 4 a quarter, the last one counting up to where the game stands
            "rounds": (state["quarter"] - 1) * int(SETUP["rounds"]) + state["round"]}
