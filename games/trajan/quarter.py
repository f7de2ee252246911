"""The end of a round and of a quarter, every step in the summary's order.

Round end: a demand tile is revealed; instead of a 4th, the quarter ends. Quarter end: the
demands, their penalty (rules version 2: the `demands` phase, in which a seat with more than
one way to meet them chooses the tiles, README decision 13), the senate vote; then the
`bonus` phase, in which the senate's winner chooses a bonus tile; then the rest of the steps
and the next player's turn (or the end).
"""

from __future__ import annotations

from games.contract import Fact, Move, fact
from games.rng import Rng
from games.trajan.board import (
    DATA,
    FORUM,
    PROVINCES,
    SETUP,
    SHIPS,
    TRAJAN,
    State,
    begin_turn,
    demands_chosen,
    piles_in_provinces,
    score_points,
    senate_place,
    votes,
    who,
)


def end_round(state: State, nxt: int, rng: Rng) -> list[Fact]:
    """"Reveal a demand tile and place it next to the board. Instead of revealing a 4th
    demand, the quarter ends." Then "The next player in order takes their action as usual." """
    if state["round"] < int(SETUP["rounds"]):
        demand = state["demand_stack"].pop()
        state["demands"].append(demand)
        state["round"] += 1
        begin_turn(state, nxt)
        return [fact(f"Round {state['round'] - 1} ends: the people demand {demand}.",
                     demand=demand, round=state["round"] - 1, quarter=state["quarter"])]
    state["next"] = nxt
    facts = [fact(f"Round {state['round']} ends: quarter {state['quarter']} ends.",
                  round=state["round"], quarter=state["quarter"])]
    if demands_chosen(state):
        return facts + _demands_from(state, 0, rng)
    for seat in range(state["players"]):
        facts += meet_demands(state, seat)
    return facts + _vote_and_bonus(state, rng)


def _vote_and_bonus(state: State, rng: Rng) -> list[Fact]:
    """Step 3, the senate vote; then the winner's bonus choice, or the rest of the list."""
    facts = senate_vote(state)
    if state["senate_bonus"]:
        begin_turn(state, state["vote"][0], "bonus")
        return facts
    return facts + finish_quarter(state, rng)


# --- 1. and 2. the people's demands ------------------------------------------------------


def meet_demands(state: State, seat: int) -> list[Fact]:
    """"Each player must spend a matching forum tile for each demand ... A player may meet a
    demand by a Trajan tile showing the matching demand, but each Trajan tile once per
    quarter. Any tokens used this way are kept." Trajan tiles first (they are kept), then a
    matching forum tile, then a demand wildcard (README decision 13)."""
    player = state["seats"][seat]
    open_demands = list(state["demands"])
    trajan = list(player["kept"])
    met: list[str] = []
    spent: list[str] = []
    for demand in list(open_demands):
        tile = next((t for t in trajan if _demand_of(t) == demand), None)
        if tile is not None:
            trajan.remove(tile)
            open_demands.remove(demand)
            met.append(demand)
    _spend_the_one_way(player["tiles"], open_demands, met, spent)
    state["gone"] += spent  # "The spent tokens are removed from the game."
    return _demands_met(state, seat, met, open_demands, spent)


def _spend_the_one_way(tiles: list[str], open_demands: list[str], met: list[str],
                       spent: list[str]) -> None:
    """Meet what `open_demands` still asks from `tiles` the one way decision 13 knows:
    matching forum tiles, then demand wildcards (every list is updated in place)."""
    for take in (lambda demand: _matching(tiles, demand), lambda _: _wildcard(tiles)):
        for demand in list(open_demands):
            tile = take(demand)
            if tile is not None:
                tiles.remove(tile)
                spent.append(tile)
                open_demands.remove(demand)
                met.append(demand)


def _demands_met(state: State, seat: int, met: list[str], unmet: list[str], spent: list[str]
                 ) -> list[Fact]:
    """The seat's demands are settled: what it met, and the penalty for the rest."""
    facts = [fact(f"{who(seat)} meets {len(met)} of {len(state['demands'])} demand(s).",
                  seat=seat, met=met, unmet=list(unmet), spent=spent)]
    penalty = int(DATA["penalties"][len(unmet)])
    if penalty:
        facts.append(score_points(state, seat, penalty, "demands",
                                  f"{len(unmet)} unmet demand(s)"))
    return facts


def _demand_of(trajan_tile: str) -> str | None:
    return TRAJAN[trajan_tile].get("demand")


# --- 1. and 2. in version 2: the player chooses the tiles (README decision 13) ------------


def _matching(tiles: list[str], demand: str) -> str | None:
    return next((t for t in tiles if FORUM[t].get("demand") == demand), None)


def _wildcard(tiles: list[str]) -> str | None:
    return next((t for t in tiles if FORUM[t].get("wild") == "demand"), None)


def _slack(tiles: list[str], open_demands: list[str]) -> int:
    """Demand wildcards beyond those the open demands without a matching tile need: above 0,
    every demand can be met and a demand with a matching tile may take a wildcard instead."""
    left = list(tiles)
    short = 0
    for demand in open_demands:
        tile = _matching(left, demand)
        if tile is None:
            short += 1
        else:
            left.remove(tile)
    return sum(1 for t in tiles if FORUM[t].get("wild") == "demand") - short


def choice_demand(state: State, seat: int, open_demands: list[str]) -> str | None:
    """The first open demand the seat may meet either way, with a matching forum tile or a
    demand wildcard, every demand being met both ways; None when the rest is forced (the
    ways left differ in nothing they leave on the mat)."""
    tiles = state["seats"][seat]["tiles"]
    if _slack(tiles, open_demands) <= 0:
        return None
    return next((d for d in open_demands if _matching(tiles, d) is not None), None)


def _demands_from(state: State, first: int, rng: Rng) -> list[Fact]:
    """Version 2: the seats meet the demands in seat order; a seat with a choice
    (`choice_demand`) is asked, as the `demands` phase; a seat without one meets them on its
    own, as version 1 does (its one way). Then the senate vote."""
    facts: list[Fact] = []
    for seat in range(first, state["players"]):
        player = state["seats"][seat]
        open_demands = list(state["demands"])
        met: list[str] = []
        for tile in player["kept"]:  # Trajan demand tiles first: they are kept
            demand = _demand_of(tile)
            if demand in open_demands:
                open_demands.remove(demand)
                met.append(str(demand))
        if choice_demand(state, seat, open_demands) is None:
            facts += meet_demands(state, seat)
            continue
        state["meeting"] = {"seat": seat, "open": open_demands, "met": met, "spent": []}
        begin_turn(state, seat, "demands")
        return facts
    state["meeting"] = None
    return facts + _vote_and_bonus(state, rng)


def demand_moves(state: State, seat: int) -> list[Move]:
    """"Each player must spend a matching forum tile for each demand": one move per way of
    meeting the first demand that can be met either way."""
    meeting = state["meeting"]
    demand = choice_demand(state, seat, meeting["open"])
    tiles = state["seats"][seat]["tiles"]
    if demand is None:  # never asked so (`_demands_from`, `play_demand`)
        return []
    tile, wild = _matching(tiles, demand), _wildcard(tiles)
    return [{"id": f"demand:{demand}:tile", "label": f"Meet a {demand} demand with a {demand} "
             "tile", "demand": demand, "tile": tile, "with": "tile"},
            {"id": f"demand:{demand}:wild", "label": f"Meet a {demand} demand with a demand "
             "wildcard", "demand": demand, "tile": wild, "with": "wild"}]


def play_demand(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    """The tile chosen is spent; while the seat has another choice it is asked again, then
    the rest is met as it must be (the one way left) and the next seat meets the demands."""
    meeting, player = state["meeting"], state["seats"][seat]
    player["tiles"].remove(move["tile"])
    state["gone"].append(move["tile"])
    meeting["open"].remove(move["demand"])
    meeting["met"].append(move["demand"])
    meeting["spent"].append(move["tile"])
    what = f"a {move['demand']} tile" if move["with"] == "tile" else "a demand wildcard"
    facts = [fact(f"{who(seat)} meets a {move['demand']} demand with {what}.", seat=seat,
                  demand=move["demand"], tile=move["tile"], used=move["with"])]
    if choice_demand(state, seat, meeting["open"]) is not None:
        return facts
    open_demands = meeting["open"]
    met, spent = list(meeting["met"]), list(meeting["spent"])
    _spend_the_one_way(player["tiles"], open_demands, met, spent)  # the one way left
    state["gone"] += [t for t in spent if t not in meeting["spent"]]
    # No penalty: a seat is asked only when every demand can be met.
    facts += _demands_met(state, seat, met, open_demands, spent)
    return facts + _demands_from(state, seat + 1, rng)


# --- 3. the senate vote ------------------------------------------------------------------


def vote_key(state: State, seat: int) -> tuple[int, int, int]:
    """"Ties are broken by whomever is further up on the senate track. Further ties are
    broken by which disc is on top." """
    space, height = senate_place(state, seat)
    return votes(state, seat), space, height


def senate_vote(state: State) -> list[Fact]:
    order = sorted(range(state["players"]), key=lambda s: vote_key(state, s), reverse=True)
    state["vote"] = order
    counted = {str(s): votes(state, s) for s in order}
    return [fact(f"The senate votes: {who(order[0])} first, {who(order[1])} second.",
                 order=order, votes=counted)]


# --- 4. and 5. the bonus tiles -----------------------------------------------------------


def bonus_moves(state: State, seat: int) -> list[Move]:
    return [{"id": f"bonus:{tile}", "label": f"Take bonus tile {tile} (gold side)",
             "tile": tile} for tile in state["senate_bonus"]]


def play_bonus(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    """"The player with the most votes chooses one bonus tile and takes it yellow side up. The
    player with the second most votes takes the remaining tiles and places it gray side up." """
    state["senate_bonus"].remove(move["tile"])
    state["seats"][seat]["bonus"].append({"tile": move["tile"], "side": "gold"})
    facts = [fact(f"{who(seat)} takes bonus tile {move['tile']}, gold side up.", seat=seat,
                  tile=move["tile"], side="gold")]
    second = state["vote"][1]
    for tile in state["senate_bonus"]:
        state["seats"][second]["bonus"].append({"tile": tile, "side": "silver"})
        facts.append(fact(f"{who(second)} takes bonus tile {tile}, silver side up.",
                          seat=second, tile=tile, side="silver"))
    state["senate_bonus"] = []
    return facts + finish_quarter(state, rng)


# --- 6. to 11. ---------------------------------------------------------------------------


def finish_quarter(state: State, rng: Rng) -> list[Fact]:
    """The rest of the list, in its order, at every quarter's end (the 4th included: the
    summary ends the game after the last step, README decision 16)."""
    facts = [_reset_senate(state), _clear_tiles(state)]
    state["demands_done"] += state["demands"]
    state["demands"] = []
    facts += _new_quarter(state)
    if state["quarter"] >= int(SETUP["quarters"]):  # "If the last quarter year tile was removed"
        state["phase"], state["vote"] = "over", None
        return facts + [fact("The last quarter year tile is removed: the game is over.",
                             quarter=state["quarter"])]
    state["quarter"] += 1
    state["round"], state["vote"] = 1, None
    facts.append(fact(f"A quarter year tile is removed: quarter {state['quarter']} begins.",
                      quarter=state["quarter"]))
    begin_turn(state, state["next"])
    return facts


def _reset_senate(state: State) -> Fact:
    """"Return all vote discs back to the start space ... with the fewest votes on the bottom
    and most votes on top." """
    stacks: list[list[int]] = [[] for _ in state["senate"]]
    stacks[0] = list(reversed(state["vote"]))
    state["senate"] = stacks
    return fact("The senate discs return to the start space.", stack=list(stacks[0]))


def _clear_tiles(state: State) -> Fact:
    """"Remove all senate tiles from the game and all of the tiles currently in the forum." """
    removed = list(state["forum"])
    for player in state["seats"]:
        senate = [t for t in player["tiles"] if FORUM[t]["effect"] == "votes"]
        for tile in senate:
            player["tiles"].remove(tile)
        removed += senate
    state["gone"] += removed
    state["forum"] = []
    return fact("The senate tiles and the forum's tiles are removed from the game.",
                tiles=removed)


def _new_quarter(state: State) -> list[Fact]:
    """New bonus tiles; the forum laid again (decisions note) and a new tile in each province
    without figures (version 1: and without a tile, the forum first, README decisions 14 and
    15; version 2: on the province's pile, the provinces first); the ships back."""
    drawn = [state["bag"].pop() for _ in range(int(SETUP["senate_bonus"])) if state["bag"]]
    state["senate_bonus"] = drawn
    if piles_in_provinces(state):  # version 2: the rulebook's step first, as at setup
        laid = _lay_provinces(state)
        forum = _lay_forum(state)
    else:
        forum = _lay_forum(state)
        laid = _lay_provinces(state)
    for ship in SHIPS:
        state["ships"][ship] = "front"
    bonus = fact(f"{len(drawn)} new bonus tile(s) lie on the senate.", tiles=drawn)
    forum_laid = fact("The forum is laid anew.", tiles=list(forum))
    provinces = fact(f"{len(laid)} province(s) without figures get a new tile.", tiles=laid)
    ships = fact("The ships turn back to their coloured side.")
    if piles_in_provinces(state):
        return [bonus, provinces, forum_laid, ships]
    return [bonus, forum_laid, provinces, ships]


def _lay_forum(state: State) -> list[str]:
    """"At the end of each quarter the forum is cleared and laid again the same way" (note):
    3 extra-action tiles, then 3 x players forum tiles, as far as the stacks go."""
    forum = [state["extra_stack"].pop() for _ in range(int(SETUP["extra_spaces"]))
             if state["extra_stack"]]
    spaces = int(SETUP["forum_spaces_per_player"]) * state["players"]
    forum += [state["forum_stack"].pop() for _ in range(spaces) if state["forum_stack"]]
    state["forum"] = forum
    return forum


def _lay_provinces(state: State) -> dict[str, str]:
    """"Place a new forum tile in each province that does not contain any figures." Version
    1: only in a province without a tile too (README decision 14); version 2: on top of the
    tiles there (a pile)."""
    leaders = {p["leader"] for p in state["seats"]}
    piles = piles_in_provinces(state)
    laid: dict[str, str] = {}
    for province in PROVINCES:
        spot = state["provinces"][province]
        if spot["legions"] or province in leaders or not state["forum_stack"]:
            continue
        if piles:
            tile = str(state["forum_stack"].pop())
            spot["tiles"].append(tile)
            laid[province] = tile
        elif spot["tile"] is None:
            tile = str(state["forum_stack"].pop())
            spot["tile"] = laid[province] = tile
    return laid
