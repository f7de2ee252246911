"""`meeple verify` starts fast (issue 12: cheap enough for every page view; bench/verify.py):
it imports what verifying needs and nothing of the server (no Flask, Redis, RQ nor the
structlog set-up of the logs), and only the game whose record it checks. Each test runs
`meeple verify` in a new process, as users run it, and looks at what that process imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import main

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"

# What the server needs and a verifier never should: web, Redis, jobs, the logs' set-up.
SERVER_ONLY = ("flask", "flask_smorest", "flask_limiter", "werkzeug", "gunicorn", "redis",
               "hiredis", "rq", "structlog", "rich", "aiosmtpd", "events.logs", "events.store",
               "events.application", "events.readmodels", "events.accounts", "events.mail",
               "service", "workers",
               # writing PEM keys: a verifier only reads raw public keys
               "cryptography.hazmat.primitives.serialization")

# `meeple verify ARGS...` as the console script runs it (cli.entry.run); then the names of
# every module the process imported, one a line, into the file named by the last argument.
_RUN = """
import sys
from cli.entry import run
*args, modules = sys.argv[1:]
sys.argv = ["meeple", *args]
try:
    run()
except SystemExit as done:
    status = done.code
with open(modules, "w") as out:
    out.write("\\n".join(sorted(sys.modules)))
sys.exit(status)
"""


def run_verify(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    modules = tmp_path / "modules.txt"
    done = subprocess.run([sys.executable, "-c", _RUN, "verify", *args, str(modules)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    return done, set(modules.read_text().split("\n"))


def imported(modules: set[str], package: str) -> list[str]:
    return sorted(m for m in modules if m == package or m.startswith(package + "."))


def golden(name: str) -> Path:
    return GOLDEN / name


@pytest.mark.parametrize("record", ["res-publica-2230ad-3p-r1.json",
                                    "asking-for-trobils-3p-r2.json"])
def test_verify_imports_nothing_of_the_server(tmp_path: Path, record: str) -> None:
    done, modules = run_verify(tmp_path, str(golden(record)), "--keys",
                               str(golden("keys.json")))

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("VALID:")
    leaked = {name: imported(modules, name) for name in SERVER_ONLY}
    assert {name: found for name, found in leaked.items() if found} == {}
    assert imported(modules, "click") == []  # cli.entry runs verify before click loads
    assert "events.records.verify.replay" in modules  # it did verify, in this process


def test_verify_imports_only_the_game_of_the_record(tmp_path: Path) -> None:
    done, modules = run_verify(tmp_path, str(golden("res-publica-2230ad-3p-r1.json")))

    assert done.returncode == 0, done.stdout + done.stderr
    assert "games.res_publica.rules" in modules
    assert imported(modules, "games.asking_for_trobils") == []


def test_an_unreadable_record_needs_no_rules_at_all(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")

    done, modules = run_verify(tmp_path, str(junk), "--json")

    assert done.returncode == 1
    assert json.loads(done.stdout)["status"] == "invalid"
    assert imported(modules, "games.res_publica") == []
    assert imported(modules, "games.asking_for_trobils") == []


@pytest.mark.parametrize("options", [[], ["--json"]])
def test_the_report_is_the_same_in_a_new_process_as_in_this_one(tmp_path: Path,
                                                                options: list[str]) -> None:
    """This process has the logs set up and every game loaded; the new one has neither."""
    record = golden("asking-for-trobils-2p-short_game-r1.json")
    args = [str(record), "--keys", str(golden("keys.json")), *options]

    done, _ = run_verify(tmp_path, *args)
    here = CliRunner().invoke(main, ["verify", *args], catch_exceptions=False)

    assert (done.returncode, done.stdout) == (here.exit_code, here.output)
    assert done.stderr == ""


def test_the_registry_loads_a_game_package_when_first_asked_for_it() -> None:
    code = """
import json, sys
from games.registry import GAMES, RULES, get_game

def loaded():
    return sorted(m for m in sys.modules if m.startswith(("games.res_publica",
                                                          "games.asking_for_trobils",
                                                          "games.trappist_one",
                                                          "games.trajan")))

listed = {"games": sorted(GAMES), "rules": sorted(RULES), "count": len(GAMES),
          "loaded": loaded()}
game = get_game("res-publica-2230ad")
print(json.dumps({**listed, "got": [game.id, game.rules_version == GAMES[game.id].rules_version],
                  "then": sorted({m.split(".")[1] for m in loaded()})}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)

    assert json.loads(done.stdout) == {
        "games": ["asking-for-trobils", "res-publica-2230ad", "trajan", "trappist-one"],
        "rules": ["asking-for-trobils", "res-publica-2230ad", "trajan", "trappist-one"],
        "count": 4,
        "loaded": [],  # listing the games imports none of them
        "got": ["res-publica-2230ad", True],
        "then": ["res_publica"],
    }


def test_a_report_is_the_same_bytes_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Options with several unknown fields: the rules' refusal lists them in the order of a
    set, which PYTHONHASHSEED changes; the report must not (a report is compared, cached and
    signed as bytes)."""
    import os

    record = json.loads(golden("res-publica-2230ad-2p-r1.json").read_text())
    record["events"][0]["data"]["options"] = {name: 1 for name in "abcdefgh"}
    path = tmp_path / "options.json"
    path.write_text(json.dumps(record))
    reports = set()
    for seed in ("1", "2", "3", "4"):
        done = subprocess.run([sys.executable, "-c", _RUN, "verify", "--json", str(path),
                               str(tmp_path / "modules.txt")],
                              env={**os.environ, "PYTHONHASHSEED": seed}, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, done.stderr
        reports.add(done.stdout)
    assert len(reports) == 1
    assert "Unknown field" in reports.pop()
