"""How long `events.records.verify.verify_record` takes on a finished game's record.

    .venv/bin/python -m bench.verify [--runs 20] [--json FILE]

No server: each game is played offline (events.application.offline, random legal moves, the same
deciders and sealing as the server), its complete record built and signed, then verified
`--runs` times in this process: signature, hash chain, seed, and every move re-executed.
Cases: a 5-player Res Publica game (the budget: under one second) and a 7-player Asking
for Trobils game, the largest table the games allow. Reported: record size (canonical JSON),
events, moves, and min / median / max seconds per verification, plus how long parsing the
record's JSON text takes (a verifier reading a file does that first).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.harness import machine, print_machine, progress
from events.application.offline import play_offline
from events.domain.envelope import canonical_json
from events.records.keys import key_id_of
from events.records.record import build_record, sign_record
from events.records.verify import verify_record
from games.rng import Rng

CASES = (("res-publica-2230ad", 5), ("asking-for-trobils", 7))
BUDGET_SECONDS = 1.0  # for the 5-player Res Publica record


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


def measure(game_type: str, players: int, runs: int) -> Timing:
    seed = f"bench/verify/{game_type}/{players}".encode()
    table, envelopes = play_offline(game_type, players, seed, Rng(b"bench bots", players))
    key = Ed25519PrivateKey.generate()
    record = sign_record(build_record(table, envelopes, seed, []), key_id_of(key.public_key()),
                         key)
    text = canonical_json(record)
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
    moves = sum(e["type"] == "MovePlayed" for e in envelopes)
    return Timing(game_type, players, len(text), len(envelopes), moves, runs, min(seconds),
                  statistics.median(seconds), max(seconds), statistics.median(parse))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="verifications per record")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    info = machine()
    timings = []
    for game_type, players in CASES:
        progress(f"{game_type}, {players} players: playing, then {args.runs} verifications ...")
        timings.append(measure(game_type, players, args.runs))
    print_machine(info)
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
    if args.json:
        args.json.write_text(json.dumps({"machine": info,
                                         "timings": [asdict(t) for t in timings]}, indent=2))


if __name__ == "__main__":
    main()
