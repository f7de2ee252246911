"""How much of a game's result the deal decides: the same deals, played again with other bot
randomness (issue 17: what a win rate against greedy can be asked to show).

    .venv/bin/python -m bench.deal_luck --game GAME [--players 2] [--levels greedy,greedy]
                                        [--games 100] [--variants 5] [--seed S] [--jobs N]
                                        [--compare FILE.jsonl ...] [--save GROUPS.json]

Plays one pairing (bench/ai.py's: the first level in seat index mod players) `--variants`
times on the same deals: the same `--seed` gives the deals of a bench/ai.py tournament.
Variant 0 is bench/ai.py's game exactly; variant v draws the bots' randomness under another
key (their tie-breaks, the worlds greedy values moves in), so wherever two moves are close
the bots choose otherwise, and the game goes its own way from there. A deal whose winner
stays the same in every variant is decided by the deal (the cards and the seat) as far as
such play goes; the others are contested.

Printed: each variant's win rate for the first level; the deals it won in every variant, in
none, and the contested rest. With `--compare`, for each file of bench/ai.py's `--out` on the
same deals (another pairing, e.g. ismcts-200ms against greedy), that pairing's first level's
wins in each group: a stronger player than greedy must win deals that greedy against itself
never wins, or more of the contested ones. `--save` writes the groups (with the game, player
count and seed), for bench/ai.py's `--deals`: another pairing on one group alone.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import click

from bench.ai import (
    MOVE_LIMIT,
    Pairing,
    game_pool,
    game_seed,
    parse_levels,
    run_pairing,
    table_options,
)
from bench.harness import machine, print_machine
from games.registry import GAMES, get_game

Wins = dict[int, float]  # game index -> the first level's credit in it (a shared first: 1/k)


def first_level_wins(records: list[dict[str, Any]], players: int) -> Wins:
    """Per finished game, the credit of the seat the pairing's first level held (seat index
    mod players, as bench/ai.py seats it)."""
    wins: Wins = {}
    for record in records:
        if record.get("error") is None:
            winners = record["winners"]
            seat = record["index"] % players
            wins[record["index"]] = 1 / len(winners) if seat in winners else 0.0
    return wins


def groups(variants: list[Wins]) -> dict[str, list[int]]:
    """The deals every variant finished, by what they did for the first level: won in every
    variant, in none, or contested."""
    common = sorted(set.intersection(*(set(v) for v in variants)))
    out: dict[str, list[int]] = {"always won": [], "never won": [], "contested": []}
    for index in common:
        credits = {v[index] for v in variants}
        key = ("always won" if credits == {1.0} else "never won" if credits == {0.0}
               else "contested")
        out[key].append(index)
    return out


def load(path: Path) -> tuple[list[dict[str, Any]], int]:
    """bench/ai.py's records from `--out`, and their player count."""
    try:
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError) as error:
        raise click.BadParameter(f"{path}: {error}", param_hint="--compare") from None
    if not records or any("index" not in r or "winners" not in r for r in records):
        raise click.BadParameter(f"{path}: not bench/ai.py's --out", param_hint="--compare")
    return records, int(records[0]["players"])


@click.command()
@click.option("--game", "game_type", required=True, type=click.Choice(sorted(GAMES)))
@click.option("--players", default=2, show_default=True, type=int)
@click.option("--levels", default="greedy,greedy", show_default=True, metavar="A,B",
              help="The pairing: the first level in one seat, the second in the others.")
@click.option("--games", default=100, show_default=True, type=click.IntRange(min=1))
@click.option("--variants", default=5, show_default=True, type=click.IntRange(min=2, max=50),
              help="Times each deal is played, with other bot randomness.")
@click.option("--seed", "base_seed", default="bench/ai", show_default=True,
              help="The base of every game's seed (bench/ai.py's --seed: the same deals).")
@click.option("--jobs", default=os.cpu_count() or 1, show_default="CPU count",
              type=click.IntRange(min=1))
@click.option("--compare", "compare", multiple=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="bench/ai.py --out of another pairing on the same deals (repeatable).")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the deals' groups here, as JSON (bench/ai.py --deals reads it).")
def main(game_type: str, players: int, levels: str, games: int, variants: int, base_seed: str,
         jobs: int, compare: tuple[Path, ...], save: Path | None) -> None:
    """Play the same deals several times with other bot randomness: which the deal decides."""
    game = get_game(game_type)
    if not game.min_players <= players <= game.max_players:
        raise click.BadParameter(f"{game_type} seats {game.min_players} to "
                                 f"{game.max_players}", param_hint="--players")
    pairing = Pairing(game_type, players, parse_levels(levels))
    if len(pairing.levels) != 2:
        raise click.BadParameter("give two levels", param_hint="--levels")
    others = [load(path) for path in compare]
    for path, (records, _) in zip(compare, others, strict=True):
        if any(r["seed"] != game_seed(base_seed, game_type, players, r["index"]) for r in records):
            raise click.BadParameter(f"{path} holds other deals than {game_type}, {players} "
                                     f"players, --seed {base_seed}", param_hint="--compare")
    print_machine(machine())
    table = table_options(game_type, {})
    results: list[Wins] = []
    errors = 0
    started = time.perf_counter()
    with game_pool(jobs) as pool:
        for variant in range(variants):
            key = f"/variant/{variant}" if variant else ""  # variant 0: bench/ai.py's games
            records, _ = run_pairing(pool, pairing, range(games), base_seed, table, MOVE_LIMIT,
                                     False, None, bot_key=key)
            errors += sum(1 for r in records if r.get("error") is not None)
            results.append(first_level_wins(records, players))
    report(pairing, results, errors, compare, others, time.perf_counter() - started)
    if save is not None:
        save.write_text(json.dumps({"game": game_type, "players": players, "seed": base_seed,
                                    "levels": list(pairing.levels), "variants": variants,
                                    "groups": groups(results)}, indent=1))
    if errors:
        sys.exit(1)


def report(pairing: Pairing, results: list[Wins], errors: int, compare: tuple[Path, ...],
           others: list[tuple[list[dict[str, Any]], int]], wall_s: float) -> None:
    first = pairing.levels[0]
    print(f"\n{pairing.game}, {pairing.players} players: {' vs '.join(pairing.levels)}, "
          f"{len(results)} variants of each deal, {errors} errors, {wall_s:.1f} s wall")
    rates = [sum(w.values()) / len(w) for w in results if w]
    print("  win rate of " + first + " by variant: " + ", ".join(f"{r:.3f}" for r in rates)
          + f" (mean {sum(rates) / len(rates):.3f})")
    split = groups(results)
    dealt = sum(len(v) for v in split.values())
    by_count = Counter(sum(w[i] for w in results) for deals in split.values() for i in deals)
    print(f"  of {dealt} deals: {len(split['always won'])} won in every variant, "
          f"{len(split['never won'])} in none, {len(split['contested'])} contested")
    print("  deals by variants won: " + ", ".join(
        f"{count:g}: {n}" for count, n in sorted(by_count.items(), reverse=True)))
    for path, (records, players) in zip(compare, others, strict=True):
        wins = first_level_wins(records, players)
        seats = records[0]["seats"]
        level = seats[records[0]["index"] % players]
        shown = [f"{name} {sum(wins.get(i, 0.0) for i in deals):g} of {len(deals)}"
                 for name, deals in split.items()]
        print(f"  {path.name} ({level} first, {len(wins)} games, win rate "
              f"{sum(wins.values()) / len(wins):.3f}): " + "; ".join(shown))


if __name__ == "__main__":
    main()
