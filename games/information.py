"""Does a move show its player something new? (a draw, a hidden card, a random outcome)

Several moves sent at once are played all or nothing. If a later move's legality could
depend on what an earlier one revealed, a refused batch would tell the player that hidden
thing without committing them to it: send "draw, then play card X", and a refusal says the
draw was not X, while nothing was drawn. So a move that reveals must end its batch.

Whether a move reveals is decided without looking at the hidden truth (that decision would
leak too): the move is played on several states the player cannot tell apart from the real
one (the game's own `determinize`), each with its own randomness; if the player's view
afterwards differs between them, the move showed something the player did not know.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from games.contract import Game, IllegalMove, Move, Seat, State
from games.rng import Rng

# Samples of the player's information set. Each extra one makes a missed reveal less likely
# (samples agree by chance only if the hidden part drawn is the same in all of them), and a
# player may try again and again (table talk moves the version, and so the samples): with 4,
# some moves whose outcome has one likely value went through 1 to 8 % of the time (a Trajan
# province tile, session 35's audit). If one outcome has probability q, all n samples agree
# with probability below q ** (n - 1): at 16, about 5e-6 for q = 0.44 (the 8 % above), some
# 200,000 tries, where table talk moves the version at most 10 times a minute. A move that
# reveals stops at the first sample that differs; only moves that reveal nothing pay for all
# 16 (some 5 to 10 ms a move here, bench/README.md).
SAMPLES = 16


def _seen(game: Game, state: State, seat: Seat, facts: list[Any]) -> str:
    visible = [f for f in facts if f["to"] == "all" or seat in f["to"]]
    return json.dumps([game.view(state, seat), visible], sort_keys=True, default=str)


def reveals(game: Game, state: State, seat: Seat, move: Move, key: bytes) -> bool:
    """True when `move` by `seat` shows `seat` hidden information. `key` seeds the samples
    (derive it from the game's secret seed and version, so it repeats on replay)."""
    seen: set[str] = set()
    for sample in range(SAMPLES):
        guess = game.determinize(state, seat, Rng(key, 2 * sample))
        try:
            after, facts = game.play(guess, seat, move, Rng(key, 2 * sample + 1))
        except IllegalMove:
            return True  # legal only in some of the worlds the player imagines: that is news
        seen.add(_seen(game, after, seat, facts))
        if len(seen) > 1:
            return True
    return False


def ends_batch(game: Game, state: State, seat: Seat, move: Move, seed: bytes,
               version: int) -> bool:
    """Whether `move`, played as event `version` of the game with secret `seed`, must be the
    last of the moves sent together. Repeats exactly for the same game and version."""
    key = hashlib.sha256(b"reveals/" + seed + version.to_bytes(8, "big")).digest()
    return reveals(game, state, seat, move, key)
