"""What a seat knows: its view of the table, its prompt, and determinized states for AI."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from games.json_data import clone
from games.res_publica import trade
from games.res_publica.board import State, copy_player, who
from games.res_publica.cards import CARD_IDS, DATA, DECK, Hand, add, remove, size
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
    if "begun" in t:  # version 4: public, each drafting step being a move all see
        shown["begun"] = list(t["begun"])
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
        said = f"{who(t['by'])} {verb} {trade.describe(t['proposal'])}. "
        if seat in t.get("begun", ()) and not any(m["kind"] == "pass" for m in
                                                  trade.answer_moves(state, seat)):
            return (said + f"You have begun an answer, so you give one: name what you {asked} "
                    "and say it (cancel starts it again).")
        return said + f"Name what you {asked}, or pass."
    return PROMPTS[phase]


# --- determinize -----------------------------------------------------------------------------


def determinize(state: State, seat: int, rng: Rng) -> State:
    """Resample what `seat` cannot see: the decks and (before the reveal) the others' hands.

    Each other hand keeps its size, its number of cards from each deck, and the cards it has
    publicly committed to the current trade. Others' unsubmitted proposals and answers are
    forgotten; a secret "or" pick is replaced by an option kept in the hand.

    The unseen cards of each deck (the deck and the others' hands) are pooled in a canonical
    (card) order before they are shuffled, and the others' hands are built afresh in card
    order, so the result depends on what the seat knows (and the split of each hand between
    the decks, see below) and on `rng` alone: never on the order the true state holds the
    hidden cards in, nor on which cards the others hold.

    Copy-on-write: the result has new decks, hands of the others and trade; it shares
    everything else with `state` (which it leaves alone)."""
    others = [] if hands_revealed(state) else [s for s in range(state["players"]) if s != seat]
    unseen: Hand = {}  # the cards of the decks and the others' hands, as counts
    for cards in state["decks"].values():
        for card in cards:
            add(unseen, card)
    # How many cards of each deck a hand holds is kept (README decision 14): the two decks'
    # backs differ at the table, and the log says from which deck each draw came and names
    # every card that changes hands in public. Only a card that changed hands unseen (a New
    # Colony gift, the pick of an "or" across the decks) hides it: so it is kept per group.
    # Each group's cards per deck are known: a hand whose split is known is a group of its
    # own; the hands whose split is not (`split_unknown`) are one group, whose split the seat
    # knows only together (the decks' sizes and the other hands tell). Nothing below reads a
    # group's hands one by one, so the worlds never depend on the split the seat cannot know.
    mixed = [s for s in others if split_unknown(state, seat, s)]
    groups = [[s] for s in others if s not in mixed] + ([mixed] if mixed else [])
    held: list[dict[str, int]] = []  # per group: its cards of each deck
    for group in groups:
        held.append(dict.fromkeys(state["decks"], 0))
        for s in group:
            for card, n in state["seats"][s]["hand"].items():
                add(unseen, card, n)
                held[-1][DECK[card]] += n
    sizes = {s: sum(state["seats"][s]["hand"].values()) for s in others}
    kept = _committed(state, others, unseen, Holdings(groups, held, sizes), rng)
    for hand in kept.values():
        for card, n in hand.items():
            remove(unseen, card, n)
    hands = {s: dict(kept[s]) for s in others}
    dealt: list[list[str]] = [[] for _ in groups]  # per group: the cards dealt to it
    new = dict(state)
    new["decks"] = {}
    for deck in state["decks"]:
        pool = [c for c in CARD_IDS if DECK[c] == deck for _ in range(unseen.get(c, 0))]
        rng.shuffle(pool)
        for g, group in enumerate(groups):
            owed = held[g][deck] - sum(n for s in group for c, n in kept[s].items()
                                       if DECK[c] == deck)
            dealt[g] += [pool.pop() for _ in range(owed)]
        new["decks"][deck] = pool
    for g, group in enumerate(groups):
        _share(dealt[g], group, hands, kept, sizes, rng)
    seats = new["seats"] = list(state["seats"])
    for s in others:
        seats[s] = {**seats[s], "hand": {c: hands[s][c] for c in CARD_IDS if c in hands[s]}}
    if state["trade"] is not None:
        new["trade"] = _forget_secrets(state, trade.copy_trade(state["trade"]), others, kept,
                                       rng)
    return new


def split_unknown(state: State, seat: int, other: int) -> bool:
    """Whether `seat` may not know how many cards of each deck `other` holds: a card changed
    hands unseen by `seat` between `other` and someone else (`rules.unseen_transfer`)."""
    return any(other in pair and seat not in pair for pair in state.get("unseen_transfers", ()))


CARD_RANK = {card: rank for rank, card in enumerate(CARD_IDS)}


def _share(cards: list[str], group: list[int], hands: dict[int, Hand], kept: dict[int, Hand],
           sizes: dict[int, int], rng: Rng) -> None:
    """The cards dealt to a group shared among its hands, each taking as many as it holds
    beside its kept cards. A group of several is dealt in a canonical order shuffled: who
    held which is what is hidden."""
    if len(group) > 1:
        cards.sort(key=CARD_RANK.__getitem__)
        rng.shuffle(cards)
    for s in group:
        n = sizes[s] - sum(kept[s].values())
        for card in cards[:n]:
            add(hands[s], card)
        del cards[:n]


def _promised(state: State, s: int) -> trade.Side | None:
    """The side seat `s` has publicly promised to give in the current trade, if any."""
    t = state["trade"]
    if t is None or state["phase"] == "propose":
        return None
    if t["mode"] == "offer":
        return t["proposal"] if s == t["by"] else t["answers"].get(str(s))
    # An answer promises the request; so does (version 4) a begun one: a seat that cannot
    # give the request can only pass, and one that has begun an answer gives one.
    if s != t["by"] and (t["answers"].get(str(s)) is not None or s in t.get("begun", ())):
        return t["proposal"]
    if s == t["by"] and t["partner"] is not None:
        return t["answers"][str(t["partner"])]
    return None


@dataclass(frozen=True)
class Holdings:
    """What a seat knows of the other hands: their groups (`determinize`), each group's cards
    of each deck, and each hand's size."""

    groups: list[list[int]]
    per_deck: list[dict[str, int]]
    sizes: dict[int, int]


def _committed(state: State, others: list[int], unseen: Hand, holdings: Holdings,
               rng: Rng) -> dict[int, Hand]:
    """Cards each of `others` is publicly known to hold: the side it has promised to give in
    the current trade. Offered and tendered cards are all held (only held cards may be named).
    The giver of an "or" side of a request holds at least one option, which one only it knows:
    the options kept are drawn at random among the choices, one per such giver, that the
    unseen cards and what the seat knows of the hands (`Holdings`) allow together (the true
    holdings are one of them), never read from the hands themselves."""
    fixed: dict[int, list[dict[str, Any]]] = {}
    open_: list[tuple[int, list[dict[str, Any]]]] = []
    for s in others:
        side = _promised(state, s)
        if side is None:
            continue
        if side["join"] == "or" and state["trade"]["mode"] == "request":
            open_.append((s, side["items"]))  # the giver needs one option only
        else:
            fixed[s] = side["items"]
    chosen: dict[int, list[dict[str, Any]]] = dict(fixed)
    if open_:
        fitting = [combo for combo in itertools.product(*(items for _, items in open_))
                   if _fits({**fixed, **{s: [it] for (s, _), it in zip(open_, combo,
                                                                        strict=True)}},
                            unseen, holdings)]
        if not fitting:
            raise ValueError("no option of the promised 'or' fits the unseen cards")
        combo = fitting[rng.randbelow(len(fitting))]
        chosen.update({s: [it] for (s, _), it in zip(open_, combo, strict=True)})
    kept: dict[int, Hand] = {s: {} for s in others}
    for s, items in chosen.items():
        for it in items:
            add(kept[s], it["card"], it["n"])
    return kept


def _fits(promised: dict[int, list[dict[str, Any]]], unseen: Hand, holdings: Holdings) -> bool:
    """Whether the seats can hold their promised items at once: there are enough unseen
    copies, no hand holds more cards than it does, and no group more cards of a deck."""
    need: Hand = {}
    for items in promised.values():
        for it in items:
            add(need, it["card"], it["n"])
    if any(unseen.get(card, 0) < n for card, n in need.items()):
        return False
    if any(sum(it["n"] for it in items) > holdings.sizes[s] for s, items in promised.items()):
        return False
    for group, per_deck in zip(holdings.groups, holdings.per_deck, strict=True):
        wanted = dict.fromkeys(per_deck, 0)
        for s in group:
            for it in promised.get(s, ()):
                wanted[DECK[it["card"]]] += it["n"]
        if any(n > per_deck[deck] for deck, n in wanted.items()):
            return False
    return True


def _forget_secrets(state: State, t: dict[str, Any], others: list[int],
                    kept: dict[int, Hand], rng: Rng) -> dict[str, Any]:
    """The trade as the others' secrets could be: fresh drafts, a pick among kept cards (the
    option kept of an "or" request; the first option of an "or" offer, all of them held)."""
    if state["phase"] == "propose" and t["by"] in others:
        t["proposal"] = trade.empty_side()  # still being composed in secret
        modes = [m["mode"] for m in trade.start_moves(state, t["by"])]
        t["mode"] = modes[rng.randbelow(len(modes))]  # also secret: the view hides it
    for s in others:
        if str(s) in t["drafts"]:
            t["drafts"][str(s)] = trade.empty_side()
        if str(s) in t["picks"]:
            t["picks"][str(s)] = next(iter(kept[s]))  # kept is in the side's public order
    return t

