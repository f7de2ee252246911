"""Component data from components.json, a player's mat, and the small helpers every module
shares: copying a state, scoring points, starting a turn.

Tiles have ids (components.json); a game state holds ids only. Commodity cards are identical
but for their commodity, so a hand or a display is counts {commodity: n}; the deck and the
two discard piles are lists of commodities (top = last).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from games.contract import Fact, fact

State = dict[str, Any]
Player = dict[str, Any]

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "components.json").read_text())
COLOURS: list[str] = list(DATA["colours"])
TRAYS: list[str] = list(DATA["trays"])  # clockwise; tray i has Trajan tile slot i beside it
SLOTS: list[str] = list(DATA["slots"])
SETUP: dict[str, Any] = DATA["setup"]
COMMODITIES: list[str] = list(DATA["commodities"])
TRAJAN: dict[str, dict[str, Any]] = DATA["trajan"]
TRAJAN_KINDS: list[str] = list(dict.fromkeys(t["kind"] for t in TRAJAN.values()))
FORUM: dict[str, dict[str, Any]] = {**DATA["forum"], **DATA["extra"]}
CONSTRUCTION: dict[str, dict[str, Any]] = DATA["construction"]
CONSTRUCTION_BONUS: dict[str, str] = DATA["construction_types"]  # type -> bonus action
PROVINCES: dict[str, dict[str, Any]] = DATA["provinces"]
BONUS: dict[str, dict[str, Any]] = DATA["bonus"]
SHIPS: dict[str, dict[str, Any]] = DATA["ships"]
SENATE: list[dict[str, int]] = DATA["senate"]
DEMANDS: list[str] = list(DATA["demands"])
ROWS: int = int(DATA["district"]["rows"])
COLUMNS: int = int(DATA["district"]["columns"])
CAMP = "camp"  # where the military leader starts; not a province


def rules_of(state: State) -> int:
    """The rules version a state is played under (README "Rules versions"): version 1 states
    carry no "rules" key."""
    return int(state.get("rules", 1))


def piles_in_provinces(state: State) -> bool:
    """Version 2: a province holds a pile of tiles (one more each quarter while it has no
    figure), laid before the forum; the leader moving in takes them all."""
    return rules_of(state) >= 2


def demands_chosen(state: State) -> bool:
    """Version 2: a player with more than one way to meet the demands chooses (quarter.py)."""
    return rules_of(state) >= 2


def province_tiles(spot: dict[str, Any]) -> list[str]:
    """The tiles in a province, in the order they were laid: a version 2 province holds a
    pile ("tiles"), a version 1 province one tile at most ("tile")."""
    if "tiles" in spot:
        return list(spot["tiles"])
    return [] if spot["tile"] is None else [str(spot["tile"])]


def _copy_spot(spot: dict[str, Any]) -> dict[str, Any]:
    if "tiles" in spot:
        return {"tiles": list(spot["tiles"]), "legions": list(spot["legions"])}
    return {"tile": spot["tile"], "legions": list(spot["legions"])}


def who(seat: int) -> str:
    return f"Player {seat + 1}"


def tray_name(tray: int) -> str:
    return TRAYS[tray].capitalize()


def colour_names(colours: list[str], sep: str = ", ") -> str:
    """Marker colours for a person: "orange, light green" (ids keep their underscore)."""
    return sep.join(colours).replace("_", " ")


def forum_kind(tile: str) -> str:
    return str(FORUM[tile]["kind"])


def new_player(trays: list[list[str]]) -> Player:
    pieces = int(SETUP["pieces"])
    camp, workers = int(SETUP["start_military_camp"]), int(SETUP["start_worker_camp"])
    return {
        "trays": trays,  # the colours of the action markers in each tray, TRAYS order
        "slots": [None] * len(TRAYS),  # the Trajan tile beside each tray
        "arch": 0,  # the slot of the Trajan arch; None: in the centre (every slot full)
        "plus2": 0,  # +2 markers
        "hand": {c: 0 for c in COMMODITIES},  # secret
        "known": {c: 0 for c in COMMODITIES},  # the part of the hand every seat saw taken
        "display": {c: 0 for c in COMMODITIES},
        "tiles": [],  # forum and extra-action tiles on the mat
        "kept": [],  # Trajan demand tiles accomplished: they stay on the mat
        "construction": [],  # construction tiles taken
        "bonus": [],  # [{"tile", "side": "gold" | "silver"}]
        "supply": pieces - camp - workers,  # small pieces in the personal supply
        "legion_camp": camp,  # in the military camp
        "worker_camp": workers,  # in the worker camp
        "leader": CAMP,
        "points": 0,
    }


def copy_player(p: Player) -> Player:
    """A copy that shares nothing mutable with `p`: field by field, for speed."""
    return {
        **p,
        "trays": [list(t) for t in p["trays"]], "slots": list(p["slots"]),
        "hand": dict(p["hand"]), "known": dict(p["known"]), "display": dict(p["display"]),
        "tiles": list(p["tiles"]), "kept": list(p["kept"]),
        "construction": list(p["construction"]), "bonus": [dict(b) for b in p["bonus"]],
        **{key: dict(p[key]) for key in ("drawn", "straddle") if key in p},
    }


_LISTS = ("deck", "forum", "forum_stack", "extra_stack", "bag", "senate_bonus", "demands",
          "demand_stack", "demand_removed", "pending", "in_hand", "gone", "demands_done")


MEETING_LISTS = ("open", "met", "spent")


def copy_state(state: State) -> State:
    """A copy that shares nothing mutable with `state` (a generic deep copy is several times
    slower, and random playouts copy at every move)."""
    new = dict(state)
    new["seats"] = [copy_player(p) for p in state["seats"]]
    for key in _LISTS:
        new[key] = list(state[key])
    new["pending"] = [dict(p) for p in state["pending"]]
    new["piles"] = [list(p) for p in state["piles"]]
    if "provenance" in state:  # its per-seat ledgers are replaced, never changed in place
        books = state["provenance"]
        new["provenance"] = {**books, "pool": dict(books["pool"]), "ledger": list(books["ledger"])}
    new["trajan"] = {k: list(v) for k, v in state["trajan"].items()}
    new["provinces"] = {k: _copy_spot(v) for k, v in state["provinces"].items()}
    new["district"] = [{"tile": s["tile"], "workers": list(s["workers"])}
                       for s in state["district"]]
    new["senate"] = [list(stack) for stack in state["senate"]]
    new["ships"] = dict(state["ships"])
    new["loading"] = None if state["loading"] is None else {
        **state["loading"], "cards": list(state["loading"]["cards"])}
    new["vote"] = None if state["vote"] is None else list(state["vote"])
    if state.get("meeting") is not None:  # version 2: a seat choosing how to meet demands
        meeting = state["meeting"]
        new["meeting"] = {**meeting, **{k: list(meeting[k]) for k in MEETING_LISTS}}
    return new


def score_points(state: State, seat: int, points: int, rule: str, why: str) -> Fact:
    """Every change of a seat's points goes through here: its fact names the rule (`rule`, a
    key of RULES) and the change (`points`), so the log accounts for every point."""
    state["seats"][seat]["points"] += points
    sign = "scores" if points >= 0 else "loses"
    return fact(f"{who(seat)} {sign} {abs(points)} point(s): {why}.", seat=seat, points=points,
                rule=rule)


# The rules that change points during play (README "Points"); end scoring adds the rest.
RULES = ("trajan_tile", "construction_tile", "senate", "legionnaire", "ship", "demands")


def begin_turn(state: State, seat: int, phase: str = "choose") -> None:
    """`seat` starts a new turn (or a setup step, or the quarter's bonus choice): the turn
    counter moves on, so that a seat acting twice in a row has two turns. What the view shows
    of the turn (`this_turn`) starts afresh: no target tray yet."""
    state["active"], state["phase"] = seat, phase
    state["turn"] += 1
    state["target"], state["plus2"], state["extra_used"] = None, False, False


def senate_place(state: State, seat: int) -> tuple[int, int]:
    """(space, height in its stack): further along first, then higher in the stack."""
    for space, stack in enumerate(state["senate"]):
        if seat in stack:
            return space, stack.index(seat)
    raise ValueError(f"seat {seat} has no senate disc")


def votes(state: State, seat: int) -> int:
    space, _ = senate_place(state, seat)
    tiles = state["seats"][seat]["tiles"]
    return int(SENATE[space]["votes"]) + sum(int(FORUM[t].get("votes", 0)) for t in tiles)


def neighbours(site: int) -> list[int]:
    """The orthogonal neighbours of a construction site (row-major grid)."""
    row, col = divmod(site, COLUMNS)
    out = []
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= r < ROWS and 0 <= c < COLUMNS:
            out.append(r * COLUMNS + c)
    return out


def site_name(site: int) -> str:
    row, col = divmod(site, COLUMNS)
    return f"{row + 1}-{col + 1}"
