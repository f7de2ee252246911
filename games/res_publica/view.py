"""What a seat knows: its view of the table, its prompt, and determinized states for AI."""

from __future__ import annotations

from typing import Any

from games.json_data import clone
from games.res_publica import trade
from games.res_publica.board import State, copy_player, who
from games.res_publica.cards import DATA, DECK, Hand, add, remove, size
from games.res_publica.rules import actors, score
from games.rng import Rng


def hands_revealed(state: State) -> bool:
    """"All players reveal their hands" when the game ends."""
    return state["phase"] in ("reveal", "over")


def view(state: State, seat: int | None) -> dict[str, Any]:
    """Built of fresh containers only: nothing in it is shared with `state`."""
    over = state["phase"] == "over"
    return {
        "phase": state["phase"],
        "active": state["active"],
        "turn": state["turn"],
        "actors": sorted(actors(state)),
        "decks": {deck: len(cards) for deck, cards in state["decks"].items()},
        "discards": {deck: dict(pile) for deck, pile in state["discards"].items()},
        "piles": {pile: list(values) for pile, values in state["piles"].items()},
        "locations": dict(state["locations"]),
        "players": [_player_view(state, s, seat) for s in range(state["players"])],
        "trade": _trade_view(state, seat),
        "colony": None if state["colony"] is None else {"step": state["colony"]["step"]},
        "ending": state["ending"],
        "reveal": clone(state["reveal"]),
        "prompt": prompt(state, seat),
        "score": score(state) if over else None,
    }



def _player_view(state: State, s: int, seat: int | None) -> dict[str, Any]:
    player = state["seats"][s]
    entry = copy_player(player)
    del entry["hand"]
    entry["seat"] = s
    entry["hand_count"] = size(player["hand"])
    entry["trade_tokens"] = DATA["setup"]["trade_tokens"] - player["trades"]
    if s == seat or hands_revealed(state):
        entry["hand"] = dict(player["hand"])
    return entry


def _trade_view(state: State, seat: int | None) -> dict[str, Any] | None:
    t = state["trade"]
    if t is None:
        return None
    shown: dict[str, Any] = {
        "by": t["by"], "order": list(t["order"]), "partner": t["partner"],
        "answers": {s: ("pass" if a is None else clone(a)) for s, a in t["answers"].items()},
    }
    if state["phase"] != "propose" or seat == t["by"]:
        shown["mode"], shown["proposal"] = t["mode"], clone(t["proposal"])
    if seat is not None and str(seat) in t["drafts"]:
        shown["draft"] = clone(t["drafts"][str(seat)])
    if seat is not None and str(seat) in t["picks"]:
        shown["my_pick"] = t["picks"][str(seat)]
    return shown


PROMPTS = {
    "trade": "Your turn: trade (request or offer), use card effects, display, or draw.",
    "effects": "Play Troopers or use a New Colony, display, or draw to end your turn.",
    "display": "Display more groups, or draw to end your turn.",
    "propose": "Name at most two card types (joined by 'and' or 'or'), then submit.",
    "choose": "Accept one answer, or decline all.",
    "swap": "Choose which option of your 'or' you give.",
    "reveal": "Final reveal: display for Space Stations and Cities, then say done.",
}
COLONY_PROMPTS = {
    "give": "New Colony: give one hand card to a player of your choice.",
    "discard": "New Colony: discard one hand card.",
    "take": "New Colony: take one non-grey card from either discard pile.",
}


def prompt(state: State, seat: int | None) -> str:
    phase = state["phase"]
    if phase == "over":
        return "The game is over."
    waiting = sorted(actors(state))
    if seat not in waiting:
        return "Waiting for " + ", ".join(who(s) for s in waiting) + "."
    if phase == "colony":
        return COLONY_PROMPTS[state["colony"]["step"]]
    if phase == "answer":
        t = state["trade"]
        verb = "requests" if t["mode"] == "request" else "offers"
        asked = "demand in return" if t["mode"] == "request" else "tender in exchange"
        return (f"{who(t['by'])} {verb} {trade.describe(t['proposal'])}. "
                f"Name what you {asked}, or pass.")
    return PROMPTS[phase]


# --- determinize -----------------------------------------------------------------------------


def _committed(state: State, s: int, rng: Rng) -> Hand:
    """Cards seat `s` is publicly known to hold: the side it has promised to give in the
    current trade. Offered and tendered cards are all held; for an "or" side of a request
    the giver holds at least one option: one it can honour is kept, chosen at random."""
    t = state["trade"]
    if t is None or state["phase"] == "propose":
        return {}
    side = None
    if t["mode"] == "offer":
        side = t["proposal"] if s == t["by"] else t["answers"].get(str(s))
    elif s != t["by"] and t["answers"].get(str(s)) is not None:
        side = t["proposal"]
    elif s == t["by"] and t["partner"] is not None:
        side = t["answers"][str(t["partner"])]
    if side is None:
        return {}
    items = side["items"]
    if side["join"] == "or" and t["mode"] == "request":  # the giver needs one option only
        items = [rng.choice(trade.options(state["seats"][s]["hand"], side))]
    return {it["card"]: it["n"] for it in items}


def determinize(state: State, seat: int, rng: Rng) -> State:
    """Resample what `seat` cannot see: the decks and (before the reveal) the others' hands.

    Each other hand keeps its size, its number of cards from each deck, and the cards it has
    publicly committed to the current trade. Others' unsubmitted proposals and answers are
    forgotten; a secret "or" pick is replaced by an option kept in the hand.

    Copy-on-write: the result has new decks, hands of the others and trade; it shares
    everything else with `state` (which it leaves alone)."""
    others = [] if hands_revealed(state) else [s for s in range(state["players"]) if s != seat]
    kept = {s: _committed(state, s, rng) for s in others}
    new = dict(state)
    seats = new["seats"] = list(state["seats"])
    for s in others:
        seats[s] = {**seats[s], "hand": dict(seats[s]["hand"])}
    new["decks"] = {}
    for deck, cards in state["decks"].items():
        pool = list(cards)
        counts = {}
        for s in others:
            free = _take_free(seats[s]["hand"], deck, kept[s])
            pool += free
            counts[s] = len(free)
        rng.shuffle(pool)
        for s in others:
            hand = seats[s]["hand"]
            for _ in range(counts[s]):
                add(hand, pool.pop())
        new["decks"][deck] = pool
    if state["trade"] is not None:
        new["trade"] = _forget_secrets(state, trade.copy_trade(state["trade"]), others, kept)
    return new


def _take_free(hand: Hand, deck: str, kept: Hand) -> list[str]:
    """Take out of `hand` its cards of `deck` that are not kept, one entry per card."""
    taken = {c: n - kept.get(c, 0) for c, n in hand.items() if DECK[c] == deck}
    free = []
    for card, n in taken.items():
        if n > 0:
            remove(hand, card, n)
            free += [card] * n
    return free


def _forget_secrets(state: State, t: dict[str, Any], others: list[int],
                    kept: dict[int, Hand]) -> dict[str, Any]:
    """The trade as the others' secrets could be: fresh drafts, a pick among kept cards."""
    if state["phase"] == "propose" and t["by"] in others:
        t["proposal"] = trade.empty_side()  # still being composed in secret
    for s in others:
        if str(s) in t["drafts"]:
            t["drafts"][str(s)] = trade.empty_side()
        if str(s) in t["picks"]:
            t["picks"][str(s)] = next(iter(kept[s]))
    return t
