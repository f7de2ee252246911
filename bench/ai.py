"""Bot tournaments on the rules alone (no store, no HTTP): how often a bot level wins against
another, how long its moves take, and how many decisions a game asks of it.

    .venv/bin/python -m bench.ai [--game GAME|all] [--players N|min|max] [--levels A,B ...]
                                 [--games 100] [--jobs N] [--seed S] [--out FILE.jsonl]
                                 [--json FILE] [--option NAME=VALUE ...]
    .venv/bin/python -m bench.ai --levels A,B --deals GROUPS.json [--group contested] [--games N]
    .venv/bin/python -m bench.ai --replay SEED [--from FILE.jsonl] [--show-moves]
    .venv/bin/python -m bench.ai --replay SEED --game GAME --seating L0,L1,... [--show-moves]

A pairing is a game, a player count and a list of levels (`--levels`, repeatable). With two
levels the first takes one seat and the second every other seat ("one ismcts against random
opponents"); with as many levels as players each takes one seat. Seats rotate: in game i the
first level sits at seat i mod players (the others follow it round the table), so over a
multiple of `players` games each level sits in each seat equally often.

A game is a pure function of its seed (32 hex digits, from `--seed`, the game, the player
count and the game's index, not from the levels: every pairing of a run plays the same deals)
and its seating: the setup draws from Rng(seed, 0), the move that makes ply p from
Rng(seed, p), and the bot of seat s choosing at ply p from games.bots.bot_rng(seed, p, s)
(bench/deal_luck.py plays the same deals again with the bots' draws under other keys).
The acting seat is the lowest of `game.actors` (simultaneous choices one after another, in
seat order, as the contract allows); a seat with one legal move plays it without asking
its bot (it costs nothing and is not a decision). Random, greedy and iteration-budgeted
levels (`ismcts-500it`) therefore replay exactly, and the results do not depend on
`--jobs`; a time budget (`ismcts-200ms`) plays as well as the machine allows at that moment,
so with more jobs than free cores it searches less.

A level "wins" a game when one of its seats ranks first; a first place shared by k seats
gives each of them 1/k. Win rates are per seat (the level's share of the wins divided by the
seats it holds), so each level's fair share is 1/players; the 95 % interval is Wilson's, on
the games.

`--out` writes one JSON line per game, in the order of the games (whatever `--jobs`):
game, players, options, seats (the level of each seat), seed, index, winners, ranks, moves,
decisions (by seat), times_ms (each decision's wall time, by seat), cpu_ms (its CPU time),
worlds (the determinized worlds it dealt: ismcts's iterations, greedy's samples), end,
wall_s, cpu_s, error;
with `--record-moves` also the id of every move, which lets `--replay` say where a replay
departs from the record. `--replay SEED` plays again every game of the `--from` file (default:
the `--out` path) with that seed, or, with `--game` and `--seating`, the game that seed and
seating make, and compares the outcome with the record.

`--deals FILE` plays only some of the deals: those of one `--group` ("contested", "always
won" or "never won") in the file bench/deal_luck.py's `--save` wrote, the first `--games` of
them, with that file's game, player count and seed (e.g. a longer search only where the
deal leaves the result open, against greedy in the same seats).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import multiprocessing
import multiprocessing.pool
import os
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import click
from tqdm import tqdm

from bench.harness import machine, percentile, print_machine
from cli.commands.simulate import parse_options
from games.bots import Level, bot_move, bot_rng
from games.contract import Game, State
from games.registry import GAMES, get_game
from games.rng import Rng

MOVE_LIMIT = 20_000  # a game still going after this many moves counts as an error
Z95 = 1.959964  # the normal quantile of a two-sided 95 % interval
BUDGET_SLACK = 1.2  # a time-budgeted bot's p99 move time should stay under 1.2 x its budget


# --------------------------------------------------------------------------- one game


@dataclass(frozen=True)
class Task:
    """Everything one game depends on."""

    game: str
    players: int
    seats: tuple[str, ...]  # the level id of each seat
    seed: str  # hex
    index: int = 0
    options: tuple[tuple[str, Any], ...] = ()
    move_limit: int = MOVE_LIMIT
    record_moves: bool = False
    bot_key: str = ""  # other bot randomness on the same deal (bench/deal_luck.py); "" as ever


def game_seed(base: str, game_type: str, players: int, index: int) -> str:
    """The seed of game `index`: the same for every pairing of a run (the same deals)."""
    text = f"bench/ai/v1/{base}/{game_type}/{players}/{index}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def seating(levels: tuple[str, ...], players: int, index: int) -> tuple[str, ...]:
    """The level of each seat in game `index`: the first level at seat index mod players;
    with two levels the second in every other seat, with one level a seat each the others
    following the first round the table."""
    first = index % players
    if len(levels) == 2:
        return tuple(levels[0] if seat == first else levels[1] for seat in range(players))
    return tuple(levels[(seat - first) % players] for seat in range(players))


def play_game(task: Task) -> dict[str, Any]:
    """Play one game to its end; its record (see the module's doc). Never raises: a game
    that fails or never ends is a record with an `error`."""
    record: dict[str, Any] = {
        "game": task.game, "players": task.players, "options": dict(task.options),
        "seats": list(task.seats), "seed": task.seed, "index": task.index,
        "winners": [], "ranks": [], "moves": 0, "decisions": [0] * task.players,
        "times_ms": [[] for _ in range(task.players)],
        "cpu_ms": [[] for _ in range(task.players)],
        "worlds": [[] for _ in range(task.players)], "end": None, "error": None,
    }
    move_ids: list[list[Any]] = []
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        _play(task, record, move_ids)
    except Exception as error:  # a bug in the rules or the bots: say where, play on
        where = traceback.extract_tb(error.__traceback__)[-1]
        record["error"] = (f"at move {record['moves']}: {error!r} "
                           f"({Path(where.filename).name}:{where.lineno})")
    record["wall_s"] = round(time.perf_counter() - wall, 3)
    record["cpu_s"] = round(time.process_time() - cpu, 3)
    if task.record_moves:
        record["move_ids"] = move_ids
    return record


def _play(task: Task, record: dict[str, Any], move_ids: list[list[Any]]) -> None:
    game = get_game(task.game)
    counting = _CountingWorlds(game)
    searched = cast(Game, counting)  # what the bots get: the game, its worlds counted
    levels = [Level.parse(text) for text in task.seats]
    seed = bytes.fromhex(task.seed)
    state = game.setup(task.players, dict(task.options), Rng(seed, 0))
    decisions, times, cpus, worlds = (record[key] for key in
                                      ("decisions", "times_ms", "cpu_ms", "worlds"))
    ply = 0
    while not game.is_over(state):
        if ply >= task.move_limit:
            raise RuntimeError(f"no end after {task.move_limit} moves")
        actors = game.actors(state)
        if not actors:
            raise RuntimeError("the game is not over but nobody acts")
        seat = min(actors)
        legal = game.legal_moves(state, seat)
        if not legal:
            raise RuntimeError(f"seat {seat} acts but has no legal move")
        spent: float | None = None
        if len(legal) == 1:
            move = legal[0]
        else:
            counting.worlds = 0
            started, cpu = time.perf_counter(), time.process_time()
            rng = bot_rng(seed + task.bot_key.encode(), ply, seat)
            move = bot_move(searched, state, seat, rng, levels[seat], clock=time.monotonic)
            spent = round((time.perf_counter() - started) * 1000, 3)
            cpus[seat].append(round((time.process_time() - cpu) * 1000, 3))
            times[seat].append(spent)
            worlds[seat].append(counting.worlds)
            decisions[seat] += 1
        if task.record_moves:
            move_ids.append([seat, move["id"], spent])
        ply += 1
        record["moves"] = ply
        state, _ = game.play(state, seat, move, Rng(seed, ply))
    sheet = game.score(state)
    ranks = [int(row["rank"]) for row in sorted(sheet["seats"], key=lambda row: row["seat"])]
    record["ranks"] = ranks
    record["winners"] = [seat for seat, rank in enumerate(ranks) if rank == 1]
    end = sheet.get("end")
    record["end"] = end if isinstance(end, str) else None


class _CountingWorlds:
    """The game, with its `determinize` calls counted (one per ismcts iteration)."""

    def __init__(self, game: Game) -> None:
        self._game = game
        self.worlds = 0
        for name in ("actors", "legal_moves", "play", "is_over", "score", "evaluate"):
            setattr(self, name, getattr(game, name))  # the search's hot calls: no detour

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def determinize(self, state: State, seat: int, rng: Rng) -> State:
        self.worlds += 1
        return self._game.determinize(state, seat, rng)


# --------------------------------------------------------------------------- a pairing


@dataclass(frozen=True)
class Pairing:
    game: str
    players: int
    levels: tuple[str, ...]

    @property
    def roles(self) -> list[str]:
        """A name for each entry of `levels` (a level listed twice gets #2)."""
        names = []
        for k, level in enumerate(self.levels):
            names.append(level if self.levels.index(level) == k else f"{level}#{k + 1}")
        return names

    def role_of_seat(self, index: int, seat: int) -> int:
        """Which entry of `levels` holds `seat` in game `index`."""
        first = index % self.players
        if len(self.levels) == 2:
            return 0 if seat == first else 1
        return (seat - first) % self.players

    def seats_of_role(self, role: int) -> int:
        """How many seats that entry of `levels` holds in every game."""
        return self.players - 1 if len(self.levels) == 2 and role == 1 else 1


@dataclass
class RoleStats:
    credit: float = 0.0  # wins, a shared first place counting 1/k
    shared: int = 0  # games it shared first place in
    decisions: int = 0
    times_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    worlds: int = 0


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion (successes may be fractional: shared wins)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _percentiles(ordered: list[float]) -> dict[str, float]:
    return {"p50": percentile(ordered, 0.50), "p95": percentile(ordered, 0.95),
            "p99": percentile(ordered, 0.99), "max": ordered[-1] if ordered else 0.0}


def summarize(pairing: Pairing, records: list[dict[str, Any]], wall_s: float
              ) -> dict[str, Any]:
    """The figures of a pairing from its games' records."""
    finished = [r for r in records if r["error"] is None]
    roles = [RoleStats() for _ in pairing.levels]
    wins_by_seat = [0.0] * pairing.players
    shared_games = 0
    for record in finished:
        winners = record["winners"]
        if len(winners) > 1:
            shared_games += 1
        for seat in winners:
            wins_by_seat[seat] += 1 / len(winners)
            stats = roles[pairing.role_of_seat(record["index"], seat)]
            stats.credit += 1 / len(winners)
            if len(winners) > 1:
                stats.shared += 1
    for record in records:  # decisions and times count in unfinished games too
        for seat in range(pairing.players):
            stats = roles[pairing.role_of_seat(record["index"], seat)]
            stats.decisions += record["decisions"][seat]
            stats.times_ms += record["times_ms"][seat]
            stats.cpu_ms += record["cpu_ms"][seat]
            stats.worlds += sum(record["worlds"][seat])
    games = len(finished)
    rows = []
    for name, level, role, stats in zip(pairing.roles, pairing.levels, range(len(roles)),
                                        roles, strict=True):
        seats = pairing.seats_of_role(role)
        low, high = wilson(stats.credit, games)  # of the level's share of the games
        ordered, cpu = sorted(stats.times_ms), sorted(stats.cpu_ms)
        seconds, cpu_seconds = sum(ordered) / 1000, sum(cpu) / 1000
        parsed = Level.parse(level)
        row: dict[str, Any] = {
            "level": name, "seats": seats,
            "win_rate": stats.credit / games / seats if games else 0.0,
            "ci95": [low / seats, high / seats],
            "fair": 1 / pairing.players,
            "wins": stats.credit, "shared_first": stats.shared,
            "decisions": stats.decisions,
            "decisions_per_game_seat": stats.decisions / len(records) / seats if records else 0.0,
            "decisions_per_s": stats.decisions / seconds if seconds else None,
            "move_ms": _percentiles(ordered),
            "cpu_ms": _percentiles(cpu),
            "cpu_per_wall": cpu_seconds / seconds if seconds else None,
            "worlds_per_decision": stats.worlds / stats.decisions if stats.decisions else 0.0,
        }
        if parsed.ms is not None:
            row["budget_ms"] = parsed.ms
            row["p99_over_budget"] = row["move_ms"]["p99"] / parsed.ms
        rows.append(row)
    moves = [r["moves"] for r in finished]
    return {
        "game": pairing.game, "players": pairing.players, "levels": list(pairing.levels),
        "games": len(records), "finished": games, "errors": len(records) - games,
        "shared_first_games": shared_games,
        "moves_per_game": sum(moves) / len(moves) if moves else 0.0,
        "decisions_per_game": (sum(sum(r["decisions"]) for r in records) / len(records)
                               if records else 0.0),
        "wins_by_seat": wins_by_seat,
        "cpu_s": sum(r["cpu_s"] for r in records), "wall_s": wall_s,
        "roles": rows,
        "error_samples": [f"seed {r['seed']}: {r['error']}" for r in records if r["error"]][:5],
    }


def print_summary(summary: dict[str, Any], jobs: int) -> None:
    s = summary
    print(f"\n{s['game']}, {s['players']} players: {' vs '.join(s['levels'])}")
    print(f"  {s['games']} games ({s['finished']} finished, {s['errors']} errors) in "
          f"{s['wall_s']:.1f} s wall, {s['cpu_s']:.1f} s CPU, {jobs} jobs; "
          f"{s['moves_per_game']:.1f} moves and {s['decisions_per_game']:.1f} bot decisions "
          f"a game")
    print(f"  {'level':<16} {'seats':>5} {'win rate (95% CI)':>24} {'fair':>6} "
          f"{'dec/game/seat':>13} {'dec/s':>9}  move ms p50 / p95 / p99 / max")
    for row in s["roles"]:
        low, high = row["ci95"]
        rate = f"{row['win_rate']:.3f} ({low:.3f}-{high:.3f})"
        per_s = f"{row['decisions_per_s']:.1f}" if row["decisions_per_s"] else "-"
        times = row["move_ms"]
        print(f"  {row['level']:<16} {row['seats']:>5} {rate:>24} {row['fair']:>6.3f} "
              f"{row['decisions_per_game_seat']:>13.1f} {per_s:>9}  "
              f"{times['p50']:.2f} / {times['p95']:.2f} / {times['p99']:.2f} / "
              f"{times['max']:.2f}")
    print(f"  {'level':<16} {'worlds/decision':>15} {'CPU/wall':>8}  "
          f"CPU ms a move p50 / p95 / p99 / max")
    for row in s["roles"]:
        times = row["cpu_ms"]
        share = f"{row['cpu_per_wall']:.2f}" if row["cpu_per_wall"] else "-"
        print(f"  {row['level']:<16} {row['worlds_per_decision']:>15.1f} {share:>8}  "
              f"{times['p50']:.2f} / {times['p95']:.2f} / {times['p99']:.2f} / "
              f"{times['max']:.2f}")
    for row in s["roles"]:
        if "budget_ms" in row:
            verdict = "ok" if row["p99_over_budget"] < BUDGET_SLACK else "OVER"
            print(f"  budget {row['level']}: p99 {row['move_ms']['p99']:.1f} ms = "
                  f"{row['p99_over_budget']:.3f} x {row['budget_ms']} ms "
                  f"(limit {BUDGET_SLACK} x: {verdict})")
    wins = ", ".join(f"{w:g}" for w in s["wins_by_seat"])
    print(f"  wins by seat: {wins}; first place shared in {s['shared_first_games']} games "
          f"(each of the k seats sharing it counted 1/k)")
    for line in s["error_samples"]:
        print(f"  error: {line}")


# --------------------------------------------------------------------------- running


def run_pairing(pool: multiprocessing.pool.Pool | None, pairing: Pairing,
                indices: Sequence[int], base_seed: str, options: dict[str, Any],
                move_limit: int, record_moves: bool, out: IO[str] | None, bot_key: str = ""
                ) -> tuple[list[dict[str, Any]], float]:
    """Play the pairing's games of those indices (`range(games)` for a tournament); the
    records in that order, and the wall time."""
    tasks = [Task(pairing.game, pairing.players, seating(pairing.levels, pairing.players, i),
                  game_seed(base_seed, pairing.game, pairing.players, i), i,
                  tuple(sorted(options.items())), move_limit, record_moves, bot_key)
             for i in indices]
    position = {index: k for k, index in enumerate(indices)}
    started = time.perf_counter()
    results: Iterator[dict[str, Any]] = (
        map(play_game, tasks) if pool is None else pool.imap_unordered(play_game, tasks))
    records: list[dict[str, Any] | None] = [None] * len(tasks)
    written = 0
    label = f"{pairing.game} {pairing.players}p {' vs '.join(pairing.levels)}"
    for record in tqdm(results, total=len(tasks), desc=label, unit="game"):
        records[position[record["index"]]] = record
        # Write in game order, whatever order the processes finish in.
        while written < len(records) and records[written] is not None:
            if out is not None:
                out.write(json.dumps(records[written]) + "\n")
                out.flush()
            written += 1
    return [r for r in records if r is not None], time.perf_counter() - started


def chosen_deals(path: Path, group: str, games: int) -> tuple[str, str, str, list[int]]:
    """From bench/deal_luck.py's `--save` file: its game, player count and seed, and the
    first `games` deal indices of `group`."""
    try:
        saved = json.loads(path.read_text())
        deals = list(dict.fromkeys(int(i) for i in saved["groups"][group]))[:games]
        return str(saved["game"]), str(saved["players"]), str(saved["seed"]), deals
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise click.BadParameter(f"{path}: not a bench/deal_luck.py --save file ({error})",
                                 param_hint="--deals") from None


def parse_levels(text: str) -> tuple[str, ...]:
    try:
        return tuple(Level.parse(part.strip()).id for part in text.split(","))
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--levels") from None


def player_counts(game_type: str, players: str) -> list[int]:
    game = get_game(game_type)
    if players == "min":
        return [game.min_players]
    if players == "max":
        return [game.max_players]
    if players == "all":
        return list(range(game.min_players, game.max_players + 1))
    try:
        count = int(players)
    except ValueError:
        raise click.BadParameter("a number, min, max or all", param_hint="--players") from None
    return [count] if game.min_players <= count <= game.max_players else []


def table_options(game_type: str, options: dict[str, Any]) -> dict[str, Any]:
    """The options as a table of this game has them (defaults filled in)."""
    try:
        loaded: dict[str, Any] = get_game(game_type).options().load(options)
    except Exception as error:  # marshmallow's ValidationError
        raise click.BadParameter(f"{game_type}: {error}", param_hint="--option") from None
    return loaded


# --------------------------------------------------------------------------- replay


def replay(seeds: tuple[str, ...], source: Path | None, game_type: str | None,
           seats: str | None, options: dict[str, Any], move_limit: int,
           show_moves: bool) -> bool:
    """Play the games of `seeds` again and compare them with their records; False if one
    differs where it should not (every level replays exactly)."""
    wanted: list[tuple[Task, dict[str, Any] | None]] = []
    if seats is not None:
        if game_type is None or game_type == "all":
            raise click.UsageError("--seating needs --game GAME")
        levels = parse_levels(seats)
        for seed in seeds:
            wanted.append((Task(game_type, len(levels), levels, seed,
                                options=tuple(sorted(table_options(game_type, options).items())),
                                move_limit=move_limit, record_moves=True), None))
    else:
        if source is None or not source.exists():
            raise click.UsageError("--replay needs --from FILE (or --out FILE) holding the "
                                   "games, or --game and --seating")
        with source.open() as lines:
            for line in lines:
                record = json.loads(line)
                if record.get("seed") in seeds:
                    wanted.append((Task(record["game"], record["players"],
                                        tuple(record["seats"]), record["seed"],
                                        record.get("index", 0),
                                        tuple(sorted(record.get("options", {}).items())),
                                        move_limit, True), record))
        missing = set(seeds) - {task.seed for task, _ in wanted}
        if missing:
            raise click.UsageError(f"no game with seed {', '.join(sorted(missing))} in {source}")
    all_same = True
    for task, recorded in wanted:
        again = play_game(task)
        print(f"{task.game}, {task.players} players, seed {task.seed}, seats "
              f"{', '.join(f'{s}: {level}' for s, level in enumerate(task.seats))}")
        if show_moves:
            for ply, (seat, move_id, ms) in enumerate(again["move_ids"]):
                spent = f"{ms:10.2f} ms" if ms is not None else " " * 13  # one legal move
                print(f"  {ply + 1:>6} seat {seat} {task.seats[seat]:<14} {spent}  {move_id}")
        print(f"  moves {again['moves']}, ranks {again['ranks']}, winners {again['winners']}"
              + (f", error: {again['error']}" if again["error"] else ""))
        if recorded is None:
            continue
        same = all(again[key] == recorded[key] for key in ("moves", "ranks", "winners", "error"))
        exact = all(Level.parse(level).replays_exactly for level in task.seats)
        if "move_ids" in recorded:
            mine = [tuple(m[:2]) for m in again["move_ids"]]
            theirs = [tuple(m[:2]) for m in recorded["move_ids"]]
            departs = next((ply for ply, (a, b) in enumerate(zip(mine, theirs, strict=False))
                            if a != b), None)
            if departs is None and len(mine) != len(theirs):
                departs = min(len(mine), len(theirs))
            same = same and departs is None
            if departs is not None:
                print(f"  departs from the record at move {departs + 1}")
        if same:
            print("  the same as the record")
        elif exact:
            print("  DIFFERENT from the record, though every level here replays exactly")
            all_same = False
        else:
            print("  different from the record: a time-budgeted level searches as far as the "
                  "machine allows at the moment, so it need not replay exactly")
    return all_same


# --------------------------------------------------------------------------- the command


def _worker_init() -> None:
    # The parent owns the terminal: a child's Ctrl-C is the parent's to handle.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def game_pool(jobs: int) -> Iterator[multiprocessing.pool.Pool | None]:
    """Processes to play games in for `run_pairing` (None for one job: played in this
    process); stopped on the way out, whatever happened."""
    if jobs == 1:
        yield None
        return
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    pool = context.Pool(jobs, _worker_init)
    try:
        yield pool
    finally:
        pool.terminate()
        pool.join()


@click.command()
@click.option("--game", "game_type", default="all", show_default=True,
              help="A game id, or all.")
@click.option("--players", default="2", show_default=True,
              help="Seats per game: a number, min, max, or all (every count the game allows).")
@click.option("--levels", "level_lists", multiple=True, metavar="A,B",
              help="A pairing (repeatable): two levels (the first in one seat, the second in "
                   "the others) or one per seat. Default: ismcts-200ms,random.")
@click.option("--games", default=100, show_default=True, type=click.IntRange(min=1),
              help="Games per pairing (a multiple of the player count rotates seats evenly).")
@click.option("--jobs", default=os.cpu_count() or 1, show_default="CPU count",
              type=click.IntRange(min=1), help="Processes playing games at once.")
@click.option("--seed", "base_seed", default="bench/ai", show_default=True,
              help="The base of every game's seed.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write every game as a JSON line here (replaced if it exists).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the machine and every pairing's figures here.")
@click.option("--record-moves", is_flag=True, help="Also write the id of every move in --out.")
@click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
              help="A table option (repeatable), e.g. --option exodite=true.")
@click.option("--move-limit", default=MOVE_LIMIT, show_default=True,
              type=click.IntRange(min=1), help="A game longer than this is an error.")
@click.option("--replay", "replay_seeds", multiple=True, metavar="SEED",
              help="Play the game(s) of this seed again (repeatable) instead of a tournament.")
@click.option("--from", "source", type=click.Path(dir_okay=False, path_type=Path),
              help="--replay: the results file to find the seed in (default: --out).")
@click.option("--seating", metavar="L0,L1,...",
              help="--replay without a file: the level of each seat (with --game).")
@click.option("--show-moves", is_flag=True, help="--replay: list every move.")
@click.option("--deals", "deals_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Play only the deals of one --group in this bench/deal_luck.py --save file.")
@click.option("--group", default="contested", show_default=True,
              type=click.Choice(["contested", "always won", "never won"]),
              help="--deals: which of its groups.")
def main(game_type: str, players: str, level_lists: tuple[str, ...], games: int, jobs: int,
         base_seed: str, out: Path | None, json_path: Path | None, record_moves: bool,
         option_pairs: tuple[str, ...], move_limit: int, replay_seeds: tuple[str, ...],
         source: Path | None, seating: str | None, show_moves: bool, deals_path: Path | None,
         group: str) -> None:
    """Bot levels against each other on the rules alone: win rates, move times, decisions."""
    indices: list[int] | None = None
    if deals_path is not None:
        game_type, players, base_seed, indices = chosen_deals(deals_path, group, games)
        if not indices:
            raise click.UsageError(f"{deals_path} has no deal in the group {group!r}")
    if game_type != "all" and game_type not in GAMES:
        raise click.BadParameter(f"not one of {', '.join(sorted(GAMES))}, all",
                                 param_hint="--game")
    options = parse_options(option_pairs)
    if replay_seeds:
        for seed in replay_seeds:
            try:
                bytes.fromhex(seed)
            except ValueError:
                raise click.BadParameter(f"{seed!r} is not hex", param_hint="--replay") from None
        ok = replay(replay_seeds, source or out, None if game_type == "all" else game_type,
                    seating, options, move_limit, show_moves)
        sys.exit(0 if ok else 1)
    pairs = [parse_levels(text) for text in level_lists or ("ismcts-200ms,random",)]
    pairings: list[tuple[Pairing, dict[str, Any]]] = []
    for game_id in sorted(GAMES) if game_type == "all" else [game_type]:
        counts = player_counts(game_id, players)
        if not counts:
            click.echo(f"{game_id}: not for {players} players, skipped", err=True)
        for count in counts:
            for levels in pairs:
                if len(levels) not in (2, count):
                    raise click.BadParameter(
                        f"{','.join(levels)}: give two levels or one per seat ({count})",
                        param_hint="--levels")
                pairings.append((Pairing(game_id, count, levels),
                                 table_options(game_id, options)))
    if not pairings:
        raise click.UsageError("no game for that player count")
    for pairing, _ in pairings:
        if games % pairing.players:
            click.echo(f"note: {games} games do not rotate {pairing.players} seats evenly "
                       f"(use a multiple of {pairing.players})", err=True)
    if jobs > (os.cpu_count() or 1) and any(
            not Level.parse(level).replays_exactly for p, _ in pairings for level in p.levels):
        click.echo(f"note: {jobs} jobs on {os.cpu_count()} cores: time-budgeted bots get a "
                   "share of a core each", err=True)
    info = machine()
    print_machine(info)
    summaries = []
    with game_pool(jobs) as pool, contextlib.ExitStack() as files:
        out_file = files.enter_context(out.open("w")) if out is not None else None
        for pairing, table in pairings:
            records, wall = run_pairing(pool, pairing, range(games) if indices is None else indices,
                                        base_seed, table, move_limit, record_moves, out_file)
            summary = summarize(pairing, records, wall)
            summaries.append(summary)
            print_summary(summary, jobs)
    if json_path is not None:
        json_path.write_text(json.dumps({"machine": info, "jobs": jobs, "games": games,
                                         "seed": base_seed, "pairings": summaries}, indent=2))
    if any(s["errors"] for s in summaries):
        sys.exit(1)


if __name__ == "__main__":
    main()
