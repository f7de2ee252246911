"""`meeple simulate GAME`: bot-only games through the use cases, then a summary."""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import click
import redis
from tqdm import tqdm

from events.application import Meeple
from events.exceptions import MeepleError
from events.players import Player, bot_player
from events.table import Status, Table
from games.bots import random_move
from games.rng import Rng
from service.cli import main
from service.embedded_redis import EmbeddedRedis, free_port

HOST = Player("p_simulator", "simulator")
MOVE_LIMIT = 50_000  # a game longer than this counts as an error (it would never end)


@dataclass
class Tally:
    players: int
    games: int = 0
    finished: int = 0
    moves: int = 0
    errors: list[str] = field(default_factory=list)
    wins: Counter[int] = field(default_factory=Counter)
    seconds: float = 0.0


def play_one(app: Meeple, game_type: str, players: int, rng: Rng, tally: Tally) -> None:
    table = app.create_game(HOST, game_type, players, bots=list(range(players)), join=False)
    tally.games += 1
    for _ in range(MOVE_LIMIT):
        if table.status is Status.ENDED:
            break
        table = play_bot_move(app, table, rng)
        tally.moves += 1
    else:
        tally.errors.append(f"{table.id}: no end after {MOVE_LIMIT} moves")
        return
    tally.finished += 1
    assert table.result is not None
    tally.wins.update(row["seat"] for row in table.result["seats"] if row["rank"] == 1)


def play_bot_move(app: Meeple, table: Table, rng: Rng) -> Table:
    assert table.state is not None
    seat = rng.choice(table.actors())
    move = random_move(table.game, table.state, seat, rng)
    result = app.play_moves(bot_player(seat), table.id, [{"id": move["id"]}], table.version, seat)
    return result.table


@main.command("simulate")
@click.argument("game_type")
@click.option("--games", default=100, show_default=True, help="Games per player count.")
@click.option("--players", type=int, default=None,
              help="Seats per game. Default: every count the game allows.")
@click.option("--seed", default="simulate", show_default=True, help="Seed of the bots' choices.")
def simulate(game_type: str, games: int, players: int | None, seed: str) -> None:
    """Play bot-only games through the use cases and report errors, wins and speed.

    Uses MEEPLE_REDIS_URL when set; otherwise a throw-away redis-server in a
    temporary folder.
    """
    with ExitStack() as stack:
        url = os.environ.get("MEEPLE_REDIS_URL") or _throwaway_redis(stack)
        app = Meeple(redis.Redis.from_url(url))
        game = app.game_type(game_type)
        counts = [players] if players else list(range(game.min_players, game.max_players + 1))
        for count in counts:
            if not game.min_players <= count <= game.max_players:
                raise click.BadParameter(f"{game.title} is for {game.min_players}"
                                         f" to {game.max_players} players", param_hint="--players")
        tallies = [run_count(app, game_type, count, games, seed) for count in counts]
    report(tallies)
    if any(t.errors for t in tallies):
        raise SystemExit(1)


def run_count(app: Meeple, game_type: str, count: int, games: int, seed: str) -> Tally:
    tally = Tally(players=count)
    started = time.perf_counter()
    for index in tqdm(range(games), desc=f"{count} players", unit="game"):
        rng = Rng(seed.encode(), count * 1_000_000 + index)
        try:
            play_one(app, game_type, count, rng, tally)
        except (MeepleError, AssertionError, ValueError) as error:
            tally.errors.append(f"game {index}: {error!r}")
    tally.seconds = time.perf_counter() - started
    return tally


def report(tallies: list[Tally]) -> None:
    click.echo(f"{'players':>7} {'games':>6} {'finished':>8} {'moves':>9} {'errors':>6}"
               f" {'moves/s':>8}  wins per seat")
    for t in tallies:
        wins = " ".join(f"{seat}:{t.wins[seat]}" for seat in range(t.players))
        rate = t.moves / t.seconds if t.seconds else 0.0
        click.echo(f"{t.players:>7} {t.games:>6} {t.finished:>8} {t.moves:>9}"
                   f" {len(t.errors):>6} {rate:>8.0f}  {wins}")
        for error in t.errors[:10]:
            click.echo(f"  error: {error}", err=True)


def _throwaway_redis(stack: ExitStack) -> str:
    workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="meeple-sim-")))
    server = stack.enter_context(EmbeddedRedis(workdir, free_port()))
    return server.url
