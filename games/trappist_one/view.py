"""What a seat knows: its view of the table, its prompt, and determinized states for AI.

Secret (decisions note): hands (mega-factory cards and cargo ships), the starting choice
until the reveal, hangars and scrapyards (face down: their owner sees them, the others see
how many), the decks and the cards back in the box. Everything else is public.
`determinize` deals anew less than the view hides: the log names every card in a hangar, a
scrapyard and a cargo hold (README decision 17); and after a reshuffle it deals only worlds
the log allows, from the books of the deck's generation that the state keeps (board.py), of
which the view shows nothing.

The starting choice: while `phase == "choose"` another seat's entry shows only
`has_chosen` and its hand size, which is its starting size minus 3 once it has chosen
whatever it chose; the facts of a pick carry its content to the picker alone.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.generations import attribute
from games.json_data import clone
from games.rng import Rng
from games.trappist_one.board import RESOURCES, State
from games.trappist_one.rules import actors, copy_state
from games.trappist_one.scoring import score


def view(state: State, seat: int | None) -> dict[str, Any]:
    over = state["phase"] == "over"
    return {
        "phase": state["phase"],
        "active": state["active"],
        "turn": state["turn"],
        "actors": sorted(actors(state)),
        "options": dict(state["options"]),
        "market": list(state["market"]),
        "points": list(state["points"]),
        "earth": {clan: list(ships) for clan, ships in state["earth"].items()},
        "factory_deck": len(state["factory_deck"]),
        "factory_discard": dict(state["factory_discard"]),
        "reshuffles": state["reshuffles"],
        "investment_deck": len(state["investment_deck"]),
        "removed": len(state["removed"]),
        "ship_discard": state["ship_discard"],
        "used": list(state["used"]),
        "placing": clone(state["placing"]),
        "shipment": clone(state["shipment"]),
        "reaction": clone(state["reaction"]),
        "ending": state["ending"],
        "players": [_player_view(state, s, seat, over) for s in range(state["players"])],
        "prompt": prompt(state, seat),
        "score": score(state) if over else None,
    }


def _player_view(state: State, s: int, seat: int | None, over: bool) -> dict[str, Any]:
    p = state["seats"][s]
    entry: dict[str, Any] = {
        "seat": s,
        "stargold": p["stargold"],
        "planets": {pl: list(fs) for pl, fs in p["planets"].items()},
        "satellites": dict(p["satellites"]),
        "stations": list(p["stations"]),
        "hand_count": sum(p["hand"].values()) + len(p["cargo"]),
        "hangar_count": len(p["hangar"]),
        "scrapyard_count": len(p["scrapyard"]),
    }
    if state["phase"] == "choose":
        entry["has_chosen"] = p["pick"] is not None
    if s == seat or over:
        entry["hand"] = dict(p["hand"])
        entry["cargo"] = list(p["cargo"])
        entry["hangar"] = list(p["hangar"])
        entry["scrapyard"] = list(p["scrapyard"])
        if p["pick"] is not None:
            entry["pick"] = dict(p["pick"])
    return entry


PROMPTS = {
    "choose": "Choose 3 mega-factory cards for Capital One (in secret; revealed together).",
    "benefit": "Benefit phase: take any benefits, in any order, then go on to buying.",
    "buying": "Buying phase: buy market cards, then end buying.",
    "place": "Play a mega-factory (no construction bonus), or skip.",
    "phase3": "Build a mega-factory, or ship.",
    "architecton": "Architecton: pay to play another mega-factory, or skip.",
    "produce": "Produce: discard matching cards, up to the loading capacity; then done.",
    "end": "Discard down to your hand limit.",
    "react": "Another player called a ship: use or decline your reaction.",
    "over": "The game is over.",
}


def prompt(state: State, seat: int | None) -> str | None:
    if seat is None or seat not in actors(state):
        return None
    return PROMPTS[state["phase"]]


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A state `seat` cannot tell from this one: only what nobody but its holder can know is
    dealt anew (README decision 17).

    Every investment card is bought face up and every ship call, cargo-ship use, hand-limit
    cargo discard and Fragmentum scrap is a public fact, so the public log names every card
    in another seat's cargo in hand, scrapyard and hangar (a hangar discard takes the oldest
    card, README decision 4): they stay as they are, although the view shows only their
    counts (face down, decisions note). Dealt anew:
    - mega-factory cards (`_deal_factories`): the deck and the other seats' hands (and their
      starting choices not yet revealed), in the same sizes, only as some true world could
      hold them: after a reshuffle, the new deck only from what the discard pile held then;
    - investment cards: the deck and the cards back in the box are one pool, dealt back in
      the same sizes.
    Each pool is put in a canonical (sorted) order before it is shuffled, so the result
    depends on what the seat knows and on `rng` alone, never on the order the true state
    holds the hidden cards in."""
    new = copy_state(state)
    over = state["phase"] == "over"  # every hand is shown then (`view`): only the deck is dealt
    others = [] if over else [s for s in range(state["players"]) if s != seat]
    if not others or not _deal_generations(new, seat, others, rng):
        _deal_factories(new, others, rng)
    cards = sorted(new["investment_deck"] + new["removed"])
    rng.shuffle(cards)
    size = len(new["investment_deck"])
    new["investment_deck"], new["removed"] = cards[:size], cards[size:]
    return new


def _deal_factories(state: State, others: list[int], rng: Rng) -> None:
    """Before the first reshuffle: the factory deck, the hands and the unrevealed picks of
    `others` are one pool, dealt back in the same sizes (a hand of counts by resource). Every
    one of those cards came out of the one shuffled deck of the setup, and the cards that
    left a hand since did so face up, so any such deal is a world the seat could be in."""
    players = [state["seats"][s] for s in others]
    piles = [p["hand"] for p in players] + [p["pick"] for p in players if p["pick"] is not None]
    pool = list(state["factory_deck"])
    for pile in piles:
        pool += [r for r in RESOURCES for _ in range(pile[r])]
    pool.sort()  # canonical: which card is where is what is hidden
    rng.shuffle(pool)
    for pile in piles:
        n = sum(pile.values())
        for r in RESOURCES:
            pile[r] = 0
        for r in pool[:n]:
            pile[r] += 1
        del pool[:n]
    state["factory_deck"] = pool


def _deal_generations(state: State, seat: int, others: list[int], rng: Rng) -> bool:
    """After a reshuffle (the books of `board.new_generation`): the factory deck and the
    hands of `others`, dealt so that a true world could hold them. False when there are no
    books (no reshuffle yet; or a state kept from before they were kept): then the pooled
    deal of `_deal_factories` is right (or the best there is).

    What the seat knows since the last reshuffle: the new deck's composition (`pool`: the
    discard pile, face up); what it drew from it itself (its `drawn`); how many cards each
    other seat held at the reshuffle (`old`), how many it drew from the new deck since and
    which left its hand face up, in order (`ledger`). So the cards of the new deck it has not
    seen drawn ("new": `pool` less its own draws) are in the deck, in the other hands or
    among the cards they have played since; the other hidden cards ("old": the unseen cards
    with the ones the others played since, less the new ones) were in the others' hands at
    the reshuffle, and are still there or among the played ones.

    A card another seat played since may have been an old or a new one, and the log does not
    say which. Each such card is given a side (`games.generations.attribute`): new only if
    the seat had drawn more new cards by then than it had played as new, old only while it
    had old cards left, and never more of a resource on a side than that side holds. Some
    choice always exists (the true one); a backtracking search finds one, trying the sides
    in an order drawn from `rng` (if the search runs past its budget, the pooled deal is
    used). Then the new cards not played are dealt at random to the deck and each other
    seat's new cards (what it drew less what it played as new), and the old ones not played
    to each seat's old cards: every world dealt is one the log allows, not every such world
    equally often.
    The seat's own draw across the reshuffle, if any (the fact names its cards together, so
    the seat does not know which came from the new deck), is given sides the same way, as
    if its cards had been played: which of them were new decides how many of each resource
    the new side holds. Each dealt seat's `drawn` (and `straddle`) is set to go with its new
    cards.

    Known limit: the old cards are one pool. After a second reshuffle, what an earlier
    generation's deck held (and which seat drew it) could tell more about whose hand an old
    card is in; that is not kept."""
    books = state.get("provenance")
    if books is None or any(state["seats"][s]["pick"] is not None for s in others):
        return False
    players = state["seats"]
    unseen: Counter[str] = Counter(state["factory_deck"])
    for s in others:
        unseen.update(players[s]["hand"])
    plays: list[list[tuple[str, int]]] = []  # per other seat: (resource, new cards drawn by then)
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
    new_cards = Counter(books["pool"])  # the new deck, less what the seat knows it drew from it
    new_cards.subtract(players[seat]["drawn"])
    old = [books["old"][s] for s in others]
    if straddle is not None and straddle[0] == seat:
        # The seat's own draw across the reshuffle: which of its cards were the new ones is
        # chosen like the sides of played cards, as if another seat had played them all.
        straddled = Counter(players[seat]["straddle"])
        plays.append([(r, straddle[2]) for r in sorted(straddled.elements())])
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
        as_new = Counter(r for (r, _), is_new in zip(mine, side, strict=True) if is_new)
        as_old = [r for (r, _), is_new in zip(mine, side, strict=True) if not is_new]
        new_cards -= as_new
        old_cards -= Counter(as_old)
        new_slots = sum(e for e in books["ledger"][s] if isinstance(e, int)) - len(mine) + \
            len(as_old)
        if new_slots < 0 or new_slots + books["old"][s] - len(as_old) \
                != sum(players[s]["hand"].values()):
            return False  # books that do not add up (cannot happen): the pooled deal
        dealt.append((s, as_new, new_slots, as_old))
    new_pool = sorted(new_cards.elements())  # canonical: which card is where is what is hidden
    old_pool = sorted(old_cards.elements())
    rng.shuffle(new_pool)
    rng.shuffle(old_pool)
    for s, as_new, new_slots, as_old in dealt:
        old_slots = sum(players[s]["hand"].values()) - new_slots
        fresh, kept = new_pool[:new_slots], old_pool[:old_slots]
        del new_pool[:new_slots], old_pool[:old_slots]
        players[s]["hand"] = _counts(fresh + kept)
        new = fresh + sorted(as_new.elements())
        if straddle is not None and straddle[0] == s:  # any of its new and old cards will do
            players[s]["straddle"] = _counts(new[:straddle[2]] + (kept + as_old)[:straddle[1]])
            new = new[straddle[2]:]
        players[s]["drawn"] = _counts(new)
    state["factory_deck"] = new_pool
    return True


def _counts(cards: list[str]) -> dict[str, int]:
    return {r: cards.count(r) for r in RESOURCES}
