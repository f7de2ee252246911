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

from games.generations import deal
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
    hands of `others`, dealt so that a true world could hold them (`games.generations.deal`:
    the new deck only from what the discard pile held, the cards each other seat held then
    only in its hand or among what it played since; the seat's own draw across the
    reshuffle, if any, counted as both may have been). False when there are no books (no
    reshuffle yet; or a state kept from before they were kept) or no world was found: then
    the pooled deal of `_deal_factories` (right before a reshuffle, the best there is after).
    Known limit: after a second reshuffle, the cards held at the last one are one pool."""
    books = state.get("provenance")
    if books is None or any(state["seats"][s]["pick"] is not None for s in others):
        return False
    players = state["seats"]
    straddle = books["straddle"]
    dealt = deal(books, state["factory_deck"], {s: Counter(players[s]["hand"]) for s in others},
                 [seat], Counter(players[seat]["drawn"]),
                 Counter(players[seat]["straddle"]) if straddle and straddle[0] == seat
                 else Counter(), rng)
    if dealt is None:
        return False
    for s in others:
        players[s]["hand"] = _counts(list(dealt.hands[s].elements()))
        players[s]["drawn"] = _counts(dealt.drawn[s])
        if s in dealt.straddle:
            players[s]["straddle"] = _counts(dealt.straddle[s])
    state["factory_deck"] = dealt.deck
    return True


def _counts(cards: list[str]) -> dict[str, int]:
    return {r: cards.count(r) for r in RESOURCES}
