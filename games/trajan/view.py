"""What a seat knows: its view of the table, its prompt, and determinized states for AI.

Secret (decisions note): each commodity hand (its owner sees it; the others see its size and
the cards they saw it take from a discard pile), the commodity deck's order, the face-down
stacks (forum tiles, extra-action tiles, demand tiles, the Trajan stacks below their tops,
the bonus tiles in the bag) and the 3 demand tiles removed unseen. The rest is public.
After a reshuffle the state also keeps the books of the deck's generation
(games.trajan.commodities): the view shows none of them; `determinize` reads them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.generations import deal
from games.rng import Rng
from games.trajan.board import (
    COMMODITIES,
    CONSTRUCTION,
    DATA,
    PROVINCES,
    SENATE,
    SETUP,
    SHIPS,
    SLOTS,
    TRAJAN,
    TRAJAN_KINDS,
    TRAYS,
    Player,
    State,
    colour_names,
    copy_state,
    forum_kind,
    senate_place,
    site_name,
    tray_name,
    votes,
)
from games.trajan.commodities import hand_size
from games.trajan.rules import actors
from games.trajan.scoring import score
from games.trajan.seaport import load_moves


def _trajan_tile(tile: str | None) -> dict[str, Any] | None:
    if tile is None:
        return None
    spec = TRAJAN[tile]
    return {"tile": tile, "kind": spec["kind"], "colours": list(spec["colours"]),
            "points": spec["points"]}


def _forum_tile(tile: str | None) -> dict[str, Any] | None:
    return None if tile is None else {"tile": tile, "kind": forum_kind(tile)}


def _province_tiles(spot: dict[str, Any]) -> dict[str, Any]:
    """Version 1: `tile`, the one tile or null; version 2: `tiles`, the pile in the order
    the tiles were laid (public, as the whole military map is)."""
    if "tiles" in spot:
        return {"tiles": [_forum_tile(t) for t in spot["tiles"]]}
    return {"tile": _forum_tile(spot["tile"])}


def mat_lines(player: Player) -> list[str]:
    """The six trays in their circle, for a person: "Seaport: orange, blue"."""
    lines = []
    for i, markers in enumerate(player["trays"]):
        text = f"{tray_name(i)}: {colour_names(markers) if markers else 'empty'}"
        tile = player["slots"][i]
        if tile is not None:
            text += f" [Trajan tile {SLOTS[i]}: {TRAJAN[tile]['kind']}, " \
                    f"{colour_names(TRAJAN[tile]['colours'], ' + ')}]"
        elif player["arch"] == i:
            text += f" [arch on slot {SLOTS[i]}]"
        lines.append(text)
    return lines


def _mat(state: State, s: int, seat: int | None) -> dict[str, Any]:
    p = state["seats"][s]
    space, height = senate_place(state, s)
    entry: dict[str, Any] = {
        "seat": s,
        "points": p["points"],
        "trays": [{"tray": TRAYS[i], "name": tray_name(i), "markers": list(p["trays"][i]),
                   "slot": SLOTS[i], "trajan_tile": _trajan_tile(p["slots"][i]),
                   "arch": p["arch"] == i} for i in range(len(TRAYS))],
        "mat": mat_lines(p),
        "arch": "centre" if p["arch"] is None else SLOTS[p["arch"]],
        "plus2": p["plus2"],
        "hand_size": hand_size(p),
        "known_cards": {c: n for c, n in p["known"].items() if n},
        "display": {c: n for c, n in p["display"].items() if n},
        "tiles": [_forum_tile(t) for t in p["tiles"]],
        "trajan_demand_tiles": [_trajan_tile(t) for t in p["kept"]],
        "construction": [{"tile": t, **CONSTRUCTION[t]} for t in p["construction"]],
        "bonus": [dict(b) for b in p["bonus"]],
        "supply": p["supply"],
        "military_camp": p["legion_camp"],
        "worker_camp": p["worker_camp"],
        "leader": p["leader"],
        "senate": {"space": space, "height": height, "votes": votes(state, s)},
    }
    if s == seat or state["phase"] == "over":  # at the end every hand is shown
        entry["hand"] = {c: n for c, n in p["hand"].items() if n}
    return entry


def _boards(state: State) -> dict[str, Any]:
    leaders: dict[str, list[int]] = {}
    for s, p in enumerate(state["seats"]):
        leaders.setdefault(p["leader"], []).append(s)
    return {
        "seaport": {
            "deck": len(state["deck"]), "piles": [list(p) for p in state["piles"]],
            "reshuffles": state["reshuffles"],
            "ships": [{"ship": ship, "name": spec["name"], "side": state["ships"][ship],
                       "combination": spec["combination"],
                       "points": {str(lv["count"]): lv[state["ships"][ship]]
                                  for lv in spec["levels"]}}
                      for ship, spec in SHIPS.items()]},
        "forum": {"tiles": [_forum_tile(t) for t in state["forum"]],
                  "stack": len(state["forum_stack"]), "extra_stack": len(state["extra_stack"])},
        "military": {"camp_leaders": leaders.get("camp", []), "provinces": [
            {"province": p, "name": spec["name"], "points": spec["points"],
             **_province_tiles(state["provinces"][p]),
             "legionnaires": list(state["provinces"][p]["legions"]),
             "leaders": leaders.get(p, [])} for p, spec in PROVINCES.items()]},
        "trajan": [{"kind": k, "size": len(state["trajan"][k]),
                    "top": _trajan_tile(state["trajan"][k][-1] if state["trajan"][k] else None)}
                   for k in TRAJAN_KINDS],
        "senate": {"spaces": [{"space": i, "points": sp["points"], "votes": sp["votes"],
                               "discs": list(state["senate"][i])}
                              for i, sp in enumerate(SENATE)],
                   "bonus_tiles": list(state["senate_bonus"]), "bag": len(state["bag"])},
        "construction": {"rows": DATA["district"]["rows"], "columns": DATA["district"]["columns"],
                         "sites": [{"site": site_name(i), "tile": site["tile"],
                                    "workers": list(site["workers"])}
                                   for i, site in enumerate(state["district"])]},
        "demands": {"revealed": list(state["demands"]), "stack": len(state["demand_stack"]),
                    "removed": len(state["demand_removed"]),
                    "earlier": list(state["demands_done"])},
    }


def view(state: State, seat: int | None) -> dict[str, Any]:
    over = state["phase"] == "over"
    loading = state["loading"]
    return {
        "phase": state["phase"],
        "active": state["active"],
        "turn": state["turn"],
        "actors": sorted(actors(state)),
        "quarter": state["quarter"],
        "round": state["round"],
        "quarters": int(SETUP["quarters"]),
        "time_track": {"position": state["time"], "length": state["lap"], "start": 0,
                       "round_ends_after_turn": state["round_over"]},
        "this_turn": {
            "markers_in_hand": list(state["in_hand"]),
            "target": None if state["target"] is None else TRAYS[state["target"]],
            "pending": [dict(p) for p in state["pending"]],
            "extra_used": state["extra_used"],
            "loading": None if loading is None else {**loading, "cards": list(loading["cards"])},
        },
        "vote": None if state["vote"] is None else list(state["vote"]),
        "players": [_mat(state, s, seat) for s in range(state["players"])],
        **_boards(state),
        "prompt": prompt(state, seat),
        "score": score(state) if over else None,
        **_meeting(state),
    }


def _meeting(state: State) -> dict[str, Any]:
    """Version 2 only: `demand_choice`, the seat choosing how to meet the demands and what it
    has met and spent so far (public: the mat is), else null. A version 1 view has no such
    key, as it never had."""
    if "meeting" not in state:
        return {}
    meeting = state["meeting"]
    if meeting is None:
        return {"demand_choice": None}
    return {"demand_choice": {"seat": meeting["seat"], "open": list(meeting["open"]),
                              "met": list(meeting["met"]), "spent": list(meeting["spent"])}}


PROMPTS = {
    "start_cards": "Take a starting commodity card from the deck or a discard pile.",
    "start_trajan": "Take a starting Trajan tile (one of each category) to slot II, IV or VI.",
    "choose": "Choose a tray and take all of its action markers.",
    "sow": "Put the next action marker in the next tray clockwise.",
    "action": "Perform an option of the action, or pass.",
    "discard": "Discard a commodity card to one of the discard piles.",
    "load": "Load the ship, then ship the goods.",
    "extra": "Spend an extra-action tile for one more action, or end your turn.",
    "bonus": "You won the senate vote: choose a bonus tile (gold side).",
    "demands": "Choose the tile that meets the people's demand: a matching forum tile or a "
               "demand wildcard.",
    "over": "The game is over.",
}


def prompt(state: State, seat: int | None) -> str | None:
    if seat is None or seat not in actors(state):
        return None
    return PROMPTS[state["phase"]]


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A state `seat` cannot tell from this one: only what it cannot know is dealt anew.
    - commodity cards (`_deal_commodities`): the deck and the other hands but for their known
      cards, dealt back in the same sizes (the discard piles and displays are public), only
      as some true world could hold them: after a reshuffle, the deck only from what the
      discard piles gave it (README decision 19);
    - the forum stack, the extra-action stack, the bonus bag: each shuffled;
    - the demand stack and the 3 removed demand tiles: one pool, dealt back in the same sizes;
    - each Trajan stack below its (public) top: shuffled.
    Each pool is put in a canonical (sorted) order before it is shuffled, so the result
    depends on what the seat knows and on `rng` alone, never on the order the true state
    holds the hidden cards and tiles in."""
    new = copy_state(state)
    _deal_commodities(new, seat, rng)
    for key in ("forum_stack", "extra_stack", "bag"):
        new[key].sort()
        rng.shuffle(new[key])
    pool = sorted(new["demand_stack"] + new["demand_removed"])
    rng.shuffle(pool)
    size = len(new["demand_stack"])
    new["demand_stack"], new["demand_removed"] = pool[:size], pool[size:]
    for kind in TRAJAN_KINDS:
        stack = new["trajan"][kind]
        below = sorted(stack[:-1])
        rng.shuffle(below)
        new["trajan"][kind] = below + stack[-1:]
    return new


# Deals tried for a loader's hand (`_deal_commodities`): a pairs ship with few pairs left in
# the pool lets about 1 deal in 100 go on (random games), so the last one tried is taken
# about once in 10 million such states.
LOADER_DEALS = 2000


def _deal_commodities(state: State, seat: int, rng: Rng) -> None:
    """The other hands but for their known cards, and the deck: dealt anew in the same sizes,
    only as some true world could hold them (`_deal_hands`).

    During a shipment (README decision 19) the loader's hand is dealt like the others, but
    only as a hand that can go on loading: its moves so far said it can (a load is offered
    only while a combination on the ship stays reachable), so a world whose loader could not
    would be no true world. Such deals are drawn again, at most LOADER_DEALS times, then the
    last is taken: which deal is taken depends on the pool and `rng` alone, never on the
    true hand. For the loader's own seat, the only one to act then (so the only one a bot
    or `games.information` determinizes for), its hand is no secret and is kept."""
    loader = state["active"] if state["phase"] == "load" else None
    if loader is None or loader == seat:
        _deal_hands(state, [seat], rng)
        return
    for _ in range(LOADER_DEALS):
        world = copy_state(state)
        _deal_hands(world, [seat], rng)
        if load_moves(world, loader):
            break
    state.update(world)


def _deal_hands(state: State, fixed: list[int], rng: Rng) -> None:
    """The hands of the seats not in `fixed` but for their known cards, and the deck: dealt
    anew in the same sizes (`_deal_generations` once the deck has been reshuffled; before
    that, any deal is one: every such card came out of the one shuffled deck of the setup,
    and every card that left a hand did so face up). Once the game is over every hand is
    public (`view`): only the deck's order is dealt anew."""
    over = state["phase"] == "over"  # every hand is shown then
    others = [] if over else [s for s in range(state["players"]) if s not in fixed]
    if others and _deal_generations(state, fixed, others, rng):
        return
    players = [state["seats"][s] for s in others]
    pool = list(state["deck"])
    unknown = []
    for p in players:
        hidden = {c: p["hand"][c] - p["known"][c] for c in p["hand"]}
        pool += [c for c, n in hidden.items() for _ in range(n)]
        unknown.append(sum(hidden.values()))
    pool.sort()  # canonical: which card is where is what is hidden
    rng.shuffle(pool)
    for p, n in zip(players, unknown, strict=True):
        p["hand"] = dict(p["known"])
        for c in pool[:n]:
            p["hand"][c] += 1
        del pool[:n]
    state["deck"] = pool


def _deal_generations(state: State, fixed: list[int], others: list[int], rng: Rng) -> bool:
    """After a reshuffle (the books of games.trajan.commodities): the deck and the unknown
    cards of the hands of `others`, dealt so that a true world could hold them
    (`games.generations.deal`: the new deck only from what the discard piles gave it, less
    the cards turned up from it since; the unknown cards each other seat held then only in
    its hand or among what it played since; a kept hand's draw across the reshuffle counted
    as both may have been); the hands of `fixed` (the seat, the loader) are kept. False when
    there are no books (no reshuffle yet; or a state kept from before they were kept) or no
    world was found: then the pooled deal (right before a reshuffle, the best there is
    after). Known limit: after a second reshuffle, the cards held at the last one are one
    pool."""
    books = state.get("provenance")
    if books is None:
        return False
    players = state["seats"]
    straddle = books["straddle"]
    unknown = {s: Counter({c: players[s]["hand"][c] - players[s]["known"][c]
                           for c in COMMODITIES}) for s in others}
    dealt = deal(books, state["deck"], unknown, fixed,
                 sum((Counter(players[s]["drawn"]) for s in fixed), Counter()),
                 Counter(players[straddle[0]]["straddle"]) if straddle and straddle[0] in fixed
                 else Counter(), rng)
    if dealt is None:
        return False
    for s in others:
        hand = Counter(players[s]["known"]) + dealt.hands[s]
        players[s]["hand"] = {c: hand[c] for c in COMMODITIES}
        players[s]["drawn"] = _counts(dealt.drawn[s])
        if s in dealt.straddle:
            players[s]["straddle"] = _counts(dealt.straddle[s])
    state["deck"] = dealt.deck
    return True


def _counts(cards: list[str]) -> dict[str, int]:
    return {c: cards.count(c) for c in COMMODITIES}
