"""bench/moves.py, bench/agreement.py, bench/world_noise.py and bench/fit_value.py end to end
at a tiny size, so changes that break them show up in CI.

Not a timed test: it only checks that every phase ran without errors.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_moves_benchmark_runs_clean_at_a_tiny_size() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.moves", "--clients", "2", "--moves", "5",
         "--ceiling-requests", "20", "--seconds", "30", "--workers", "1"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=180,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for phase, count in (("moves", "10 moves"), ("healthz", "40 requests"),
                         ("lua append", "40 appends")):
        line = next(line for line in lines if line.startswith(phase))
        assert count in line and "errors: none" in line, done.stdout
    assert any(line.startswith("move_rps / healthz_rps") for line in lines)


def test_the_agreement_tool_compares_the_search_with_greedy_along_a_game() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.agreement", "--game", "trappist-one", "--iterations", "5"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=180,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    summary = next(line for line in lines if "the search agrees with greedy on" in line)
    choices = int(summary.split()[0])
    assert choices > 20  # a whole game's choices
    rows = lines[lines.index(next(line for line in lines if line.startswith("kind"))) + 1:]
    assert sum(int(row.split()[1]) for row in rows if row.strip()) == choices


def test_the_world_noise_tool_splits_a_values_spread_into_its_two_parts() -> None:
    """A move's spread of values across worlds is the world's part plus the move × world
    part, exactly (the two-way analysis of variance the tool prints)."""
    from bench.world_noise import measure
    from games.registry import get_game
    from games.rng import Rng
    from games.search.ismcts import bot_moves

    game = get_game("res-publica-2230ad")  # its values depend on the deal
    state = game.setup(2, {}, Rng(b"noise", 0))
    seat = min(game.actors(state))
    moves = bot_moves(game, state, seat)
    assert len(moves) > 2
    choice = measure(game, state, seat, moves, 6, b"noise")
    assert choice.moves == len(moves) and choice.gap >= 0
    assert choice.world > 0 and choice.interaction > 0
    assert abs(choice.raw - (choice.world + choice.interaction)) < 1e-12

    done = subprocess.run(
        [sys.executable, "-m", "bench.world_noise", "--game", "trappist-one", "--games", "1",
         "--worlds", "3", "--every", "5"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "moves (median)" in done.stdout and "best minus second best" in done.stdout


def test_the_deal_luck_tool_plays_the_tournaments_deals_again(tmp_path: Path) -> None:
    """Variant 0 of bench/deal_luck.py is bench/ai.py's game itself: a tournament's --out,
    compared, wins exactly what variant 0 wins; every deal lands in one of the three groups."""
    out = tmp_path / "greedy.jsonl"
    common = ["--game", "trappist-one", "--games", "4", "--seed", "smoke", "--jobs", "1"]
    tournament = subprocess.run(
        [sys.executable, "-m", "bench.ai", *common, "--levels", "greedy,greedy", "--out", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=180,
    )
    assert tournament.returncode == 0, tournament.stdout + tournament.stderr

    saved = tmp_path / "groups.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.deal_luck", *common, "--variants", "2",
         "--compare", str(out), "--save", str(saved)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=180,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    rates = next(line for line in lines if "by variant:" in line)
    variant_0 = rates.split("by variant: ")[1].split(",")[0]
    compared = next(line for line in lines if line.lstrip().startswith("greedy.jsonl"))
    assert f"win rate {variant_0}" in compared, done.stdout
    split = next(line for line in lines if line.lstrip().startswith("of 4 deals:"))
    counts = [int(word) for word in split.replace(",", " ").split() if word.isdigit()][1:]
    assert sum(counts) == 4, split

    other = subprocess.run(
        [sys.executable, "-m", "bench.deal_luck", *common[:-4], "--seed", "other", "--jobs", "1",
         "--compare", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
    )
    assert other.returncode == 2 and "other deals" in other.stderr  # a usage error, not a crash

    # --save, then bench/ai.py --deals: one group's deals alone, each the tournament's own deal.
    groups = json.loads(saved.read_text())["groups"]
    group, deals = max(groups.items(), key=lambda item: len(item[1]))
    again = tmp_path / "again.jsonl"
    only = subprocess.run(
        [sys.executable, "-m", "bench.ai", "--levels", "greedy,greedy", "--jobs", "1",
         "--deals", str(saved), "--group", group, "--out", str(again)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=180,
    )
    assert only.returncode == 0, only.stdout + only.stderr
    replayed = [json.loads(line) for line in again.read_text().splitlines()]
    first = {r["index"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert [r["index"] for r in replayed] == deals
    for record in replayed:
        tournament_game = first[record["index"]]
        assert (record["seed"], record["winners"]) == (tournament_game["seed"],
                                                       tournament_game["winners"])


def test_the_batch_check_benchmark_times_both_kinds_of_move() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.batch_check", "trappist-one", "--moves", "30",
         "--worlds", "2"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if "worlds trappist-one" in line]
    assert line.startswith("  2 worlds trappist-one: 30 moves,") and " reveal; " in line


def test_the_value_fit_compares_three_valuations_on_held_out_games() -> None:
    """bench/fit_value.py at a tiny size: it plays, fits, and prints each valuation's log loss
    and Brier score on the held-out games (the full run's figures are in bench/README.md)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.fit_value", "--games", "6", "--jobs", "1"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=180,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("6 games (seed 'L')") for line in lines), done.stdout
    for name in ("evaluate (the projection)", "win_chance.json (shipped)",
                 "refit on the other games"):
        row = next(line for line in lines if line.strip().startswith(name))
        numbers = [float(v) for v in row.split()[-5:]]
        assert all(0.0 < v < 2.0 for v in numbers), row
    assert any(line.startswith("fitted on every game") for line in lines)
