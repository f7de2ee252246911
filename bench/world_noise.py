"""How much a move's value depends on the hidden cards (issue 17's tuning).

    .venv/bin/python -m bench.world_noise --game GAME [--players 2] [--games 2]
                                          [--worlds 24] [--every 3] [--seed S]

Greedy plays every seat of `--games` games (each a pure function of its seed, as in
bench/ai.py). At every `--every`th choice (three moves or more, the bots' moves), each move
is played in the same `--worlds` determinizations (the worlds the seat cannot tell from the
true one) and valued by the game's evaluation, as greedy values it, in every world. The
spread of those values is split two ways (a two-way analysis of variance, moves × worlds):

- **world**: what every move of a choice shares in one world (a deal good or bad for the
  seat, whatever it does): the search, which deals a new world each iteration, pays it as
  noise; greedy, which values every move in the same worlds, does not;
- **move × world**: what differs between the moves in one world and another: the noise
  greedy pays too, and what more worlds would average away.

Printed (means over the choices): the standard deviation of one move's value across worlds,
its two parts, the same after subtracting each world's value of the state before the move (a
control variate the search could use), and the gap between the best and the second-best
move (their means over the worlds). A gap well below the noise means the one-ply values
decide little that more worlds would change; bench/ai.py says whether that matters.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import click
from tqdm import tqdm

from bench.agreement import greedy_games
from bench.harness import machine, print_machine
from games.contract import Game, Move, Seat, State
from games.registry import get_game
from games.search.ismcts import SearchRng
from games.standings import final_standing


@dataclass(frozen=True)
class Choice:
    """One choice's figures: its moves, the variances and the best moves' lead."""

    moves: int
    raw: float  # a move's value across worlds, on average over the moves
    world: float  # the worlds' means across worlds
    interaction: float  # what is left: move by world
    baselined: float  # a move's value minus the world's value before it, across worlds
    gap: float  # the best mean minus the second best


def value(game: Game, state: State, seat: Seat) -> float:
    if game.is_over(state):
        return final_standing(game.score(state))[seat]
    return game.evaluate(state)[seat]


def measure(game: Game, state: State, seat: Seat, moves: list[Move], worlds: int,
            key: bytes) -> Choice:
    dealt = [game.determinize(state, seat, SearchRng(key + b"/world", w)) for w in range(worlds)]
    values = [[value(game, game.play(world, seat, move, SearchRng(key + b"/play", w))[0], seat)
               for w, world in enumerate(dealt)] for move in moves]
    before = [value(game, world, seat) for world in dealt]
    move_means = [statistics.fmean(row) for row in values]
    world_means = [statistics.fmean(row[w] for row in values) for w in range(worlds)]
    grand = statistics.fmean(move_means)
    residuals = [row[w] - move_means[m] - world_means[w] + grand
                 for m, row in enumerate(values) for w in range(worlds)]
    best, second = sorted(move_means, reverse=True)[:2]
    return Choice(
        moves=len(moves),
        raw=statistics.fmean(statistics.pvariance(row) for row in values),
        world=statistics.pvariance(world_means),
        interaction=statistics.pvariance(residuals),
        baselined=statistics.fmean(statistics.pvariance([v - b for v, b in zip(row, before,
                                                                                strict=True)])
                                   for row in values),
        gap=best - second)


@click.command()
@click.option("--game", "game_type", required=True, help="A game id.")
@click.option("--players", default=2, show_default=True, type=int)
@click.option("--games", default=2, show_default=True, type=click.IntRange(min=1))
@click.option("--worlds", default=24, show_default=True, type=click.IntRange(min=2, max=1000))
@click.option("--every", default=3, show_default=True, type=click.IntRange(min=1),
              help="Measure every n-th choice.")
@click.option("--seed", default="world-noise", show_default=True)
def main(game_type: str, players: int, games: int, worlds: int, every: int, seed: str) -> None:
    """Split the spread of greedy's move values into the world's part and the move's."""
    game = get_game(game_type)
    if not game.min_players <= players <= game.max_players:
        raise click.BadParameter(f"{game.title} is for {game.min_players} to "
                                 f"{game.max_players} players", param_hint="--players")
    print_machine(machine())
    choices: list[Choice] = []
    with tqdm(desc=f"{game.id} {players}p, {worlds} worlds a choice", unit="choice") as bar:
        counted = 0
        for turn in greedy_games(game, players, games, seed):
            if len(turn.moves) < 3:
                continue
            if counted % every == 0:
                key = turn.game_bytes + turn.ply.to_bytes(4, "big")
                choices.append(measure(game, turn.state, turn.seat, turn.moves, worlds, key))
                bar.update()
            counted += 1
    report(choices)


def report(choices: list[Choice]) -> None:
    def sd(name: str) -> float:
        return float(statistics.fmean(getattr(c, name) for c in choices)) ** 0.5

    gaps = [c.gap for c in choices]
    click.echo(f"\n{len(choices)} choices, {statistics.median(c.moves for c in choices):g} "
               "moves (median)")
    click.echo(f"sd of a move's value across worlds {sd('raw'):.4f}: the world's "
               f"{sd('world'):.4f}, move x world {sd('interaction'):.4f}; "
               f"less the world's value before the move {sd('baselined'):.4f}")
    click.echo(f"best minus second best: median {statistics.median(gaps):.4f}, mean "
               f"{statistics.fmean(gaps):.4f}; ties (gap 0) "
               f"{sum(g == 0 for g in gaps) / len(gaps):.0%}")


if __name__ == "__main__":
    main()
