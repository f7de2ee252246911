"""`meeple simulate` plays bot-only games through the use cases and reports them."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.commands.simulate import Outcome, run_count
from events.application.meeple import Meeple

BIN = Path(sys.executable).parent


def test_simulate_finishes_games_and_prints_a_summary(redis_url: str, redis_client) -> None:
    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url}
    done = subprocess.run(
        [str(BIN / "meeple"), "simulate", "res-publica-2230ad", "--games", "3", "--players", "2",
         "--jobs", "2"], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["players"])
    header, row = lines[at], lines[at + 1]
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


def test_simulate_plays_with_table_options_and_says_how_games_ended(redis_url: str) -> None:
    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url}
    done = subprocess.run(
        [str(BIN / "meeple"), "simulate", "trappist-one", "--games", "4", "--players", "3",
         "--option", "exodite=true", "--option", "expert_scoring=true"],
        env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["players"])
    players, games, finished, _moves, errors = (int(x) for x in lines[at + 1].split()[:5])
    assert (players, games, finished, errors) == (3, 4, 4, 0)
    ended = next(line for line in lines if line.startswith("3 players ended by: "))
    shares = [float(part.split()[-1].rstrip("%")) for part in ended.split(": ", 1)[1].split(", ")]
    assert abs(sum(shares) - 100.0) < 0.5  # every finished game counted once
    assert any(line.startswith("3 players final points: min ") for line in lines)


def test_simulate_refuses_an_option_the_game_does_not_have() -> None:
    done = subprocess.run([str(BIN / "meeple"), "simulate", "trappist-one", "--option",
                           "no_such=1"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "no_such" in done.stderr


def test_simulate_plays_bots_of_the_level_it_is_given(redis_url: str, redis_client) -> None:
    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url}
    done = subprocess.run(
        [str(BIN / "meeple"), "simulate", "trappist-one", "--games", "2", "--players", "2",
         "--level", "greedy"], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["players"])
    players, games, finished, moves, errors = (int(x) for x in lines[at + 1].split()[:5])
    assert (players, games, finished, errors) == (2, 2, 2, 0) and moves > 0
    # Every seat is a greedy bot, and every move was played by one.
    app = Meeple(redis_client)
    keys = [key.decode() for key in redis_client.scan_iter("meeple:g:*:events")]
    assert len(keys) == 2
    for key in keys:
        log = app.events(key.split("{", 1)[1].split("}", 1)[0])
        seated = [e["data"] for e in log if e["type"] == "SeatTaken"]
        assert len(seated) == 2 and all(s["bot"] and s["player_id"] == "bot:greedy"
                                        for s in seated), seated
        played = [e for e in log if e["type"] == "MovePlayed"]
        assert played and all(e["by"] == "bot:greedy" for e in played)


def test_simulate_refuses_a_level_that_does_not_exist() -> None:
    for level, said in (("grandmaster", "unknown bot level"), ("ismcts-3ms", "out of range")):
        done = subprocess.run([str(BIN / "meeple"), "simulate", "trappist-one", "--level", level],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 2 and "--level" in done.stderr and said in done.stderr, (
            done.stderr)


class RecordingPool:
    """A pool that plays nothing: it records the games it is given and reports each one
    finished without a move."""

    def __init__(self) -> None:
        self.indexes: list[int] = []

    def imap_unordered(self, play: object, tasks: Iterator[tuple[Any, ...]]) -> RecordedResults:
        return RecordedResults(self, tasks)


class RecordedResults:
    """The pool's results as multiprocessing gives them: `next(timeout)`."""

    def __init__(self, pool: RecordingPool, tasks: Iterator[tuple[Any, ...]]) -> None:
        self.pool, self.tasks = pool, tasks

    def next(self, timeout: float | None = None) -> Outcome:
        self.pool.indexes.append(next(self.tasks)[3])
        return Outcome(moves=0)


def test_a_long_run_is_played_in_parts_from_first() -> None:
    """`--first 1000 --games 3` plays games 1000 to 1002: with --first 0 and --first 1000 a
    run of 2,000 games can be played in two parts, the bots' choices of each game the same."""
    pool = RecordingPool()
    tally = run_count(pool, "trappist-one", 2, 3, "simulate", first=1000)  # type: ignore[arg-type]
    assert pool.indexes == [1000, 1001, 1002]
    assert (tally.games, tally.finished) == (3, 3)
    assert run_count(RecordingPool(), "trappist-one", 2, 2,  # type: ignore[arg-type]
                     "simulate").games == 2


def test_simulate_refuses_a_negative_first_game() -> None:
    done = subprocess.run([str(BIN / "meeple"), "simulate", "trajan", "--first", "-1"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "--first" in done.stderr


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_run_reports_the_games_played_and_where_to_go_on(
        stop: signal.Signals, tmp_path: Path) -> None:
    """Ctrl-C (or SIGTERM, as a supervisor stops it) part way through a long run: the games
    played so far are reported, with the --first to play the rest from, and the exit code is
    130; nothing waits for the games not yet played."""
    progress = tmp_path / "progress"
    with progress.open("w") as bar:
        run = subprocess.Popen(
            [str(BIN / "meeple"), "simulate", "asking-for-trobils", "--games", "2000",
             "--players", "2", "--jobs", "2", "--first", "100"],
            stdout=subprocess.PIPE, stderr=bar, text=True)
        try:
            deadline = time.monotonic() + 120
            while not re.search(r"([3-9]|\d\d+)/2000", progress.read_text()):
                assert time.monotonic() < deadline, progress.read_text()[-500:]
                assert run.poll() is None, progress.read_text()[-2000:]
                time.sleep(0.2)
            run.send_signal(stop)
            out, _ = run.communicate(timeout=60)
        finally:
            run.kill()
    assert run.returncode == 130, out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["players"])
    players, games, finished, _moves, errors = (int(x) for x in lines[at + 1].split()[:5])
    assert (players, errors) == (2, 0) and 3 <= games < 2000 and finished == games
    stopped = re.search(r"stopped after (\d+) of 2000 games; games 100 to (\d+) all played\. "
                        r"To play the rest: --players 2 --first (\d+) --games (\d+)", out)
    assert stopped, out
    assert int(stopped[1]) == games
    through = int(stopped[2]) + 1
    assert 100 + games - 2 <= through <= 100 + games  # two jobs: one game may be missing
    assert (int(stopped[3]), int(stopped[4])) == (through, 2100 - through)


def test_a_run_of_every_player_count_stopped_says_how_to_play_each_count_left(
        tmp_path: Path) -> None:
    """Without --players a run plays every count in turn. Stopped during the first, its hint
    was "--first K --games N-K" without --players: following it played games K.. of every
    count, and games 0..K-1 of the counts not started never (an outside audit). The hint
    names the count under way and each count not started, one command line each."""
    progress = tmp_path / "progress"
    with progress.open("w") as bar:
        run = subprocess.Popen(
            [str(BIN / "meeple"), "simulate", "asking-for-trobils", "--games", "2000",
             "--jobs", "1", "--first", "100"],
            stdout=subprocess.PIPE, stderr=bar, text=True)
        try:
            deadline = time.monotonic() + 120
            while not re.search(r"2 players: +\d+%\|.*\| ([2-9]|\d\d+)/2000",
                                progress.read_text()):
                assert time.monotonic() < deadline, progress.read_text()[-500:]
                assert run.poll() is None, progress.read_text()[-2000:]
                time.sleep(0.2)
            run.send_signal(signal.SIGINT)
            out, _ = run.communicate(timeout=60)
        finally:
            run.kill()
    assert run.returncode == 130, out
    stopped = re.search(r"^2 players: stopped after (\d+) of 2000 games; games 100 to (\d+) all "
                        r"played\. To play the rest: --players 2 --first (\d+) --games (\d+)$",
                        out, re.MULTILINE)
    assert stopped, out
    through = int(stopped[2]) + 1
    assert (int(stopped[3]), int(stopped[4])) == (through, 2100 - through)
    for count in range(3, 8):
        assert (f"\n{count} players: not started. To play them: --players {count} "
                f"--first 100 --games 2000\n") in out, out
    assert out.count("To play") == 6, out  # no other hint: nothing else to play


def test_a_game_that_does_not_end_is_kept_to_be_looked_into(redis_client, monkeypatch,
                                                            tmp_path: Path) -> None:
    """A failed game is written with its seed and events, so that every version of it can be
    rebuilt (a greedy Asking for Trobils game once ran past the move limit, and nothing of it
    was left to look at)."""
    from cli.commands import simulate
    from cli.commands.replay import Replay
    from games.rng import Rng

    monkeypatch.setattr(simulate, "MOVE_LIMIT", 30)
    outcome = simulate.play_one(Meeple(redis_client), "trajan", 2, Rng(b"s", 1),
                                errors_dir=tmp_path)
    assert outcome.error is not None and "no end after 30 moves" in outcome.error
    [kept] = list(tmp_path.iterdir())
    assert str(kept) in outcome.error
    dump = json.loads(kept.read_text())
    assert dump["format"] == "meeple-simulate-error/1" and dump["error"] in outcome.error
    assert [e["v"] for e in dump["events"]] == list(range(1, len(dump["events"]) + 1))
    assert len(dump["events"]) > 30 and dump["game"]["type"] == "trajan"
    # The seed is the game's: rebuilding from it reaches the state the store holds.
    replay = Replay(dump)
    table = Meeple(redis_client).load(dump["game"]["id"])
    assert replay.tables[-1].state == table.state and replay.last == table.version
