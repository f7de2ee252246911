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

from games.generations import attribute
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


def _trajan_tile(tile: str | None) -> dict[str, Any] | None:
    if tile is None:
        return None
    spec = TRAJAN[tile]
    return {"tile": tile, "kind": spec["kind"], "colours": list(spec["colours"]),
            "points": spec["points"]}


def _forum_tile(tile: str | None) -> dict[str, Any] | None:
    return None if tile is None else {"tile": tile, "kind": forum_kind(tile)}


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
             "tile": _forum_tile(state["provinces"][p]["tile"]),
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
    }


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
    depends on what the seat knows and on `rng` alone (but for the loader's hand while it
    loads: `_deal_commodities`), never on the order the true state holds the hidden cards and
    tiles in."""
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


def _deal_commodities(state: State, seat: int, rng: Rng) -> None:
    """The other hands but for their known cards, and the deck: dealt anew in the same sizes,
    only as some true world could hold them (`_deal_generations` once the deck has been
    reshuffled; before that, any deal is one: every such card came out of the one shuffled
    deck of the setup, and every card that left a hand did so face up).

    During a shipment the loader's hand is kept: what it can still load depends on it, and
    nobody else acts until it has shipped (README decision 19). So the loader's hand is the
    one hidden thing this keeps: for its own seat (which is the only one to act, so the only
    one a bot or `games.information` determinizes for) it is no secret, but a determinization
    for another seat while loading still depends on it (and on what the loader drew from the
    new deck, its `drawn`). Once the game is over every hand is public (`view`): only the
    deck's order is dealt anew."""
    loader = state["active"] if state["phase"] == "load" else None
    over = state["phase"] == "over"  # every hand is shown then
    fixed = [s for s in range(state["players"]) if s in (seat, loader)]
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
    cards of the hands of `others`, dealt so that a true world could hold them; the hands of
    `fixed` (the seat, the loader) are kept. False when there are no books (no reshuffle
    yet; or a state kept from before they were kept): then the pooled deal is right (or the
    best there is).

    What the seat knows since the last reshuffle: the new deck's composition less the cards
    turned face up from it since (`pool`); what the kept hands drew from it (their `drawn`);
    how many unknown cards each other seat held at the reshuffle (`old`), how many it drew
    from the new deck since and which of its unknown cards left its hand face up, in order
    (`ledger`). So the cards of the new deck not seen drawn ("new": `pool` less the kept
    hands' draws) are in the deck, among the others' unknown cards or among the cards they
    have played since; the other hidden cards ("old": the unseen cards with the ones the
    others played since, less the new ones) were unknown cards of the others' hands at the
    reshuffle, and are still there or among the played ones.

    A card another seat played since may have been an old or a new one, and the log does not
    say which. Each such card is given a side (`games.generations.attribute`): new only if
    the seat had drawn more new cards by then than it had played as new, old only while it
    had old cards left, and never more of a commodity on a side than that side holds. Some
    choice always exists (the true one); a backtracking search finds one, trying the sides
    in an order drawn from `rng` (if the search runs past its budget, the pooled deal is
    used). Then the new cards not played are dealt at random to the deck and each other
    seat's new cards (what it drew less what it played as new), and the old ones not played
    to each seat's old cards: every world dealt is one the log allows, not every such world
    equally often.
    A kept hand's draw across the reshuffle, if any (the fact names its cards together, so
    even its holder does not know which came from the new deck), is given sides the same
    way, as if its cards had been played: which of them were new decides how many of each
    commodity the new side holds. Each dealt seat's `drawn` (and `straddle`) is set to go
    with its new cards.

    Known limit: the old cards are one pool. After a second reshuffle, what an earlier
    generation's deck held (and which seat drew it) could tell more about whose hand an old
    card is in; that is not kept."""
    books = state.get("provenance")
    if books is None:
        return False
    players = state["seats"]
    unseen: Counter[str] = Counter(state["deck"])
    for s in others:
        unseen.update({c: players[s]["hand"][c] - players[s]["known"][c] for c in COMMODITIES})
    plays: list[list[tuple[str, int]]] = []  # per other seat: (card, new cards drawn by then)
    played: Counter[str] = Counter()
    for s in others:
        drawn, mine = 0, []
        for entry in books["ledger"][s]:
            if isinstance(entry, int):
                drawn += entry
            else:
                mine.append((entry, drawn))
                played[entry] += 1
        plays.append(mine)
    straddle = books["straddle"]  # [seat, old cards, new cards] of a draw across the reshuffle
    new_cards = Counter(books["pool"])  # the new deck, less what the kept hands drew from it
    for s in fixed:
        new_cards.subtract(players[s]["drawn"])
    old = [books["old"][s] for s in others]
    if straddle is not None and straddle[0] in fixed:
        # A kept hand's draw across the reshuffle: which of its cards were the new ones is
        # chosen like the sides of played cards, as if another seat had played them all.
        straddled = Counter(players[straddle[0]]["straddle"])
        plays.append([(c, straddle[2]) for c in sorted(straddled.elements())])
        old.append(straddle[1])
        played += straddled
    old_cards = unseen + played - new_cards
    if old_cards + new_cards != unseen + played:
        return False  # books that do not add up (cannot happen): the pooled deal
    sides = attribute(plays, old, new_cards, old_cards, rng)
    if sides is None:
        return False  # no world fits the books (cannot happen): the pooled deal
    for mine, side in zip(plays[len(others):], sides[len(others):], strict=True):
        new_cards -= Counter(c for (c, _), is_new in zip(mine, side, strict=True) if is_new)
        old_cards -= Counter(c for (c, _), is_new in zip(mine, side, strict=True) if not is_new)
    dealt: list[tuple[int, Counter[str], int, list[str]]] = []
    n = len(others)  # the straddle's sides, if any, come after: its cards are kept
    for s, mine, side in zip(others, plays[:n], sides[:n], strict=True):
        as_new = Counter(c for (c, _), is_new in zip(mine, side, strict=True) if is_new)
        as_old = [c for (c, _), is_new in zip(mine, side, strict=True) if not is_new]
        new_cards -= as_new
        old_cards -= Counter(as_old)
        new_slots = sum(e for e in books["ledger"][s] if isinstance(e, int)) - len(mine) + \
            len(as_old)
        if new_slots < 0 or new_slots + books["old"][s] - len(as_old) != _unknown(players[s]):
            return False  # books that do not add up (cannot happen): the pooled deal
        dealt.append((s, as_new, new_slots, as_old))
    new_pool = sorted(new_cards.elements())  # canonical: which card is where is what is hidden
    old_pool = sorted(old_cards.elements())
    rng.shuffle(new_pool)
    rng.shuffle(old_pool)
    for s, as_new, new_slots, as_old in dealt:
        old_slots = _unknown(players[s]) - new_slots
        fresh, kept = new_pool[:new_slots], old_pool[:old_slots]
        del new_pool[:new_slots], old_pool[:old_slots]
        hand = Counter(players[s]["known"]) + Counter(fresh + kept)
        players[s]["hand"] = {c: hand[c] for c in COMMODITIES}
        new = fresh + sorted(as_new.elements())
        if straddle is not None and straddle[0] == s:  # any of its new and old cards will do
            players[s]["straddle"] = _counts(new[:straddle[2]] + (kept + as_old)[:straddle[1]])
            new = new[straddle[2]:]
        players[s]["drawn"] = _counts(new)
    state["deck"] = new_pool
    return True


def _unknown(player: Player) -> int:
    return hand_size(player) - sum(player["known"].values())


def _counts(cards: list[str]) -> dict[str, int]:
    return {c: cards.count(c) for c in COMMODITIES}
