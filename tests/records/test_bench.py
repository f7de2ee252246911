"""bench/verify.py runs (one verification per record, one run of each command): its output
stays what the README shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_the_verify_benchmark_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "bench.verify", "--runs", "1",
                           "--cli-runs", "1"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "res-publica-2230ad         5" in done.stdout
    assert "asking-for-trobils         7" in done.stdout
    assert "5-player Res Publica: median" in done.stdout
    for cache in ("with a bytecode cache", "as make installs it|no bytecode cache"):
        assert any(f"meeple verify, 5-player Res Publica, {one}: median" in done.stdout
                   for one in cache.split("|"))
    assert "meeple verify RECORD.json" in done.stdout
