"""Trajan as a state machine of named phases (README "Phases and move ids").

    start_cards  -> setup, in seat order: 3 commodity cards from the deck or the discard piles
    start_trajan -> setup, in seat order: 3 Trajan tiles to slots II, IV and VI
    choose       -> step 1: take every marker of one tray (the time marker moves that far)
    sow          -> step 1: put the markers one by one in the next trays clockwise
                    (step 2, the Trajan tile beside the target tray, follows on its own)
    action       -> step 3: an option of the pending action (the target tray's, a construction
                    bonus, an extra action), or pass
    discard      -> seaport: after drawing 2, discard 1
    load         -> seaport: load a ship unit by unit, then ship
    extra        -> spend an extra-action tile for one more action, or end the turn
    demands      -> quarter end, version 2: a seat with more than one way to meet the
                    demands chooses the tile for each demand that has a choice (quarter.py)
    bonus        -> quarter end: the senate's winner chooses a bonus tile (quarter.py)
    over

Each phase has ONE function listing its legal moves (MOVES) and one applying them (PLAY).
`play` works on a copy of the state (`copy_state`): the state it is given never changes.
"""

from __future__ import annotations

from collections.abc import Callable

from games.contract import Fact, Move, fact
from games.rng import Rng
from games.trajan import quarter, seaport
from games.trajan.actions import APPLY, OPTIONS, extra_tiles
from games.trajan.board import (
    COLOURS,
    COMMODITIES,
    CONSTRUCTION,
    DATA,
    SENATE,
    SETUP,
    SLOTS,
    TRAJAN,
    TRAJAN_KINDS,
    TRAYS,
    State,
    begin_turn,
    colour_names,
    copy_state,
    new_player,
    score_points,
    tray_name,
    who,
)
from games.trajan.commodities import PILES, draw_to_hand, drawable, take_from_pile

# --- setup -------------------------------------------------------------------------------


def _deal_markers(rng: Rng) -> list[list[str]]:
    """"puts 2 colored markers in each tray", two different colours in each (decisions
    note): shuffled until no tray holds a pair of one colour."""
    per_tray = int(SETUP["markers_per_tray"])
    markers = [c for c in COLOURS for _ in range(2)]
    while True:
        rng.shuffle(markers)
        trays = [markers[i:i + per_tray] for i in range(0, len(markers), per_tray)]
        if all(len(set(t)) == len(t) for t in trays):
            return trays


def _shuffled(items: list[str], rng: Rng) -> list[str]:
    out = list(items)
    rng.shuffle(out)
    return out


def setup(players: int, rng: Rng, rules_version: str = "1") -> State:
    """The summary's setup list, in its order; the two choices of setup (starting cards and
    Trajan tiles) are the phases `start_cards` and `start_trajan`. Version 1's state is
    exactly what it always was (no "rules" key), so its golden records re-enact hash for hash;
    a later version writes its number, a province's pile of tiles ("tiles") and the demand
    choice's record ("meeting"; README "Rules versions")."""
    forum_stack = _shuffled(list(DATA["forum"]), rng)
    extra_stack = _shuffled(list(DATA["extra"]), rng)
    demand_tiles = _shuffled([d for d, n in DATA["demands"].items() for _ in range(n)], rng)
    removed = int(SETUP["demands_removed"])
    provinces = {p: {"tile": forum_stack.pop(), "legions": []} for p in DATA["provinces"]}
    forum = [extra_stack.pop() for _ in range(int(SETUP["extra_spaces"]))]
    forum += [forum_stack.pop() for _ in range(int(SETUP["forum_spaces_per_player"]) * players)]
    district = [{"tile": t, "workers": []} for t in _shuffled(list(CONSTRUCTION), rng)]
    seats = [new_player(_deal_markers(rng)) for _ in range(players)]
    trajan = {k: _shuffled([t for t, s in TRAJAN.items() if s["kind"] == k], rng)
              for k in TRAJAN_KINDS}
    senate: list[list[int]] = [[] for _ in SENATE]
    senate[0] = list(reversed(range(players)))  # the first player on top
    bag = _shuffled(list(DATA["bonus"]), rng)
    for player in seats:
        player["bonus"].append({"tile": bag.pop(), "side": "gold"})
    senate_bonus = [bag.pop() for _ in range(int(SETUP["senate_bonus"]))]
    deck = _shuffled([c for c in COMMODITIES for _ in range(int(DATA["cards_per_commodity"]))],
                     rng)
    piles = [[deck.pop()], [deck.pop()]]
    state: State = {
        "players": players, "phase": "start_cards", "active": 0, "turn": 1, "picks": 0,
        "quarter": 1, "round": 1, "time": 0, "lap": int(SETUP["lap"][str(players)]),
        "round_over": False, "seats": seats, "deck": deck, "piles": piles, "reshuffles": 0,
        "forum": forum, "forum_stack": forum_stack, "extra_stack": extra_stack,
        "provinces": provinces, "district": district, "trajan": trajan, "senate": senate,
        "bag": bag, "senate_bonus": senate_bonus,
        "ships": {ship: "front" for ship in DATA["ships"]},
        "demands": [], "demand_stack": demand_tiles[removed:],
        "demand_removed": demand_tiles[:removed], "gone": [], "demands_done": [],
        "in_hand": [], "target": None, "plus2": False, "pending": [], "extra_used": False,
        "loading": None, "vote": None, "next": None,
    }
    if rules_version != "1":
        state["rules"] = int(rules_version)
        state["provinces"] = {p: {"tiles": [spot["tile"]], "legions": []}
                              for p, spot in provinces.items()}
        state["meeting"] = None
    return state


# --- the two setup choices ---------------------------------------------------------------


def start_cards_moves(state: State, seat: int) -> list[Move]:
    """"each player draws 3 commodity cards ... from either the deck and/or the discard
    piles" """
    moves: list[Move] = []
    if drawable(state):
        moves.append({"id": "start:deck", "label": "Draw a card from the deck"})
    for i, pile in enumerate(state["piles"]):
        if pile:
            moves.append({"id": f"start:take:{PILES[i]}", "label": f"Take the {pile[-1]} from "
                          f"the {PILES[i]} discard pile", "pile": PILES[i], "card": pile[-1]})
    return moves


def play_start_cards(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["id"] == "start:deck":
        facts = draw_to_hand(state, seat, 1, rng, "starting cards")
    else:
        facts = take_from_pile(state, seat, PILES.index(move["pile"]), rng)
    return facts + _next_pick(state, seat, "start_cards", int(SETUP["start_cards"]))


def _next_pick(state: State, seat: int, phase: str, picks: int) -> list[Fact]:
    """After `picks` picks a seat's setup step is over; after the last seat, the next one."""
    state["picks"] += 1
    if state["picks"] < picks:
        return []
    state["picks"] = 0
    if seat + 1 < state["players"]:
        begin_turn(state, seat + 1, phase)
    else:
        begin_turn(state, 0, "start_trajan" if phase == "start_cards" else "choose")
    return []


def start_trajan_moves(state: State, seat: int) -> list[Move]:
    """"each player takes 3 Trajan tiles ... on the II, IV, and VI spots ... in order they
    like. A player may not take more than 1 tile of each category." """
    slots = state["seats"][seat]["slots"]
    taken = {TRAJAN[t]["kind"] for t in slots if t is not None}
    free = [i for i in SETUP["start_trajan_slots"] if slots[i] is None]
    return [{"id": f"start:{kind}:{SLOTS[i]}", "label": f"Take the {kind} Trajan tile "
             f"({colour_names(TRAJAN[stack[-1]]['colours'], ' + ')}) to slot {SLOTS[i]}",
             "kind": kind, "tile": stack[-1], "slot": SLOTS[i]}
            for kind in TRAJAN_KINDS if kind not in taken and (stack := state["trajan"][kind])
            for i in free]


def play_start_trajan(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    tile = state["trajan"][move["kind"]].pop()
    state["seats"][seat]["slots"][SLOTS.index(move["slot"])] = tile
    facts = [fact(f"{who(seat)} places a {move['kind']} Trajan tile on slot {move['slot']}.",
                  seat=seat, tile=tile, slot=move["slot"])]
    return facts + _next_pick(state, seat, "start_trajan", len(SETUP["start_trajan_slots"]))


# --- step 1: take a tray's markers, move the time marker, sow -----------------------------


def choose_moves(state: State, seat: int) -> list[Move]:
    player = state["seats"][seat]
    moves: list[Move] = []
    for i, markers in enumerate(player["trays"]):
        if not markers:
            continue
        label = f"Take the {len(markers)} marker(s) of {tray_name(i)} ({colour_names(markers)})"
        moves.append({"id": f"tray:{TRAYS[i]}", "label": label, "tray": TRAYS[i]})
        if player["plus2"]:
            moves.append({"id": f"tray:{TRAYS[i]}:plus2", "label": label + " and spend a +2 "
                          "marker", "tray": TRAYS[i], "plus2": True})
    return moves


def play_choose(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player = state["seats"][seat]
    tray = TRAYS.index(move["tray"])
    markers = player["trays"][tray]
    state["in_hand"], player["trays"][tray] = list(markers), []
    state["target"], state["plus2"] = tray, bool(move.get("plus2"))
    facts = [fact(f"{who(seat)} takes the markers of {tray_name(tray)}: {colour_names(markers)}.",
                  seat=seat, tray=TRAYS[tray], markers=list(markers))]
    facts += _move_time(state, len(markers))
    return facts + _sow_forced(state, seat, rng)


def _move_time(state: State, spaces: int) -> list[Fact]:
    """"As soon as the time marker arrives at or crosses the start space, the current round
    ends after the player finishes their turn." One round at most per move (note)."""
    before = state["time"]
    state["time"] = (before + spaces) % state["lap"]
    facts = [fact(f"The time marker moves {spaces} space(s) to {state['time']}.",
                  time=state["time"], spaces=spaces)]
    if before + spaces >= state["lap"] and not state["round_over"]:
        state["round_over"] = True
        facts.append(fact("The time marker reached the start: the round ends after this turn.",
                          round=state["round"]))
    return facts


def sow_moves(state: State, seat: int) -> list[Move]:
    tray = (state["target"] + 1) % len(TRAYS)
    return [{"id": f"sow:{c}", "label": f"Put a {colour_names([c])} marker in {tray_name(tray)}",
             "colour": c,
             "tray": TRAYS[tray]} for c in COLOURS if c in state["in_hand"]]


def _place(state: State, seat: int, colour: str) -> None:
    tray = (state["target"] + 1) % len(TRAYS)
    state["in_hand"].remove(colour)
    state["seats"][seat]["trays"][tray].append(colour)
    state["target"] = tray  # the tray of the last marker put is the target tray


def play_sow(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    _place(state, seat, move["colour"])
    facts = [fact(f"{who(seat)} puts a {colour_names([move['colour']])} marker in "
                  f"{move['tray'].capitalize()}.",
                  seat=seat, colour=move["colour"], tray=move["tray"])]
    return facts + _sow_forced(state, seat, rng)


def _sow_forced(state: State, seat: int, rng: Rng) -> list[Fact]:
    """Markers of a single colour left in hand leave no choice: they are put at once."""
    if len(set(state["in_hand"])) > 1:
        state["phase"] = "sow"
        return []
    facts: list[Fact] = []
    while state["in_hand"]:
        colour = state["in_hand"][0]
        _place(state, seat, colour)
        facts.append(fact(f"{who(seat)} puts a {colour_names([colour])} marker in "
                          f"{tray_name(state['target'])}.", seat=seat, colour=colour,
                          tray=TRAYS[state["target"]]))
    return facts + _target(state, seat, rng)


def _target(state: State, seat: int, rng: Rng) -> list[Fact]:
    """The target tray (two further with a +2 marker, README decision 5), step 2, step 3."""
    player = state["seats"][seat]
    if state["plus2"]:
        player["plus2"] -= 1
        state["target"] = (state["target"] + 2) % len(TRAYS)
        state["plus2"] = False
    target = state["target"]
    facts = [fact(f"The target tray is {tray_name(target)}.", seat=seat, tray=TRAYS[target])]
    facts += _accomplish(state, seat, target, rng)
    state["pending"] = [{"action": TRAYS[target], "why": "tray"}]
    state["extra_used"] = False
    return facts + _advance(state, seat, rng)


# --- step 2: the Trajan tile beside the target tray ---------------------------------------


def matches(markers: list[str], colours: list[str]) -> bool:
    """The tray holds markers of the tile's colours (two of one colour if it shows it twice)."""
    return all(markers.count(c) >= colours.count(c) for c in colours)


def _accomplish(state: State, seat: int, tray: int, rng: Rng) -> list[Fact]:
    """"If a Trajan tile lies next to the target tray and there are action markers there
    matching the tile's colors, the player removes the Trajan tile and carries out its
    action." (If possible: never a choice, so it happens on its own.)"""
    player = state["seats"][seat]
    tile = player["slots"][tray]
    if tile is None or not matches(player["trays"][tray], TRAJAN[tile]["colours"]):
        return []
    spec = TRAJAN[tile]
    player["slots"][tray] = None
    if player["arch"] is None:  # "placed back on the mat once a spot opens up"
        player["arch"] = tray
    facts = [fact(f"{who(seat)} accomplishes the {spec['kind']} Trajan tile of slot "
                  f"{SLOTS[tray]}.", seat=seat, tile=tile, slot=SLOTS[tray])]
    facts.append(score_points(state, seat, int(spec["points"]), "trajan_tile",
                              f"{spec['kind']} Trajan tile"))
    return facts + _tile_effect(state, seat, tile, rng)


def _tile_effect(state: State, seat: int, tile: str, rng: Rng) -> list[Fact]:
    player, spec = state["seats"][seat], TRAJAN[tile]
    effect, count = spec["effect"], int(spec.get("count", 0))
    if effect == "demand":  # it stays on the mat
        player["kept"].append(tile)
        return []
    state["gone"].append(tile)  # "The tile is then removed from the game."
    if effect == "draw_cards":
        return draw_to_hand(state, seat, count, rng, "Trajan tile")
    if effect == "plus2":
        player["plus2"] += count
        return [fact(f"{who(seat)} gains {count} +2 marker(s).", seat=seat, plus2=count)]
    if effect in ("legionnaires", "workers"):
        moved = min(count, player["supply"])
        player["supply"] -= moved
        camp = "legion_camp" if effect == "legionnaires" else "worker_camp"
        player[camp] += moved
        where = "military camp" if effect == "legionnaires" else "worker camp"
        return [fact(f"{who(seat)} moves {moved} piece(s) to the {where}.", seat=seat,
                     moved=moved, camp=camp)]
    return []  # "points": the points alone


# --- step 3: the action(s) ---------------------------------------------------------------


def _advance(state: State, seat: int, rng: Rng) -> list[Fact]:
    """On to the next pending action with an option; then the extra action; then the end."""
    facts: list[Fact] = []
    while state["pending"]:
        action = state["pending"][0]["action"]
        if OPTIONS[action](state, seat):
            state["phase"] = "action"
            return facts
        state["pending"].pop(0)
        facts.append(fact(f"{who(seat)} cannot perform the {action} action.", seat=seat,
                          action=action))
    if not state["extra_used"] and _extra_actions(state, seat):
        state["phase"] = "extra"
        return facts
    return facts + _end_turn(state, seat, rng)


def action_moves(state: State, seat: int) -> list[Move]:
    pending = state["pending"][0]
    moves = OPTIONS[pending["action"]](state, seat)
    why = {"tray": "", "bonus": " (construction bonus)", "extra": " (extra action)"}
    return moves + [{"id": "pass", "label": f"Do not perform the {pending['action']} action"
                     f"{why[pending['why']]}"}]


def play_action(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    pending = state["pending"].pop(0)
    if move["id"] == "pass":
        facts = [fact(f"{who(seat)} does not perform the {pending['action']} action.",
                      seat=seat, action=pending["action"])]
    else:
        facts = APPLY[pending["action"]](state, seat, move, rng)
    if state["phase"] != "action":  # a seaport sub-phase: discard or load
        return facts
    return facts + _advance(state, seat, rng)


def discard_moves(state: State, seat: int) -> list[Move]:
    return seaport.discard_moves(state, seat)


def play_discard(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    return seaport.discard(state, seat, move) + _advance(state, seat, rng)


def load_moves(state: State, seat: int) -> list[Move]:
    return seaport.load_moves(state, seat)


def play_load(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["id"] == "ship:done":
        return seaport.ship_done(state, seat) + _advance(state, seat, rng)
    return seaport.load(state, seat, move)


def _extra_actions(state: State, seat: int) -> list[str]:
    return [a for a in TRAYS if extra_tiles(state, seat, a) and OPTIONS[a](state, seat)]


def extra_moves(state: State, seat: int) -> list[Move]:
    moves: list[Move] = [{"id": f"extra:{a}", "label": f"Spend a tile for an extra {a} action",
                          "action": a} for a in _extra_actions(state, seat)]
    return moves + [{"id": "end", "label": "End your turn"}]


def play_extra(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["id"] == "end":
        return _end_turn(state, seat, rng)
    tile = extra_tiles(state, seat, move["action"])[0]
    state["seats"][seat]["tiles"].remove(tile)
    state["gone"].append(tile)
    state["extra_used"] = True
    state["pending"] = [{"action": move["action"], "why": "extra"}]
    facts = [fact(f"{who(seat)} spends a tile for an extra {move['action']} action.",
                  seat=seat, tile=tile, action=move["action"])]
    return facts + _advance(state, seat, rng)


def _end_turn(state: State, seat: int, rng: Rng) -> list[Fact]:
    nxt = (seat + 1) % state["players"]
    if state["round_over"]:
        state["round_over"] = False
        return quarter.end_round(state, nxt, rng)
    begin_turn(state, nxt)
    return []


# --- the tables --------------------------------------------------------------------------

MOVES: dict[str, Callable[[State, int], list[Move]]] = {
    "start_cards": start_cards_moves, "start_trajan": start_trajan_moves,
    "choose": choose_moves, "sow": sow_moves, "action": action_moves,
    "discard": discard_moves, "load": load_moves, "extra": extra_moves,
    "bonus": quarter.bonus_moves, "demands": quarter.demand_moves,
    "over": lambda state, seat: [],
}

PLAY: dict[str, Callable[[State, int, Move, Rng], list[Fact]]] = {
    "start_cards": play_start_cards, "start_trajan": play_start_trajan,
    "choose": play_choose, "sow": play_sow, "action": play_action,
    "discard": play_discard, "load": play_load, "extra": play_extra,
    "bonus": quarter.play_bonus, "demands": quarter.play_demand,
}


def actors(state: State) -> set[int]:
    return set() if state["phase"] == "over" else {int(state["active"])}


def play(state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
    new = copy_state(state)
    return new, PLAY[new["phase"]](new, seat, move, rng)
