"""docs/examples/stream_player.py, the guide's example client, plays a whole game against a
bot through a real gunicorn and worker, woken by the player stream (issue 15, point 5)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.e2e.conftest import ROOT

EXAMPLE = ROOT / "docs" / "examples" / "stream_player.py"


@pytest.mark.slow
@pytest.mark.parametrize(("game_type", "events_backend"), [
    ("trappist-one", "node"), ("res-publica-2230ad", "node"),
    ("trappist-one", "cluster"),  # the games on a 3 + 3 Redis Cluster (issue 18)
], indirect=["events_backend"])
def test_the_example_client_plays_a_whole_game_from_the_stream(live_server: str,
                                                               game_type: str) -> None:
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), "--api", live_server, "--game", game_type,
         "--name", "example"],
        capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("game ") and lines[0].endswith(": active"), lines
    ranks = [line for line in lines if line.startswith("rank ")]
    assert len(ranks) == 2, lines
    assert lines[-1].startswith("ended after ") and int(lines[-1].split()[2]) > 0, lines
