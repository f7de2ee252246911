"""Issue 11, acceptance: "Under a load of ... human clients and ... bot games, kill -9 of the
game Redis, the counters Redis, a gunicorn worker and the RQ worker: 0 acknowledged moves
lost, all ... bot games finish, 0 answers 500". The pass/fail run at a small size (2 human
clients, 3 bot games, each process killed once) of bench/faults.py, which is the whole
`meeple run` stack in its own processes; the full-size figures are in bench/README.md."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_process_killed_under_load_loses_no_move_and_strands_no_game(
        tmp_path: Path) -> None:
    figures_path = tmp_path / "faults.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.faults", "--humans", "2", "--bot-games", "3",
         "--rounds", "1", "--finish-seconds", "240", "--json", str(figures_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=480)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(figures_path.read_text())
    assert figures["kills"] == {"game redis": 1, "counters redis": 1, "gunicorn worker": 1,
                                "rq worker": 1}, figures
    assert figures["acked_moves"] > 20, figures  # the humans really played through it
    assert figures["acked_moves_missing"] == 0, figures
    assert figures["bot_games_finished"] == figures["bot_games"] == 3, figures
    assert figures["5xx_other_than_503"] == 0, figures
