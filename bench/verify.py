"""How long verifying a finished game's record takes: `verify_record` in this process, and the
`meeple verify RECORD.json` command as users run it, start-up included.

    .venv/bin/python -m bench.verify [--runs 20] [--cli-runs 7] [--json FILE]

No server: each game is played offline (events.application.offline, random legal moves, the same
deciders and sealing as the server), its complete record built and signed, then verified
`--runs` times in this process: signature, hash chain, seed, and every move re-executed.
Cases: a 5-player Res Publica game and a 7-player Asking for Trobils game, the largest table
the games allow. Reported: record size (canonical JSON), events, moves, and min / median /
max seconds per verification, plus how long parsing the record's JSON text takes (a verifier
reading a file does that first).

Then the 5-player Res Publica record is written to a file and the `meeple` console script
beside this interpreter is run on it `--cli-runs` times, a new process each time: min /
median / max wall seconds, start-up included (the budget, issue 12: under 0.3 s, cheap enough
for every page view), and the median CPU seconds of the child (user + system: what other work
on the box changes least). Beside it, `meeple verify --help` (click and the command's imports,
no record read: the verifier and the rules are imported only when a record is verified) and
`python -c pass` (the interpreter alone). Each twice: without a bytecode cache for our code
(PYTHONDONTWRITEBYTECODE=1, as this environment and CI run Python: our modules, installed
editable, are compiled from source at every run; the standard library's and the dependencies'
bytecode was written when they were installed) and with one (a private PYTHONPYCACHEPREFIX,
written by one run first), as a `pip install`ed meeple runs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.harness import REPO_ROOT, machine, print_machine, progress
from events.application.offline import play_offline
from events.domain.envelope import canonical_json
from events.records.keys import key_id_of
from events.records.record import build_record, sign_record
from events.records.verify import verify_record
from games.rng import Rng

CASES = (("res-publica-2230ad", 5), ("asking-for-trobils", 7))
BUDGET_SECONDS = 1.0  # verify_record of the 5-player Res Publica record, in this process
CLI_BUDGET_SECONDS = 0.3  # `meeple verify` of that record, a new process, start-up included
MEEPLE = Path(sys.executable).parent / "meeple"  # the console script users run
OUR_PACKAGES = ("cli", "events", "games")  # what `meeple verify` imports of ours


@dataclass
class Timing:
    game: str
    players: int
    record_bytes: int
    events: int
    moves: int
    runs: int
    min_s: float
    median_s: float
    max_s: float
    parse_median_s: float


@dataclass
class CommandTiming:
    command: str
    # "none" (our code compiled at every run), "checkout" (the bytecode `make` wrote beside
    # the sources at install, as this checkout runs) or "cached" (a private cache)
    bytecode: str
    runs: int
    min_s: float
    median_s: float
    max_s: float
    cpu_median_s: float  # the child's user + system seconds


def signed_record(game_type: str, players: int) -> tuple[bytes, int, int]:
    """The canonical JSON text of a finished game's signed record, its events and moves."""
    seed = f"bench/verify/{game_type}/{players}".encode()
    table, envelopes = play_offline(game_type, players, seed, Rng(b"bench bots", players))
    key = Ed25519PrivateKey.generate()
    record = sign_record(build_record(table, envelopes, seed, []), key_id_of(key.public_key()),
                         key)
    moves = sum(e["type"] == "MovePlayed" for e in envelopes)
    return canonical_json(record), len(envelopes), moves


def measure(game_type: str, players: int, runs: int, text: bytes, events: int,
            moves: int) -> Timing:
    seconds, parse = [], []
    for _ in range(runs):
        started = time.perf_counter()
        parsed = json.loads(text)
        parse.append(time.perf_counter() - started)
        started = time.perf_counter()
        report = verify_record(parsed)
        seconds.append(time.perf_counter() - started)
        if not report.ok:
            raise SystemExit(f"{game_type}: the record did not verify: {report.first}")
    return Timing(game_type, players, len(text), events, moves, runs, min(seconds),
                  statistics.median(seconds), max(seconds), statistics.median(parse))


def command_env(cached: bool, pycache: Path) -> dict[str, str]:
    env = dict(os.environ)
    if cached:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of `argv` as a child process (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, timeout=120, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit status {done.returncode}\n"
                         f"{done.stdout.decode()}{done.stderr.decode()}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def measure_commands(text: bytes, runs: int) -> list[CommandTiming]:
    """Each command `runs` times per bytecode mode; the commands take turns, run by run, so
    that a busier moment of the box falls on all of them alike."""
    meeple = [str(MEEPLE)] if MEEPLE.exists() else [sys.executable, "-m", "cli"]
    plain = "checkout" if our_bytecode_in_tree() else "none"
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as temp:
        record_file = Path(temp) / "record.json"
        record_file.write_bytes(text)
        pycache = Path(temp) / "pycache"
        commands = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("meeple verify --help", [*meeple, "verify", "--help"]),
            ("meeple verify RECORD.json", [*meeple, "verify", str(record_file)]),
        ]
        for cached in (False, True):
            env = command_env(cached, pycache)
            if cached:
                for _, argv in commands:
                    run_once(argv, env)  # writes the cache
            timed: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in commands}
            for _ in range(runs):
                for name, argv in commands:
                    timed[name].append(run_once(argv, env))
            for name, _ in commands:
                wall = [w for w, _ in timed[name]]
                results.append(CommandTiming(
                    name, "cached" if cached else plain, runs, min(wall),
                    statistics.median(wall), max(wall),
                    statistics.median(c for _, c in timed[name])))
    return results


def our_bytecode_in_tree() -> bool:
    """Whether __pycache__ directories sit beside our sources (then "none" reads them)."""
    return any(any((REPO_ROOT / package).rglob("__pycache__")) for package in OUR_PACKAGES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="verifications per record")
    parser.add_argument("--cli-runs", type=int, default=7,
                        help="runs of each command, without and with a bytecode cache")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    info = machine()
    timings, texts = [], []
    for game_type, players in CASES:
        progress(f"{game_type}, {players} players: playing, then {args.runs} verifications ...")
        text, events, moves = signed_record(game_type, players)
        texts.append(text)
        timings.append(measure(game_type, players, args.runs, text, events, moves))
    progress(f"meeple verify of the {CASES[0][1]}-player {CASES[0][0]} record: "
             f"{args.cli_runs} runs of each command, without and with a bytecode cache ...")
    commands = measure_commands(texts[0], args.cli_runs)
    print_machine(info)
    stale = " (make wrote our bytecode at install: 'checkout' runs read it)" \
        if our_bytecode_in_tree() else ""
    print(f"  {'bytecode':<12} PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '(not set)')} here{stale}")
    print()
    print(f"{'game':<20} {'players':>7} {'record':>10} {'events':>6} {'moves':>6} "
          f"{'min s':>7} {'median s':>8} {'max s':>7} {'json.loads s':>12}")
    for t in timings:
        print(f"{t.game:<20} {t.players:>7} {t.record_bytes:>10,} {t.events:>6} {t.moves:>6} "
              f"{t.min_s:>7.3f} {t.median_s:>8.3f} {t.max_s:>7.3f} {t.parse_median_s:>12.3f}")
    budget = timings[0]
    verdict = "within" if budget.median_s < BUDGET_SECONDS else "OVER"
    print(f"\n5-player Res Publica: median {budget.median_s:.3f} s, {verdict} the "
          f"{BUDGET_SECONDS:.0f} s budget")
    print(f"\n{'command (a new process each run)':<34} {'bytecode':<8} {'min s':>7} "
          f"{'median s':>8} {'max s':>7} {'cpu s':>7}")
    for c in commands:
        print(f"{c.command:<34} {c.bytecode:<8} {c.min_s:>7.3f} {c.median_s:>8.3f} "
              f"{c.max_s:>7.3f} {c.cpu_median_s:>7.3f}")
    print()
    for c in commands:
        if c.command == "meeple verify RECORD.json":
            verdict = "within" if c.median_s < CLI_BUDGET_SECONDS else "OVER"
            cache = {"cached": "with a bytecode cache", "none": "no bytecode cache",
                     "checkout": "as make installs it"}[c.bytecode]
            print(f"meeple verify, 5-player Res Publica, {cache}: median {c.median_s:.3f} s "
                  f"wall, {verdict} the {CLI_BUDGET_SECONDS} s budget")
    if args.json:
        args.json.write_text(json.dumps({"machine": info,
                                         "timings": [asdict(t) for t in timings],
                                         "commands": [asdict(c) for c in commands]},
                                        indent=2))


if __name__ == "__main__":
    main()
