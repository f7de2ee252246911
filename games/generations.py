"""Which of the cards a seat played since a reshuffle came from the new deck: the one search
that Trappist One's and Trajan's `determinize` share (games/*/view.py `_deal_generations`).

When a deck runs out its discard pile, face up, is shuffled into a new deck: everyone knows
what the new deck holds and how many cards each seat draws from it, and a card a seat played
since may have come from its old cards or its new ones. A world a seat imagines must give
each played card a side that some true game allows. Pure: no I/O, randomness from `rng`."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.rng import Rng

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
