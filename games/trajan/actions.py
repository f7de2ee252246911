"""The six actions: for each, ONE function listing its options as moves and one applying them
(OPTIONS, APPLY). A move of an action has the fields `action` and `option`; its id is
`<action>:<option>[:<detail>]`. The seaport has its own module (seaport.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.contract import Fact, Move, fact
from games.rng import Rng
from games.trajan import seaport
from games.trajan.board import (
    CAMP,
    CONSTRUCTION,
    CONSTRUCTION_BONUS,
    DATA,
    FORUM,
    PROVINCES,
    SENATE,
    SLOTS,
    TRAJAN,
    TRAJAN_KINDS,
    State,
    colour_names,
    forum_kind,
    neighbours,
    province_tiles,
    score_points,
    senate_place,
    site_name,
    who,
)


def _move(action: str, option: str, label: str, detail: str = "", **fields: Any) -> Move:
    suffix = f":{detail}" if detail else ""
    return {"id": f"{action}:{option}{suffix}", "label": label, "action": action,
            "option": option, **fields}


# --- forum ---------------------------------------------------------------------------------


def forum_options(state: State, seat: int) -> list[Move]:
    """"The player takes one tile of their choice from the forum": tiles of one kind are
    alike, so there is one move per kind (the first such tile in the forum)."""
    first: dict[str, str] = {}
    for tile in state["forum"]:
        first.setdefault(forum_kind(tile), tile)
    return [_move("forum", "take", f"Forum: take a {kind.replace('_', ' ')} tile", kind,
                  tile=tile, kind=kind) for kind, tile in first.items()]


def forum_apply(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    state["forum"].remove(move["tile"])
    state["seats"][seat]["tiles"].append(move["tile"])
    return [fact(f"{who(seat)} takes a {move['kind'].replace('_', ' ')} tile from the forum.",
                 seat=seat, tile=move["tile"], kind=move["kind"])]


# --- military ------------------------------------------------------------------------------


def _adjacent(place: str) -> list[str]:
    if place == CAMP:
        return [p for p, spec in PROVINCES.items() if spec["from_camp"]]
    return list(PROVINCES[place]["adjacent"])


def legionnaire_points(state: State, seat: int, province: str) -> int:
    """"The player gains the province's points if there are no legionnaires of other players
    there ... reduced by 3 for each other legionnaire" (never below 0, decisions note)."""
    others = sum(1 for s in state["provinces"][province]["legions"] if s != seat)
    reduction = int(DATA["legionnaire_reduction"])
    return max(0, int(PROVINCES[province]["points"]) - reduction * others)


def military_options(state: State, seat: int) -> list[Move]:
    player = state["seats"][seat]
    moves: list[Move] = []
    if player["supply"] > 0:
        moves.append(_move("military", "camp", "Military: a piece from your supply to the "
                           "military camp"))
    for province in _adjacent(player["leader"]):
        tiles = province_tiles(state["provinces"][province])
        kinds = ", ".join(forum_kind(t).replace("_", " ") for t in tiles)
        taken = "" if not tiles else f", take its {kinds} tile" if len(tiles) == 1 else \
            f", take its {len(tiles)} tiles ({kinds})"
        moves.append(_move("military", "move", f"Military: move your leader to "
                           f"{PROVINCES[province]['name']}{taken}", province,
                           province=province))
    here = player["leader"]
    if player["legion_camp"] > 0 and here != CAMP and \
            seat not in state["provinces"][here]["legions"]:
        points = legionnaire_points(state, seat, here)
        moves.append(_move("military", "legion", f"Military: a legionnaire into "
                           f"{PROVINCES[here]['name']} for {points} points", province=here,
                           points=points))
    return moves


def military_apply(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player = state["seats"][seat]
    if move["option"] == "camp":
        player["supply"] -= 1
        player["legion_camp"] += 1
        return [fact(f"{who(seat)} moves a piece to the military camp.", seat=seat)]
    province = move["province"]
    if move["option"] == "move":
        player["leader"] = province
        facts = [fact(f"{who(seat)} moves the leader to {PROVINCES[province]['name']}.",
                      seat=seat, province=province)]
        spot = state["provinces"][province]
        # "take any tile that is currently there": version 2's pile, each tile as version 1
        # takes its one, in the order they were laid
        for tile in province_tiles(spot):
            player["tiles"].append(tile)
            facts.append(fact(f"{who(seat)} takes the {forum_kind(tile).replace('_', ' ')} "
                              f"tile there.", seat=seat, tile=tile, kind=forum_kind(tile)))
        if "tiles" in spot:
            spot["tiles"] = []
        else:
            spot["tile"] = None
        return facts
    points = legionnaire_points(state, seat, province)
    player["legion_camp"] -= 1
    state["provinces"][province]["legions"].append(seat)
    return [fact(f"{who(seat)} moves a legionnaire into {PROVINCES[province]['name']}.",
                 seat=seat, province=province),
            score_points(state, seat, points, "legionnaire", PROVINCES[province]["name"])]


# --- senate --------------------------------------------------------------------------------


def senate_options(state: State, seat: int) -> list[Move]:
    space, _ = senate_place(state, seat)
    if space + 1 >= len(SENATE):  # "cannot be performed if ... already on the last space"
        return []
    points = int(SENATE[space + 1]["points"])
    return [_move("senate", "advance", f"Senate: advance one space for {points} points",
                  points=points)]


def senate_apply(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    space, _ = senate_place(state, seat)
    state["senate"][space].remove(seat)
    state["senate"][space + 1].append(seat)  # on top of any disc already there
    return [fact(f"{who(seat)} advances in the senate to space {space + 1}.", seat=seat,
                 space=space + 1),
            score_points(state, seat, int(SENATE[space + 1]["points"]), "senate",
                         f"senate space {space + 1}")]


# --- Trajan --------------------------------------------------------------------------------


def trajan_options(state: State, seat: int) -> list[Move]:
    arch = state["seats"][seat]["arch"]
    if arch is None:  # "cannot be performed if all of the slots are occupied"
        return []
    return [_move("trajan", "take", f"Trajan: take a {kind} tile ({_colours(stack[-1])}) "
                  f"to slot {SLOTS[arch]}", kind, kind=kind, tile=stack[-1], slot=SLOTS[arch])
            for kind in TRAJAN_KINDS if (stack := state["trajan"][kind])]


def _colours(tile: str) -> str:
    return colour_names(TRAJAN[tile]["colours"], " + ")


def next_free_slot(slots: list[str | None], after: int) -> int | None:
    """The next free slot clockwise after `after` (None: every slot is full)."""
    for step in range(1, len(slots) + 1):
        slot = (after + step) % len(slots)
        if slots[slot] is None:
            return slot
    return None


def trajan_apply(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player = state["seats"][seat]
    tile = state["trajan"][move["kind"]].pop()
    slot = player["arch"]
    player["slots"][slot] = tile
    player["arch"] = next_free_slot(player["slots"], slot)
    where = "the centre" if player["arch"] is None else f"slot {SLOTS[player['arch']]}"
    return [fact(f"{who(seat)} places a {move['kind']} Trajan tile on slot {SLOTS[slot]}; "
                 f"the arch moves to {where}.", seat=seat, tile=tile, slot=SLOTS[slot])]


# --- construction --------------------------------------------------------------------------


def legal_sites(state: State, seat: int) -> list[int]:
    """"If this is the first worker of theirs ... anywhere. Subsequent workers ... orthogonally
    adjacent to another of their workers." One worker of a seat per site (README decision)."""
    mine = [i for i, site in enumerate(state["district"]) if seat in site["workers"]]
    if not mine:
        return list(range(len(state["district"])))
    near = {n for i in mine for n in neighbours(i)}
    return sorted(n for n in near if seat not in state["district"][n]["workers"])


def construction_options(state: State, seat: int) -> list[Move]:
    player = state["seats"][seat]
    moves: list[Move] = []
    if player["supply"] > 0:
        moves.append(_move("construction", "camp", "Construction: a piece from your supply to "
                           "the worker camp"))
    if player["worker_camp"] > 0:
        for site in legal_sites(state, seat):
            tile = state["district"][site]["tile"]
            what = f", take {tile}" if tile else ""
            moves.append(_move("construction", "site", f"Construction: a worker to site "
                               f"{site_name(site)}{what}", site_name(site), site=site))
    return moves


def construction_apply(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player = state["seats"][seat]
    if move["option"] == "camp":
        player["supply"] -= 1
        player["worker_camp"] += 1
        return [fact(f"{who(seat)} moves a piece to the worker camp.", seat=seat)]
    site = state["district"][move["site"]]
    player["worker_camp"] -= 1
    site["workers"].append(seat)
    facts = [fact(f"{who(seat)} places a worker on site {site_name(move['site'])}.", seat=seat,
                  site=move["site"])]
    tile = site["tile"]
    if tile is None:
        return facts
    site["tile"] = None
    kind = CONSTRUCTION[tile]["type"]
    first = all(CONSTRUCTION[t]["type"] != kind for t in player["construction"])
    player["construction"].append(tile)
    facts.append(fact(f"{who(seat)} takes the construction tile {tile}.", seat=seat, tile=tile))
    facts.append(score_points(state, seat, int(CONSTRUCTION[tile]["points"]),
                              "construction_tile", tile))
    if first:  # "If this is their first tile of that type, immediately perform ..."
        bonus = CONSTRUCTION_BONUS[kind]
        state["pending"].insert(0, {"action": bonus, "why": "bonus"})
        facts.append(fact(f"{who(seat)}'s first {kind}: a {bonus} action at once.", seat=seat,
                          bonus=bonus))
    return facts


OPTIONS: dict[str, Callable[[State, int], list[Move]]] = {
    "seaport": seaport.options, "forum": forum_options, "military": military_options,
    "senate": senate_options, "trajan": trajan_options, "construction": construction_options,
}

APPLY: dict[str, Callable[[State, int, Move, Rng], list[Fact]]] = {
    "seaport": seaport.apply, "forum": forum_apply, "military": military_apply,
    "senate": senate_apply, "trajan": trajan_apply, "construction": construction_apply,
}


def extra_tiles(state: State, seat: int, action: str) -> list[str]:
    """The player's tiles that give an extra `action`: its own kind first, then wildcards."""
    tiles = state["seats"][seat]["tiles"]
    own = [t for t in tiles if FORUM[t].get("action") == action]
    wild = [t for t in tiles if FORUM[t].get("wild") == "action"]
    return own + wild
