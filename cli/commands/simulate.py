"""`meeple simulate GAME`: bot-only games through the use cases, then a summary."""

from __future__ import annotations

import json
import multiprocessing
import signal
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import mean, median
from typing import Any

import click
from tqdm import tqdm

from cli.connections import connections
from cli.embedded_redis import EmbeddedRedis, free_port
from events.accounts.players import Player, bot_player
from events.application.meeple import Meeple
from events.domain.table import Status, Table
from events.exceptions import MeepleError, UnknownGameType
from events.records.record import record_header
from events.store.clients import connect_urls, control_url, events_url
from games.bots import LEVEL_RULE, RANDOM, Level, bot_move
from games.information import ends_batch
from games.rng import Rng

HOST = Player("p_simulator", "simulator")
MOVE_LIMIT = 50_000  # a game longer than this counts as an error (it would never end)
ERRORS_DIR = "simulate-errors"
ERROR_FORMAT = "meeple-simulate-error/1"


@dataclass(frozen=True)
class Outcome:
    """One simulated game."""

    moves: int
    winners: tuple[int, ...] = ()
    error: str | None = None
    end: str | None = None  # how the game ended, when its score sheet says ("end")
    totals: tuple[int, ...] = ()  # every seat's final points
    figures: tuple[tuple[str, float], ...] = ()  # the sheet's own numbers ("rounds": 16)
    index: int = -1  # the game's number in the run (its bots' choices come from it)


@dataclass
class Tally:
    players: int
    games: int = 0
    finished: int = 0
    moves: int = 0
    errors: list[str] = field(default_factory=list)
    wins: Counter[int] = field(default_factory=Counter)
    ends: Counter[str] = field(default_factory=Counter)
    totals: list[int] = field(default_factory=list)
    figures: dict[str, list[float]] = field(default_factory=dict)
    seconds: float = 0.0
    first: int = 0  # the number of the run's first game
    planned: int = 0  # the games the run was asked for
    played: set[int] = field(default_factory=set)  # the numbers of the games played
    interrupted: bool = False  # stopped (Ctrl-C, SIGTERM) before every game was played

    def add(self, outcome: Outcome) -> None:
        self.games += 1
        self.played.add(outcome.index)
        self.moves += outcome.moves
        if outcome.error:
            self.errors.append(outcome.error)
        else:
            self.finished += 1
            self.wins.update(outcome.winners)
            if outcome.end is not None:
                self.ends[outcome.end] += 1
            self.totals += outcome.totals
            for name, value in outcome.figures:
                self.figures.setdefault(name, []).append(value)

    def played_through(self) -> int:
        """The number after the last of the games played without a gap from `first`: a run
        stopped part way goes on from there with --first (with several jobs a few games
        after it may have been played too)."""
        number = self.first
        while number in self.played:
            number += 1
        return number


def play_one(app: Meeple, game_type: str, players: int, rng: Rng, batch: int = 1,
             options: dict[str, Any] | None = None, level: Level = RANDOM,
             errors_dir: Path | None = None) -> Outcome:
    """A game of `players` bots of `level` through the use cases, `batch` moves per call.
    A game that fails is written to `errors_dir` (`keep_failed_game`), if given."""
    table = app.create_game(HOST, game_type, players, options=options or {},
                            bots=[{"seat": s, "level": level.id} for s in range(players)],
                            join=False)
    moves = 0
    error = None
    try:
        while table.status is not Status.ENDED:
            if moves >= MOVE_LIMIT:
                error = f"{table.id}: no end after {MOVE_LIMIT} moves"
                break
            before = table.version
            table = play_bot_moves(app, table, rng, batch, level)
            moves += table.version - before - (2 if table.status is Status.ENDED else 0)
    except (MeepleError, ValueError) as failure:
        error = f"{table.id} at version {table.version}: {failure!r}"
    if error is not None:
        if errors_dir is not None:
            error += f" (kept in {keep_failed_game(app, table, error, errors_dir)})"
        return Outcome(moves, error=error)
    assert table.result is not None
    winners = tuple(row["seat"] for row in table.result["seats"] if row["rank"] == 1)
    end = table.result.get("end")
    totals = tuple(row["total"] for row in table.result["seats"] if type(row.get("total")) is int)
    figures = tuple((name, float(value)) for name, value in sorted(table.result.items())
                    if type(value) in (int, float))
    return Outcome(moves, winners, end=end if isinstance(end, str) else None, totals=totals,
                   figures=figures)


def play_bot_moves(app: Meeple, table: Table, rng: Rng, batch: int,
                   level: Level = RANDOM) -> Table:
    """Up to `batch` moves of a `level` bot in one call (all or nothing, as a client may send
    them); the random level's moves are the same as before levels existed (same `rng`).

    The bots plan ahead on the rules with the game's seed, which only a server-side tool may
    read; the use case then re-checks and re-plays every move as it would a client's."""
    assert table.state is not None
    game, state, seed = table.game, table.state, app.store.get_seed(table.id)
    assert seed is not None
    key = table.rng_key(seed)  # the game's randomness: the server's seed and every seat's
    planned: list[dict[str, str]] = []
    seats: list[int] = []
    version = table.version
    while len(planned) < batch and not game.is_over(state):
        actors = sorted(game.actors(state))
        seat = rng.choice(actors)
        # Told no seat, the use case plays each move of a batch for the lowest seat that acts;
        # a move for another seat goes alone, with its seat named.
        if planned and seat != actors[0]:
            break
        move = bot_move(game, state, seat, rng, level, clock=time.monotonic)
        version += 1
        # A move that shows something new ends a batch (games.information), as for a client.
        # The check costs several plays of the move: skip it when the batch is full anyway.
        last = (seat != actors[0] or len(planned) + 1 == batch
                or ends_batch(game, state, seat, move, key, version))
        state, _ = game.play(state, seat, move, table.move_rng(seed, len(planned)))
        planned.append({"id": move["id"]})
        seats.append(seat)
        if last:
            break
    seat_named = seats[0] if len(seats) == 1 else None
    placed = table.seat_of(seats[0])  # the bot's own player (its id names its level)
    player = Player(placed.player_id, placed.name) if placed is not None else bot_player(seats[0])
    return app.play_moves(player, table.id, planned, table.version, seat_named).table


def keep_failed_game(app: Meeple, table: Table, error: str, folder: Path) -> Path:
    """Write a failed game, its seed included, to `folder`/<game id>.json, so that it can be
    rebuilt and looked into (`meeple simulate` is a server-side tool: its games have no
    players whose secrets the seed would give away). The events and seed are laid out as in a
    record (`events.records.record`), so cli.commands.replay.Replay rebuilds every version of it."""
    seed = app.store.get_seed(table.id)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{table.id}.json"
    path.write_text(json.dumps({
        "format": ERROR_FORMAT,
        "error": error,
        "game": record_header(table),
        "seed": seed.hex() if seed is not None else None,
        "events": app.events(table.id),
    }))
    return path


# --- one worker process per --jobs --------------------------------------------

_app: Meeple | None = None
_stopping = threading.Event()  # set by Ctrl-C or SIGTERM
STOP_POLL_SECONDS = 0.5


def _start_worker(events: str, control: str) -> None:
    global _app
    # Stopping is the parent's job: it reports the games played, then ends the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _app = Meeple.connect(connect_urls(events, control), dispatch=False)
    _app.max_bot_games = None  # its own tables, each played to its end (or its error)


Task = tuple[str, int, str, int, int, dict[str, Any], str, str]


def _play_indexed(task: Task) -> Outcome:
    game_type, players, seed, index, batch, options, level, errors_dir = task
    assert _app is not None
    rng = Rng(seed.encode(), players * 1_000_000 + index)
    outcome = play_one(_app, game_type, players, rng, batch, options, Level.parse(level),
                       Path(errors_dir))
    if outcome.error is not None:
        outcome = replace(outcome, error=f"game {index}: {outcome.error}")
    return replace(outcome, index=index)


def parse_level(ctx: click.Context, param: click.Parameter, value: str) -> Level:
    """`--level`: a bot level (games.bots.Level)."""
    try:
        return Level.parse(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`--option NAME=VALUE`, the value read as JSON (true, 3, "x") or else as text."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--option")
        try:
            options[name] = json.loads(raw)
        except ValueError:
            options[name] = raw
    return options


@click.command("simulate")
@click.argument("game_type")
@click.option("--games", default=100, show_default=True, type=click.IntRange(min=1),
              help="Games per player count.")
@click.option("--players", type=int, default=None,
              help="Seats per game. Default: every count the game allows.")
@click.option("--seed", default="simulate", show_default=True, help="Seed of the bots' choices.")
@click.option("--first", default=0, show_default=True, type=click.IntRange(min=0),
              help="Number of the first game, to play a long run in parts: the bots' choices "
                   "in game i come from --seed and i, so --first 0 and --first 1000 with "
                   "--games 1000 play the bots of one run of 2000 (each game's own "
                   "randomness comes from its server seed, new every time).")
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(min=1),
              help="Processes playing games at once.")
@click.option("--batch", default=1, show_default=True, type=click.IntRange(min=1, max=50),
              help="Moves per call, as a client may send several at once (all or nothing).")
@click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
              help="A table option of the game (repeatable), e.g. --option exodite=true.")
@click.option("--level", default="random", show_default=True, callback=parse_level,
              metavar="LEVEL", help=f"The bots' level: {LEVEL_RULE}.")
@click.option("--errors-dir", default=ERRORS_DIR, show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Where a game that fails is written (events and seed), to look into.")
def simulate(game_type: str, games: int, players: int | None, seed: str, first: int, jobs: int,
             batch: int, option_pairs: tuple[str, ...], level: Level, errors_dir: Path) -> None:
    """Play bot-only games through the use cases and report errors, wins and speed.

    Uses MEEPLE_REDIS_URL (or MEEPLE_EVENTS_URL and MEEPLE_CONTROL_URL) when set;
    otherwise a throw-away redis-server in a
    temporary folder. Stopped part way (Ctrl-C or SIGTERM), it reports the games played so
    far and where to go on from (--first), and exits with 130.
    """
    try:
        game = Meeple.game_type(game_type)
    except UnknownGameType as error:
        raise click.BadParameter(error.detail, param_hint="GAME_TYPE") from None
    options = parse_options(option_pairs)
    if options:
        try:
            game.options().load(options)
        except Exception as error:  # marshmallow's ValidationError: say which option is wrong
            raise click.BadParameter(str(error), param_hint="--option") from None
    counts = [players] if players else list(range(game.min_players, game.max_players + 1))
    if any(not game.min_players <= count <= game.max_players for count in counts):
        raise click.BadParameter(
            f"{game.title} is for {game.min_players} to {game.max_players} players",
            param_hint="--players",
        )
    if events_url() and control_url():
        connections()  # each store answers, or the run stops here saying which does not
    _stopping.clear()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _stop)
    tallies: list[Tally] = []
    with ExitStack() as stack:
        urls = ((events_url(), control_url()) if events_url() and control_url()
                else (_throwaway_redis(stack),) * 2)
        pool = stack.enter_context(
            multiprocessing.get_context("fork").Pool(jobs, _start_worker, urls)
        )
        for count in counts:
            tallies.append(run_count(pool, game.id, count, games, seed, batch, options, level,
                                     first, errors_dir))
            if tallies[-1].interrupted:
                break
    report(tallies, not_started=counts[len(tallies):], first=first, games=games)
    if any(t.errors for t in tallies):
        raise SystemExit(1)
    if any(t.interrupted for t in tallies):
        raise SystemExit(130)


def _stop(signum: int, frame: object) -> None:
    """Ctrl-C or SIGTERM: stop with a report of what was played. A flag that the loop over
    results looks at, not an exception raised wherever the main thread is: inside the
    pool's own locks one could leave the run hanging (a test saw it once in many runs)."""
    _stopping.set()


def run_count(pool: multiprocessing.pool.Pool, game_type: str, count: int, games: int,
              seed: str, batch: int = 1, options: dict[str, Any] | None = None,
              level: Level = RANDOM, first: int = 0, errors_dir: Path = Path(ERRORS_DIR)
              ) -> Tally:
    """Play games `first` to `first + games - 1` at `count` players on `pool`; a game that
    fails is written to `errors_dir`."""
    tally = Tally(players=count, first=first, planned=games)
    started = time.perf_counter()
    tasks: Iterator[Task] = (
        (game_type, count, seed, index, batch, options or {}, level.id, str(errors_dir))
        for index in range(first, first + games)
    )
    outcomes = pool.imap_unordered(_play_indexed, tasks)
    with tqdm(total=games, desc=f"{count} players", unit="game") as bar:
        for _ in range(games):
            outcome = _next_unless_stopped(outcomes)
            if outcome is None:
                # The games under way stop with the pool: each move is atomic, an unfinished
                # game stays as it was left, and only the games played are reported.
                tally.interrupted = True
                break
            tally.add(outcome)
            bar.update()
    tally.seconds = time.perf_counter() - started
    return tally


def _next_unless_stopped(outcomes: multiprocessing.pool.IMapIterator) -> Outcome | None:
    """The next game's outcome, or None once the run is stopped (looked at twice a second)."""
    while not _stopping.is_set():
        try:
            outcome: Outcome = outcomes.next(timeout=STOP_POLL_SECONDS)
            return outcome
        except multiprocessing.TimeoutError:
            continue
    return None


def report(tallies: list[Tally], not_started: list[int] | None = None, first: int = 0,
           games: int = 0) -> None:
    """The summary of a run; a run stopped part way also says how to play the rest: the
    count under way from where it stopped, and the counts `not_started` (games `first` to
    `first + games - 1` each), one command line each."""
    click.echo(f"{'players':>7} {'games':>6} {'finished':>8} {'moves':>9} {'errors':>6}"
               f" {'moves/game':>10} {'moves/s':>8} {'games/s':>8}  wins per seat")
    for t in tallies:
        wins = " ".join(f"{seat}:{t.wins[seat]}" for seat in range(t.players))
        rate = t.moves / t.seconds if t.seconds else 0.0
        games_rate = t.games / t.seconds if t.seconds else 0.0
        per_game = t.moves / t.games if t.games else 0.0
        click.echo(f"{t.players:>7} {t.games:>6} {t.finished:>8} {t.moves:>9}"
                   f" {len(t.errors):>6} {per_game:>10.0f} {rate:>8.0f} {games_rate:>8.1f}"
                   f"  {wins}")
        for error in t.errors[:10]:
            click.echo(f"  error: {error}", err=True)
        if t.interrupted:
            through, end = t.played_through(), t.first + t.planned
            played = (f"games {t.first} to {through - 1} all played" if through > t.first
                      else f"game {t.first} not played")
            click.echo(f"{t.players} players: stopped after {t.games} of {t.planned} games; "
                       f"{played}. To play the rest: "
                       f"--players {t.players} --first {through} --games {end - through}")
    for count in not_started or ():
        click.echo(f"{count} players: not started. To play them: "
                   f"--players {count} --first {first} --games {games}")
    for t in tallies:
        if t.totals:
            points = sorted(t.totals)
            click.echo(f"{t.players} players final points: min {points[0]}, median "
                       f"{median(points):g}, max {points[-1]} (every seat of every game)")
        for name, values in sorted(t.figures.items()):  # e.g. Trajan's rounds and quarters
            click.echo(f"{t.players} players {name} per game: mean {mean(values):g}, "
                       f"min {min(values):g}, max {max(values):g}")
        if t.ends:  # the games whose score sheet names how they ended
            shares = ", ".join(f"{end} {count / t.finished:.1%}"
                               for end, count in sorted(t.ends.items(), key=lambda e: -e[1]))
            click.echo(f"{t.players} players ended by: {shares}")


def _throwaway_redis(stack: ExitStack) -> str:
    workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="meeple-sim-")))
    server = stack.enter_context(EmbeddedRedis(workdir, free_port(), durable=False))
    return server.url
