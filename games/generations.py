"""Which of the cards a seat played since a reshuffle came from the new deck: the one search
that Trappist One's and Trajan's `determinize` share (games/*/view.py `_deal_generations`).

When a deck runs out its discard pile, face up, is shuffled into a new deck: everyone knows
what the new deck holds and how many cards each seat draws from it, and a card a seat played
since may have come from its old cards or its new ones. A world a seat imagines must give
each played card a side that some true game allows. Pure: no I/O, randomness from `rng`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.rng import Rng

# --- the books of the deck's generation (kept by the rules, read by `deal`) ------------------
#
# From the first reshuffle on, the state keeps (no rule, fact or view reads them; a state
# before it is what it always was):
# - `provenance` (public, derived from the public log alone): `pool`, the new deck's
#   composition when it was made; `old`, how many unknown cards each seat held then;
#   `ledger`, per seat, in order, what it did since: an int for cards drawn from the new
#   deck, a card for an unknown card that left its hand face up; `straddle`: [seat, old, new]
#   when the reshuffle came in the middle of a draw, which took `old` cards from the old
#   deck (counted in `old`) and then `new` from the new one, else None;
# - each seat's `drawn` (secret, like its hand): what it drew from the new deck, but for a
#   draw the reshuffle came in the middle of, which is its `straddle` (all the cards of that
#   draw: its fact names them together, so even the drawer does not know which came from
#   which deck).


def open_books(state: dict[str, Any], pool: dict[str, int], old: list[int], seat: int | None,
               pending: int, kinds: Sequence[str]) -> None:
    """A new deck of `pool` is about to be made: open the books of its generation. `pending`
    cards were drawn before it in the same draw, by `seat`."""
    state["provenance"] = {
        "pool": pool,
        "old": old,
        "ledger": [[] for _ in state["seats"]],
        "straddle": [seat, pending, 0] if pending else None,
    }
    for p in state["seats"]:
        p["drawn"] = dict.fromkeys(kinds, 0)
        p["straddle"] = dict.fromkeys(kinds, 0)


def note_draw(state: dict[str, Any], seat: int, fresh: dict[str, int],
              whole: dict[str, int] | None) -> None:
    """`seat` drew `fresh` from the new deck; `whole`: the whole draw, when it straddled the
    reshuffle."""
    books = state.get("provenance")
    count = sum(fresh.values())
    if books is None or not count:
        return
    books["ledger"][seat] = [*books["ledger"][seat], count]
    player = state["seats"][seat]
    if whole is not None:
        books["straddle"] = [seat, books["straddle"][1], count]
        player["straddle"] = {c: whole.get(c, 0) for c in player["straddle"]}
        return
    for c, k in fresh.items():
        player["drawn"][c] += k


def note_played(state: dict[str, Any], seat: int, cards: list[str]) -> None:
    """Unknown cards left `seat`'s hand face up."""
    books = state.get("provenance")
    if books is not None and cards:
        books["ledger"][seat] = [*books["ledger"][seat], *cards]


# --- which played cards were new ---------------------------------------------------------------

BUDGET = 200  # steps of the search (and 4 a play) before it gives up


class _TooLong(Exception):
    pass


def attribute(plays: list[list[tuple[str, int]]], old: list[int], new_cards: Counter[str],
               old_cards: Counter[str], rng: Rng) -> list[list[bool]] | None:
    """A side for every card played since the reshuffle (True: new), seat by seat in the
    order played, such that each seat never plays more new cards than it had drawn by then
    (`plays`: (card, new cards drawn by then)), nor more old cards than it held at the
    reshuffle (`old`), and no side gives more of a kind of card than it holds (`new_cards`,
    `old_cards`); None if there is none, or if the search runs past its budget (the caller
    then deals as if there were no books: never seen in the tests' thousands of searches).
    Depth-first, the two sides tried in an order drawn from `rng`; a branch is cut as soon as
    the cards still to place cannot fit (per seat, per kind of card), and dead ends are
    remembered."""
    flat = [(i, c, by) for i, mine in enumerate(plays) for c, by in mine]
    ends, starts, at = [], set(), 0
    for mine in plays:
        starts.add(at)
        at += len(mine)
        ends.append(at)
    reach = [max((by for _, by in mine), default=0) for mine in plays]
    suffix: list[Counter[str]] = [Counter()]  # what is still to place from each play on
    for _, c, _ in reversed(flat):
        suffix.append(suffix[-1] + Counter([c]))
    suffix.reverse()
    chosen: list[bool] = []
    as_new: Counter[str] = Counter()
    as_old: Counter[str] = Counter()
    dead: set[tuple[Any, ...]] = set()

    budget = [BUDGET + 4 * len(flat)]

    def search(k: int, used_new: int, used_old: int) -> bool:
        if k == len(flat):
            return True
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooLong
        if k in starts:
            used_new = used_old = 0
        i, c, by = flat[k]
        if ends[i] - k > old[i] - used_old + reach[i] - used_new or any(
                n > new_cards[x] - as_new[x] + old_cards[x] - as_old[x]
                for x, n in suffix[k].items()):
            return False
        key = (k, used_new, tuple(sorted((x, n) for x, n in as_new.items() if n)))
        if key in dead:
            return False
        sides = []
        if used_new < by and as_new[c] < new_cards[c]:
            sides.append(True)
        if used_old < old[i] and as_old[c] < old_cards[c]:
            sides.append(False)
        if len(sides) == 2 and rng.randbelow(2):
            sides.reverse()
        for is_new in sides:
            (as_new if is_new else as_old)[c] += 1
            chosen.append(is_new)
            if search(k + 1, used_new + is_new, used_old + (not is_new)):
                return True
            chosen.pop()
            (as_new if is_new else as_old)[c] -= 1
        dead.add(key)
        return False

    try:
        if not search(0, 0, 0):
            return None
    except _TooLong:
        return None
    out, at = [], 0
    for mine in plays:
        out.append(chosen[at:at + len(mine)])
        at += len(mine)
    return out


@dataclass
class Dealt:
    """A world's hidden cards of one kind after a reshuffle: the deck, and per seat dealt
    anew its unknown cards, how many of each it drew from the new deck (its `drawn`) and, for
    the seat whose draw straddled the reshuffle, that whole draw (its `straddle`)."""

    deck: list[str]
    hands: dict[int, Counter[str]]
    drawn: dict[int, list[str]]
    straddle: dict[int, list[str]]


def deal(books: dict[str, Any], deck: list[str], unknown: dict[int, Counter[str]],
         kept: list[int], kept_drawn: Counter[str], kept_straddle: Counter[str],
         rng: Rng) -> Dealt | None:
    """Deal the deck and the `unknown` cards of the other seats anew, as some true world
    could hold them, from the books of the last reshuffle (`provenance`: `pool`, the new
    deck's cards; `old`, the unknown cards each seat held then; `ledger`, per seat, its
    draws from the new deck (ints) and the cards that left its hand face up since;
    `straddle`, [seat, old, new] of a draw across the reshuffle). `kept`: the seats whose
    hands stay (the one that imagines, and whoever else the game keeps), `kept_drawn` what
    they drew from the new deck, `kept_straddle` the straddling draw if one of them made it.

    The cards of the new deck not drawn by a kept seat ("new") are in the deck, among the
    others' unknown cards or among the cards they played since; the other hidden cards
    ("old": the unseen ones with the ones played since, less the new ones) were unknown
    cards at the reshuffle. Each played card gets a side (`attribute`); the new cards not
    played are dealt to the deck and each seat's new cards (what it drew less what it
    played as new), the old ones to each seat's old cards; each pool in a canonical order,
    shuffled. None when there is no such world within the search's budget (the caller then
    deals as if there were no books)."""
    others = list(unknown)
    unseen = Counter(deck) + sum(unknown.values(), Counter())
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
    new_cards = Counter(books["pool"])
    new_cards.subtract(kept_drawn)
    old = [books["old"][s] for s in others]
    if straddle is not None and straddle[0] in kept:
        # A kept hand's draw across the reshuffle: which of its cards were the new ones is
        # chosen like the sides of played cards, as if another seat had played them all.
        plays.append([(c, straddle[2]) for c in sorted(kept_straddle.elements())])
        old.append(straddle[1])
        played += kept_straddle
    old_cards = unseen + played - new_cards
    if old_cards + new_cards != unseen + played:
        return None  # books that do not add up (cannot happen)
    sides = attribute(plays, old, new_cards, old_cards, rng)
    if sides is None:
        return None
    for mine, side in zip(plays[len(others):], sides[len(others):], strict=True):
        new_cards -= Counter(c for (c, _), is_new in zip(mine, side, strict=True) if is_new)
        old_cards -= Counter(c for (c, _), is_new in zip(mine, side, strict=True) if not is_new)
    slots: list[tuple[int, Counter[str], int, list[str]]] = []
    n = len(others)  # the straddle's sides, if any, come after: its cards are kept
    for s, mine, side in zip(others, plays[:n], sides[:n], strict=True):
        as_new = Counter(c for (c, _), is_new in zip(mine, side, strict=True) if is_new)
        as_old = [c for (c, _), is_new in zip(mine, side, strict=True) if not is_new]
        new_cards -= as_new
        old_cards -= Counter(as_old)
        new_slots = sum(e for e in books["ledger"][s] if isinstance(e, int)) - len(mine) + \
            len(as_old)
        if new_slots < 0 or new_slots + books["old"][s] - len(as_old) != unknown[s].total():
            return None  # books that do not add up (cannot happen)
        slots.append((s, as_new, new_slots, as_old))
    new_pool = sorted(new_cards.elements())  # canonical: which card is where is what is hidden
    old_pool = sorted(old_cards.elements())
    rng.shuffle(new_pool)
    rng.shuffle(old_pool)
    dealt = Dealt(deck=[], hands={}, drawn={}, straddle={})
    for s, as_new, new_slots, as_old in slots:
        old_slots = unknown[s].total() - new_slots
        fresh, held = new_pool[:new_slots], old_pool[:old_slots]
        del new_pool[:new_slots], old_pool[:old_slots]
        dealt.hands[s] = Counter(fresh + held)
        new = fresh + sorted(as_new.elements())
        if straddle is not None and straddle[0] == s:  # any of its new and old cards will do
            dealt.straddle[s] = new[:straddle[2]] + (held + as_old)[:straddle[1]]
            new = new[straddle[2]:]
        dealt.drawn[s] = new
    dealt.deck = new_pool
    return dealt
