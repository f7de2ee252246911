"""The operator's CLI on bad input (an outside audit's findings): one line that says what is
wrong, a non-zero exit, never a traceback, never exit 0 for a failure."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cli.main import main

MEEPLE = Path(sys.executable).parent / "meeple"
PASSWORD = "hunter2-not-to-be-shown"
DOWN = f"redis://:{PASSWORD}@127.0.0.1:1/0"  # nothing listens on port 1
SHOWN = "redis://***@127.0.0.1:1/0"
ONE_URL = {"MEEPLE_REDIS_URL": DOWN, "MEEPLE_EVENTS_URL": None, "MEEPLE_CONTROL_URL": None}


def invoke(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


def one_line_error(result: Result, exit_code: int = 1) -> str:
    """The error click printed for `result`, checked to be one line and no traceback."""
    assert result.exit_code == exit_code, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # not an uncaught error
    error = result.output.strip().splitlines()[-1]
    assert error.startswith("Error: "), result.output
    assert "Traceback" not in result.output
    return error


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The `meeple` script itself, as an operator runs it."""
    return subprocess.run([str(MEEPLE), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})}, check=False)


# --- a Redis that does not answer -------------------------------------------------------------

@pytest.mark.parametrize("args", [("stats",), ("rebuild-lobby",), ("archive",),
                                  ("deadlines", "resync"), ("worker", "--burst")])
def test_a_redis_that_does_not_answer_is_named_without_its_password(args: tuple[str, ...]
                                                                     ) -> None:
    error = one_line_error(invoke(*args, env=ONE_URL))
    assert error.startswith(f"Error: Redis does not answer (the event and control stores, "
                            f"MEEPLE_REDIS_URL={SHOWN}): ")
    assert "Connection refused" in error and PASSWORD not in error


@pytest.mark.parametrize("down", ["control", "events"])
def test_the_role_that_does_not_answer_is_the_one_named(redis_url: str, down: str) -> None:
    up = "events" if down == "control" else "control"
    env = {"MEEPLE_REDIS_URL": None, f"MEEPLE_{down.upper()}_URL": DOWN,
           f"MEEPLE_{up.upper()}_URL": redis_url}
    error = one_line_error(invoke("stats", env=env))
    role = {"events": "the event store", "control": "the control store"}[down]
    assert error.startswith(f"Error: Redis does not answer ({role}, "
                            f"MEEPLE_{down.upper()}_URL={SHOWN}): "), error
    assert redis_url not in error and PASSWORD not in error


def test_the_meeple_script_says_it_in_one_line_too() -> None:
    done = run("stats", env={"MEEPLE_REDIS_URL": DOWN})
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"MEEPLE_REDIS_URL={SHOWN}" in done.stderr and PASSWORD not in done.stderr


def test_simulate_on_a_redis_that_does_not_answer_stops_before_playing() -> None:
    done = run("simulate", "trajan", "--games", "1", "--players", "2",
               env={"MEEPLE_REDIS_URL": DOWN})
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"Error: Redis does not answer (the event and control stores, " \
           f"MEEPLE_REDIS_URL={SHOWN})" in done.stderr
    assert PASSWORD not in done.stderr + done.stdout


# --- meeple simulate ----------------------------------------------------------------------

def test_simulate_an_unknown_game_is_a_usage_error_naming_the_known_ones() -> None:
    error = one_line_error(invoke("simulate", "no-such-game", "--games", "1"), exit_code=2)
    assert "GAME_TYPE" in error and "no game type 'no-such-game'" in error
    assert "trajan" in error


@pytest.mark.parametrize("games", ["-1", "0"])
def test_simulate_refuses_a_run_of_no_games(games: str) -> None:
    """`--games -1` played nothing and exited 0."""
    error = one_line_error(invoke("simulate", "trajan", "--games", games, "--players", "2"),
                           exit_code=2)
    assert "--games" in error


# --- meeple archive --------------------------------------------------------------------------

@pytest.mark.parametrize("days", ["nan", "1e308", "inf", "-1"])
def test_archive_refuses_an_age_that_is_no_age(days: str) -> None:
    error = one_line_error(invoke("archive", "--older-than-days", days, env=ONE_URL),
                           exit_code=2)
    assert "--older-than-days" in error


@pytest.mark.parametrize("setting", ["nan", "1e308", "1e6"])
def test_archive_refuses_a_setting_that_is_no_age(redis_url: str, tmp_path: Path,
                                                  setting: str) -> None:
    env = {"MEEPLE_REDIS_URL": redis_url, "MEEPLE_EVENTS_URL": None, "MEEPLE_CONTROL_URL": None,
           "MEEPLE_ARCHIVE_URL": str(tmp_path / "archive"), "MEEPLE_ARCHIVE_AFTER_DAYS": setting,
           "MEEPLE_KEYS_DIR": str(tmp_path / "keys")}
    error = one_line_error(invoke("archive", env=env), exit_code=2)
    assert f"MEEPLE_ARCHIVE_AFTER_DAYS='{setting}'" in error


# --- meeple keys -----------------------------------------------------------------------------

def test_keys_list_of_a_missing_directory_is_refused_and_makes_nothing(tmp_path: Path) -> None:
    """It made the directory and a first key, and exited 0."""
    missing = tmp_path / "no" / "such" / "dir"
    error = one_line_error(invoke("keys", "list", "--dir", str(missing)), exit_code=2)
    assert "--dir" in error and "no such directory" in error
    assert not (tmp_path / "no").exists()


def test_keys_list_makes_no_key_and_lists_the_ones_there(tmp_path: Path) -> None:
    empty = invoke("keys", "list", "--dir", str(tmp_path))
    assert empty.exit_code == 0 and "no keys in" in empty.output, empty.output
    assert list(tmp_path.iterdir()) == []
    rotated = invoke("keys", "rotate", "--dir", str(tmp_path))
    assert rotated.exit_code == 0, rotated.output
    key_id = rotated.output.split()[3]
    listed = invoke("keys", "list", "--dir", str(tmp_path))
    assert listed.exit_code == 0 and listed.output.startswith(f"{key_id}  current"), listed.output


@pytest.mark.parametrize("where", ["/proc/1", "under a file"])
def test_keys_rotate_where_no_key_can_be_written_says_so(tmp_path: Path, where: str) -> None:
    if where == "under a file":
        (tmp_path / "a-file").write_text("")
        where = str(tmp_path / "a-file" / "keys")
    error = one_line_error(invoke("keys", "rotate", "--dir", where))
    assert error.startswith(f"Error: cannot write the keys in {where}: "), error


# --- meeple smtpd ----------------------------------------------------------------------------

def test_smtpd_refuses_a_port_that_is_no_port() -> None:
    done = run("smtpd", "--port", "99999", env={"MEEPLE_REDIS_URL": DOWN})
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "--port" in done.stderr and "1<=x<=65535" in done.stderr


def test_smtpd_on_a_port_in_use_says_so() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run("smtpd", "--port", str(port), env={"MEEPLE_REDIS_URL": DOWN})
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"Error: cannot listen on 127.0.0.1:{port}: " in done.stderr
    assert "address already in use" in done.stderr.lower()
