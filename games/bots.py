"""Bot policies: pure functions from what a seat may know to a move."""

from __future__ import annotations

from games.contract import Game, Move, Seat, State
from games.rng import Rng


def random_move(game: Game, state: State, seat: Seat, rng: Rng) -> Move:
    """A uniformly random legal move for `seat`."""
    moves = game.legal_moves(state, seat)
    if not moves:
        raise ValueError(f"seat {seat} has no legal move")
    return rng.choice(moves)
