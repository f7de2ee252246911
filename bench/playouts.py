"""Random playouts on the rules alone (no store, no HTTP): what a bot's search or a
simulation pays per game, per game type, player count and table options.

    .venv/bin/python -m bench.playouts [GAME ...] [--games 200] [--option NAME=VALUE ...]
                                       [--json FILE]

Each game is played to the end by uniformly random legal moves (games.bots.random_move),
the first actor moving (as the conformance playouts do). Printed per player count: random
playouts a second, moves a second (the bot's `legal_moves` included), moves per game, and
how games ended when the score sheet says (`end`).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from typing import Any

from bench.harness import machine, print_machine
from games.bots import random_move
from games.registry import GAMES, get_game
from games.rng import Rng

MOVE_LIMIT = 50_000


def playout(game_type: str, players: int, options: dict[str, Any], index: int
            ) -> tuple[int, str | None]:
    """One random game: (moves, the score sheet's `end`)."""
    game = get_game(game_type)
    state = game.setup(players, options, Rng(b"bench/playouts/setup", index))
    for moves in range(MOVE_LIMIT):
        if game.is_over(state):
            end = game.score(state).get("end")
            return moves, end if isinstance(end, str) else None
        seat, step = min(game.actors(state)), index * MOVE_LIMIT + moves
        move = random_move(game, state, seat, Rng(b"bench/playouts/bot", step))
        state, _ = game.play(state, seat, move, Rng(b"bench/playouts/play", step))
    raise RuntimeError(f"{game_type}: no end after {MOVE_LIMIT} moves")


def measure(game_type: str, players: int, options: dict[str, Any], games: int) -> dict[str, Any]:
    started = time.perf_counter()
    moves, ends = 0, Counter[str]()
    for index in range(games):
        count, end = playout(game_type, players, options, index)
        moves += count
        if end is not None:
            ends[end] += 1
    seconds = time.perf_counter() - started
    return {"game": game_type, "players": players, "options": options, "games": games,
            "playouts_per_s": round(games / seconds, 1), "moves_per_s": round(moves / seconds),
            "moves_per_game": round(moves / games, 1),
            "ends": {end: round(n / games, 3) for end, n in ends.most_common()}}


def parse_option(pair: str) -> tuple[str, Any]:
    name, _, raw = pair.partition("=")
    try:
        return name, json.loads(raw)
    except ValueError:
        return name, raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games_types", nargs="*", metavar="GAME", help="default: every game")
    parser.add_argument("--games", type=int, default=200, help="playouts per player count")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    options = dict(parse_option(pair) for pair in args.option)
    print_machine(machine())
    rows = []
    for game_type in args.games_types or sorted(GAMES):
        game = get_game(game_type)
        for players in range(game.min_players, game.max_players + 1):
            row = measure(game_type, players, options, args.games)
            rows.append(row)
            ends = ", ".join(f"{end} {share:.0%}" for end, share in row["ends"].items())
            print(f"{game_type} {players}p {options or ''}: {row['playouts_per_s']} playouts/s, "
                  f"{row['moves_per_s']} moves/s, {row['moves_per_game']} moves/game"
                  + (f"; ended by {ends}" if ends else ""), flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"machine": machine(), "rows": rows}, out, indent=2)


if __name__ == "__main__":
    main()
