"""What deciding whether a move ends its batch costs (`games.information.ends_batch`): each
move but the last of several sent at once is first played in imagined worlds the player cannot
tell apart from the real one.

    .venv/bin/python -m bench.batch_check [GAME ...] [--players 3] [--moves 300]
                                          [--worlds 4 16]

Random legal play (the first actor moving); at each move the check is timed, for each number
of worlds asked. Printed per game and number of worlds: the moves, how many reveal, and the
time of a move that reveals nothing (it pays for every world) and of one that reveals (it
stops at the first world that differs).
"""

from __future__ import annotations

import argparse
import time

import games.information as information
from bench.harness import machine, percentile, print_machine
from games.bots import random_move
from games.information import ends_batch
from games.registry import GAMES, get_game
from games.rng import Rng


def timed(game_type: str, players: int, moves: int) -> tuple[list[float], list[float]]:
    """(seconds of each move that reveals nothing, of each that reveals) over one game."""
    game = get_game(game_type)
    state = game.setup(players, {}, Rng(b"bench/batch_check/setup", 0))
    quiet: list[float] = []
    loud: list[float] = []
    for version in range(moves):
        if game.is_over(state):
            break
        seat = min(game.actors(state))
        move = random_move(game, state, seat, Rng(b"bench/batch_check/bot", version))
        start = time.perf_counter()
        reveals = ends_batch(game, state, seat, move, b"bench/batch_check/seed", version)
        (loud if reveals else quiet).append(time.perf_counter() - start)
        state, _ = game.play(state, seat, move, Rng(b"bench/batch_check/play", version))
    return sorted(quiet), sorted(loud)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=sorted(GAMES), metavar="GAME")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--worlds", type=int, nargs="+", default=[4, information.SAMPLES])
    options = parser.parse_args()
    print_machine(machine())
    for worlds in options.worlds:
        information.SAMPLES = worlds
        for game_type in options.games:
            quiet, loud = timed(game_type, options.players, options.moves)
            mean = sum(loud) / len(loud) * 1e3 if loud else 0.0
            print(f"{worlds:3} worlds {game_type}: {len(quiet) + len(loud)} moves, "
                  f"{len(loud)} reveal; one that reveals nothing p50 "
                  f"{percentile(quiet, 0.5) * 1e3:.1f} ms, p95 {percentile(quiet, 0.95) * 1e3:.1f}"
                  f" ms; one that reveals, mean {mean:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
