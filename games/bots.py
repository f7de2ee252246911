"""Bot policies: pure functions from what a seat may know to a move."""

from __future__ import annotations

import hashlib

from games.contract import Game, Move, Seat, State
from games.rng import Rng


def bot_rng(seed: bytes, version: int, seat: Seat) -> Rng:
    """The bot's own randomness for `seat` at game version `version`: derived from the game
    seed so that simulations replay exactly, under a separate key so that it never repeats
    the game's own draws."""
    return Rng(hashlib.sha256(b"bot/" + seed).digest(), version * 16 + seat)


def random_move(game: Game, state: State, seat: Seat, rng: Rng) -> Move:
    """A uniformly random legal move for `seat`."""
    moves = game.legal_moves(state, seat)
    if not moves:
        raise ValueError(f"seat {seat} has no legal move")
    return rng.choice(moves)
