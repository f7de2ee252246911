"""Where the search and greedy choose differently, by kind of choice (issue 17's tuning).

    .venv/bin/python -m bench.agreement --game GAME [--players 2] [--games 1]
                                        [--iterations 200] [--seed S] [--top 8]

Greedy plays every seat of `--games` games (each a pure function of its seed, as in
bench/ai.py). At every choice (more than one move the bots weigh), ismcts with an iteration
budget is asked too, on the same state with the same bot rng, and its move compared with
greedy's. A choice's kind is the id of its first move up to the first colon (`add`,
`request`, `buy`): the rules' moves of one phase share it. Printed per kind: choices,
median moves, how often the two agree, and the most frequent disagreements (greedy's move
-> the search's, by kind). A kind where they seldom agree is where the search's values part
from the evaluation's: in Res Publica this showed the search drawing cards where greedy
built a City or opened a trade, a bias of the tree's backup (bench/README.md, session 15).

Neither is the truth: it shows where to look, not who is right (bench/ai.py says that).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

import click
from tqdm import tqdm

from bench.ai import game_seed
from bench.harness import machine, print_machine
from games.bots import bot_rng
from games.contract import Game, Move, Seat, State
from games.registry import get_game
from games.rng import Rng
from games.search.ismcts import Budget, bot_moves, choose, greedy


@dataclass(frozen=True)
class Turn:
    """One move of a greedy game: the state, the seat to move, the moves the bots weigh,
    greedy's pick among them (the only move, if one), and what makes the game replayable."""

    state: State
    seat: Seat
    moves: list[Move]
    move: Move
    game_bytes: bytes
    ply: int


def greedy_games(game: Game, players: int, games: int, seed: str) -> Iterator[Turn]:
    """Every move of `games` games of greedy in every seat, each a pure function of its seed
    (as bench/ai.py's: the bot at ply p draws from bot_rng(seed, p, seat))."""
    for index in range(games):
        game_bytes = bytes.fromhex(game_seed(seed, game.id, players, index))
        state = game.setup(players, {}, Rng(game_bytes, 0))
        ply = 0
        while not game.is_over(state):
            seat = min(game.actors(state))
            moves = bot_moves(game, state, seat)
            move = moves[0]
            if len(moves) > 1:
                move = greedy(game, state, seat, bot_rng(game_bytes, ply, seat), game.evaluate)
            yield Turn(state, seat, moves, move, game_bytes, ply)
            ply += 1
            state, _ = game.play(state, seat, move, Rng(game_bytes, ply))


@dataclass
class Kind:
    """The choices of one kind: how many moves each offered, and both bots' picks."""

    moves: list[int] = field(default_factory=list)
    agreed: int = 0
    differences: Counter[tuple[str, str]] = field(default_factory=Counter)


def kind_of(move: Move) -> str:
    return str(move["id"]).split(":", 1)[0]


@click.command()
@click.option("--game", "game_type", required=True, help="A game id.")
@click.option("--players", default=2, show_default=True, type=int)
@click.option("--games", default=1, show_default=True, type=click.IntRange(min=1))
@click.option("--iterations", default=200, show_default=True,
              type=click.IntRange(min=1, max=20_000), help="The search's budget per choice.")
@click.option("--seed", default="agreement", show_default=True)
@click.option("--top", default=8, show_default=True, type=click.IntRange(min=0),
              help="Disagreements listed per kind.")
def main(game_type: str, players: int, games: int, iterations: int, seed: str,
         top: int) -> None:
    """Compare ismcts's choices with greedy's along greedy games."""
    game = get_game(game_type)
    if not game.min_players <= players <= game.max_players:
        raise click.BadParameter(f"{game.title} is for {game.min_players} to "
                                 f"{game.max_players} players", param_hint="--players")
    print_machine(machine())
    kinds: dict[str, Kind] = defaultdict(Kind)
    with tqdm(desc=f"{game.id} {players}p, ismcts-{iterations}it vs greedy", unit="choice") as bar:
        for turn in greedy_games(game, players, games, seed):
            if len(turn.moves) == 1:
                continue
            searched = choose(game, turn.state, turn.seat,
                              bot_rng(turn.game_bytes, turn.ply, turn.seat),
                              Budget(iterations=iterations), game.evaluate)
            kind = kinds[kind_of(turn.moves[0])]
            kind.moves.append(len(turn.moves))
            if searched["id"] == turn.move["id"]:
                kind.agreed += 1
            else:
                kind.differences[(kind_of(turn.move), kind_of(searched))] += 1
            bar.update()
    report(kinds, top)


def report(kinds: dict[str, Kind], top: int) -> None:
    total = sum(len(k.moves) for k in kinds.values())
    agreed = sum(k.agreed for k in kinds.values())
    click.echo(f"\n{total} choices, the search agrees with greedy on {agreed / total:.0%}")
    click.echo(f"{'kind':<14} {'choices':>7} {'moves p50':>9} {'agree':>6}  greedy -> ismcts")
    for name, kind in sorted(kinds.items(), key=lambda item: -len(item[1].moves)):
        listed = ", ".join(f"{a} -> {b} {n}" for (a, b), n in kind.differences.most_common(top))
        click.echo(f"{name:<14} {len(kind.moves):>7} {statistics.median(kind.moves):>9g} "
                   f"{kind.agreed / len(kind.moves):>6.0%}  {listed}")


if __name__ == "__main__":
    main()
