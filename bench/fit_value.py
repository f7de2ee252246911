"""Fit Res Publica's chance to win at two players (games/res_publica/win_chance.py) to games.

Plays `--games` games of greedy against greedy (one move in ten at random, so that the
positions vary), keeps every third position with a choice, and fits a logistic model of
seat 0's chance to win on `win_chance.features` by Newton's method with a small L2 penalty
(tied games are left out). On the games held out (every third), it prints how well each
valuation predicts the winner, by thirds of the game: `evaluate` (the projection greedy
chooses by), the shipped model (win_chance.json) and the model refitted on the other games.
With `--write` the model fitted on every game replaces win_chance.json.

    python -m bench.fit_value --games 1400 --jobs 2 [--write]     # about 12 min here

The shipped model is `--games 1400 --seed L` (bench/README.md, session 46); the same
command fits the same weights again.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import numpy as np
from tqdm import tqdm

from bench.ai import game_seed
from bench.harness import machine, print_machine
from games.bots import bot_rng
from games.registry import get_game
from games.res_publica import win_chance
from games.res_publica.evaluate import evaluate, share_left
from games.rng import Rng
from games.search.ismcts import bot_moves, greedy

GAME_ID = "res-publica-2230ad"
PLAYERS = 2
EVERY = 3  # one position in three with a choice: neighbours say nearly the same
RANDOM_SHARE = 10  # one move in ten at random
L2 = 1e-3  # the penalty on the weights, per position
HELD_OUT = 3  # every third game is held out of the comparison's fit
STAGES = ((2 / 3, 1.01, "first third"), (1 / 3, 2 / 3, "second third"),
          (0.0, 1 / 3, "last third"))


def play(base: str, index: int) -> tuple[list[dict[str, Any]], float]:
    """Game `index`'s kept positions (the model's features, `evaluate`'s and the shipped
    model's chance for seat 0, the share of the game left) and seat 0's result (1, 0 or 0.5
    for a tie)."""
    game = get_game(GAME_ID)
    seed = bytes.fromhex(game_seed(base, GAME_ID, PLAYERS, index))
    state = game.setup(PLAYERS, {}, Rng(seed, 0))
    ply, kept = 0, []
    while not game.is_over(state):
        seat = min(game.actors(state))
        legal = bot_moves(game, state, seat)
        rng = bot_rng(seed, ply, seat)
        if len(legal) == 1:
            move = legal[0]
        else:
            if ply % EVERY == 0:
                kept.append({"x": win_chance.features(state), "evaluate": evaluate(state)[0],
                             "shipped": win_chance.win_chance(state)[0],
                             "left": share_left(state)})
            move = rng.choice(legal) if rng.randbelow(RANDOM_SHARE) == 0 else \
                greedy(game, state, seat, rng, game.evaluate)
        # The move making ply p draws from Rng(seed, p), as in bench/ai.py (Res Publica draws
        # nothing after the deal: it goes unused).
        state, _ = game.play(state, seat, move, Rng(seed, ply + 1))
        ply += 1
    first, second = (entry["total"] for entry in game.score(state)["seats"])
    return kept, 1.0 if first > second else 0.0 if first < second else 0.5


def _play(task: tuple[str, int]) -> tuple[int, list[dict[str, Any]], float]:
    kept, result = play(*task)
    return task[1], kept, result


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Logistic regression weights (no intercept: the features are seat 0's less seat 1's,
    so the seats swap by the sign) by Newton's method, L2 per position."""
    weights = np.zeros(x.shape[1])
    penalty = L2 * len(y)
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ weights))
        gradient = x.T @ (p - y) + penalty * weights
        hessian = (x * (p * (1 - p))[:, None]).T @ x + penalty * np.eye(len(weights))
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.abs(step).max() < 1e-8:
            break
    return weights


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def report(name: str, p: np.ndarray, y: np.ndarray, left: np.ndarray) -> None:
    stages = [log_loss(p[(left >= lo) & (left < hi)], y[(left >= lo) & (left < hi)])
              for lo, hi, _ in STAGES]
    print(f"  {name:<34} {log_loss(p, y):8.4f} {float(np.mean((p - y) ** 2)):8.4f}  "
          + "  ".join(f"{value:12.4f}" for value in stages))


def model_json(weights: Sequence[float], base: str, games: int, positions: int) -> str:
    names, n = win_chance.FEATURES, len(win_chance.FEATURES)
    model = {
        "about": win_chance.MODEL["about"],
        "players": PLAYERS,
        "fitted_on": {"seed": base, "games": games, "positions": positions,
                      "play": "greedy against greedy, one move in ten at random; every third "
                              "position with a choice; tied games left out",
                      "l2": L2},
        "weights": {"difference": dict(zip(names, map(float, weights[:n]), strict=True)),
                    "difference_by_share_left": dict(
                        zip(names, map(float, weights[n:2 * n]), strict=True)),
                    "turn": float(weights[2 * n]),
                    "turn_by_share_left": float(weights[2 * n + 1])},
    }
    return json.dumps(model, indent=1) + "\n"


@click.command()
@click.option("--games", default=1400, show_default=True, type=click.IntRange(min=3),
              help="Games of greedy against greedy to learn from.")
@click.option("--seed", "base", default="L", show_default=True,
              help="The base of every game's seed (bench.ai's game_seed).")
@click.option("--jobs", default=os.cpu_count() or 1, show_default="CPU count",
              type=click.IntRange(min=1), help="Processes playing games at once.")
@click.option("--write", is_flag=True,
              help="Replace games/res_publica/win_chance.json with the model fitted on every game.")
def main(games: int, base: str, jobs: int, write: bool) -> None:
    """Fit Res Publica's two-player chance to win to greedy's games, and compare."""
    info = machine()
    started = time.monotonic()
    tasks = [(base, index) for index in range(games)]
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs) as pool:
        played = list(tqdm(pool.imap(_play, tasks), total=games, desc="games", unit="game"))
    rows = [(index, row, result) for index, kept, result in played if result != 0.5
            for row in kept]
    decided = len({index for index, _, _ in rows})
    x = np.array([row["x"] for _, row, _ in rows])
    y = np.array([result for _, _, result in rows])
    left = np.array([row["left"] for _, row, _ in rows])
    test = np.array([index % HELD_OUT == 0 for index, _, _ in rows])
    print_machine(info)
    print(f"\n{games} games (seed {base!r}), {decided} not tied, {len(y)} positions, "
          f"in {time.monotonic() - started:.1f} s with {jobs} jobs")
    print(f"held out: the {int(test.sum())} positions of every {HELD_OUT}rd game; "
          "the refit learns from the others")
    print(f"  {'valuation':<34} {'log loss':>8} {'Brier':>8}  "
          + "  ".join(f"{name:>12}" for _, _, name in STAGES))
    refit = fit(x[~test], y[~test])
    for name, p in (("evaluate (the projection)", np.array([r["evaluate"] for _, r, _ in rows])),
                    ("win_chance.json (shipped)", np.array([r["shipped"] for _, r, _ in rows])),
                    ("refit on the other games", 1 / (1 + np.exp(-x @ refit)))):
        report(name, p[test], y[test], left[test])
    print("  (a coin: log loss 0.6931, Brier 0.2500)")
    weights = fit(x, y)
    shipped = np.array(win_chance.WEIGHTS)
    print(f"\nfitted on every game: largest difference from the shipped weights "
          f"{float(np.abs(weights - shipped).max()):.3g}")
    if write:
        if not all(math.isfinite(w) for w in weights):
            raise click.ClickException("the fit did not converge: nothing written")
        path = Path(win_chance.__file__).parent / "win_chance.json"
        path.write_text(model_json(list(weights), base, decided, len(y)))
        print(f"written: {path}")


if __name__ == "__main__":
    main()
