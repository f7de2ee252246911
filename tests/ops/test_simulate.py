"""`meeple simulate` plays bot-only games through the use cases and reports them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def test_simulate_finishes_games_and_prints_a_summary(redis_url: str, redis_client) -> None:
    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url}
    done = subprocess.run(
        [str(BIN / "meeple"), "simulate", "res-publica-2230ad", "--games", "3", "--players", "2",
         "--jobs", "2"], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.strip().splitlines()[-2:]
    assert header.split()[:5] == ["players", "games", "finished", "moves", "errors"]
    players, games, finished, moves, errors = (int(x) for x in row.split()[:5])
    assert (players, games, finished, errors) == (2, 3, 3, 0) and moves > 0
    assert "2 players" in done.stderr  # the progress bar
    # The games really went through the use cases into the store.
    assert len(list(redis_client.scan_iter("meeple:g:*:events"))) == 3


def test_simulate_refuses_a_player_count_the_game_does_not_allow() -> None:
    done = subprocess.run([str(BIN / "meeple"), "simulate", "res-publica-2230ad", "--players", "9"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "2 to 5 players" in done.stderr
